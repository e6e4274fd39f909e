/**
 * Questions as people write them, brought to one shape the reader can chain:
 * - a topic set apart before the question and taken up by a pronoun ("The lighthouse keeper's
 *   daughter — where was she born?") is put back in its place ("where was the lighthouse keeper's
 *   daughter born?");
 * - an entity named only by a description with a relative or participle clause ("the shipyard
 *   that built the Orsa", "the man leading the hull team", "whoever founded the club") becomes a
 *   sub-question ("Which shipyard built the Orsa?") whose answer is put in its place.
 * Both read the parse (POS tags, relative pronouns, punctuation), not any question template.
 */
import { DESCRIPTOR_TYPES } from '../lexicon.js';
import { spanText, type Token } from '../nlp.js';
import { relationOf } from './kinship.js';

/** Pairs people write for one kinship relation, and the relation ("his husband or wife" → spouse). */
const EITHER_KIN: readonly [RegExp, string][] = [
  [/\b(husband or wife|wife or husband|husband\/wife|wife\/husband)\b/gi, 'spouse'],
  [/\b(mother or father|father or mother|mom or dad|dad or mom|mum or dad|dad or mum)\b/gi, 'parent'],
  [/\b(brother or sister|sister or brother)\b/gi, 'sibling'],
  [/\b(son or daughter|daughter or son)\b/gi, 'child'],
];

/**
 * Everyday wording folded to one form the question reader knows: "husband or wife" → spouse,
 * "which one's" / "which of the two's" → whose, "which aunt does X have" → "who is X's aunt". The text's words and names are otherwise kept.
 */
