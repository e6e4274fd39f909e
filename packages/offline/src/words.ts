/** Word-level helpers shared by the answer extraction, the reading of relation chains and the tasks. */

/** Lower-cased words of a text (letters and digits, diacritics folded), for overlap tests. */
export function wordsOf(text: string): string[] {
  return (
    text
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/**
 * A token's word as {@link wordsOf} writes it (lower case, diacritics folded), unlike wink's `normal`,
 * which also respells ("Grey" → "gray").
 */
export const foldedWord = (value: string): string =>
  value
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();

/** Function words that never decide whether two phrases name the same thing. */
export const SPAN_STOP = new Set('the a an of and in on at for to de la le by with from or'.split(' '));

/** The words of a phrase that say what it names. */
export const contentWords = (text: string): string[] => wordsOf(text).filter((w) => !SPAN_STOP.has(w));

/** Share of `words` that `haystack` holds (0 when `words` is empty). */
export function containsWords(haystack: ReadonlySet<string>, words: readonly string[]): number {
  if (words.length === 0) return 0;
  let hits = 0;
  for (const w of words) if (haystack.has(w)) hits++;
  return hits / words.length;
}

/**
 * Sentences joined into one text, each line-sentence (a heading, a line of a list, a relation's verb
 * phrase) closed with a full stop, so the text still reads as the sentences it was made of: "The
 * organ The organist of … is Ada Lindgren." would otherwise read as one sentence.
 */
export function joinSentences(texts: readonly string[]): string {
  return texts.map((t) => (/[.!?…:;]["'”’)\]]*$/u.test(t) ? t : `${t}.`)).join(' ');
}

/** Each word with a capital first letter, also after a hyphen ("austria-hungary" → "Austria-Hungary"). */
export function titleCase(text: string): string {
  return text.replace(/(^|[\s-])(\p{Ll})/gu, (_, sep: string, c: string) => sep + c.toUpperCase());
}

/** The number of words of a text, as separated by white space. */
export function wordCount(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}
