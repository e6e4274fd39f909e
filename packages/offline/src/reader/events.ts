/**
 * Events in a sentence: which side of a life span a date stands on, the life event a question asks
 * about, and the year a sentence gives a thing for an event ("born 1981"), for the extractor and
 * the comparisons.
 */
import type { Token } from '../nlp.js';
import { contentWords } from '../words.js';
import { concept, concepts } from './meaning.js';
import { MONTHS, NUMBER_WORDS, YEAR } from './question.js';
import type { Span } from './spans.js';
import type { AnswerSentence } from './types.js';

const DASH = /^[-–—]$/;
const SUBJECT_PRONOUN = /^(he|she|they|it)$/;

/** Verbs of a life event, whose place and date follow them. */
export const LIFE_VERBS = new Set(['born', 'died', 'buried', 'interred', 'married']);

/** The verb forms a text uses for the event a question names with a noun ("death" → "died"). */
export const EVENT_VERBS: Record<string, string[]> = {
  birth: ['born', 'bear'],
  death: ['died', 'die'],
  burial: ['buried', 'bury', 'interred'],
  marriage: ['married', 'marry'],
  residence: ['lived', 'live', 'resided', 'reside'],
  education: ['studied', 'study', 'educated', 'graduated', 'attended'],
};

/**
 * The nearest `bracket` from token `from` on, walking by `step` up to `limit` (inclusive): where it
 * stands (-1 when the other bracket or the limit comes first), and whether a dash stands before it.
 */
function bracketFrom(
  tokens: readonly Token[],
  from: number,
  step: 1 | -1,
  limit: number,
  bracket: '(' | ')',
): { at: number; dash: boolean } {
  const other = bracket === '(' ? ')' : '(';
  let dash = false;
  for (let k = from; step < 0 ? k >= limit : k <= limit; k += step) {
    const v = tokens[k]!.value;
    if (v === bracket) return { at: k, dash };
    if (v === other) break;
    if (DASH.test(v)) dash = true;
  }
  return { at: -1, dash };
}

/**
 * Which side of a life span a span stands on: "(4 May 1901 – 2 June 1980)", "(1725, Orsa –
 * 1794, Paris)": before the dash is the birth, after it the death. null outside a life span.
 */
export function lifeSpanSide(
  tokens: readonly Token[],
  span: Span,
  range: { start: number; end: number },
): 'start' | 'end' | null {
  // A dash between two dates, not a hyphen inside a name ("Merrow-Falls") nor a dash after a name
  // ("Ada Quill — 1921: …", a heading): the span is a date and a number stands next to the dash's
  // other side, or one word further ("848 – after 890", "c. 1620 – 1681"). A place in a life span
  // stands in brackets with its date (below).
  const dated = (k: number): boolean => /^\d/.test(tokens[k]?.value ?? '');
  const isDate = dated(span.start) || dated(span.end);
  if (
    isDate &&
    DASH.test(tokens[span.start - 1]?.value ?? '') &&
    (dated(span.start - 2) || dated(span.start - 3))
  )
    return 'end';
  if (isDate && DASH.test(tokens[span.end + 1]?.value ?? '') && (dated(span.end + 2) || dated(span.end + 3)))
    return 'start';
  // Inside brackets: a dash between the span and the bracket on one side only.
  const { at: open, dash: dashLeft } = bracketFrom(tokens, span.start - 1, -1, range.start, '(');
  const { at: close, dash: dashRight } = bracketFrom(tokens, span.end + 1, 1, range.end, ')');
  if (open < 0 || close < 0 || dashLeft === dashRight) return null;
  let year = false;
  for (let k = open; k <= close; k++) if (YEAR.test(tokens[k]!.value)) year = true;
  if (!year) return null;
  return dashLeft ? 'end' : 'start';
}

