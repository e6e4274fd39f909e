/**
 * Candidate answer phrases of a context sentence (names, dates, numbers, nationalities, noun
 * phrases) and how well each kind fits what a question asks for.
 */
import type { EntityAnalysis } from '../entities.js';
import { spanText, type Token } from '../nlp.js';
import { isKindByWordNet } from '../wordnet.js';
import { titleCase, wordsOf } from '../words.js';
import { COUNTRIES, COUNTRY_ALIASES, DEMONYMS } from './countries.js';
import { isPersonNoun } from './decompose.js';
import { fullDates } from './events.js';
import { namesKindOf } from './kinds.js';
import {
  clean,
  HAS_YEAR,
  NUMBER_WORDS,
  type QuestionReading,
  TIMES_WORDS,
  YEAR,
  YEAR_IN,
} from './question.js';
import { titleRange } from './titles.js';

/** Span types that are not names. */
export const NOT_NAME_TYPES: ReadonlySet<string> = new Set([
  'date',
  'year',
  'number',
  'np',
  'time',
  'money',
  'percent',
  'nationality',
  'country',
]);

const PLACE_PREPOSITIONS = new Set('in at from near of to'.split(' '));

/** A candidate answer phrase in one sentence. */
export interface Span {
  start: number;
  end: number;
  text: string;
  /** `person`, `geo`, `organization`, `work`, `event`, `other` (names); `date`, `year`, `number`, `np`. */
  type: string;
}

/**
 * What a pronoun stands for as an answer, where it stands: "In 1900 *she* married X" (a person);
 * "*It* has 420 students" (the named thing a sentence opens with "it" about). null otherwise.
 */
function pronounEntity(
  ea: EntityAnalysis,
  m: { key: string; start: number },
  sentenceStart: number,
): { type: string; name: string } | null {
  const entity = ea.byKey.get(m.key);
  const word = ea.analysis.tokens[m.start]?.normal ?? '';
  if (entity?.type === 'person' && /^(he|she)$/.test(word)) return entity;
  if (
    entity &&
    entity.type !== 'person' &&
    entity.type !== 'concept' &&
    m.start === sentenceStart &&
    word === 'it'
  )
    return entity;
  return null;
}

