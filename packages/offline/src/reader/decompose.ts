/**
 * Questions as people write them, brought to one shape the reader can chain (a topic or a sentence
 * set apart before the question is put back in place by setups.ts):
 * - an entity named only by a description with a relative or participle clause ("the shipyard
 *   that built the Orsa", "the man leading the hull team", "whoever founded the club") becomes a
 *   sub-question ("Which shipyard built the Orsa?") whose answer is put in its place.
 * Both read the parse (POS tags, relative pronouns, punctuation), not any question template.
 */
import { DESCRIPTOR_TYPES } from '../lexicon.js';
import { spanText, type Token } from '../nlp.js';
import {
  clauseEnd,
  isCapital,
  isWord,
  objectRelative,
  PARTICIPLE_LINKS,
  reducedRelative,
} from './clause-end.js';
import { MAX_WORDS, MIN_WORDS } from './comparatives.js';
import { relationOf } from './kinship.js';

export const RELATIVE = new Set(['who', 'that', 'which', 'whom', 'where', 'whose']);
export const PERSON_HEADS = new Set(
  'person man woman one someone somebody people guy lady boy girl individual'.split(' '),
);
/**
 * Nouns that say no more of a place than that it is one: a description headed by one ("the town
 * where X died") is satisfied by any place, while "the county where …" wants a county.
 */
export const GENERIC_PLACES: ReadonlySet<string> = new Set(
  'place town city village area site location spot'.split(' '),
);
export const WH_START = new Set('who whom whose what which where when how why'.split(' '));
/** Words that end a clause's object: the main clause's verb or a question mark. */

export { isCapital, isWord, misreadVerb } from './clause-end.js';

export const isPersonNoun = (lemma: string): boolean =>
  PERSON_HEADS.has(lemma) ||
  relationOf(lemma) !== null ||
  DESCRIPTOR_TYPES[lemma] === 'person' ||
  // An agent noun ("carpenter", "sculptor", "chemist") not known as a kind of thing.
  (DESCRIPTOR_TYPES[lemma] === undefined && /.{3}(er|or|ist)$/.test(lemma));

/** A description's first word in lower case unless it is a name ("The club" → "the club"). */
export function lowerFirst(text: string, first: Token): string {
  if (
    first.pos === 'PROPN' ||
    (first.pos !== 'DET' && first.pos !== 'PRON' && !/^whoever$/i.test(first.value))
  )
    return text;
  return text.charAt(0).toLowerCase() + text.slice(1);
}

export const capitalise = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** An entity a question names by a description with a clause, and the sub-question that finds it. */
export interface Description {
  /** Token range of the whole description ("the shipyard that built the Orsa"). */
  start: number;
  end: number;
  /** The question whose answer is the entity ("Which shipyard built the Orsa?"). */
  question: string;
  /** The head noun (lemma) the description gives the entity ("shipyard"), or null for a person. */
  head: string | null;
  /** Every head of a coordination ("composer, organist and teacher"): the entity is one of them. */
  kinds?: string[];
}

/** Prepositions after which a past participle starts a reduced relative clause ("married to …"). */

/**
 * The innermost description of the question whose clause names something ("the N who/that/which/
 * where …", "the N leading …", "the N built by …", "whoever …"). null when there is none.
 */