/** Whether a question is about a birth or a death ("When did X die?", "date of birth"), or null. */
export function lifeEventOf(tokens: readonly Token[]): 'birth' | 'death' | null {
  // By meaning: "passed away", "perished", "came into the world", "birthplace".
  for (const c of concepts(tokens.map((t) => t.lemma))) {
    if (c === 'die') return 'death';
    if (c === 'bear') return 'birth';
  }
  return null;
}

/** Tokens between a phrase's mention in a sentence and the nearest word of `predicate` (by concept). */
export function eventDistance(s: AnswerSentence, phrase: string, predicate: readonly string[]): number {
  const range = s.ea.analysis.sentences[s.index]!;
  const tokens = s.ea.analysis.tokens;
  const words = new Set(contentWords(phrase));
  const wanted = new Set(predicate);
  const mentions: number[] = [];
  const events: number[] = [];
  for (let k = range.start; k <= range.end; k++) {
    if (words.has(tokens[k]!.normal)) mentions.push(k);
    if (wanted.has(concept(tokens[k]!.lemma))) events.push(k);
  }
  let best = Number.POSITIVE_INFINITY;
  for (const m of mentions) for (const e of events) best = Math.min(best, Math.abs(m - e));
  return best;
}

/** Words that compare ages: the date that decides is a birth. */
export const AGE_WORDS = /^(younger|youngest|older|oldest|elder|eldest)$/;

/**
 * The year a sentence gives `phrase` for one of `events`: a year at most six tokens after a verb
 * of the event ("born 1981", "born in Tressick in 1982") or opening its clause ("In 1979 A
 * married B"), the one nearest after the phrase's mention. null when the sentence dates none of the events.
 */
export function eventYear(s: AnswerSentence, phrase: string, events: ReadonlySet<string>): number | null {
  const range = s.ea.analysis.sentences[s.index]!;
  const tokens = s.ea.analysis.tokens;
  // The phrase's mention: its first word ("Tobin" of "Tobin Varne", not "Varne" in "Elsa Varne
  // had two sons, Tobin … and Arlo …"), else any of its words.
  const list = contentWords(phrase);
  const words = new Set(list);
  const at = (match: (w: string) => boolean): number => {
    for (let k = range.start; k <= range.end; k++) if (match(tokens[k]!.normal)) return k;
    return -1;
  };
  let mention = at((w) => w === list[0]);
  if (mention < 0) mention = at((w) => words.has(w));
  // "Hana Brevik (born 1934) is a director. She died in 2011.": the caller gives only sentences of
  // items about the phrase, where a subject pronoun stands for it.
  if (mention < 0) mention = at((w) => SUBJECT_PRONOUN.test(w));
  if (mention < 0) return null;
  let best: number | null = null;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (let k = range.start; k <= range.end; k++) {
    if (!YEAR.test(tokens[k]!.value)) continue;
    // A verb, a participle the tagger took for an adjective ("Arlo married/ADJ Wenna"), or the
    // state an event starts ("has been open since 2021").
    const isEvent = (j: number): boolean =>
      (tokens[j]!.pos === 'VERB' || tokens[j]!.pos === 'ADJ' || /(ed|en|born)$/.test(tokens[j]!.normal)) &&
      events.has(concept(tokens[j]!.lemma));
    // The phrase's own clause: no ";" between its mention and the year.
    const [from, to] = k < mention ? [k, mention] : [mention, k];
    if (tokens.slice(from, to).some((t) => t.value === ';')) continue;
    let dated = false;
    for (let j = k - 1; j >= Math.max(range.start, k - 6) && !dated; j--) {
      if (tokens[j]!.value === ';' || YEAR.test(tokens[j]!.value)) break;
      dated = isEvent(j);
    }
    // "In 1979 Arlo married …": the year opens the clause of its verb, no punctuation between.
    for (let j = k + 1; j <= Math.min(range.end, k + 4) && !dated; j++) {
      if (tokens[j]!.type === 'punctuation' || (tokens[j]!.pos === 'VERB' && !isEvent(j))) break;
      dated = isEvent(j);
    }
    if (!dated) continue;
    const d = k >= mention ? k - mention : 1.5 * (mention - k);
    if (d < bestDistance) {
      bestDistance = d;
      best = Number(tokens[k]!.value);
    }
  }
  return best;
}