/** Candidate phrases of sentence `index` of an analysed context text. */
export function sentenceSpans(ea: EntityAnalysis, index: number, reading: QuestionReading): Span[] {
  const { tokens, sentences, entities: wink } = ea.analysis;
  const sentence = ea.analysis.sentences[index];
  if (!sentence || !sentences.length) return [];
  const spans: Span[] = [];
  const covered = new Uint8Array(tokens.length);
  const push = (start: number, end: number, type: string, text?: string): void => {
    const value = clean(text ?? spanText(tokens, start, end));
    if (!value || !/[\p{L}\p{N}]/u.test(value)) return;
    spans.push({ start, end, text: value, type });
  };
  // Names and noun-phrase concepts found by the entity finder.
  for (const m of ea.bySentence[index] ?? []) {
    if (m.source === 'pronoun') {
      const entity = pronounEntity(ea, m, sentence.start);
      if (entity) push(m.start, m.end, entity.type, entity.name);
      continue;
    }
    const type = ea.byKey.get(m.key)?.type ?? 'other';
    if (m.source === 'ner') continue; // dates and numbers come from wink below
    let start = m.start;
    let end = m.end;
    let text: string | undefined;
    const capital = (k: number): boolean =>
      !covered[k] && tokens[k]?.type === 'word' && /^\p{Lu}/u.test(tokens[k]!.value);
    if (type !== 'concept') {
      // A name runs on over capitalised words the tagger read as verbs or nouns ("Merrow Falls",
      // "the portrait Winter Harbour"), and a surname stands for the full name the text gives.
      while (end < sentence.end && capital(end + 1)) end++;
      // "St Ewenna's Chapel": a possessive followed by a capitalised noun is one name.
      if (/^['’]s$/.test(tokens[end + 1]?.value ?? '') && capital(end + 2)) {
        end += 2;
        while (end < sentence.end && capital(end + 1)) end++;
      }
      while (start - 1 > sentence.start && capital(start - 1) && tokens[start - 1]!.pos !== 'DET') start--;
      const name = ea.byKey.get(m.key)?.name;
      const written = spanText(tokens, start, end);
      // ("Lindholm" in "University of Lindholm" names a place of its own, not the university.)
      if (
        start === m.start &&
        end === m.end &&
        name &&
        name.length > written.length &&
        name.includes(written) &&
        !name.endsWith(` of ${written}`)
      )
        text = name;
    }
    push(start, end, type === 'concept' ? 'np' : type, text);
    // "Minister of Culture", "Institute for the Study of Northern Arts", "Songs from the
    // Lower Harbour": a name that goes on over small words to more capitalised ones is also a candidate
    // as a whole.
    if (type !== 'concept' && type !== 'person') {
      // Each step forwards ("Minister of Culture", "… of Culture of Veldmark"). Grown backwards, the
      // name has another head: "Songs from the Lower Harbour" is no place.
      const title = titleRange(tokens, start, end, sentence.start, sentence.end);
      for (const last of title.ends) push(start, last, type);
      if (title.start < start) push(title.start, title.ends.at(-1) ?? end, 'other');
    }
    if (type !== 'concept') for (let i = start; i <= end; i++) covered[i] = 1;
  }
  // Full dates as the text writes them ("4 May 1901", "May 4, 1901", "May 1901"): a date
  // question's answer, also where wink reads a life span as one duration.
  if (reading.kind === 'date' && !reading.yearOnly)
    for (const [start, end] of fullDates(tokens, sentence.start, sentence.end)) push(start, end, 'date');
  // Nationalities ("an American director") for "what nationality" and "which country … from".
  if (reading.descriptor === 'nationality' || reading.descriptor === 'country')
    for (let i = sentence.start; i <= sentence.end; i++)
      if (DEMONYMS[tokens[i]!.normal] && /^\p{Lu}/u.test(tokens[i]!.value)) {
        if (reading.descriptor === 'nationality') push(i, i, 'nationality');
        // "Which country is X from?" — "a Czech director" says the Czech Republic.
        else push(i, i, 'country', titleCase(DEMONYMS[tokens[i]!.normal]!).replace(/ And /g, ' and '));
      }
  // wink's dates and numbers.
  for (const e of wink) {
    if (e.start < sentence.start || e.end > sentence.end) continue;
    const text = spanText(tokens, e.start, e.end);
    if (e.type === 'DATE') {
      for (let i = e.start; i <= e.end; i++) covered[i] = 1;
      const years = text.match(YEAR_IN);
      if (reading.yearOnly && years) for (const y of years) push(e.start, e.end, 'year', y);
      else push(e.start, e.end, years && years.length === 1 && wordsOf(text).length === 1 ? 'year' : 'date');
    } else if (e.type === 'DURATION' && HAS_YEAR.test(text)) {
      // "Since 2015", "from 1998 to 2020", "(4 May 1901 – 2 June 1980)": each year where it stands.
      for (let i = e.start; i <= e.end; i++) {
        covered[i] = 1;
        if (YEAR.test(tokens[i]!.value)) push(i, i, 'year');
      }
    } else if (
      (e.type === 'CARDINAL' || e.type === 'MONEY' || e.type === 'PERCENT' || e.type === 'DURATION') &&
      // A number says its value: digits or a number word ("minutes" alone is no amount).
      tokens.slice(e.start, e.end + 1).some((t) => t.type === 'number' || NUMBER_WORDS.has(t.normal))
    ) {
      let start = e.start;
      // "about 42", "over 300": the number.
      while (start < e.end && (tokens[start]!.pos === 'ADV' || tokens[start]!.pos === 'ADP')) start++;
      let end = e.end;
      if (reading.withUnit && tokens[end + 1]?.pos === 'NOUN') end++;
      // "£4.00", "$12": the currency sign is part of the amount.
      if (CURRENCY.test(tokens[start - 1]?.value ?? '')) start--;
      push(start, end, 'number');
      for (let i = e.start; i <= e.end; i++) covered[i] = 1;
    }
  }
  // Bare years and numbers wink left out.
  for (let i = sentence.start; i <= sentence.end; i++) {
    const t = tokens[i]!;
    if (covered[i]) continue;
    if (YEAR.test(t.value)) push(i, i, 'year');
    else if (
      t.type === 'number' ||
      NUMBER_WORDS.has(t.normal) ||
      // "How many times …?": "twice" is a count of times.
      (reading.descriptor === 'time' && TIMES_WORDS.has(t.normal))
    ) {
      let end = i;
      if (reading.withUnit && tokens[i + 1]?.pos === 'NOUN') end = i + 1;
      push(CURRENCY.test(tokens[i - 1]?.value ?? '') ? i - 1 : i, end, 'number');
    }
  }
  // Noun phrases (adjectives and nouns ending in a noun) outside names, for "what" questions.
  if (reading.kind === 'thing') nounPhraseSpans(tokens, sentence, reading.descriptor, covered, push);
  return spans;
}

/**
 * The noun phrases of a sentence outside names (adjectives and nouns ending in a noun), for "what"
 * questions, and the words that name a kind of what a which/what question asks for.
 */
function nounPhraseSpans(
  tokens: readonly Token[],
  sentence: { start: number; end: number },
  descriptor: string | null,
  covered: Uint8Array,
  push: (start: number, end: number, type: string) => void,
): void {
  // "teaches German" for "What language …": a capitalised word the finder left out that names a
  // kind of what is asked.
  if (descriptor)
    for (let k = sentence.start; k <= sentence.end; k++)
      if (
        !covered[k] &&
        tokens[k]!.type === 'word' &&
        /^\p{Lu}/u.test(tokens[k]!.value) &&
        namesKindOf(tokens, k, k, descriptor)
      ) {
        push(k, k, 'np');
        covered[k] = 1;
      }
  let i = sentence.start;
  while (i <= sentence.end) {
    const t = tokens[i]!;
    if (covered[i] || !(t.pos === 'ADJ' || t.pos === 'NOUN') || t.type !== 'word') {
      i++;
      continue;
    }
    let end = i;
    // "the shop counter out of …": after a determiner and a singular noun, a base-form "verb"
    // before a preposition or the end heads the phrase (a verb would agree: "the shop counters").
    const headNoun = (k: number): boolean => {
      const w = tokens[k]!;
      if (w.pos === 'NOUN') return true;
      const before = tokens[k - 1]!;
      const after = tokens[k + 1];
      return (
        w.pos === 'VERB' &&
        w.normal === w.lemma &&
        !/s$/.test(w.normal) &&
        before.pos === 'NOUN' &&
        !/s$/.test(before.normal) &&
        tokens[i - 1]?.pos === 'DET' &&
        (!after || after.pos === 'ADP' || after.pos === 'PUNCT')
      );
    };
    while (
      end + 1 <= sentence.end &&
      !covered[end + 1] &&
      tokens[end + 1]!.type === 'word' &&
      (tokens[end + 1]!.pos === 'ADJ' || headNoun(end + 1))
    )
      end++;
    let last = end;
    while (last >= i && !headNoun(last)) last--;
    if (last >= i && last - i < 5 && !tokens[last]!.stop) {
      push(i, last, 'np');
      // "coaches rowing" for "What sport …": the kind asked for is the head alone.
      if (last > i && descriptor && namesKindOf(tokens, last, last, descriptor)) push(last, last, 'np');
      // "a professional ice hockey team" for "What sport …": the modifier that names a kind of it.
      if (last > i && descriptor && !namesKindOf(tokens, i, last, descriptor))
        for (let m = last - 1; m >= i; m--)
          if (tokens[m]!.pos === 'NOUN' && namesKindOf(tokens, Math.max(i, m - 1), m, descriptor)) {
            const twoWords =
              m > i && isKindByWordNet(`${tokens[m - 1]!.lemma} ${tokens[m]!.lemma}`, descriptor);
            push(twoWords ? m - 1 : m, m, 'np');
            break;
          }
      // "a thriller film" for "What type of film …": the kind without the noun asked for.
      if (last > i && tokens[last]!.lemma === descriptor) push(i, last - 1, 'np');
    }
    i = end + 1;
  }
}

/** Currency signs written before an amount. */
const CURRENCY = /^[£$€¥₹]$/;

/** Units of a length of time. */
const DURATION = /^(seconds?|minutes?|hours?|days?|weeks?|fortnights?|months?|years?|decades?|centuries)$/i;

/** How well a span's type fits the question's kind (0 = never the answer). */
export function typeFit(reading: QuestionReading, span: Span, tokens: readonly Token[]): number {
  const t = span.type;
  const before = tokens[span.start - 1]?.normal ?? '';
  const name = !NOT_NAME_TYPES.has(t);
  if (t === 'country') return reading.descriptor === 'country' ? 0.9 : 0;
  if (t === 'nationality')
    return reading.descriptor === 'nationality' ? 1 : reading.descriptor === 'country' ? 0.5 : 0;
  if (reading.descriptor === 'nationality') return name ? 0.2 : t === 'np' ? 0.05 : 0;
  // "an Ostish footballer": a one-word name before a person noun says where the person is from.
  const next = tokens[span.end + 1];
  if (
    span.start === span.end &&
    t === 'other' &&
    next?.pos === 'NOUN' &&
    isPersonNoun(next.lemma) &&
    /^(a|an)$/.test(before)
  )
    return 0.1;
  switch (reading.kind) {
    case 'person':
      if (t === 'person') return 1;
      if (t === 'other') return 0.6;
      if (t === 'organization') return 0.45;
      if (t === 'work' || t === 'event') return 0.25;
      if (t === 'geo') return 0.15;
      return t === 'np' ? 0.05 : 0;
    case 'place': {
      if (t === 'geo') return 1;
      // A country under another name ("Burma", "Persia").
      const lower = span.text.toLowerCase();
      if (name && (COUNTRY_ALIASES[lower] || COUNTRIES.has(lower))) return 1;
      // A one-word name before a common noun qualifies it ("Western innovations"): not a place.
      const attributive =
        span.start === span.end && t === 'other' && next?.pos === 'NOUN' && /^\p{Ll}/u.test(next.value);
      if (attributive) return 0.2;
      if (name && PLACE_PREPOSITIONS.has(before)) return 0.7;
      // "Which river …": a name the finder could not type may well be one.
      if (t === 'other' && reading.descriptor) return 0.6;
      if (name) return t === 'organization' ? 0.35 : 0.25;
      return t === 'np' ? 0.05 : 0;
    }
    case 'date':
      // "forty years", "three weeks": a length of time, not a point in it.
      if (
        DURATION.test(span.text.split(/\s+/).pop() ?? '') ||
        DURATION.test(tokens[span.end + 1]?.normal ?? '')
      )
        return 0;
      if (reading.yearOnly) return t === 'year' ? 1 : t === 'date' ? 0.5 : 0;
      // A date with its year is the fullest answer; a bare year next; a day without a year last.
      if (t === 'date') return HAS_YEAR.test(span.text) ? 1 : 0.6;
      if (t === 'year') return 0.9;
      return t === 'number' ? 0.1 : 0;
    case 'number':
      if (t === 'number') return 1;
      if (t === 'year') return 0.15;
      return t === 'date' ? 0.1 : 0;
    default: {
      // "What kind of artist was X?": a common noun naming a kind of artist, not a name.
      if (reading.kindOf && reading.descriptor) {
        if (t !== 'np') return 0.1;
        // "a thriller film": the words before the noun asked for say the kind.
        if (tokens[span.end + 1]?.lemma === reading.descriptor) return 1;
        if (tokens[span.end]?.lemma === reading.descriptor) return 0.5;
        return namesKindOf(tokens, span.start, span.end, reading.descriptor) ? 1 : 0.3;
      }
      // "What instrument does she play?": "the cello" is a kind of instrument. Below a name: "Which
      // film …" asks for a named one, and "a documentary" is a film too.
      if (reading.descriptor && t === 'np' && namesKindOf(tokens, span.start, span.end, reading.descriptor))
        return 0.6;
      if (reading.expectedType) {
        if (t === reading.expectedType) return 1;
        if (reading.expectedType === 'date') return t === 'year' ? 1 : 0.05;
        if (name) return 0.6;
        return t === 'np' ? 0.3 : 0.05;
      }
      if (name) return t === 'work' ? 0.9 : 0.8;
      // "Which vessel …?" asks for one named vessel; a plural common noun ("ferries") names none.
      if (t === 'np')
        return reading.descriptor && /s$/.test(span.text) && !/ss$/.test(span.text) ? 0.15 : 0.45;
      return t === 'date' || t === 'year' ? 0.25 : 0.15;
    }
  }
}
