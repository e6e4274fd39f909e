/**
 * Lengths of time: "How long did X direct Y?", "For how many years was X in service?", "How long
 * has X crossed the strait?". The years between the ends of a range the context writes about X
 * ("from 1965 to 2001", "between 1990 and 1998", "1871–1954"), counted to the day when both ends
 * are full dates; "since 1978" for what still goes on.
 */
import type { Token } from '../nlp.js';
import { contentWords } from '../words.js';
import { aboutItems, openedItems } from './about.js';
import { datesIn, firstName, yearsBetween } from './age.js';
import { NUMBER_WORDS, YEAR } from './question.js';
import type { AnswerSentence } from './types.js';

/** What a question asking a length of time is about. */
export interface DurationAsked {
  /** The name the length of time is asked of. */
  name: string;
  /** Lemmas of what it did for that time ("direct", "service"): the sentence that says it wins. */
  lemmas: ReadonlySet<string>;
  /** Whether it asks how long something lived or existed (a life span then answers). */
  existence: boolean;
}

/** Words after "how long" that ask a length of time: the auxiliaries of a verb ("did X sail"). */
const DO_AUX = /^(did|does|do|has|have|had|will|would)$/;
const BE_AUX = /^(was|were|is|are)$/;
/** Units no range of years answers: "How long is X in metres?", "… in minutes?". */
const LENGTH_UNITS =
  /^(metres?|meters?|kilometres?|kilometers?|km|miles?|feet|foot|ft|inches?|yards?|pages?|minutes?|seconds?|words?)$/;
/** What the question asks beside its name: none of these says what was done. */
const ASKING = new Set(['how', 'long', 'many', 'year', 'years', 'decade', 'decades', 'for']);
const EXISTENCE = new Set(['live', 'exist', 'last', 'survive']);

/**
 * The name whose length of time a question asks ("how long" before a verb's auxiliary or before
 * "was X in service"; "how many years" that asks no age ("years old"), no time ago and no gap
 * between two events), whose subject is a name; or null.
 */
export function durationAsked(tokens: readonly Token[]): DurationAsked | null {
  const words = tokens.map((t) => t.normal);
  const at = words.findIndex((w, k) => w === 'how' && words[k + 1] === 'long');
  const many = words.findIndex(
    (w, k) => w === 'how' && words[k + 1] === 'many' && /^(years?|decades?)$/.test(words[k + 2] ?? ''),
  );
  if (at >= 0) {
    const aux = words[at + 2] ?? '';
    if (!DO_AUX.test(aux) && !BE_AUX.test(aux)) return null;
    if (words.some((w) => LENGTH_UNITS.test(w))) return null;
  } else if (
    many < 0 ||
    words.some(
      (w, k) =>
        /^(ago|age|after|before|later|earlier|apart|between)$/.test(w) ||
        (w === 'old' && words[k - 1] === 'years'),
    )
  ) {
    return null;
  }
  // The name it asks about is the subject of the verb: right after the auxiliary ("did Ingrid
  // Solberg direct", "was the Halvard Light in service"), not a name further on ("the ferry
  // crossing to Gullhaven").
  const aux =
    at >= 0 ? at + 2 : words.findIndex((w, k) => k > many + 2 && (DO_AUX.test(w) || BE_AUX.test(w)));
  if (aux < 0) return null;
  const subject = words[aux + 1] === 'the' ? aux + 2 : aux + 1;
  const name = firstName(tokens);
  if (!name || !tokens[subject] || !name.startsWith(tokens[subject].value)) return null;
  const own = new Set(contentWords(name).map((w) => w.toLowerCase()));
  const lemmas = new Set(
    tokens
      .filter((t) => t.type === 'word' && !t.stop && !ASKING.has(t.normal) && !own.has(t.normal))
      .map((t) => t.lemma),
  );
  // "How long was X?" with nothing said beside X asks its length, not a time.
  if (at >= 0 && BE_AUX.test(words[at + 2]!) && lemmas.size === 0) return null;
  return { name, lemmas, existence: [...lemmas].some((l) => EXISTENCE.has(l)) };
}

/** A date the range patterns read: "4 May 1965", "May 4, 1965", "May 1965", "1965". */
const DATE = String.raw`(?:(?:\d{1,2}\s+)?[A-Z][a-z]+\s+(?:\d{1,2},?\s+)?)?\d{4}`;
const RANGES = [
  new RegExp(String.raw`\b[Ff]rom\s+(${DATE})\s+(?:to|until|till|through)\s+(${DATE})`, 'g'),
  new RegExp(String.raw`\b[Bb]etween\s+(${DATE})\s+and\s+(${DATE})`, 'g'),
  new RegExp(String.raw`(${DATE})\s*[–—]\s*(${DATE})|(\d{4})-(\d{4})\b`, 'g'),
];
const SINCE = new RegExp(String.raw`\b[Ss]ince\s+(${DATE})`);
/** Words that may follow a range's end: a range of counts ("between 1000 and 1500 visitors") is no time. */
const AFTER_RANGE =
  /^(the|a|an|when|and|as|in|at|on|for|with|before|after|under|while|during|then|its|his|her|their|it|he|she|they|to|by|of)$/;

