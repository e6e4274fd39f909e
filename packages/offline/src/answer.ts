/**
 * Extracting an answer phrase from context sentences: the question's type (who / where / when /
 * how many / which X / yes-no / "A or B" comparison), candidate spans of the matching type in the
 * context sentences, and a score from the sentence's support, the span's type, its distance to the
 * question's words in the sentence, and whether the question already names it.
 */
import type { EntityAnalysis } from './entities.js';
import { pairedNames, type Relation, relationOf } from './hops.js';
import {
  COUNTRY_ALIASES,
  DEMONYMS,
  DESCRIPTOR_TYPES,
  NAME_PARTICLES,
  PERSON_TITLES,
  ROMAN_NUMERAL,
} from './lexicon.js';
import { spanText, type Token } from './nlp.js';
import { isVerbLike, questionTarget } from './query.js';
import { containsWords, contentWords, wordsOf } from './words.js';

/** What kind of phrase a question asks for. */
export type QuestionKind = 'person' | 'place' | 'date' | 'number' | 'polar' | 'choice' | 'thing';

/** A question read for answer extraction. */
export interface QuestionReading {
  kind: QuestionKind;
  /** The noun a which/what question asks for (`'film'`), lemma, or null. */
  descriptor: string | null;
  /** Entity type the answer should have (from the wh-word or descriptor), or null. */
  expectedType: string | null;
  /** "What year" / "which year": the answer is a year, not a full date. */
  yearOnly: boolean;
  /** "How long / far / tall": keep the unit after the number. */
  withUnit: boolean;
  /** The two compared phrases of a choice question ("A or B"), as the question writes them. */
  options: string[];
  /** For a choice: whether the smaller (earlier) or larger (later) value wins, when the question says. */
  direction: 'min' | 'max' | null;
  /** For a choice by dates: read the death year (the later date of a life span) rather than the first. */
  deathDate: boolean;
  /** For a choice: compare life spans ("Who lived longer, A or B?"): death year minus birth year. */
  lifespan: boolean;
  /** Polar question asking whether two things share a property ("the same nationality"). */
  same: boolean;
  /** The noun asked for is plural ("Which rivers …"): the answer may be a list. */
  plural: boolean;
  /** Token range of the wh-phrase, or -1 when there is none. */
  whStart: number;
  whEnd: number;
}

const AUXILIARIES = new Set(
  'is are was were do does did has have had can could will would should may might am'.split(' '),
);
const MIN_WORDS = new Set(
  'first earlier earliest older oldest before sooner fewer less least smaller smallest shorter shortest lower lowest'.split(
    ' ',
  ),
);
const MAX_WORDS = new Set(
  'last later latest younger youngest after recent recently newer newest more most larger largest bigger biggest higher highest longer longest taller tallest greater greatest'.split(
    ' ',
  ),
);
/** Comparative words that are about time (dates), not amounts. */
const TIME_WORDS = new Set(
  'first earlier earliest older oldest before sooner last later latest younger youngest after recent recently newer newest born died release released founded established formed'.split(
    ' ',
  ),
);
const WH = new Set('who whom whose what which where when why how'.split(' '));
const OPTION_CONNECTORS = new Set('of the de la le von van der del da di du and & for on in a an'.split(' '));
const NUMBER_WORDS = new Set(
  'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand million billion dozen'.split(
    ' ',
  ),
);
const YEAR = /^(1[0-9]{3}|20[0-9]{2})$/;
const YEAR_IN = /\b(1[0-9]{3}|20[0-9]{2})\b/g;
const HAS_YEAR = /\b(1[0-9]{3}|20[0-9]{2})\b/;
const MONTHS = new Set(
  'january february march april may june july august september october november december'.split(' '),
);
const PLACE_PREPOSITIONS = new Set('in at from near of to'.split(' '));