export function normalizeWording(question: string): string {
  let text = question
    // "Yes or no: are A and B …?", "Are A and B …, yes or no?": a yes/no question, tagged.
    .replace(/^\s*(yes or no|true or false)\s*[:,—–-]+\s*/i, '')
    .replace(/\s*[,:—–-]+\s*(yes or no|true or false)\s*\?\s*$/i, '?')
    // "A vs. B", "A versus B": the options of a comparison.
    .replace(/\s+(vs\.?|versus)\s+/gi, ' or ');
  text = text.charAt(0).toUpperCase() + text.slice(1);
  for (const [pattern, word] of EITHER_KIN) text = text.replace(pattern, word);
  // "Which aunt does Pip have through her dad?" → "Who is Pip's aunt through her dad?"
  text = text.replace(
    /^(which|what) ([a-z-]+) (?:does|did|do) (\p{Lu}[\p{L}'’-]*(?: \p{Lu}[\p{L}'’-]*)*) have\b/iu,
    (all, _wh: string, noun: string, name: string) =>
      relationOf(noun)?.every((r) => r.kind === 'kin') ? `Who is ${name}'s ${noun}` : all,
  );
  return text.replace(/\bwhich (one|of (the two|them|these|those)(?: \w+)?)['’]s\b/gi, 'whose');
}

/** Pronouns that take up a topic set apart before the question, and their possessive forms. */
const SUBJECT_PRONOUNS = new Set(['he', 'she', 'they', 'it', 'him', 'her', 'them']);
const POSSESSIVE_PRONOUNS = new Set(['his', 'its', 'their', 'hers']);
const RELATIVE = new Set(['who', 'that', 'which', 'whom', 'where', 'whose']);
const PERSON_HEADS = new Set(
  'person man woman one someone somebody people guy lady boy girl individual'.split(' '),
);
/** Nouns of places a question may take up by "there". */
const PLACE_HEADS = new Set('place city town village country state county region area venue site'.split(' '));
/**
 * Nouns that say no more of a place than that it is one: a description headed by one ("the town
 * where X died") is satisfied by any place, while "the county where …" wants a county.
 */
export const GENERIC_PLACES: ReadonlySet<string> = new Set(
  'place town city village area site location spot'.split(' '),
);
const WH_START = new Set('who whom whose what which where when how why'.split(' '));
/** Words that end a clause's object: the main clause's verb or a question mark. */
const CLAUSE_BREAK = /^[?,;:—–]$|^--$/;

const isWord = (t: Token | undefined): boolean => !!t && (t.type === 'word' || t.type === 'number');
const isCapital = (t: Token | undefined): boolean => !!t && isWord(t) && /^[\p{Lu}\p{N}]/u.test(t.value);

/**
 * "Topic — question with a pronoun?" → the question with the topic in the pronoun's place. null
 * when the question sets nothing apart, or the question part has no pronoun to take it up.
 */
export function reorderQuestion(tokens: readonly Token[]): string | null {
  // The break: a dash or colon (or a comma before a wh-word) after a topic without a verb of its own;
  // or the full stop after a sentence that introduces what the question asks about ("X has a sister.").
  let cut = -1;
  let setup: Setup | null = null;
  for (let k = 1; k < tokens.length - 2; k++) {
    const v = tokens[k]!.value;
    if (v === '.') {
      // A full stop cuts only after a sentence that introduces something.
      setup = chooseSetup(describeSetups(tokens.slice(0, k)), tokens.slice(k + 1));
      if (setup) {
        cut = k;
        break;
      }
    } else if (/^[—–:;]$|^--$/.test(v) || (v === ',' && WH_START.has(tokens[k + 1]!.normal))) {
      cut = k;
      break;
    }
  }
  if (cut < 0) return null;
  const topic = tokens.slice(0, cut);
  const rest = tokens.slice(cut + 1);
  let topicText: string;
  let head: string | null = null;
  let person = false;
  if (setup) {
    topicText = setup.description;
    head = setup.head;
    person = isPersonNoun(head);
  } else {
    // A topic is a noun phrase: a verb only inside its own relative clause ("the man who built X").
    const relative = topic.findIndex((t) => RELATIVE.has(t.normal) || t.normal === 'whoever');
    const own = relative < 0 ? topic : topic.slice(0, relative);
    if (topic.some((t) => t.normal === 'or')) return null; // "A or B: which …?" names options
    if (own.some((t, i) => (t.pos === 'VERB' || t.pos === 'AUX') && !misreadVerb(tokens, i))) {
      // A sentence set apart by a dash or semicolon introduces what the question takes up ("X
      // taught at a school — how many students does that school have?").
      setup = chooseSetup(describeSetups(topic), tokens.slice(cut + 1));
      if (!setup) return null;
      head = setup.head;
      person = isPersonNoun(head);
      topicText = setup.description;
    } else if (topic.length > 14) return null;
    else topicText = spanText(tokens, 0, cut - 1);
  }
  // "that institute", "the other grandmother": the introduced entity taken up by its noun.
  const taken = head ? takenUpAt(rest, head) : null;
  if (taken) {
    const [at, end] = taken;
    // "Who set that institute up?": the particle goes back to its verb ("who set up the institute …").
    const particle = rest[end + 1];
    const moved = !!particle && PARTICLES.has(particle.normal) && rest[at - 1]?.pos === 'VERB';
    const before = `${spanText(rest, 0, at - 1)}${moved ? ` ${particle.value}` : ''}`;
    const text = `${before} ${topicText} ${spanText(rest, end + (moved ? 2 : 1), rest.length - 1)}`;
    return capitalise(
      text
        .replace(/\s+/g, ' ')
        .replace(/ ([?.!,])/g, '$1')
        .trim(),
    );
  }
  // "… born somewhere; how often did the plague strike there?": the place in the adverb's stead.
  const there = head && PLACE_HEADS.has(head) ? rest.findIndex((t, k) => t.normal === 'there' && k > 1) : -1;
  if (there > 0) {
    const after = there + 1 < rest.length ? spanText(rest, there + 1, rest.length - 1) : '';
    const text = `${spanText(rest, 0, there - 1)} in ${topicText}${/^[?.!,]/.test(after) ? '' : ' '}${after}`;
    return capitalise(text.replace(/\s+/g, ' ').trim());
  }
  const at = rest.findIndex((t) => SUBJECT_PRONOUNS.has(t.normal) || POSSESSIVE_PRONOUNS.has(t.normal));
  if (at < 0) return null;
  // The pronoun must agree with what the sentence introduced: "it" is no uncle, "she" no ferry.
  if (head && (/^its?$/.test(rest[at]!.normal) ? person : !/^the(y|m|ir)$/.test(rest[at]!.normal) && !person))
    return null;
  // "What's her name?" asks for the person introduced.
  if (
    head &&
    /^(her|his|its|their)$/.test(rest[at]!.normal) &&
    rest[at + 1]?.lemma === 'name' &&
    /^[?.]?$/.test(rest[at + 2]?.value ?? '')
  )
    return `Who is ${topicText}?`;
  topicText = topicText.replace(/^(whoever|whatever)\b/i, (w) =>
    /^whoever$/i.test(w) ? 'the person who' : 'the thing that',
  );
  topicText =
    topicText.charAt(0).toLowerCase() === topicText.charAt(0) ? topicText : lowerFirst(topicText, tokens[0]!);
  const pronoun = rest[at]!;
  // "he or she", "his or her": one pronoun.
  let last = at;
  const isPronoun = (t: Token | undefined): boolean =>
    !!t && (SUBJECT_PRONOUNS.has(t.normal) || POSSESSIVE_PRONOUNS.has(t.normal));
  if (rest[at + 1]?.normal === 'or' && isPronoun(rest[at + 2])) last = at + 2;
  // "her" before a noun is a possessive ("what was her name?").
  const possessive =
    POSSESSIVE_PRONOUNS.has(pronoun.normal) ||
    (pronoun.normal === 'her' && /^(NOUN|ADJ)$/.test(rest[last + 1]?.pos ?? ''));
  const replacement = possessive ? `${topicText}'s` : topicText;
  let before = at > 0 ? spanText(rest, 0, at - 1) : '';
  // "who set it up?": the particle goes back to its verb before the topic takes the pronoun's
  // place ("who set up the club?").
  const particle = rest[last + 1];
  if (at > 0 && particle && PARTICLES.has(particle.normal) && rest[at - 1]!.pos === 'VERB') {
    before = `${before} ${particle.value}`;
    last++;
  }
  const after = last + 1 < rest.length ? spanText(rest, last + 1, rest.length - 1) : '';
  const text = `${before} ${replacement}${/^[?.!,]/.test(after) ? '' : ' '}${after}`;
  return capitalise(text.replace(/\s+/g, ' ').trim());
}

/** Indefinite determiners that introduce an entity ("a sister", "an institute"). */
const INDEFINITE = new Set(['a', 'an', 'some']);

/** What a sentence before the question introduces: a definite description and its head noun. */
interface Setup {
  description: string;
  head: string;
}

/** Where the question takes up a noun: "that institute", "the other yard" (from, to). */
function takenUpAt(rest: readonly Token[], head: string): [number, number] | null {
  for (let k = 0; k < rest.length - 1; k++) {
    if (!/^(that|this|the)$/.test(rest[k]!.normal)) continue;
    const n = /^(other|same)$/.test(rest[k + 1]!.normal) ? k + 2 : k + 1;
    if (rest[n]?.lemma === head) return [k, n];
  }
  return null;
}

/**
 * The entity a question takes up among those its setup introduced: the one it names by its noun
 * ("that school"), else the one its pronoun agrees with ("she": a person), else the first.
 */
function chooseSetup(setups: readonly Setup[], rest: readonly Token[]): Setup | null {
  if (setups.length <= 1) return setups[0] ?? null;
  const named = setups.find((s) => takenUpAt(rest, s.head));
  if (named) return named;
  const pronoun = rest.find((t) => SUBJECT_PRONOUNS.has(t.normal) || POSSESSIVE_PRONOUNS.has(t.normal));
  if (pronoun && !/^the(y|m|ir)$/.test(pronoun.normal)) {
    const person = !/^its?$/.test(pronoun.normal);
    return setups.find((s) => isPersonNoun(s.head) === person) ?? setups[0]!;
  }
  return setups[0]!;
}

/**
 * What a sentence before a question introduces, as definite descriptions: "X has a sister" → "the
 * sister of X"; "X was launched by a grandmother" → "the grandmother who launched X"; "X works at
 * an institute" → "the institute where X works"; "X skippers a ferry" → "the ferry that X
 * skippers"; its subject, "A chemist helped X" → "the chemist who helped X". Empty when the
 * sentence introduces nothing this way.
 */
function describeSetups(tokens: readonly Token[]): Setup[] {
  const out: Setup[] = [];
  const object = describeSetup(tokens);
  if (object) out.push(object);
  // "X was born somewhere": the place where X was born.
  const somewhere = tokens.findIndex(
    (t, k) => t.normal === 'somewhere' && tokens.slice(0, k).some((v) => v.pos === 'VERB' || v.pos === 'AUX'),
  );
  if (somewhere > 0) {
    const post =
      somewhere + 1 < tokens.length ? ` ${spanText(tokens, somewhere + 1, tokens.length - 1)}` : '';
    out.push({
      description: `the place where ${lowerFirst(spanText(tokens, 0, somewhere - 1), tokens[0]!)}${post}`,
      head: 'place',
    });
  }
  // "A chemist helped X": an indefinite subject, its verb right after its noun.
  if (INDEFINITE.has(tokens[0]?.normal ?? '')) {
    let h = 0;
    // Modifiers ("English", "marine") and nouns up to a lower-case head noun.
    while (tokens[h + 1] && /^(ADJ|NOUN|PROPN)$/.test(tokens[h + 1]!.pos)) h++;
    const verb = tokens[h + 1];
    if (
      h > 0 &&
      tokens[h]!.pos === 'NOUN' &&
      !isCapital(tokens[h]) &&
      verb &&
      (verb.pos === 'VERB' || verb.pos === 'AUX')
    ) {
      const connector = isPersonNoun(tokens[h]!.lemma) ? 'who' : 'that';
      out.push({
        description: `the ${spanText(tokens, 1, h)} ${connector} ${spanText(tokens, h + 1, tokens.length - 1)}`,
        head: tokens[h]!.lemma,
      });
    }
  }
  return out;
}

/** The object a sentence introduces ({@link describeSetups}), or null. */
function describeSetup(tokens: readonly Token[]): Setup | null {
  const i = tokens.findIndex(
    (t, k) => INDEFINITE.has(t.normal) && tokens.slice(0, k).some((v) => v.pos === 'VERB' || v.pos === 'AUX'),
  );
  if (i < 1) return null;
  let h = i;
  while (tokens[h + 1] && /^(ADJ|NOUN)$/.test(tokens[h + 1]!.pos) && !isCapital(tokens[h + 1])) h++;
  if (h === i || tokens[h]!.pos !== 'NOUN') return null;
  const noun = spanText(tokens, i + 1, h);
  const post = h + 1 < tokens.length ? ` ${spanText(tokens, h + 1, tokens.length - 1)}` : '';
  const last = tokens[i - 1]!;
  const text = (from: number, to: number): string => lowerFirst(spanText(tokens, from, to), tokens[from]!);
  let description: string | null = null;
  if (last.lemma === 'have' && i >= 2) description = `the ${noun} of ${text(0, i - 2)}`;
  else if (last.normal === 'by' && i >= 4 && tokens[i - 3]!.lemma === 'be') {
    const connector = isPersonNoun(tokens[h]!.lemma) ? 'who' : 'that';
    description = `the ${noun} ${connector} ${tokens[i - 2]!.value} ${text(0, i - 4)}`;
  } else if (last.pos === 'ADP' && i >= 2 && tokens[i - 2]!.pos === 'VERB')
    description = /^(at|in)$/.test(last.normal)
      ? `the ${noun} where ${text(0, i - 2)}`
      : `the ${noun} that ${text(0, i - 1)}`;
  else if (last.pos === 'VERB') description = `the ${noun} that ${text(0, i - 1)}`;
  return description ? { description: `${description}${post}`, head: tokens[h]!.lemma } : null;
}

/** Whether a noun names a person: "man", "someone", a relative ("sister"), a role ("director"). */
const isPersonNoun = (lemma: string): boolean =>
  PERSON_HEADS.has(lemma) ||
  relationOf(lemma) !== null ||
  DESCRIPTOR_TYPES[lemma] === 'person' ||
  // An agent noun ("carpenter", "sculptor", "chemist") not known as a kind of thing.
  (DESCRIPTOR_TYPES[lemma] === undefined && /.{3}(er|or|ist)$/.test(lemma));

/** Particles of phrasal verbs ("set up", "hand over", "pass on"). */
const PARTICLES = new Set(['up', 'down', 'out', 'off', 'over', 'away', 'back', 'on', 'in']);

/** A description's first word in lower case unless it is a name ("The club" → "the club"). */
function lowerFirst(text: string, first: Token): string {
  if (
    first.pos === 'PROPN' ||
    (first.pos !== 'DET' && first.pos !== 'PRON' && !/^whoever$/i.test(first.value))
  )
    return text;
  return text.charAt(0).toLowerCase() + text.slice(1);
}

const capitalise = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

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
      (t.pos === 'VERB' || t.pos === 'ADJ') &&
      (/ing$/.test(t.normal) || (/(ed|en|t)$/.test(t.normal) && tokens[k + 1]?.normal === 'by'))
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
      // "the English composer": a people's name between the determiner and a common noun.
      const people = (i: number): boolean =>
        tokens[i]?.pos === 'PROPN' && tokens[i - 1]?.pos === 'DET' && !isCapital(tokens[i + 1]);
      while (
        start - 1 >= 0 &&
        ((/^(DET|ADJ|NOUN|NUM)$/.test(tokens[start - 1]!.pos) && !WH_START.has(tokens[start - 1]!.normal)) ||
          joins(start - 1) ||
          people(start - 1))
      ) {
        start--;
        if (joins(start)) others.push(tokens[start - 1]!.lemma);
      }
      if (start === 0 && WH_START.has(tokens[0]!.normal)) continue;
    }
    const end = clauseEnd(tokens, clauseStart);
    if (end < clauseStart) continue;
    const headNoun = t.normal === 'whoever' ? 'person' : t.normal === 'whatever' ? 'thing' : head.lemma;
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
    else if (connector === 'is' || connector === 'was')
      question = `Which ${headPhrase} ${connector} ${clause}?`;
    else question = `Which ${headPhrase} ${clause}?`;
    found.push({
      start,
      end,
      question: question.replace(/\s+/g, ' ').replace(/ \?$/, '?'),
      head: PERSON_HEADS.has(headNoun) || headNoun === 'thing' ? null : headNoun,
      ...(others.length > 0 ? { kinds: [headNoun, ...others] } : {}),
    });
  }
  // The innermost: the one that starts last.
  return found.length ? found[found.length - 1]! : null;
}