/** A range of time written in a sentence: its two ends, where it stands, and whether it is a bracketed life span. */
interface TimeRange {
  from: string;
  to: string;
  start: number;
  end: number;
  bracketed: boolean;
}

/** The ranges of time written in `text`, in order. */
function rangesIn(text: string): TimeRange[] {
  const out: TimeRange[] = [];
  for (const pattern of RANGES) {
    for (const m of text.matchAll(pattern)) {
      const start = m.index!;
      const end = start + m[0].length;
      if (out.some((r) => start < r.end && end > r.start)) continue;
      const next = /^\s+([a-z]+)/.exec(text.slice(end))?.[1];
      if (next !== undefined && !AFTER_RANGE.test(next)) continue;
      const bracketed = text.lastIndexOf('(', start) > text.lastIndexOf(')', start);
      out.push({ from: m[1] ?? m[3]!, to: m[2] ?? m[4]!, start, end, bracketed });
    }
  }
  return out.sort((a, b) => a.start - b.start);
}

/**
 * The range of `ranges` whose stretch of `text` says most of `lemmas`: the words from the range
 * before it to its end ("ambassador to Chile between 2011 and 2016" when Chile is asked), else, when
 * none says any, the words after it up to the next range ("from 1996 to 2000 she led the choir"); the
 * first on a tie.
 */
function rangeSaying(text: string, ranges: readonly TimeRange[], lemmas: ReadonlySet<string>): TimeRange {
  const says = (from: number, to: number): number => {
    const words =
      text
        .slice(from, to)
        .toLowerCase()
        .match(/\p{L}+/gu) ?? [];
    return [...lemmas].filter((l) => words.some((w) => w.startsWith(l))).length;
  };
  for (const stretch of [
    (r: TimeRange, k: number) => says(ranges[k - 1]?.end ?? 0, r.end),
    (r: TimeRange, k: number) => says(r.end, ranges[k + 1]?.start ?? text.length),
  ]) {
    const counts = ranges.map(stretch);
    const most = Math.max(...counts);
    if (most > 0) return ranges[counts.indexOf(most)]!;
  }
  return ranges[0]!;
}

/** A year of a date as the range patterns read it (a four-digit year of 1000–2099), or null. */
function yearOf(date: string): boolean {
  return YEAR.test(String(datesIn(date).at(-1)?.[0] ?? ''));
}

/**
 * The length of time the context gives `asked.name` for what the question asks: the sentence of
 * its own items (or one naming it) with a range that says most of what the question says, with "N
 * years" (or "since Y" when it still goes on); null when none does. A bracketed life span answers
 * only how long it lived or existed.
 */
export function durationOf(
  asked: DurationAsked,
  sentences: readonly AnswerSentence[],
): { answer: string; sentence: number } | null {
  const own = new Set([...aboutItems(asked.name, sentences), ...openedItems(asked.name, sentences)]);
  let best: { answer: string; sentence: number; says: number } | null = null;
  let found = 0;
  for (let i = 0; i < sentences.length; i++) {
    const s = sentences[i]!;
    if (!own.has(s.item) && !s.text.includes(asked.name)) continue;
    const says = s.lemmas.filter((l) => asked.lemmas.has(l)).length;
    const ranges = rangesIn(s.text);
    const range = ranges.length > 0 ? rangeSaying(s.text, ranges, asked.lemmas) : null;
    let answer: string | null = null;
    if (range && (!range.bracketed || asked.existence) && yearOf(range.from) && yearOf(range.to)) {
      const from = datesIn(range.from).at(-1)!;
      const to = datesIn(range.to).at(-1)!;
      const years = to[0] >= from[0] ? yearsBetween(from, to) : -1;
      if (years >= 1) answer = years === 1 ? '1 year' : `${years} years`;
    } else {
      const since = SINCE.exec(s.text)?.[1];
      if (since && yearOf(since)) answer = `since ${since}`;
    }
    if (answer === null) continue;
    found++;
    if (!best || says > best.says) best = { answer, sentence: i, says };
  }
  // Several ranges and none saying what is asked: which one is meant is not known.
  if (!best || (best.says === 0 && found > 1)) return null;
  return { answer: best.answer, sentence: best.sentence };
}

const TIME_UNITS = /^(years?|months?|weeks?|days?|decades?|centuries|century|hours?|since)$/i;

/**
 * Whether `answer`, found for a question asking a length of time, reads as one: a time unit or a
 * count ("twelve years", "36", "since 1978"), not a lone year or another phrase ("autumn").
 */
export function readsAsLength(answer: string): boolean {
  const words = answer.split(/\s+/);
  if (words.some((w) => TIME_UNITS.test(w))) return true;
  return words.some((w) => NUMBER_WORDS.has(w.toLowerCase()) || (/^\d+$/.test(w) && !YEAR.test(w)));
}
