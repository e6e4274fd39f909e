/**
 * Ages. At death: "How old was X when she died?", "At what age did X die?", "How old was X at the
 * time of his death?": the years between the birth and the death the context gives X, counted to
 * the day when both dates are full ("(4 May 1901 – 2 June 1980)" is 79). At an event: "How old was
 * X when he founded Y?", "How old was X in 1940?": the years from X's birth to the date the reader
 * finds for the event (or the year the question gives).
 */
import { spanText, type Token } from '../nlp.js';
import { aboutItems } from './about.js';
import { nameEnd } from './chain.js';
import { isCapital } from './clause-end.js';
import { LIFE_SPAN, MONTHS, YEAR } from './question.js';
import type { AnswerSentence } from './types.js';

/** The name whose age at death a question asks, or null when it asks something else. */
export function ageAtDeathAsked(tokens: readonly Token[]): string | null {
  const words = tokens.map((t) => t.normal);
  const dies = words.some((w) => /^(die|died|dies|death|dying|passed)$/.test(w));
  const howOld = words.some((w, k) => w === 'how' && /^(old)$/.test(words[k + 1] ?? ''));
  const whatAge = words.some((w, k) => /^(what|which)$/.test(w) && words[k + 1] === 'age');
  if (!dies || !(howOld || whatAge)) return null;
  return firstName(tokens);
}

/** The question's first name: the name at its first capitalised word after the first ("Tobias Wren"). */
export function firstName(tokens: readonly Token[]): string | null {
  const first = tokens.findIndex((t, k) => k > 0 && isCapital(t));
  return first < 0 ? null : spanText(tokens, first, nameEnd(tokens, first));
}

/** A date as [year, month or 0, day or 0]. */
export type Dated = [number, number, number];

const MONTH_INDEX = new Map([...MONTHS].map((m, i) => [m, i + 1]));

/** The dates written in `text` in order: "4 May 1901", "May 4, 1901", "May 1901", "1901". */
export function datesIn(text: string): Dated[] {
  const out: Dated[] = [];
  const pattern =
    /(?:(\d{1,2})\s+([A-Z][a-z]+)\s+(\d{3,4}))|(?:([A-Z][a-z]+)\s+(\d{1,2}),?\s+(\d{3,4}))|(?:([A-Z][a-z]+)\s+(\d{3,4}))|(\d{3,4})/g;
  for (const m of text.matchAll(pattern)) {
    const month = (name: string | undefined): number => MONTH_INDEX.get(name?.toLowerCase() ?? '') ?? 0;
    if (m[3] && month(m[2])) out.push([Number(m[3]), month(m[2]), Number(m[1])]);
    else if (m[6] && month(m[4])) out.push([Number(m[6]), month(m[4]), Number(m[5])]);
    else if (m[8] && month(m[7])) out.push([Number(m[8]), month(m[7]), 0]);
    else if (m[9]) out.push([Number(m[9]), 0, 0]);
  }
  return out;
}

/** Whole years from `born` to `died`: to the day when both give day and month, else by years. */
export function yearsBetween(born: Dated, died: Dated): number {
  let years = died[0] - born[0];
  if (
    born[1] &&
    died[1] &&
    born[2] &&
    died[2] &&
    (died[1] < born[1] || (died[1] === born[1] && died[2] < born[2]))
  )
    years--;
  return years;
}

/** The two dates of a bracketed life span in `text` ("(4 May 1901 – 2 June 1980)"), as written, or null. */
function lifeSpanIn(text: string): [born: string, died: string] | null {
  const span = LIFE_SPAN.exec(text)?.[0];
  if (!span) return null;
  const [born, died] = span.split(/[–—]|\s-\s|(?<=\d)-(?=\d|\s|[A-Z])/);
  return [born ?? '', died ?? ''];
}

/** The first sentence of `name`'s own items from which `read` reads a value, with the value. */
function ownSentence<T>(
  name: string,
  sentences: readonly AnswerSentence[],
  read: (text: string) => T | null,
): { value: T; sentence: number } | null {
  const own = aboutItems(name, sentences);
  for (let i = 0; i < sentences.length; i++) {
    if (!own.has(sentences[i]!.item)) continue;
    const value = read(sentences[i]!.text);
    if (value !== null) return { value, sentence: i };
  }
  return null;
}

/**
 * The age at death of `name` from the life span its own item gives ("X (4 May 1901 – 2 June 1980)
 * was …"), with the sentence it is read from; null when the context gives no life span of it.
 */
export function ageAtDeath(
  name: string,
  sentences: readonly AnswerSentence[],
): { years: number; sentence: number } | null {
  const found = ownSentence(name, sentences, (text) => {
    const span = lifeSpanIn(text);
    const born = span && datesIn(span[0]).at(-1);
    const died = span && datesIn(span[1]).at(-1);
    return born && died && died[0] >= born[0] ? yearsBetween(born, died) : null;
  });
  return found && { years: found.value, sentence: found.sentence };
}

/** An age asked at an event or in a year: whose, and the year the question gives (or null). */
export interface AgeAsked {
  name: string;
  year: number | null;
  /** "How old is X?": an age now, which no date of the context gives. */
  present: boolean;
}

/** "How old was X when …?", "At what age did X …?", "How old was X in 1940?": whose age, or null. */
export function ageAsked(tokens: readonly Token[]): AgeAsked | null {
  const words = tokens.map((t) => t.normal);
  const howOld = words.some((w, k) => w === 'how' && words[k + 1] === 'old');
  const whatAge = words.some((w, k) => /^(what|which)$/.test(w) && words[k + 1] === 'age');
  if (!howOld && !whatAge) return null;
  const inYear = words.findIndex((w, k) => w === 'in' && YEAR.test(words[k + 1] ?? ''));
  // The name before "in 1940" (a name's run would take the year in).
  const name = firstName(inYear >= 0 ? tokens.slice(0, inYear) : tokens);
  if (!name) return null;
  const now = words.some((w, k) => w === 'old' && /^(is|are)$/.test(words[k + 1] ?? ''));
  return { name, year: inYear >= 0 ? Number(words[inYear + 1]) : null, present: now };
}

/** "(born 3 April 1976)", "born on 3 April 1976", "born in 1902": the birth date after "born". */
const BORN = /\bborn\s+(?:on\s+|in\s+)?((?:\d{1,2}\s+)?(?:[A-Z][a-z]+\s+)?(?:\d{1,2},?\s+)?\d{4})/;

/** The birth date the context gives `name` (its life span or "born …" in its own items), with its sentence. */
export function birthOf(
  name: string,
  sentences: readonly AnswerSentence[],
): { date: Dated; sentence: number } | null {
  const found = ownSentence(
    name,
    sentences,
    (text) => datesIn(lifeSpanIn(text)?.[0] ?? BORN.exec(text)?.[1] ?? '').at(-1) ?? null,
  );
  return found && { date: found.value, sentence: found.sentence };
}

/**
 * The age of `asked.name` at the date `found` (the reader's answer to the question, a date) or at
 * the year the question gives, from the birth the context gives; null when either is missing or
 * the age would be negative, or for an age now ("How old is X?").
 */
export function ageAt(
  asked: AgeAsked,
  found: string | undefined,
  sentences: readonly AnswerSentence[],
): { years: number; sentence: number } | null {
  if (asked.present) return null;
  const at: Dated | undefined = asked.year !== null ? [asked.year, 0, 0] : datesIn(found ?? '').at(-1);
  const born = at && birthOf(asked.name, sentences);
  if (!at || !born || at[0] < born.date[0]) return null;
  return { years: yearsBetween(born.date, at), sentence: born.sentence };
}