/** A name at `k` followed within two tokens by a verb: the subject of a clause without "that". */
function reducedRelative(tokens: readonly Token[], k: number): boolean {
  let i = k;
  while (i < tokens.length && isCapital(tokens[i])) i++;
  for (let j = i; j < Math.min(tokens.length, i + 2); j++) {
    const t = tokens[j]!;
    if (t.pos === 'VERB') return true;
    if (t.pos !== 'AUX' && t.pos !== 'ADV') return false;
  }
  return false;
}

/**
 * Last token of a clause starting at `k`: its verb group, then its object or complement (a name, a
 * noun phrase, with "of"/possessive links), stopping at punctuation or at a verb that follows the
 * object (the main clause's: "the shipyard that built the Orsa *founded*").
 */
/**
 * Whether the "verb" at `i` is a noun the tagger misread: after a possessive ("Merrow's hull team"),
 * a determiner ("the hull") or a preposition ("in charge of").
 */
function misreadVerb(tokens: readonly Token[], i: number): boolean {
  const t = tokens[i]!;
  const prev = tokens[i - 1];
  if (t.pos !== 'VERB' || !prev) return false;
  return /^['’]s?$/.test(prev.value) || prev.pos === 'DET' || (prev.pos === 'ADP' && !/ing$/.test(t.normal));
}

function clauseEnd(tokens: readonly Token[], k: number): number {
  let i = k;
  let sawVerb = false;
  let sawObject = false;
  let end = -1;
  for (; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (CLAUSE_BREAK.test(t.value) || t.value === '?') break;
    const nominal = misreadVerb(tokens, i);
    if ((t.pos === 'VERB' || t.pos === 'AUX') && !nominal) {
      // A verb after the object closes the clause ("that built the Orsa *founded*"); a clause whose
      // subject comes first takes its verb after it ("where her mother *works*").
      // "was built": a participle after its auxiliary is the same verb.
      const group = tokens[i - 1]?.pos === 'AUX' && t.pos === 'VERB';
      if (sawObject && sawVerb && !group) break;
      sawVerb = true;
      end = i;
      continue;
    }
    if (!sawVerb && (t.pos === 'PRON' || t.pos === 'ADV' || t.pos === 'PART')) {
      end = i;
      continue;
    }
    if (isWord(t) || /^['’]s?$/.test(t.value) || /^["“”]$/.test(t.value)) {
      if (/^(NOUN|PROPN|NUM|ADJ|PRON)$/.test(t.pos) || isCapital(t) || nominal) sawObject = true;
      end = i;
      continue;
    }
    break;
  }
  return sawVerb || sawObject ? end : -1;
}

/** The question with tokens `start..end` replaced by `name`. */
export function replaceSpan(tokens: readonly Token[], start: number, end: number, name: string): string {
  const before = start > 0 ? spanText(tokens, 0, start - 1) : '';
  const after = end + 1 < tokens.length ? spanText(tokens, end + 1, tokens.length - 1) : '';
  return `${before} ${name}${/^[?.!,]/.test(after) ? '' : ' '}${after}`.replace(/\s+/g, ' ').trim();
}

const CONNECTOR_WH: Record<string, string> = {
  where: 'Where',
  when: 'When',
  who: 'Who',
  that: 'What',
  which: 'What',
};

/**
 * "Is Merrow Falls *the town where Hester Pellow was born*?": the description after the name that
 * ends at `nameEnd`, as a question of its own ("Where Hester Pellow was born?"); null when none
 * follows (a head noun, then where/when/who/that/which and a clause).
 */
export function describedName(tokens: readonly Token[], nameEnd: number): string | null {
  let k = nameEnd + 1;
  if (/^(the|a|an)$/.test(tokens[k]?.normal ?? '')) k++;
  let heads = 0;
  while (heads < 3 && /^(NOUN|ADJ)$/.test(tokens[k]?.pos ?? '') && !CONNECTOR_WH[tokens[k]!.normal]) {
    k++;
    heads++;
  }
  const wh = CONNECTOR_WH[tokens[k]?.normal ?? ''];
  let end = tokens.length - 1;
  while (end > k && tokens[end]!.type === 'punctuation') end--;
  return heads > 0 && wh && end > k + 1 ? `${wh} ${spanText(tokens, k + 1, end)}?` : null;
}
