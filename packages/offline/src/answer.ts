/**
 * Extracting an answer phrase from context sentences: the question's type (who / where / when /
 * how many / which X / yes-no / "A or B" comparison), candidate spans of the matching type in the
 * context sentences, and a score from the sentence's support, the span's type, its distance to the
 * question's words in the sentence, and whether the question already names it.
 */
import type { EntityAnalysis } from './entities.js';
import { DESCRIPTOR_TYPES } from './lexicon.js';
import { spanText, type Token } from './nlp.js';
import { isVerbLike, questionTarget } from './query.js';

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
const OPTION_CONNECTORS = new Set('of the de la le von van der del da di du and & for on in a an'.split(' '));
const NUMBER_WORDS = new Set(
  'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand million billion dozen'.split(
    ' ',
  ),
);
const YEAR = /^(1[0-9]{3}|20[0-9]{2})$/;
const YEAR_IN = /\b(1[0-9]{3}|20[0-9]{2})\b/g;
const HAS_YEAR = /\b(1[0-9]{3}|20[0-9]{2})\b/;
const PLACE_PREPOSITIONS = new Set('in at from near of to'.split(' '));

const clean = (s: string): string =>
  s
    .replace(/^[\s"'“”‘’(,]+|[\s"'“”‘’),.;:?!]+$/gu, '')
    .replace(/\s+/g, ' ')
    .trim();

/** Lower-cased words of a text (letters and digits), for overlap tests. */
export function wordsOf(text: string): string[] {
  return (
    text
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

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
  let comma = -1;
  for (let i = or - 1; i >= 0; i--) {
    if (tokens[i]!.value === ',') {
      comma = i;
      break;
    }
  }
  const isCap = (t: Token | undefined): boolean =>
    !!t && (/^[\p{Lu}\p{N}"“]/u.test(t.value) || t.pos === 'PROPN' || t.pos === 'NUM');
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
    }
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
      // "Since 2015", "from 1998 to 2020": the years.
      for (let i = e.start; i <= e.end; i++) covered[i] = 1;
      for (const y of text.match(YEAR_IN) ?? []) push(e.start, e.end, 'year', y);
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

/** How well a span's type fits the question's kind (0 = never the answer). */
export function typeFit(reading: QuestionReading, span: Span, tokens: readonly Token[]): number {
  const t = span.type;
  const before = tokens[span.start - 1]?.normal ?? '';
  const name = !['date', 'year', 'number', 'np', 'time', 'money', 'percent'].includes(t);
  switch (reading.kind) {
    case 'person':
      if (t === 'person') return 1;
      if (t === 'other') return 0.6;
      if (t === 'organization') return 0.45;
      if (t === 'work' || t === 'event') return 0.25;
      if (t === 'geo') return 0.15;
      return t === 'np' ? 0.05 : 0;
    case 'place':
      if (t === 'geo') return 1;
      if (name && PLACE_PREPOSITIONS.has(before)) return 0.7;
      // "Which river …": a name the finder could not type may well be one.
      if (t === 'other' && reading.descriptor) return 0.6;
      if (name) return t === 'organization' ? 0.35 : 0.25;
      return t === 'np' ? 0.05 : 0;
    case 'date':
      if (reading.yearOnly) return t === 'year' ? 1 : t === 'date' ? 0.5 : 0;
      if (t === 'date' || t === 'year') return 1;
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
}

/** What {@link extractPhrase} found. */
export interface PhraseAnswer {
  answer: string;
  /** Context items the phrase comes from, the sentence holding it first. */
  items: number[];
  /** false: no span of the type the question asks for was found (a fallback phrase). */
  confident: boolean;
}

const SPAN_STOP = new Set('the a an of and in on at for to de la le by with from or'.split(' '));
const MONTHS = new Set(
  'january february march april may june july august september october november december'.split(' '),
);
/** Entity types that do not bridge two sentences (too common to mean the same thing). */
const NON_BRIDGE_TYPES = new Set(['concept', 'date', 'time', 'money', 'percent', 'number']);

const contentWords = (text: string): string[] => wordsOf(text).filter((w) => !SPAN_STOP.has(w));

function containsWords(haystack: ReadonlySet<string>, words: readonly string[]): number {
  if (words.length === 0) return 0;
  let hits = 0;
  for (const w of words) if (haystack.has(w)) hits++;
  return hits / words.length;
}

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
    return { value: s.score + 0.5 * bridge, from };
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
        closeness = Math.max(closeness, weight / (1 + distance / 5));
      }
      let descriptor = 1;
      if (reading.descriptor) {
        for (let k = Math.max(range.start, span.start - 4); k <= Math.min(range.end, span.end + 4); k++) {
          if ((k < span.start || k > span.end) && tokens[k]!.lemma === reading.descriptor) descriptor = 1.5;
        }
      }
      const score = sup * fit * closeness * novelty * descriptor;
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
    out.push({ i, score: match + pred + 0.01 * support[i]!.value + (s.index === 0 ? 0.2 : 0) });
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

function chooseOption(
  question: AnswerQuestion,
  sentences: readonly AnswerSentence[],
  support: Support,
  wordsAt: (i: number) => Set<string>,
): PhraseAnswer {
  const { reading } = question;
  const optionWords = new Set(reading.options.flatMap(contentWords));
  const predicate = [...question.lemmas].filter((l) => !optionWords.has(l));
  const byTime = question.tokens.some((t) => !optionWords.has(t.normal) && TIME_WORDS.has(t.normal));
  const looked = reading.options.map((option) => {
    const named = sentencesNaming(option, sentences, support, wordsAt, predicate);
    let value: number | null = null;
    let valueAt = -1;
    if (reading.direction) {
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
        if (values.length) {
          value = byTime && reading.deathDate ? Math.max(...values) : values[0]!;
          valueAt = i;
          break;
        }
      }
    }
    return { option, named, value, valueAt, fit: named[0]?.score ?? 0 };
  });
  const [a, b] = looked as [(typeof looked)[0], (typeof looked)[0]];
  let pick = a.fit >= b.fit ? a : b;
  if (reading.direction && a.value !== null && b.value !== null && a.value !== b.value) {
    pick = (reading.direction === 'min') === a.value < b.value ? a : b;
  }
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
  const subjects = question.names.filter((n) => contentWords(n).length > 0);
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
  if (reading.same && subjects.length >= 2) {
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
