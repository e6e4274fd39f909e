/**
 * The age at death: "How old was X when she died?", "At what age did X die?", "How old was X at the
 * time of his death?". The years between the birth and the death the context gives X, counted to
 * the day when both dates are full ("(4 May 1901 – 2 June 1980)" is 79).
 */
import { spanText, type Token } from '../nlp.js';
import { aboutItems } from './about.js';
import { nameEnd } from './chain.js';
import { isCapital } from './clause-end.js';
import { LIFE_SPAN, MONTHS } from './question.js';
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

/**
 * The age at death of `name` from the life span its own item gives ("X (4 May 1901 – 2 June 1980)
 * was …"), with the sentence it is read from; null when the context gives no life span of it.
 */
export function ageAtDeath(
  name: string,
  sentences: readonly AnswerSentence[],
): { years: number; sentence: number } | null {
  const own = aboutItems(name, sentences);
  for (let i = 0; i < sentences.length; i++) {
    const s = sentences[i]!;
    if (!own.has(s.item)) continue;
    const span = LIFE_SPAN.exec(s.text)?.[0];
    if (!span) continue;
    const [before, after] = span.split(/[–—]|\s-\s|(?<=\d)-(?=\d|\s|[A-Z])/);
    const born = datesIn(before ?? '').at(-1);
    const died = datesIn(after ?? '').at(-1);
    if (!born || !died || died[0] < born[0]) continue;
    return { years: yearsBetween(born, died), sentence: i };
  }
  return null;
}