export function findDescription(tokens: readonly Token[]): Description | null {
  const found: Description[] = [];
  for (let k = 1; k < tokens.length - 1; k++) {
    const t = tokens[k]!;
    const head = tokens[k - 1]!;
    let clauseStart = -1;
    let connector = '';
    let headEnd = k - 1;
    if (t.normal === 'whoever' || t.normal === 'whatever') {
      clauseStart = k + 1;
      connector = t.normal === 'whoever' ? 'who' : 'which';
      headEnd = k;
    } else if (
      (t.normal === 'which' || t.normal === 'whom') &&
      head.pos === 'ADP' &&
      tokens[k - 2]?.pos === 'NOUN' &&
      !isCapital(tokens[k - 2]) &&
      // A clause follows ("in which X plays"); "the debut album of which band?" asks for the band.
      tokens.slice(k + 1).some((x) => x.pos === 'VERB' || x.pos === 'AUX')
    ) {
      // "the thriller in which X plays …", "the man for whom the hall is named".
      clauseStart = k + 1;
      connector = `${head.normal} which`;
      headEnd = k - 2;
    } else if (RELATIVE.has(t.normal) && head.pos === 'NOUN' && !isCapital(head)) {
      clauseStart = k + 1;
      connector = t.normal;
    } else if (
      PERSON_HEADS.has(head.lemma) &&
      tokens[k - 2]?.pos === 'DET' &&
      (isCapital(t) || (t.normal === 'the' && isCapital(tokens[k + 1]))) &&
      reducedRelative(tokens, isCapital(t) ? k : k + 1)
    ) {
      // "the man Clara Voss wed", "the man the medal is named after": no "that".
      clauseStart = k;
      connector = 'that';
    } else if (
      head.pos === 'NOUN' &&
      !isCapital(head) &&
      tokens[k - 2]?.pos === 'DET' &&
      isCapital(t) &&
      objectRelative(tokens, k)
    ) {
      // "When was the academy Harrow Vane attended founded?", "Who runs the yard Mira works at?"
      clauseStart = k;
      connector = 'that';
    } else if (
      head.pos === 'NOUN' &&
      !isCapital(head) &&
      (t.pos === 'VERB' || t.pos === 'ADJ') &&
      (/ing$/.test(t.normal) ||
        // "the ship built by …", "the composer married to …", "the hall opened in 1911".
        // ("Which rivers meet in X?": a bare form in -t is the main verb, no participle.)
        (/(ed|en|t)$/.test(t.normal) &&
          (t.normal !== t.lemma || /ed$/.test(t.normal)) &&
          PARTICIPLE_LINKS.has(tokens[k + 1]?.normal ?? '')))
    ) {
      clauseStart = k;
      connector = /ing$/.test(t.normal) ? 'is' : 'was';
    }
    if (clauseStart < 0) continue;
    // The head noun phrase: determiners, adjectives, nouns and a possessive before the head.
    let start = headEnd;
    // Other heads of a coordination: "the English composer, organist and teacher who …".
    const others: string[] = [];
    if (t.normal !== 'whoever' && t.normal !== 'whatever') {
      const joins = (i: number): boolean =>
        /^(,|and|or)$/.test(tokens[i]?.normal ?? '') &&
        tokens[i - 1]?.pos === 'NOUN' &&
        !isCapital(tokens[i - 1]) &&
        /^(ADJ|NOUN)$/.test(tokens[i + 1]?.pos ?? '');
      // "the English composer", "the Arctic Tern album": a name between the determiner and a
      // common noun.
      const people = (i: number): boolean => {
        if (tokens[i]?.pos !== 'PROPN') return false;
        let [a, b] = [i, i];
        while (tokens[a - 1]?.pos === 'PROPN') a--;
        while (tokens[b + 1]?.pos === 'PROPN') b++;
        return tokens[a - 1]?.pos === 'DET' && !isCapital(tokens[b + 1]);
      };
      while (
        start - 1 >= 0 &&
        ((/^(DET|ADJ|NOUN|NUM)$/.test(tokens[start - 1]!.pos) && !WH_START.has(tokens[start - 1]!.normal)) ||
          joins(start - 1) ||
          people(start - 1))
      ) {
        start--;
        if (joins(start)) others.push(tokens[start - 1]!.lemma);
        // A determiner opens the phrase: "Who captains the ferry built by …" (a verb the tagger
        // read as a plural noun stands before it).
        if (tokens[start]!.pos === 'DET') break;
      }
      if (start === 0 && WH_START.has(tokens[0]!.normal)) continue;
    }
    const end = clauseEnd(tokens, clauseStart);
    if (end < clauseStart) continue;
    // "X married a composer who conducted *which orchestra*?": the question's own wh-phrase stands
    // in the clause, so the clause is what is asked, not a description of something known.
    if (asksInside(tokens, clauseStart, end)) continue;
    // "Which ship had a captain who retired later, A or B?": a comparative in the clause is what
    // the options are compared on, not a description to find alone.
    if (comparedOnClause(tokens, clauseStart, end)) continue;
    const headNoun =
      t.normal === 'whoever' ? 'person' : t.normal === 'whatever' ? 'thing' : tokens[headEnd]!.lemma;
    // The head with its modifiers ("research vessel"), without the determiner.
    let modifiers = start;
    while (modifiers < headEnd && tokens[modifiers]!.pos === 'DET') modifiers++;
    const headPhrase =
      modifiers < headEnd ? `${spanText(tokens, modifiers, headEnd - 1)} ${headNoun}` : headNoun;
    const clause = spanText(tokens, clauseStart, end);
    let question: string;
    if (others.length > 0 && connector !== 'where')
      // "the composer, organist and teacher who …": asked of whoever or whatever it is.
      question = `${[headNoun, ...others].some(isPersonNoun) ? 'Who' : 'What'} ${connector === 'is' || connector === 'was' ? `${connector} ` : ''}${clause}?`;
    else if (PERSON_HEADS.has(headNoun) && connector !== 'where')
      question = `Who ${connector === 'who' || connector === 'that' ? '' : `${connector} `}${clause}?`;
    else if (connector === 'where') question = `Which ${headPhrase} is where ${clause}?`;
    else if (connector.endsWith(' which'))
      question = `${capitalise(connector.slice(0, -6))} which ${headPhrase} ${clause}?`;
    else if (connector === 'is' || connector === 'was')
      question = `Which ${headPhrase} ${connector} ${clause}?`;
    else if (CONTAINS.has(tokens[clauseStart]!.lemma) && isCapital(tokens[clauseStart + 1]))
      // "the municipality that includes Stavby": the one Stavby is in ("… a village in Orrvik").
      question = `Which ${headPhrase} is ${spanText(tokens, clauseStart + 1, end)} in?`;
    else question = `Which ${headPhrase} ${clause}?`;
    found.push({
      start,
      end,
      question: question.replace(/\s+/g, ' ').replace(/ \?$/, '?'),
      head: PERSON_HEADS.has(headNoun) || headNoun === 'thing' ? null : headNoun,
      ...(others.length > 0 ? { kinds: [headNoun, ...others] } : {}),
    });
  }
  const of = ofDescription(tokens) ?? withDescription(tokens) ?? fromDescription(tokens);
  if (of && !found.some((d) => d.start >= of.start)) found.push(of);
  // The innermost: the one that starts last.
  return found.length ? found[found.length - 1]! : null;
}