const clean = (s: string): string =>
  s
    .replace(/^[\s"'“”‘’(,]+|[\s"'“”‘’),.;:?!]+$/gu, '')
    .replace(/\s+/g, ' ')
    .trim();

export { wordsOf };

/** The compared phrases of "…, A or B?" / "Did A or B …?", or [] when the question compares nothing. */
function choiceOptions(tokens: readonly Token[]): string[] {
  let or = -1;
  for (let i = tokens.length - 1; i > 0; i--) {
    if (tokens[i]!.normal === 'or') {
      or = i;
      break;
    }
  }
  if (or < 0) return [];
  let last = tokens.length - 1;
  while (last > or && tokens[last]!.type === 'punctuation') last--;
  const isCap = (t: Token | undefined): boolean =>
    !!t && (/^[\p{Lu}\p{N}"“]/u.test(t.value) || t.pos === 'PROPN' || t.pos === 'NUM');
  // The comma that opens the options: the first one after which only a name runs up to "or" (a
  // name may hold commas: "Which came first, Love, Honor and Oh-Baby! or …"); else the last one.
  let comma = -1;
  for (let i = or - 1; i >= 0; i--) {
    if (tokens[i]!.value === ',') {
      comma = i;
      break;
    }
  }
  for (let i = 1; i < comma; i++) {
    if (tokens[i]!.value !== ',' || !isCap(tokens[i + 1])) continue;
    let name = true;
    for (let k = i + 1; k < or && name; k++) {
      const t = tokens[k]!;
      if (t.type === 'word' && !isCap(t) && !OPTION_CONNECTORS.has(t.normal)) name = false;
    }
    if (name) {
      comma = i;
      break;
    }
  }
  let leftStart: number;
  let rightEnd: number;
  if (comma >= 0) {
    leftStart = comma + 1;
    rightEnd = last;
  } else {
    // No comma: the capitalised runs on each side of "or" (connectors inside a name allowed).
    leftStart = or;
    for (let i = or - 1; i >= 0; i--) {
      const t = tokens[i]!;
      if (isCap(t) || (OPTION_CONNECTORS.has(t.normal) && isCap(tokens[i - 1]))) leftStart = i;
      else if (t.type === 'punctuation' && /["”’']/.test(t.value)) leftStart = i;
      else break;
    }
    // The question's opening word is capitalised, not a name ("Is A or B public?").
    while (
      leftStart < or &&
      (AUXILIARIES.has(tokens[leftStart]!.normal) || WH.has(tokens[leftStart]!.normal))
    )
      leftStart++;
    rightEnd = or;
    for (let i = or + 1; i <= last; i++) {
      const t = tokens[i]!;
      if (isCap(t) || (OPTION_CONNECTORS.has(t.normal) && isCap(tokens[i + 1]))) rightEnd = i;
      else if (t.type === 'punctuation' && /["“‘']/.test(t.value)) rightEnd = i;
      else break;
    }
  }
  const left = clean(spanText(tokens, leftStart, or - 1));
  const right = clean(spanText(tokens, or + 1, rightEnd));
  if (!left || !right || wordsOf(left).length > 12 || wordsOf(right).length > 12) return [];
  return [left, right];
}

/** Read a question: its kind, the noun it asks for, and the compared phrases of a choice. */
export function readQuestion(tokens: readonly Token[]): QuestionReading {
  const target = questionTarget(tokens);
  const firstWord = tokens.find((t) => t.type === 'word');
  const normals = new Set(tokens.map((t) => t.normal));
  const reading: QuestionReading = {
    kind: 'thing',
    descriptor: target.descriptor,
    expectedType: target.expectedType,
    yearOnly: false,
    withUnit: false,
    options: [],
    direction: null,
    deathDate: false,
    lifespan: false,
    same: normals.has('same'),
    whStart: target.start,
    whEnd: target.end,
    plural: false,
  };
  const options = choiceOptions(tokens);
  const polar = !!firstWord && AUXILIARIES.has(firstWord.normal) && (target.wh === null || target.start > 3);
  if (options.length === 2 && (polar || target.wh !== null)) {
    reading.kind = 'choice';
    reading.options = options;
    // The comparative word decides which value wins ("born first" → the earlier date).
    const optionWords = new Set(options.flatMap(wordsOf));
    for (const t of tokens) {
      if (optionWords.has(t.normal)) continue;
      if (MIN_WORDS.has(t.normal)) reading.direction ??= 'min';
      else if (MAX_WORDS.has(t.normal)) reading.direction ??= 'max';
      if (t.lemma === 'die' || t.normal === 'death' || t.normal === 'died') reading.deathDate = true;
      if (t.lemma === 'live' || t.normal === 'lived' || t.normal === 'lifespan' || t.normal === 'life')
        reading.lifespan = true;
    }
    // "lived longer" compares spans; "lived later" / "lived first" compare dates.
    if (reading.lifespan && !normals.has('longer') && !normals.has('shorter') && !normals.has('longest'))
      reading.lifespan = false;
    return reading;
  }
  if (polar) {
    reading.kind = 'polar';
    return reading;
  }
  const wh = target.wh;
  let descriptor = target.descriptor;
  if ((wh === 'what' || wh === 'which') && descriptor) {
    // The noun asked for is a common noun: "Which country Lotte Haas is from?" asks for a country.
    let k = target.start + 1;
    let noun: string | null = null;
    while (tokens[k] && (tokens[k]!.pos === 'ADJ' || tokens[k]!.pos === 'NOUN') && !isVerbLike(tokens, k)) {
      if (tokens[k]!.pos === 'NOUN') {
        noun = tokens[k]!.lemma;
        reading.plural = tokens[k]!.normal !== noun && /s$/.test(tokens[k]!.normal);
      }
      k++;
    }
    if (noun !== descriptor) {
      descriptor = noun;
      reading.descriptor = noun;
      reading.expectedType = noun ? (DESCRIPTOR_TYPES[noun] ?? null) : null;
    }
  }
  if ((wh === 'what' || wh === 'which') && !descriptor) {
    // "What is the date of death of A?", "What was the place of birth of B?": the noun after the
    // copula is what the question asks for.
    let k = target.end + 1;
    if (tokens[k]?.pos === 'AUX') {
      k++;
      while (tokens[k] && (tokens[k]!.pos === 'DET' || tokens[k]!.pos === 'ADJ')) k++;
      if (tokens[k]?.pos === 'NOUN') {
        descriptor = tokens[k]!.lemma;
        reading.descriptor = descriptor;
        reading.expectedType = DESCRIPTOR_TYPES[descriptor] ?? null;
      }
    }
  }
  if (wh === 'who' || wh === 'whom' || wh === 'whose') reading.kind = 'person';
  else if (wh === 'where') reading.kind = 'place';
  else if (wh === 'when') reading.kind = 'date';
  else if (
    wh === 'how' &&
    /^(many|much|old|long|far|big|large|tall)$/.test(tokens[target.start + 1]?.normal ?? '')
  ) {
    reading.kind = 'number';
    reading.withUnit = /^(long|far|big|large|tall)$/.test(tokens[target.start + 1]!.normal);
  } else if (reading.expectedType === 'date') {
    reading.kind = 'date';
    reading.yearOnly = descriptor === 'year';
  } else if (reading.expectedType === 'geo') reading.kind = 'place';
  else if (reading.expectedType === 'person') reading.kind = 'person';
  return reading;
}

/** A candidate answer phrase in one sentence. */
export interface Span {
  start: number;
  end: number;
  text: string;
  /** `person`, `geo`, `organization`, `work`, `event`, `other` (names); `date`, `year`, `number`, `np`. */
  type: string;
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
    if (m.source === 'pronoun') continue;
    const type = ea.byKey.get(m.key)?.type ?? 'other';
    if (m.source === 'ner') continue; // dates and numbers come from wink below
    let start = m.start;
    let end = m.end;
    let text: string | undefined;
    if (type !== 'concept') {
      // A name runs on over capitalised words the tagger read as verbs or nouns ("Merrow Falls",
      // "the portrait Winter Harbour"), and a surname stands for the full name the text gives.
      const capital = (k: number): boolean =>
        !covered[k] && tokens[k]?.type === 'word' && /^\p{Lu}/u.test(tokens[k]!.value);
      while (end < sentence.end && capital(end + 1)) end++;
      while (start - 1 > sentence.start && capital(start - 1) && tokens[start - 1]!.pos !== 'DET') start--;
      const name = ea.byKey.get(m.key)?.name;
      const written = spanText(tokens, start, end);
      if (
        start === m.start &&
        end === m.end &&
        name &&
        name.length > written.length &&
        name.includes(written)
      )
        text = name;
    }
    push(start, end, type === 'concept' ? 'np' : type, text);
    if (type !== 'concept') for (let i = start; i <= end; i++) covered[i] = 1;
  }
  // Full dates as the text writes them ("4 May 1901", "May 4, 1901", "May 1901"): a date
  // question's answer, also where wink reads a life span as one duration.
  if (reading.kind === 'date' && !reading.yearOnly)
    for (const [start, end] of fullDates(tokens, sentence.start, sentence.end)) push(start, end, 'date');
  // Nationalities ("an American director") for "what nationality" and "which country … from".
  if (reading.descriptor === 'nationality' || reading.descriptor === 'country')
    for (let i = sentence.start; i <= sentence.end; i++)
      if (DEMONYMS[tokens[i]!.normal] && /^\p{Lu}/u.test(tokens[i]!.value)) push(i, i, 'nationality');
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
    } else if (e.type === 'CARDINAL' || e.type === 'MONEY' || e.type === 'PERCENT' || e.type === 'DURATION') {
      let start = e.start;
      // "about 42", "over 300": the number.
      while (start < e.end && (tokens[start]!.pos === 'ADV' || tokens[start]!.pos === 'ADP')) start++;
      let end = e.end;
      if (reading.withUnit && tokens[end + 1]?.pos === 'NOUN') end++;
      push(start, end, 'number');
      for (let i = e.start; i <= e.end; i++) covered[i] = 1;
    }
  }
  // Bare years and numbers wink left out.
  for (let i = sentence.start; i <= sentence.end; i++) {
    const t = tokens[i]!;
    if (covered[i]) continue;
    if (YEAR.test(t.value)) push(i, i, 'year');
    else if (t.type === 'number' || NUMBER_WORDS.has(t.normal)) {
      let end = i;
      if (reading.withUnit && tokens[i + 1]?.pos === 'NOUN') end = i + 1;
      push(i, end, 'number');
    }
  }
  // Noun phrases (adjectives and nouns ending in a noun) outside names, for "what" questions.
  if (reading.kind === 'thing') {
    let i = sentence.start;
    while (i <= sentence.end) {
      const t = tokens[i]!;
      if (covered[i] || !(t.pos === 'ADJ' || t.pos === 'NOUN') || t.type !== 'word') {
        i++;
        continue;
      }
      let end = i;
      while (
        end + 1 <= sentence.end &&
        !covered[end + 1] &&
        tokens[end + 1]!.type === 'word' &&
        (tokens[end + 1]!.pos === 'ADJ' || tokens[end + 1]!.pos === 'NOUN')
      )
        end++;
      let last = end;
      while (last >= i && tokens[last]!.pos !== 'NOUN') last--;
      if (last >= i && last - i < 5 && !tokens[last]!.stop) push(i, last, 'np');
      i = end + 1;
    }
  }
  return spans;
}

const DAY = /^(0?[1-9]|[12][0-9]|3[01])(st|nd|rd|th)?$/;

/**
 * Token ranges of the full dates in `start..end`: day month year, month day(,) year, month year.
 * The answer to "when" / "what is the date of" is the date as written, not only its year.
 */
export function fullDates(tokens: readonly Token[], start: number, end: number): [number, number][] {
  const out: [number, number][] = [];
  const month = (k: number): boolean => k <= end && MONTHS.has(tokens[k]?.normal ?? '');
  const year = (k: number): boolean => k <= end && YEAR.test(tokens[k]?.value ?? '');
  const day = (k: number): boolean => k <= end && DAY.test(tokens[k]?.normal ?? '');
  for (let i = start; i <= end; i++) {
    if (day(i) && month(i + 1) && year(i + 2)) {
      out.push([i, i + 2]);
      i += 2;
    } else if (month(i) && day(i + 1) && tokens[i + 2]?.value === ',' && year(i + 3)) {
      out.push([i, i + 3]);
      i += 3;
    } else if (month(i) && day(i + 1) && year(i + 2)) {
      out.push([i, i + 2]);
      i += 2;
    } else if (month(i) && year(i + 1) && !day(i - 1)) {
      out.push([i, i + 1]);
      i += 1;
    }
  }
  return out;
}

/** How well a span's type fits the question's kind (0 = never the answer). */
export function typeFit(reading: QuestionReading, span: Span, tokens: readonly Token[]): number {
  const t = span.type;
  const before = tokens[span.start - 1]?.normal ?? '';
  const name = !['date', 'year', 'number', 'np', 'time', 'money', 'percent', 'nationality'].includes(t);
  if (t === 'nationality')
    return reading.descriptor === 'nationality' ? 1 : reading.descriptor === 'country' ? 0.5 : 0;
  if (reading.descriptor === 'nationality') return name ? 0.2 : t === 'np' ? 0.05 : 0;
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
      // A country under another name ("Siam", "Burma").
      const lower = span.text.toLowerCase();
      if (name && (COUNTRY_ALIASES[lower] || COUNTRIES.has(lower))) return 1;
      // A one-word name before a common noun qualifies it ("Western innovations"): not a place.
      const next = tokens[span.end + 1];
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
      if (reading.expectedType) {
        if (t === reading.expectedType) return 1;
        if (reading.expectedType === 'date') return t === 'year' ? 1 : 0.05;
        if (name) return 0.6;
        return t === 'np' ? 0.3 : 0.05;
      }
      if (name) return t === 'work' ? 0.9 : 0.8;
      if (t === 'np') return 0.45;
      return t === 'date' || t === 'year' ? 0.25 : 0.15;
    }
  }
}

/** A context sentence as the answer task sees it. */
export interface AnswerSentence {
  ea: EntityAnalysis;
  /** Sentence index in `ea.analysis.sentences`. */
  index: number;
  /** Index of the context item. */
  item: number;
  text: string;
  lemmas: string[];
  /** Entity keys it mentions, with their types. */
  types: Map<string, string>;
  /** How well it matches the question on its own (0: not at all). */
  score: number;
}

/** The question, read. */
export interface AnswerQuestion {
  text: string;
  tokens: readonly Token[];
  /** Content lemmas. */
  lemmas: ReadonlySet<string>;
  /** Entity keys of the question (names, dates). */
  keys: readonly string[];
  /** The names the question mentions, as written. */
  names: readonly string[];
  reading: QuestionReading;
  /** Entities the question was led to through a relation ("the director of X" → Y): their items count most. */
  focus?: readonly string[];
  /**
   * Entities the question asks about only through a relation the context did not resolve ("X's
   * father" with no father found): a date or place in their own items is theirs, not the answer.
   */
  aside?: readonly string[];
}

/** What {@link extractPhrase} found. */
export interface PhraseAnswer {
  answer: string;
  /** Context items the phrase comes from, the sentence holding it first. */
  items: number[];
  /** false: no span of the type the question asks for was found (a fallback phrase). */
  confident: boolean;
}

/** Entity types that do not bridge two sentences (too common to mean the same thing). */
const NON_BRIDGE_TYPES = new Set(['concept', 'date', 'time', 'money', 'percent', 'number']);

/**
 * Extract the answer phrase from scored context sentences. Sentences gain from a bridge: a
 * well-matching sentence of another item that shares a named entity with them (multi-hop). Spans of
 * the type the question asks for score by sentence support × type fit × closeness to the question's
 * words × the share of their words the question does not already hold (× 1.5 next to the noun a
 * which/what question asks for); the same phrase in several sentences adds up. Choice questions
 * pick one of the compared phrases, polar ones say yes or no. `null` when no sentence matches.
 */
export function extractPhrase(
  question: AnswerQuestion,
  sentences: readonly AnswerSentence[],
): PhraseAnswer | null {
  const { reading } = question;
  const qLower = question.text.toLowerCase();
  const qWords = new Set<string>();
  // Question words near the wh-phrase weigh more: the answer sits next to what the question says
  // of it ("Who *directs* the institute that owns…"), the further words lead to it.
  const near = new Map<string, number>();
  // The verb the wh-phrase hangs on: the first verb, or the one ending an inverted question
  // ("When did A die?", "Where was the engineer who built B born?").
  const words = question.tokens.filter((t) => t.type === 'word');
  const verbs = new Set<number>();
  const firstVerb = question.tokens.find((t) => t.pos === 'VERB' && !t.stop);
  if (firstVerb) verbs.add(firstVerb.index);
  for (const t of words.slice(-2)) if (t.pos === 'VERB') verbs.add(t.index);
  question.tokens.forEach((t, k) => {
    if (t.type !== 'word' && t.type !== 'number') return;
    for (const w of wordsOf(t.value)) qWords.add(w);
    qWords.add(t.lemma);
    if (t.stop) return;
    const gap =
      reading.whStart < 0 ? 0 : k < reading.whStart ? reading.whStart - k : Math.max(0, k - reading.whEnd);
    const weight = verbs.has(t.index) ? 1 : 0.4 + 0.6 / (1 + Math.max(0, gap - 1) / 3);
    for (const w of [t.lemma, t.normal]) near.set(w, Math.max(near.get(w) ?? 0, weight));
    // "the place of death of X": the text says X "died" there; the event noun is the predicate.
    for (const w of EVENT_VERBS[t.normal] ?? []) near.set(w, 1);
  });
  const inQuestion = (key: string): boolean => {
    if (question.keys.includes(key)) return true;
    const at = qLower.indexOf(key);
    return (
      at >= 0 &&
      !/[\p{L}\p{N}]/u.test(qLower[at - 1] ?? ' ') &&
      !/[\p{L}\p{N}]/u.test(qLower[at + key.length] ?? ' ')
    );
  };

  // Bridges: named entities shared with a top sentence of another item (an item also "mentions" the
  // names of its first sentence, its topic).
  const topics = new Map<number, Set<string>>();
  for (const s of sentences) {
    if (s.index !== 0 || topics.has(s.item)) continue;
    topics.set(s.item, new Set([...s.types].filter(([, t]) => !NON_BRIDGE_TYPES.has(t)).map(([k]) => k)));
  }
  const bridgeKeys = sentences.map((s) => {
    const keys = new Set(topics.get(s.item) ?? []);
    for (const [k, t] of s.types) if (!NON_BRIDGE_TYPES.has(t)) keys.add(k);
    for (const k of [...keys]) if (inQuestion(k)) keys.delete(k);
    return keys;
  });
  const top = sentences
    .map((s, i) => ({ s, i }))
    .filter((x) => x.s.score > 0)
    .sort((a, b) => b.s.score - a.s.score || a.i - b.i)
    .slice(0, 5);
  if (top.length === 0) return null;
  // The item about an entity the question was led to (a resolved relation) holds its facts.
  const focusItems = new Set<number>();
  for (const name of question.focus ?? [])
    for (const item of aboutItems(name, sentences)) focusItems.add(item);
  const asideItems = new Set<number>();
  if (reading.kind === 'date' || reading.kind === 'place' || reading.kind === 'number')
    for (const name of question.aside ?? [])
      for (const item of aboutItems(name, sentences)) asideItems.add(item);
  const support = sentences.map((s, i) => {
    let bridge = 0;
    let from = -1;
    for (const t of top) {
      if (t.s.item === s.item || t.s.score <= bridge) continue;
      for (const k of bridgeKeys[i]!) {
        if (bridgeKeys[t.i]!.has(k)) {
          bridge = t.s.score;
          from = t.s.item;
          break;
        }
      }
    }
    const aside = asideItems.has(s.item) ? 0.2 : 1;
    return { value: aside * (s.score + 0.5 * bridge + (focusItems.has(s.item) ? top[0]!.s.score : 0)), from };
  });
  const wordSets = new Map<number, Set<string>>();
  const wordsAt = (i: number): Set<string> => {
    let set = wordSets.get(i);
    if (!set) {
      set = new Set(wordsOf(sentences[i]!.text));
      wordSets.set(i, set);
    }
    return set;
  };

  const lifeEvent = lifeEventOf(question.tokens);
  if (reading.kind === 'choice') return chooseOption(question, sentences, support, wordsAt);
  if (reading.kind === 'polar') return polarAnswer(question, sentences, support, wordsAt, qWords);

  interface Found {
    text: string;
    best: number;
    total: number;
    sentence: number;
    fit: number;
    start: number;
    end: number;
  }
  const found = new Map<string, Found>();
  for (let i = 0; i < sentences.length; i++) {
    const sup = support[i]!.value;
    if (sup <= 0) continue;
    const s = sentences[i]!;
    const tokens = s.ea.analysis.tokens;
    const range = s.ea.analysis.sentences[s.index]!;
    const matched: { k: number; weight: number }[] = [];
    for (let k = range.start; k <= range.end; k++) {
      const t = tokens[k]!;
      if ((t.type === 'word' || t.type === 'number') && !t.stop) {
        const weight = Math.max(near.get(t.lemma) ?? 0, near.get(t.normal) ?? 0);
        if (weight > 0) matched.push({ k, weight });
      }
    }
    for (const span of sentenceSpans(s.ea, s.index, reading)) {
      const fit = typeFit(reading, span, tokens);
      if (fit <= 0) continue;
      const words = contentWords(span.text);
      if (words.length === 0 || words.length > 10) continue;
      const novelty = 1 - containsWords(qWords, words);
      if (novelty <= 0) continue;
      let closeness = 0.15;
      for (const { k, weight } of matched) {
        if (k >= span.start && k <= span.end) continue;
        const distance = k < span.start ? span.start - k : k - span.end;
        // "born … in P", "died … on D": the place or date of a life event follows its verb; a span
        // before the verb belongs to the clause before.
        const follows = k > span.end && LIFE_VERBS.has(tokens[k]!.normal) && span.type !== 'person' ? 0.5 : 1;
        closeness = Math.max(closeness, (follows * weight) / (1 + distance / 5));
      }
      let descriptor = 1;
      if (reading.descriptor) {
        for (let k = Math.max(range.start, span.start - 4); k <= Math.min(range.end, span.end + 4); k++) {
          if ((k < span.start || k > span.end) && tokens[k]!.lemma === reading.descriptor) descriptor = 1.5;
        }
      }
      // A life span "(4 May 1901 – 2 June 1980)": the date before the dash is the birth, after it
      // the death.
      // The bracket states the event as "born"/"died" would, and a name there is a place.
      let side = 1;
      let eventFit = fit;
      if (lifeEvent && (reading.kind === 'date' || reading.kind === 'place')) {
        const at = lifeSpanSide(tokens, span, range);
        if (at) side = (at === 'end') === (lifeEvent === 'death') ? 1.5 : 0.5;
        if (side > 1) {
          closeness = Math.max(closeness, 0.8);
          if (reading.kind === 'place' && !NOT_NAMES.has(span.type)) eventFit = Math.max(fit, 0.7);
        }
      }
      const score = sup * eventFit * closeness * novelty * descriptor * side;
      const key = words.join(' ');
      const entry = found.get(key);
      const at = { text: span.text, sentence: i, fit, start: span.start, end: span.end };
      if (!entry) found.set(key, { ...at, best: score, total: score });
      else {
        entry.total += score;
        if (score > entry.best) Object.assign(entry, at, { best: score });
      }
    }
  }
  // Repetition counts, but less than the best occurrence.
  let best: Found | null = null;
  let bestValue = 0;
  for (const f of found.values()) {
    const value = f.best + 0.3 * (f.total - f.best);
    if (value > bestValue) {
      best = f;
      bestValue = value;
    }
  }
  if (best) {
    const items = [sentences[best.sentence]!.item];
    if (reading.plural) {
      // "Which rivers …": the answer and the names coordinated with it ("A and B", "A, B and C").
      const s = sentences[best.sentence]!;
      const tokens = s.ea.analysis.tokens;
      const all = sentenceSpans(s.ea, s.index, reading);
      const type = all.find((y) => y.start === best!.start)?.type;
      const spans = all.filter((x) => x.type === type);
      let start = best.start;
      let end = best.end;
      const joins = (from: number, to: number): boolean => {
        if (to - from > 3) return false;
        for (let k = from; k <= to; k++) if (!/^(and|the|a|an|,|&)$/.test(tokens[k]!.normal)) return false;
        return true;
      };
      for (let grew = true; grew; ) {
        grew = false;
        for (const x of spans) {
          if (x.end < start && joins(x.end + 1, start - 1) && x.end + 1 <= start - 1) {
            start = x.start;
            grew = true;
          } else if (x.start > end && x.start - 1 >= end + 1 && joins(end + 1, x.start - 1)) {
            end = x.end;
            grew = true;
          }
        }
      }
      if (start !== best.start || end !== best.end) best.text = clean(spanText(tokens, start, end));
    }
    const from = support[best.sentence]!.from;
    if (from >= 0 && !items.includes(from)) items.push(from);
    return { answer: best.text, items, confident: best.fit >= 0.6 };
  }
  // Nothing typed: the longest run of words the question does not hold, in the best sentence.
  const first = top[0]!.s;
  const tokens = first.ea.analysis.tokens;
  const range = first.ea.analysis.sentences[first.index]!;
  let run: [number, number] | null = null;
  let start = -1;
  for (let k = range.start; k <= range.end + 1; k++) {
    const t = tokens[k];
    const free = k <= range.end && !!t && t.type === 'word' && !qWords.has(t.normal) && !qWords.has(t.lemma);
    if (free && start < 0) start = k;
    if (!free && start >= 0) {
      if (!run || k - 1 - start > run[1] - run[0]) run = [start, Math.min(k - 1, start + 5)];
      start = -1;
    }
  }
  const answer = run ? clean(spanText(tokens, run[0], run[1])) : '';
  return {
    answer: answer || clean(first.text.split(/\s+/).slice(0, 6).join(' ')),
    items: [first.item],
    confident: false,
  };
}

const DASH = /^[-–—]$/;
/** Span types that are not names. */
const NOT_NAMES = new Set(['date', 'year', 'number', 'np', 'time', 'money', 'percent', 'nationality']);

/** Verbs of a life event, whose place and date follow them. */
const LIFE_VERBS = new Set(['born', 'died', 'buried', 'interred', 'married']);

/** The verb forms a text uses for the event a question names with a noun ("death" → "died"). */
const EVENT_VERBS: Record<string, string[]> = {
  birth: ['born', 'bear'],
  death: ['died', 'die'],
  burial: ['buried', 'bury', 'interred'],
  marriage: ['married', 'marry'],
  residence: ['lived', 'live', 'resided', 'reside'],
  education: ['studied', 'study', 'educated', 'graduated', 'attended'],
};

/**
 * Which side of a life span a span stands on: "(4 May 1901 – 2 June 1980)", "(1725, Ensisheim –
 * 1794, Paris)": before the dash is the birth, after it the death. null outside a life span.
 */
function lifeSpanSide(
  tokens: readonly Token[],
  span: Span,
  range: { start: number; end: number },
): 'start' | 'end' | null {
  // A dash between two dates, not a hyphen inside a name ("Baden-Baden"): a number stands on the
  // dash's other side, or the span is a date itself.
  const dated = (k: number): boolean => /^\d/.test(tokens[k]?.value ?? '');
  const isDate = dated(span.start) || dated(span.end);
  if (DASH.test(tokens[span.start - 1]?.value ?? '') && (isDate || dated(span.start - 2))) return 'end';
  if (DASH.test(tokens[span.end + 1]?.value ?? '') && (isDate || dated(span.end + 2))) return 'start';
  // Inside brackets: a dash between the span and the bracket on one side only.
  let open = -1;
  let dashLeft = false;
  for (let k = span.start - 1; k >= range.start; k--) {
    const v = tokens[k]!.value;
    if (v === '(') {
      open = k;
      break;
    }
    if (v === ')') break;
    if (DASH.test(v)) dashLeft = true;
  }
  let close = -1;
  let dashRight = false;
  for (let k = span.end + 1; k <= range.end; k++) {
    const v = tokens[k]!.value;
    if (v === ')') {
      close = k;
      break;
    }
    if (v === '(') break;
    if (DASH.test(v)) dashRight = true;
  }
  if (open < 0 || close < 0 || dashLeft === dashRight) return null;
  let year = false;
  for (let k = open; k <= close; k++) if (YEAR.test(tokens[k]!.value)) year = true;
  if (!year) return null;
  return dashLeft ? 'end' : 'start';
}

/** Whether a question is about a birth or a death ("When did X die?", "date of birth"), or null. */
function lifeEventOf(tokens: readonly Token[]): 'birth' | 'death' | null {
  for (const t of tokens) {
    if (t.lemma === 'die' || t.normal === 'died' || t.normal === 'death') return 'death';
    if (t.normal === 'born' || t.normal === 'birth') return 'birth';
  }
  return null;
}

const wordSetCache = new WeakMap<AnswerSentence, Set<string>>();
function wordSet(s: AnswerSentence): Set<string> {
  let set = wordSetCache.get(s);
  if (!set) {
    set = new Set(wordsOf(s.text));
    wordSetCache.set(s, set);
  }
  return set;
}

/**
 * Items about a phrase: their first sentence (the title line the methods prepend) names it and
 * little else. An item about "Life Classes" is where the film's director is said.
 */
export function aboutItems(phrase: string, sentences: readonly AnswerSentence[]): Set<number> {
  const words = withoutTitles(contentWords(phrase));
  const out = new Set<number>();
  if (words.length === 0) return out;
  for (const s of sentences) {
    if (s.index !== 0 || out.has(s.item)) continue;
    // Every word of the phrase in the title, spelling variants allowed ("Bayqara(h)").
    const title = withoutTitles(contentWords(s.text));
    if (title.length > 14 || fuzzyContains(title, words) < 1) continue;
    // …and most of the title in the phrase; the title may add a disambiguator: "Bogislaw IV, Duke
    // of Pomerania", "Life (1999 film)".
    const core = withoutTitles(contentWords(s.text.split(/\s*[,(]/)[0]!));
    if (fuzzyContains(words, title) >= 0.6 || (core.length > 0 && fuzzyContains(words, core) >= 0.6))
      out.add(s.item);
  }
  return out;
}

/** Honorifics and ranks before a name ("King Mongkut", "Caliph al-Walid I"). */
const TITLES = new Set([
  ...PERSON_TITLES,
  ...'caliph sultan shah tsar czar pharaoh emir maharaja raja consort chief'.split(' '),
]);

/** Name words without leading honorifics (the words themselves when nothing else is left). */
function withoutTitles(words: readonly string[]): string[] {
  let i = 0;
  while (i < words.length - 1 && TITLES.has(words[i]!)) i++;
  return words.slice(i);
}

/** Two spellings of one name word: equal, or one the other with a letter more ("Bayqara(h)"). */
function sameWord(a: string, b: string): boolean {
  if (a === b) return true;
  if (Math.abs(a.length - b.length) > 1 || Math.min(a.length, b.length) < 5) return false;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return long.startsWith(short.slice(0, -1)) && (long.startsWith(short) || long.length === short.length);
}

/** Share of `words` that `haystack` holds, spelling variants allowed. */
function fuzzyContains(haystack: readonly string[], words: readonly string[]): number {
  if (words.length === 0) return 0;
  let hits = 0;
  for (const w of words) if (haystack.some((h) => sameWord(h, w))) hits++;
  return hits / words.length;
}

/** The gender the item about a person says (he/his vs she/her), or null. */
export function genderOf(name: string, sentences: readonly AnswerSentence[]): 'male' | 'female' | null {
  const about = aboutItems(name, sentences);
  if (about.size === 0) return null;
  let male = 0;
  let female = 0;
  const seen = new Set<string>();
  for (const s of sentences) {
    if (!about.has(s.item)) continue;
    const key = `${s.item}:${s.index}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const range = s.ea.analysis.sentences[s.index]!;
    for (let k = range.start; k <= range.end; k++) {
      const w = s.ea.analysis.tokens[k]!.normal;
      if (w === 'he' || w === 'his' || w === 'him' || w === 'himself') male++;
      else if (w === 'she' || w === 'her' || w === 'hers' || w === 'herself') female++;
    }
  }
  if (male > 2 * female && male > 0) return 'male';
  if (female > 2 * male && female > 0) return 'female';
  return null;
}

/** What {@link resolveRelation} found: the entity, and the sentence that says so. */
export interface ResolvedEntity {
  name: string;
  /** Index in the sentences given. */
  sentence: number;
  score: number;
}

const PERSON_READING: QuestionReading = {
  kind: 'person',
  descriptor: null,
  expectedType: 'person',
  yearOnly: false,
  withUnit: false,
  options: [],
  direction: null,
  deathDate: false,
  lifespan: false,
  same: false,
  plural: false,
  whStart: -1,
  whEnd: -1,
};
const KIN_NAME_TYPES = new Set(['person', 'other', 'organization', 'work', 'event']);
const ROLE_NAME_TYPES = new Set(['person', 'other', 'organization', 'work', 'event']);
/** How likely a name of each type is a person or a group ("the *Strumpet wife of X*" is a work). */
const TYPE_WEIGHT: Record<string, number> = { organization: 0.8, work: 0.6, event: 0.6 };

/**
 * The name of a related person as a span writes it, completed: lower-case particles and what
 * follows them ("Caliph al-Walid I", "Conchobar mac Nessa"), a regnal "of" ("William I of
 * Dampierre", or any "X of Y" that titles an item of the context); without leading honorifics.
 */
function personName(
  tokens: readonly Token[],
  span: Span,
  limit: number,
  sentences: readonly AnswerSentence[],
): string {
  let end = span.end;
  const capital = (k: number): boolean => k <= limit && /^\p{Lu}/u.test(tokens[k]?.value ?? '');
  for (;;) {
    const t = tokens[end + 1];
    if (!t || end + 1 > limit) break;
    if (
      (NAME_PARTICLES.has(t.normal) || t.normal === 'mac' || t.normal === 'ibn') &&
      /^\p{Ll}/u.test(t.value)
    ) {
      let k = end + 2;
      if (tokens[k]?.value === '-') k++;
      if (!capital(k)) break;
      end = k;
      while (capital(end + 1)) end++;
    } else if (t.value === '-' && capital(end + 2) && tokens[end + 1]!.space === '') {
      end += 2;
    } else if (ROMAN_NUMERAL.test(t.value) && t.value.length <= 4) end++;
    else break;
  }
  let text = spanText(tokens, span.start, end);
  if (tokens[end + 1]?.normal === 'of' && capital(end + 2)) {
    let k = end + 2;
    while (capital(k + 1)) k++;
    const longer = spanText(tokens, span.start, k);
    if (ROMAN_NUMERAL.test(tokens[end]!.value) || aboutItems(longer, sentences).size > 0) text = longer;
  }
  text = clean(text);
  // "King Mongkut" → "Mongkut": the name, not the rank.
  const words = text.split(/\s+/);
  let i = 0;
  while (i < words.length - 1 && TITLES.has(words[i]!.toLowerCase()) && /^\p{Lu}/u.test(words[i + 1]!)) i++;
  return words.slice(i).join(' ');
}
const PARENT_NOUNS = new Set(['son', 'daughter', 'child', 'children', 'heir', 'offspring']);
const SPOUSE_CUES = new Set(
  'married marry marries marrying wed weds wedded wife husband spouse consort widow widower'.split(' '),
);
const CHILD_CUES = new Set('son sons daughter daughters child children heir'.split(' '));
const SIBLING_CUES = new Set('brother brothers sister sisters sibling siblings'.split(' '));

/** How strongly sentence tokens `range` say that `span` stands in `relation` to the item's subject. */
function relationCue(
  relation: Relation,
  tokens: readonly Token[],
  range: { start: number; end: number },
  span: Span,
  spans: readonly Span[],
  genderOfName: (span: Span) => 'male' | 'female' | null,
): number {
  const near = (d: number, limit: number, weight: number): number =>
    d >= 0 && d <= limit ? weight / (1 + d / 4) : 0;
  const stops = (from: number, to: number): boolean => {
    for (let k = from; k <= to; k++) if (/^[.;]$/.test(tokens[k]?.value ?? '')) return true;
    return false;
  };
  let best = 0;
  for (let k = range.start; k <= range.end; k++) {
    const t = tokens[k]!;
    const after = span.start - k - 1; // words between the cue and a span after it
    const before = k - span.end - 1; // words between a span before the cue and it
    if (after >= 0 && stops(k + 1, span.start - 1)) continue;
    if (before >= 0 && stops(span.end + 1, k - 1)) continue;
    if (relation.kind === 'role') {
      if (relation.verbs.includes(t.lemma) && (t.pos === 'VERB' || /ed$|en$/.test(t.normal))) {
        // "directed by X" (passive: the agent after "by"); "X directed …" (active: the subject).
        let by = false;
        for (let j = k + 1; j < span.start; j++) if (tokens[j]!.normal === 'by') by = true;
        if (after >= 0 && by) best = Math.max(best, near(after, 8, 1.2));
        if (before >= 0) best = Math.max(best, near(before, 3, 0.7));
      } else if (t.lemma === relation.noun) {
        // "director X", "the director, X"; "X is the director".
        if (tokens[k + 1]?.normal !== 'of') best = Math.max(best, near(after, 5, 1));
        best = Math.max(best, near(before, 4, 0.6));
      } else if (
        t.normal === 'by' &&
        after === 0 &&
        /^(perform|write|compose|sing|create|paint)/.test(relation.verbs[0]!)
      ) {
        // "a song by X", "a novel by X".
        best = Math.max(best, 0.6);
      }
      continue;
    }
    const gender = relation.gender;
    if (relation.base === 'parent') {
      // "the son of A and B", "born to A and B", "His parents were A and B": the father first.
      const anchor =
        (PARENT_NOUNS.has(t.lemma) || PARENT_NOUNS.has(t.normal)) && tokens[k + 1]?.normal === 'of'
          ? k + 1
          : t.normal === 'born' && tokens[k + 1]?.normal === 'to'
            ? k + 1
            : (t.lemma === 'parent' || t.normal === 'parents') &&
                /^(were|are|was|:)$/.test(tokens[k + 1]?.normal ?? '')
              ? k + 1
              : -1;
      if (anchor >= 0) {
        const following = spans.filter((x) => x.start > anchor && !stops(anchor + 1, x.start - 1));
        const first = following[0];
        if (first && first.start - anchor - 1 <= 4) {
          let second: Span | undefined;
          for (const x of following.slice(1)) {
            if (x.start - first.end > 12) break;
            let and = false;
            for (let j = first.end + 1; j < x.start; j++) if (tokens[j]!.normal === 'and') and = true;
            if (and) {
              second = x;
              break;
            }
          }
          // "He was the son of A": the item's subject is the child; with another name before the
          // anchor ("X's friend B, son of A") it may be someone else's parent.
          const own = spans.some((x) => x.end < anchor && x.start >= range.start) ? 0.5 : 1;
          // The father is named first, unless the parents' own items say otherwise ("son of A and
          // B" where A's item says "she").
          let [father, mother] = [first, second];
          if (span === first || span === second) {
            const g1 = genderOfName(first);
            const g2 = second ? genderOfName(second) : null;
            if (second && (g1 === 'female' || g2 === 'male')) [father, mother] = [second, first];
          }
          if (span === father) best = Math.max(best, own * (gender === 'female' ? 0.35 : 0.9));
          if (span === mother)
            best = Math.max(best, own * (gender === 'female' ? 0.9 : gender === 'male' ? 0.35 : 0.5));
        }
      }
      const noun = gender === 'male' ? 'father' : gender === 'female' ? 'mother' : 'parent';
      if (
        t.lemma === noun &&
        !/^['’]s?$/.test(tokens[k + 1]?.value ?? '') &&
        tokens[k + 1]?.normal !== 'of'
      ) {
        best = Math.max(best, near(after, 5, 1));
        if (/^(his|her|their)$/.test(tokens[k - 1]?.normal ?? ''))
          best = Math.max(best, near(before, 4, 0.8));
      }
      continue;
    }
    const cues =
      relation.base === 'spouse' ? SPOUSE_CUES : relation.base === 'child' ? CHILD_CUES : SIBLING_CUES;
    if (!cues.has(t.normal) && !cues.has(t.lemma)) continue;
    if (relation.base === 'child' && tokens[k + 1]?.normal === 'of') continue;
    if (/^['’]s?$/.test(tokens[k + 1]?.value ?? '')) continue;
    best = Math.max(best, near(after, relation.base === 'child' ? 8 : 6, 1), near(before, 3, 0.6));
  }
  return best;
}

/**
 * The entity that stands in `relation` to `subject` in the context: "the director of Life Classes"
 * → the person "directed by" in the item about Life Classes; "the father of X" → the first parent
 * of "son of A and B" (a named parent whose own item says "she" is not a father). Sentences of an
 * item about the subject count whole, other sentences naming it at 0.6. null when no name is tied
 * to the subject by a cue word.
 */
export function resolveRelation(
  relation: Relation,
  subject: string,
  sentences: readonly AnswerSentence[],
  exclude: readonly string[] = [],
): ResolvedEntity | null {
  const subjectWords = contentWords(subject);
  if (subjectWords.length === 0) return null;
  const subjectSet = new Set(subjectWords);
  const excluded = exclude.map((e) => new Set(contentWords(e)));
  const about = aboutItems(subject, sentences);
  const types = relation.kind === 'kin' ? KIN_NAME_TYPES : ROLE_NAME_TYPES;
  const found = new Map<string, ResolvedEntity>();
  const seen = new Set<string>();
  for (let i = 0; i < sentences.length; i++) {
    const s = sentences[i]!;
    let weight = 0;
    if (about.has(s.item)) weight = s.index === 0 ? 0 : 1;
    else if (containsWords(wordSet(s), subjectWords) >= 0.8) weight = 0.6;
    if (weight === 0) continue;
    const key = `${s.item}:${s.index}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const tokens = s.ea.analysis.tokens;
    const range = s.ea.analysis.sentences[s.index]!;
    const spans = sentenceSpans(s.ea, s.index, PERSON_READING).filter((x) => {
      if (!types.has(x.type)) return false;
      const words = contentWords(x.text);
      // Not the subject itself ("Sombreuil" for Charles de Sombreuil); a relative may share its
      // surname ("His father was Charles François de Sombreuil").
      if (words.length === 0 || containsWords(subjectSet, words) === 1) return false;
      return !excluded.some((e) => containsWords(e, words) === 1);
    });
    spans.sort((a, b) => a.start - b.start);
    for (const span of spans) {
      const score =
        weight *
        (TYPE_WEIGHT[span.type] ?? 1) *
        relationCue(relation, tokens, range, span, spans, (x) =>
          genderOf(personName(tokens, x, range.end, sentences), sentences),
        );
      if (score <= 0) continue;
      const text = personName(tokens, span, range.end, sentences);
      const name = contentWords(text).join(' ');
      const entry = found.get(name);
      if (!entry || score > entry.score) found.set(name, { name: text, sentence: i, score });
    }
  }
  let best: ResolvedEntity | null = null;
  for (const entry of found.values()) {
    if (relation.kind === 'kin' && relation.gender) {
      const gender = genderOf(entry.name, sentences);
      if (gender && gender !== relation.gender) entry.score *= 0.2;
    }
    if (!best || entry.score > best.score || (entry.score === best.score && entry.sentence < best.sentence))
      best = entry;
  }
  return best && best.score >= 0.3 ? best : null;
}

/** Resolve a chain of relations from `subject` ("paternal grandfather" = parent of the parent). */
export function resolveChain(
  relations: readonly Relation[],
  subject: string,
  sentences: readonly AnswerSentence[],
  exclude: readonly string[] = [],
): ResolvedEntity | null {
  let current: ResolvedEntity | null = null;
  let from = subject;
  const avoid = [...exclude];
  for (const relation of relations) {
    current = resolveRelation(relation, from, sentences, avoid);
    if (!current) return null;
    avoid.push(from);
    from = current.name;
  }
  return current;
}

/** Countries a phrase's item says (nationality adjectives and country names), canonical names. */
export function countriesOf(
  phrase: string,
  sentences: readonly AnswerSentence[],
  ownItemOnly = false,
): Set<string> {
  const about = aboutItems(phrase, sentences);
  const words = contentWords(phrase);
  const out = new Set<string>();
  const read = (s: AnswerSentence): void => {
    const range = s.ea.analysis.sentences[s.index]!;
    const tokens = s.ea.analysis.tokens;
    for (let k = range.start; k <= range.end; k++) {
      const t = tokens[k]!;
      if (t.type !== 'word' || !/^\p{Lu}/u.test(t.value)) continue;
      const demonym = DEMONYMS[t.normal];
      if (demonym) {
        out.add(demonym);
        continue;
      }
      for (let n = 3; n >= 1; n--) {
        if (k + n - 1 > range.end) continue;
        const name = tokens
          .slice(k, k + n)
          .map((x) => x.normal)
          .join(' ');
        const country = COUNTRY_ALIASES[name] ?? (COUNTRIES.has(name) ? name : undefined);
        if (country) {
          out.add(country);
          k += n - 1;
          break;
        }
      }
    }
  };
  // The first sentence of the item about it that says a country; else the sentences naming it.
  for (const s of sentences) {
    if (!about.has(s.item) || s.index === 0) continue;
    read(s);
    if (out.size > 0) return out;
  }
  if (about.size === 0 && !ownItemOnly) {
    for (const s of sentences) {
      if (containsWords(wordSet(s), words) < 0.8) continue;
      read(s);
      if (out.size > 0) return out;
    }
  }
  return out;
}

const COUNTRIES = new Set([...Object.values(DEMONYMS), ...Object.values(COUNTRY_ALIASES)]);

type Support = readonly { value: number; from: number }[];

/** Sentences that name `phrase` (most of its words), best supported first. */
function sentencesNaming(
  phrase: string,
  sentences: readonly AnswerSentence[],
  support: Support,
  wordsAt: (i: number) => Set<string>,
  predicate: readonly string[],
): { i: number; score: number }[] {
  const words = contentWords(phrase);
  const out: { i: number; score: number }[] = [];
  // An item whose title is the phrase is where its dates and facts are said: its sentences first.
  const titled = aboutItems(phrase, sentences);
  // An item whose first sentence names the phrase is about it: its other sentences count too.
  const about = new Set<number>();
  for (let i = 0; i < sentences.length; i++) {
    if (sentences[i]!.index === 0 && containsWords(wordsAt(i), words) >= 0.6) about.add(sentences[i]!.item);
  }
  for (let i = 0; i < sentences.length; i++) {
    const set = wordsAt(i);
    let match = containsWords(set, words);
    if (match < 0.6 && about.has(sentences[i]!.item)) match = 0.6;
    if (match < 0.6) continue;
    const s = sentences[i]!;
    const lemmas = new Set(s.lemmas);
    let hits = 0;
    for (const l of predicate) if (lemmas.has(l) || set.has(l)) hits++;
    const pred = predicate.length ? hits / predicate.length : 0;
    const bonus = (s.index === 0 ? 0.2 : 0) + (titled.has(s.item) ? 1.5 : 0);
    out.push({ i, score: match + pred + 0.01 * support[i]!.value + bonus });
  }
  return out.sort((a, b) => b.score - a.score || a.i - b.i);
}

/** A number written in a sentence (digits or a number word), or null. */
function numberValue(token: Token): number | null {
  const digits = token.value.replace(/,/g, '');
  if (/^\d+(\.\d+)?$/.test(digits)) return Number(digits);
  const words = [...NUMBER_WORDS];
  const at = words.indexOf(token.normal);
  if (at >= 0 && at < 20) return at + 1;
  return null;
}

/**
 * The relation a comparison or a polar question asks about beyond its compared names: "Which film
 * has the *director* born later, A or B?", "Do both A and B have the *directors* from the same
 * country?". null when the question compares the named things themselves.
 */
function questionRelation(question: AnswerQuestion, skip: ReadonlySet<string>): Relation[] | null {
  const { tokens, reading } = question;
  for (let k = Math.max(0, reading.whEnd + 1); k < tokens.length; k++) {
    const t = tokens[k]!;
    if (t.type !== 'word' || /^\p{Lu}/u.test(t.value) || skip.has(t.normal)) continue;
    if (t.pos !== 'NOUN' && t.pos !== 'PROPN') continue;
    const relations = relationOf(t.lemma) ?? relationOf(t.normal.replace(/s$/, ''));
    if (relations) return relations;
  }
  return null;
}

function chooseOption(
  question: AnswerQuestion,
  sentences: readonly AnswerSentence[],
  support: Support,
  wordsAt: (i: number) => Set<string>,
): PhraseAnswer {
  const { reading } = question;
  const optionWords = new Set(reading.options.flatMap(contentWords));
  const predicate = [...question.lemmas].filter((l) => !optionWords.has(l));
  const byTime =
    reading.lifespan || question.tokens.some((t) => !optionWords.has(t.normal) && TIME_WORDS.has(t.normal));
  /** The value a phrase's sentences give: a year (birth; death; life span) or a number. */
  const dateOrNumberOf = (phrase: string, ownItemOnly = false) => {
    let named = sentencesNaming(phrase, sentences, support, wordsAt, predicate);
    const own = aboutItems(phrase, sentences);
    if (ownItemOnly) named = named.filter(({ i }) => own.has(sentences[i]!.item));
    if (byTime) {
      // Its own item in reading order: the first dated sentence there is where its dates stand
      // ("X (4 May 1901 – 2 June 1980) was…", "X is a 1940 film…"); later sentences date other
      // events ("In 1966 X was edited down…").
      const first = named.filter(({ i }) => own.has(sentences[i]!.item));
      first.sort(
        (x, y) =>
          sentences[x.i]!.item - sentences[y.i]!.item || sentences[x.i]!.index - sentences[y.i]!.index,
      );
      named = [...first, ...named.filter(({ i }) => !own.has(sentences[i]!.item))];
    }
    let value: number | null = null;
    let valueAt = -1;
    if (reading.direction || reading.lifespan) {
      for (const { i } of named) {
        const s = sentences[i]!;
        const range = s.ea.analysis.sentences[s.index]!;
        const values: number[] = [];
        for (let k = range.start; k <= range.end; k++) {
          const t = s.ea.analysis.tokens[k]!;
          if (byTime) {
            if (YEAR.test(t.value)) values.push(Number(t.value));
          } else if (!YEAR.test(t.value)) {
            const n = numberValue(t);
            if (n !== null) values.push(n);
          }
        }
        if (reading.lifespan) {
          // "(6 September 1667 – 25 August 1721)": the years between birth and death.
          if (values.length < 2 || values[1]! <= values[0]!) continue;
          value = values[1]! - values[0]!;
        } else if (values.length) {
          value = byTime && reading.deathDate ? Math.max(...values) : values[0]!;
        } else continue;
        valueAt = i;
        break;
      }
    }
    return { named, value, valueAt };
  };
  const looked = reading.options.map((option) => ({ option, ...dateOrNumberOf(option) }));
  const [a, b] = looked as [(typeof looked)[0], (typeof looked)[0]];
  const fit = (x: typeof a): number => x.named[0]?.score ?? 0;
  let pick = fit(a) >= fit(b) ? a : b;
  const direction = reading.direction ?? (reading.lifespan ? 'max' : null);
  const decide = (va: number | null, vb: number | null): boolean => {
    if (!direction || va === null || vb === null || va === vb) return false;
    pick = (direction === 'min') === va < vb ? a : b;
    return true;
  };
  // "Which film has the director born later, A or B?": compare the directors when the context
  // names both and dates them; else the options' own dates stand in for theirs.
  const relation = questionRelation(question, optionWords);
  let bridged = false;
  if (relation && direction) {
    const resolved = reading.options.map((o) => resolveChain(relation, o, sentences, reading.options));
    if (resolved[0] && resolved[1]) {
      // Their own items only: a film's sentence naming its director dates the film, not him.
      const [va, vb] = resolved.map((r) => dateOrNumberOf(r!.name, true));
      bridged = decide(va!.value, vb!.value);
    }
  }
  if (!bridged) decide(a.value, b.value);
  const items: number[] = [];
  for (const x of [pick, pick === a ? b : a]) {
    const at = x.valueAt >= 0 ? x.valueAt : x.named[0]?.i;
    if (at !== undefined && !items.includes(sentences[at]!.item)) items.push(sentences[at]!.item);
  }
  return { answer: pick.option, items, confident: pick.named.length > 0 };
}

function polarAnswer(
  question: AnswerQuestion,
  sentences: readonly AnswerSentence[],
  support: Support,
  wordsAt: (i: number) => Set<string>,
  qWords: ReadonlySet<string>,
): PhraseAnswer {
  const { reading } = question;
  // The two coordinated names when the question has them ("Are A and B both …?"): names as the
  // question writes them, which the entity finder may split ("The Pit And The Pendulum").
  const pair = pairedNames(question.tokens);
  const subjects = (pair ?? question.names).filter((n) => contentWords(n).length > 0);
  const subjectWords = new Set(subjects.flatMap(contentWords));
  const predicate = [...question.lemmas].filter(
    (l) => !subjectWords.has(l) && l !== 'both' && l !== 'same' && l !== 'also',
  );
  const items: number[] = [];
  const cite = (i: number | undefined): void => {
    if (i !== undefined && !items.includes(sentences[i]!.item)) items.push(sentences[i]!.item);
  };
  if (subjects.length === 0) {
    let best = -1;
    for (let i = 0; i < sentences.length; i++)
      if (best < 0 || support[i]!.value > support[best]!.value) best = i;
    cite(best);
    return { answer: support[best]!.value > 0 ? 'yes' : 'no', items, confident: false };
  }
  const named = subjects.map((s) => sentencesNaming(s, sentences, support, wordsAt, predicate));
  let yes: boolean;
  // "Are A and B from the same country?", "… the same nationality?": the countries their items
  // say, nationality adjectives read as countries ("American" = "United States"); through the
  // relation the question names when the context resolves it ("the directors of A and B").
  let countries: Set<string>[] | null = null;
  if (
    reading.same &&
    subjects.length >= 2 &&
    question.tokens.some((t) => /^(country|countries|nationality|nation)$/.test(t.normal))
  ) {
    const relation = questionRelation(question, subjectWords);
    // Through the relation when the items of both related entities say their countries; else the
    // subjects' own countries stand in (a film's country for its director's).
    const through = relation
      ? subjects.map((subject) => {
          const bridge = resolveChain(relation, subject, sentences, subjects);
          return bridge ? countriesOf(bridge.name, sentences, true) : new Set<string>();
        })
      : [];
    countries =
      relation && through.every((set) => set.size > 0)
        ? through
        : subjects.map((subject) => countriesOf(subject, sentences));
    if (countries.some((set) => set.size === 0)) countries = null;
  }
  if (countries) {
    const [first, ...rest] = countries as [Set<string>, ...Set<string>[]];
    yes = rest.every((set) => [...set].some((c) => first.has(c)));
  } else if (reading.same && subjects.length >= 2) {
    // Compare what the sentences naming each subject say beyond the question: their capitalised
    // words (nationalities, places) other than the subjects' own.
    const attributes = named.map((list) => {
      const set = new Set<string>();
      for (const { i } of list.slice(0, 2)) {
        const s = sentences[i]!;
        const range = s.ea.analysis.sentences[s.index]!;
        for (let k = range.start + 1; k <= range.end; k++) {
          const t = s.ea.analysis.tokens[k]!;
          if (t.type !== 'word' || !/^\p{Lu}/u.test(t.value)) continue;
          if (subjectWords.has(t.normal) || qWords.has(t.normal) || MONTHS.has(t.normal)) continue;
          set.add(t.normal);
        }
      }
      return set;
    });
    const [first, ...rest] = attributes;
    yes = !!first && rest.every((set) => [...set].some((w) => first.has(w)));
  } else {
    // Every subject must be said to have the property: most of the predicate's words appear in a
    // sentence that names it.
    yes = named.every((list) => {
      let coverage = 0;
      for (const { i } of list.slice(0, 3)) {
        const s = sentences[i]!;
        const lemmas = new Set(s.lemmas);
        const set = wordsAt(i);
        let hits = 0;
        for (const l of predicate) if (lemmas.has(l) || set.has(l)) hits++;
        coverage = Math.max(coverage, predicate.length ? hits / predicate.length : 1);
      }
      return list.length > 0 && coverage >= 0.5;
    });
  }
  for (const list of named) cite(list[0]?.i);
  return { answer: yes ? 'yes' : 'no', items, confident: named.every((l) => l.length > 0) };
}