/** A number written in a sentence (digits or a number word), or null. */
export function numberValue(token: Token): number | null {
  const digits = token.value.replace(/,/g, '');
  if (/^\d+(\.\d+)?$/.test(digits)) return Number(digits);
  const words = [...NUMBER_WORDS];
  const at = words.indexOf(token.normal);
  if (at >= 0 && at < 20) return at + 1;
  return null;
}

/**
 * Which end of a span of time a date stands at: "from 1950 until 1982", "between 1950 and 1982",
 * "1950–1982": 'start' for the first, 'end' for the second; null for a date in no range.
 */
export function rangeSide(
  tokens: readonly { normal: string; value: string }[],
  span: { start: number; end: number },
  first: number,
): 'start' | 'end' | null {
  const before = tokens[span.start - 1]?.normal ?? '';
  if (/^(until|till|til|to|through|and|–|-)$/.test(before)) {
    for (let k = span.start - 2; k >= Math.max(first, span.start - 8); k--)
      if (
        /^(from|between|since)$/.test(tokens[k]!.normal) ||
        (before === '–' && /^\d{4}$/.test(tokens[k]!.value))
      )
        return 'end';
    return before === 'until' || before === 'till' ? 'end' : null;
  }
  if (/^(from|between|since)$/.test(before)) {
    for (let k = span.end + 1; k <= Math.min(tokens.length - 1, span.end + 8); k++)
      if (/^(until|till|til|to|through|and|–)$/.test(tokens[k]!.normal)) return 'start';
  }
  return null;
}

/** Nouns for the place of a life event, and the question that finds it ("Where was X born?"). */
const EVENT_PLACES: Record<string, string> = {
  birthplace: 'born',
  hometown: 'born',
  deathplace: 'died',
};

const capital = (t: Token | undefined): boolean => !!t && /^\p{Lu}/u.test(t.value);

/**
 * "the birthplace of Ilse Marren", "Ilse Marren's hometown", "the place of death of X": the place of
 * a life event of a name, with the question that finds it ("Where was Ilse Marren born?"). null when
 * the question has none.
 */
export function findEventPlace(
  tokens: readonly Token[],
): { start: number; end: number; question: string; head: null } | null {
  for (let k = 0; k < tokens.length; k++) {
    let verb = EVENT_PLACES[tokens[k]!.lemma];
    let end = k;
    // "place of birth", "place of death".
    if (!verb && tokens[k]!.lemma === 'place' && tokens[k + 1]?.normal === 'of') {
      const event = tokens[k + 2]?.lemma;
      verb =
        event === 'birth' ? 'born' : event === 'death' ? 'died' : event === 'burial' ? 'buried' : undefined;
      end = k + 2;
    }
    if (!verb) continue;
    let name: [number, number] | null = null;
    let start = k;
    // "of X", "of the X".
    const at = tokens[end + 2]?.normal === 'the' && capital(tokens[end + 3]) ? end + 3 : end + 2;
    if (tokens[end + 1]?.normal === 'of' && capital(tokens[at])) {
      let last = at;
      while (capital(tokens[last + 1]) || (tokens[last + 1]?.normal === 'of' && capital(tokens[last + 2])))
        last++;
      name = [at, last];
      end = last;
      if (tokens[start - 1]?.normal === 'the') start--;
    } else if (/^['’]s?$/.test(tokens[k - 1]?.value ?? '') && capital(tokens[k - 2])) {
      let first = k - 2;
      while (capital(tokens[first - 1]) && first - 1 > 0) first--;
      name = [first, k - 2];
      start = first;
    }
    if (!name) continue;
    const who = tokens
      .slice(name[0], name[1] + 1)
      .map((t) => t.value)
      .join(' ');
    return { start, end, question: `Where was ${who} ${verb}?`, head: null };
  }
  return null;
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