/** Whether the clause `start`..`end` holds a comparative word and the question names options outside it ("…, A or B?"). */
function comparedOnClause(tokens: readonly Token[], start: number, end: number): boolean {
  const comparative = tokens
    .slice(start, end + 1)
    .some((t) => MIN_WORDS.has(t.normal) || MAX_WORDS.has(t.normal));
  return comparative && tokens.some((t, k) => t.normal === 'or' && (k < start || k > end));
}

/**
 * "The university with its main campus in Corrow has what fight song?": a subject named by what it
 * has, found by a sub-question ("Which university has its main campus in Corrow?"). Only as the
 * subject opening the question, before the main verb: after a verb, "with" is often the verb's
 * ("shared the prize with …").
 */
function withDescription(tokens: readonly Token[]): Description | null {
  if (tokens[0]?.pos !== 'DET') return null;
  let k = 1;
  while (/^(ADJ|NOUN|NUM)$/.test(tokens[k]?.pos ?? '') && !isCapital(tokens[k])) k++;
  const head = tokens[k - 1]!;
  if (k < 2 || head.pos !== 'NOUN' || tokens[k]?.normal !== 'with') return null;
  // The clause runs to the main verb; it has none of its own but a participle ("located in …").
  let end = k + 1;
  while (
    tokens[end] &&
    isWord(tokens[end]) &&
    !(
      tokens[end]!.pos === 'AUX' ||
      (tokens[end]!.pos === 'VERB' && !PARTICIPLE_LINKS.has(tokens[end + 1]?.normal ?? ''))
    )
  )
    end++;
  const verb = tokens[end];
  if (end <= k + 1 || !verb || (verb.pos !== 'VERB' && verb.pos !== 'AUX')) return null;
  if (asksInside(tokens, k + 1, end - 1)) return null;
  return {
    start: 0,
    end: end - 1,
    question: `Which ${spanText(tokens, 1, k - 1)} has ${spanText(tokens, k + 1, end - 1)}?`,
    head: head.lemma,
  };
}

/**
 * "… the debut album of the indie band from Ostby?", "… the band behind X": a thing named by where
 * it is from or what it made, after a preposition (after a verb, "from" is often the verb's: "moved
 * the company from X to Y"), found by a sub-question ("Which indie band is from Ostby?").
 */
