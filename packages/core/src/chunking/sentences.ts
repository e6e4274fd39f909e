/** A piece of a text with its character offsets: `text === source.slice(start, end)`. */
export interface Span {
  text: string;
  start: number;
  end: number;
}

/** Abbreviations that (almost) never end a sentence: titles and the like. Lower-case, no period. */
const TITLE_ABBREVIATIONS = new Set([
  'mr',
  'mrs',
  'ms',
  'mx',
  'dr',
  'prof',
  'st',
  'sr',
  'jr',
  'rev',
  'fr',
  'gen',
  'col',
  'capt',
  'lt',
  'sgt',
  'maj',
  'gov',
  'sen',
  'rep',
  'hon',
  'pres',
  'mt',
  'ft',
  'messrs',
  'mme',
  'mlle',
  'vs',
  'cf',
  'approx',
  'dept',
]);

/** Abbreviations that do not end a sentence when a number follows ("No. 5", "Fig. 3", "Jan. 12"). */
const NUMBER_ABBREVIATIONS = new Set([
  'no',
  'nos',
  'vol',
  'vols',
  'fig',
  'figs',
  'p',
  'pp',
  'ch',
  'chap',
  'sec',
  'art',
  'eq',
  'eqs',
  'tab',
  'ref',
  'para',
  'jan',
  'feb',
  'mar',
  'apr',
  'jun',
  'jul',
  'aug',
  'sep',
  'sept',
  'oct',
  'nov',
  'dec',
]);

/** Sentence-final punctuation, then closing quotes and brackets. */
const TERMINAL = /[.!?…。！？]+["'”’»)\]」』）]*/gu;
/** Punctuation of scripts written without spaces between sentences. */
const CJK_TERMINAL = /[。！？]/u;
/** A blank line: two line breaks with only horizontal whitespace between. */
const BLANK_LINE = /\n[^\S\n]*\n/gu;
/** What may start a sentence: a capital (or uncased letter), a digit, an opening quote or bracket. */
const SENTENCE_START = /[\p{Lu}\p{Lt}\p{Lo}\p{N}"'“‘«([¿¡]/u;
/** The word (letters, digits, inner periods) right before a period. */
const WORD_BEFORE = /[\p{L}\p{N}.]+$/u;
const WHITESPACE = /\s/u;

/** Whether the single period ending at `dot` ends an abbreviation rather than a sentence. */
function isAbbreviation(text: string, dot: number, next: string): boolean {
  const word = WORD_BEFORE.exec(text.slice(Math.max(0, dot - 40), dot))?.[0] ?? '';
  if (word === '') return false;
  const lower = word.toLowerCase();
  if (TITLE_ABBREVIATIONS.has(lower)) return true;
  if (NUMBER_ABBREVIATIONS.has(lower) && /\p{N}/u.test(next)) return true;
  // Dotted abbreviations: e.g., i.e., U.S., a.m., Ph.D.
  if (/^(?:\p{L}{1,2}\.)+\p{L}{1,2}$/u.test(word)) return true;
  // An initial: "J. R. R. Tolkien".
  if (/^\p{Lu}$/u.test(word)) return true;
  // A list number at the start of a line: "1. Open the box."
  if (/^\p{N}{1,3}$/u.test(word)) {
    const lineStart = text.lastIndexOf('\n', dot - word.length - 1) + 1;
    if (text.slice(lineStart, dot - word.length).trim() === '') return true;
  }
  return false;
}

/**
 * Split `text` into sentences with a rule-based splitter. A sentence ends after `.`, `!`, `?` or `…`
 * (with any closing quotes and brackets) when whitespace follows and the next text starts with a
 * capital or uncased letter, a digit, or an opening quote or bracket; after `。！？` in any case; and
 * at every blank line. A period does not end a sentence after a title (Mr., Dr., St., ...), a dotted
 * abbreviation (e.g., i.e., U.S.), an initial ("J. R. R. Tolkien"), a list number at the start of a
 * line, or "No."/"Fig."/month abbreviations followed by a number; decimals (3.14) have no space after
 * the period and never split. Spans are trimmed of surrounding whitespace and returned in order, with
 * `text === source.slice(start, end)`; whitespace-only text gives none.
 */
export function splitSentences(text: string): Span[] {
  const cuts: number[] = [];
  for (const match of text.matchAll(BLANK_LINE)) cuts.push(match.index);
  for (const match of text.matchAll(TERMINAL)) {
    const end = match.index + match[0].length;
    if (end >= text.length) continue;
    if (CJK_TERMINAL.test(match[0])) {
      cuts.push(end);
      continue;
    }
    if (!WHITESPACE.test(text[end] as string)) continue;
    let k = end;
    while (k < text.length && WHITESPACE.test(text[k] as string)) k++;
    const next = text[k];
    if (next === undefined || !SENTENCE_START.test(next)) continue;
    const punctuation = match[0].replace(/["'”’»)\]」』）]+$/u, '');
    if (punctuation === '.' && isAbbreviation(text, match.index, next)) continue;
    cuts.push(end);
  }
  cuts.sort((a, b) => a - b);
  cuts.push(text.length);

  const spans: Span[] = [];
  let from = 0;
  for (const cut of cuts) {
    let start = from;
    let end = cut;
    while (start < end && WHITESPACE.test(text[start] as string)) start++;
    while (end > start && WHITESPACE.test(text[end - 1] as string)) end--;
    if (end > start) spans.push({ text: text.slice(start, end), start, end });
    from = Math.max(from, cut);
  }
  return spans;
}