function fromDescription(tokens: readonly Token[]): Description | null {
  for (let k = 3; k < tokens.length - 1; k++) {
    const behind = tokens[k]!.normal === 'behind';
    if (!(tokens[k]!.normal === 'from' || behind) || !isCapital(tokens[k + 1])) continue;
    const head = tokens[k - 1]!;
    if (head.pos !== 'NOUN' || isCapital(head) || isPersonNoun(head.lemma)) continue;
    let start = k - 1;
    while (/^(ADJ|NOUN)$/.test(tokens[start - 1]?.pos ?? '') && !isCapital(tokens[start - 1])) start--;
    if (tokens[start - 1]?.pos !== 'DET' || !/^(ADP|AUX)$/.test(tokens[start - 2]?.pos ?? '')) continue;
    let end = k + 1;
    while (isCapital(tokens[end + 1])) end++;
    return {
      start: start - 1,
      end,
      // "the band behind X" made it.
      question: behind
        ? `Which ${spanText(tokens, start, k - 1)} made ${spanText(tokens, k + 1, end)}?`
        : `Which ${spanText(tokens, start, k - 1)} is ${spanText(tokens, k, end)}?`,
      head: head.lemma,
    };
  }
  return null;
}

/** Verbs of holding a part, said from the other side as "X is in …". */
const CONTAINS = new Set(['include', 'contain', 'encompass', 'comprise']);

/** Nouns for the one place a place has: "the capital of X". */
const ONE_OF_A_PLACE = new Set(['capital', 'seat', 'headquarters']);

/**
 * "the largest town of Brenna Coast", "the capital of X" inside a question that asks something else
 * of it ("What is the population of …", "When was the church in … built?"): a thing or place named
 * by what it is of a name, found by a sub-question ("What is the largest town of Brenna Coast?").
 * Not a person ("the founder of X" is a relation, chain.ts), and not the whole question.
 */
function ofDescription(tokens: readonly Token[]): Description | null {
  for (let k = tokens.length - 2; k >= 2; k--) {
    if (tokens[k]!.normal !== 'of' || !isCapital(tokens[k + 1])) continue;
    const head = tokens[k - 1]!;
    if (head.pos !== 'NOUN' || isCapital(head) || isPersonNoun(head.lemma)) continue;
    let start = k - 2;
    while (start > 0 && /^(ADJ|ADV|NOUN)$/.test(tokens[start]!.pos) && !isCapital(tokens[start])) start--;
    if (tokens[start]!.normal !== 'the') continue;
    // Only what is one of a kind in the name: "the largest town of X", "the most populous city of
    // X", "the capital of X"; "the city of X", "the western suburb of X" are X itself.
    const superlative = tokens
      .slice(start + 1, k - 1)
      .some((t) => t.normal === 'most' || (t.pos === 'ADJ' && /est$/.test(t.normal)));
    if (!superlative && !ONE_OF_A_PLACE.has(head.lemma)) continue;
    let end = k + 1;
    while (isCapital(tokens[end + 1]) || (tokens[end + 1]?.normal === 'of' && isCapital(tokens[end + 2])))
      end++;
    // The whole question ("What is the largest town of X?") is asked as it stands.
    const before = tokens.slice(0, start);
    const after = tokens.slice(end + 1).filter((t) => t.type !== 'punctuation');
    if (
      after.length === 0 &&
      before.every((t) => WH_START.has(t.normal) || t.pos === 'AUX' || t.pos === 'NOUN')
    )
      continue;
    return {
      start,
      end,
      question: `What is ${spanText(tokens, start, end)}?`,
      head: head.lemma,
    };
  }
  return null;
}

/** The question with tokens `start..end` replaced by `name`. */
export function replaceSpan(tokens: readonly Token[], start: number, end: number, name: string): string {
  // "Salt and Signal" stays one name: a lower-case "and" between names would join two.
  const one = name.replace(/(\p{Lu}[\p{L}\p{N}'’-]*) and (?=\p{Lu})/gu, '$1 And ');
  const before = start > 0 ? spanText(tokens, 0, start - 1) : '';
  const after = end + 1 < tokens.length ? spanText(tokens, end + 1, tokens.length - 1) : '';
  return `${before} ${one}${/^[?.!,]/.test(after) ? '' : ' '}${after}`.replace(/\s+/g, ' ').trim();
}

/** Whether tokens `start..end` hold an interrogative ("which orchestra", "what year", "whom"). */
export function asksInside(tokens: readonly Token[], start: number, end: number): boolean {
  for (let i = start; i <= end; i++) {
    const t = tokens[i]!;
    if ((t.normal === 'which' || t.normal === 'what') && /^(NOUN|ADJ)$/.test(tokens[i + 1]?.pos ?? ''))
      return true;
    if (t.normal === 'whom' && i > start) return true;
    // "… a company based *where*?", "… was called *what*?": a bare wh-word ending the clause after
    // its verb is asked, not relative.
    if (/^(where|when|what)$/.test(t.normal) && i === end && tokens[i - 1]?.pos === 'VERB') return true;
  }
  return false;
}
