/**
 * The options a choice question compares: "…, A or B?", "Did A or B …?", "the captain or the
 * treasurer", "Which of A and B …?", "Between A and B, who …?", "A and B — who is older?".
 */
import { spanText, type Token } from '../nlp.js';
import { wordsOf } from '../words.js';
import { AUXILIARIES, clean, MAX_WORDS, MIN_WORDS } from './comparatives.js';

/** The words that open a wh-question. */
export const WH = new Set('who whom whose what which where when why how'.split(' '));
/** Lower-case words a name may hold ("Salt and Signal", "Isle of Skarn"). */
const OPTION_CONNECTORS = new Set('of the de la le von van der del da di du and & for on in a an'.split(' '));

/** The compared phrases of "…, A or B?" / "Did A or B …?", or [] when the question compares nothing. */
export function choiceOptions(tokens: readonly Token[]): string[] {
  let or = -1;
  for (let i = tokens.length - 1; i > 0; i--) {
    if (tokens[i]!.normal === 'or') {
      or = i;
      break;
    }
  }
  if (or < 0) return coordinatedOptions(tokens);
  let last = tokens.length - 1;
  while (last > or && tokens[last]!.type === 'punctuation') last--;
  const isCap = (t: Token | undefined): boolean =>
    !!t && (/^[\p{Lu}\p{N}"“]/u.test(t.value) || t.pos === 'PROPN' || t.pos === 'NUM');
  // The comma that opens the options: the first one after which only a name runs up to "or" (a
  // name may hold commas: "Which came first, Salt, Iron and Rope or …"); else the last one.
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
  if (leftStart >= or || rightEnd <= or) return nounOptions(tokens, or);
  // "on Mondays or on Tuesdays": the preposition is the question's, not the option's.
  const bare = (x: string): string => x.replace(/^(on|in|at|to|from|by|for|with)\s+(?=\p{Lu})/u, '');
  const left = bare(clean(spanText(tokens, leftStart, or - 1)));
  const right = bare(clean(spanText(tokens, or + 1, rightEnd)));
  if (!left || !right || wordsOf(left).length > 12 || wordsOf(right).length > 12) return [];
  return [left, right];
}

const NOUNISH = new Set(['NOUN', 'PROPN', 'ADJ', 'NUM']);

/** Common-noun options either side of "or": "on Mondays or on Tuesdays", "the captain or the treasurer". */
function nounOptions(tokens: readonly Token[], or: number): string[] {
  let ls = or - 1;
  if (!NOUNISH.has(tokens[ls]?.pos ?? '')) return [];
  // "is Sunniva Rusk treasurer or captain": a lower-case option does not take in the name before it.
  const lower = /^\p{Ll}/u.test(tokens[ls]!.value);
  while (
    ls - 1 >= 0 &&
    NOUNISH.has(tokens[ls - 1]!.pos) &&
    !WH.has(tokens[ls - 1]!.normal) &&
    !(lower && /^\p{Lu}/u.test(tokens[ls - 1]!.value))
  )
    ls--;
  let re = or + 1;
  while (re < tokens.length && /^(DET|ADP)$/.test(tokens[re]!.pos)) re++;
  const rs = re;
  while (re + 1 < tokens.length && NOUNISH.has(tokens[re + 1]!.pos)) re++;
  if (!NOUNISH.has(tokens[rs]?.pos ?? '')) return [];
  return [clean(spanText(tokens, ls, or - 1)), clean(spanText(tokens, rs, re))];
}

/**
 * Two names joined by "and" from token `from` (type words before the first left out: "the films A
 * and B") up to the next verb or punctuation, and the last token's index; null when there are not
 * two of at most eight words.
 */
function namesJoined(
  tokens: readonly Token[],
  from: number,
): { names: [string, string]; end: number } | null {
  let start = from;
  while (
    start < tokens.length &&
    /^(DET|NOUN|ADJ|NUM)$/.test(tokens[start]!.pos) &&
    /^\p{Ll}/u.test(tokens[start]!.value)
  )
    start++;
  const and = tokens.findIndex((t, i) => i >= start && t.normal === 'and');
  if (and <= start) return null;
  let end = and + 1;
  while (
    end + 1 < tokens.length &&
    !/^(VERB|AUX)$/.test(tokens[end + 1]!.pos) &&
    tokens[end + 1]!.type !== 'punctuation'
  )
    end++;
  const left = clean(spanText(tokens, start, and - 1));
  const right = end > and ? clean(spanText(tokens, and + 1, end)) : '';
  if (!left || !right || wordsOf(left).length > 8 || wordsOf(right).length > 8) return null;
  return { names: [left, right], end };
}

/**
 * The options of a comparison written with "and": "Between A and B, which …", "Of A and B, who …",
 * "A and B: which of them …", "Which of A and B …". [] when the question has no such frame.
 */
function coordinatedOptions(tokens: readonly Token[]): string[] {
  const wh = tokens.findIndex((t) => WH.has(t.normal));
  if (wh < 0) return [];
  const words = tokens.map((t) => t.normal);
  // "Which of A and B was …?": the names between "of" and the verb.
  if (words[wh + 1] === 'of') {
    const pair = namesJoined(tokens, wh + 2);
    if (pair) return pair.names;
  }
  // "Who was born first between A and B?", "Who among A and B died first?": the names after
  // "between" or "among" later in the question, when a comparative word outside them compares.
  const among = words.findIndex((w, i) => i > wh && (w === 'between' || w === 'among'));
  const pair = among > 0 ? namesJoined(tokens, among + 1) : null;
  if (pair && words.some((w, i) => (i < among || i > pair.end) && (MIN_WORDS.has(w) || MAX_WORDS.has(w))))
    return pair.names;
  // The frame: an opening "between"/"of"/"comparing" up to a comma or colon before the wh-word, or
  // a run up to a colon or a dash before it ("A and B — who is older?").
  let start = 0;
  if (/^(between|of|among|comparing|from)$/.test(words[0] ?? '')) start = 1;
  else if (words[0] === 'out' && words[1] === 'of') start = 2;
  let end = wh - 1;
  while (end > start && tokens[end]!.type === 'punctuation') end--;
  if (end <= start || !/^[,:;—–-]$/.test(tokens[end + 1]?.value ?? '')) return [];
  if (start === 0 && !/^[:—–-]$/.test(tokens[end + 1]!.value)) return [];
  // After a dash, only when the question compares ("A and B — who is older?", not "A and B — who
  // wrote it?").
  const dash = /^[—–-]$/.test(tokens[end + 1]!.value);
  if (dash && !words.slice(end + 1).some((w) => MIN_WORDS.has(w) || MAX_WORDS.has(w))) return [];
  // "Of the films A and B": the type words before the first name are not part of it.
  while (start < end && /^(DET|NOUN|ADJ)$/.test(tokens[start]!.pos) && /^\p{Ll}/u.test(tokens[start]!.value))
    start++;
  // "Comparing A with B": "with" joins them as "and" does; "A, B — which …?" a lone comma.
  let and = words.findIndex(
    (w, i) =>
      i > start && i < end && (w === 'and' || (start === 1 && words[0] === 'comparing' && w === 'with')),
  );
  if (and < 0 && start === 0) {
    const commas = words.filter((w, i) => i > start && i < end && w === ',').length;
    if (commas === 1) and = words.indexOf(',', start + 1);
  }
  if (and <= start || and >= end) return [];
  const left = clean(spanText(tokens, start, and - 1));
  const right = clean(spanText(tokens, and + 1, end));
  if (!left || !right || wordsOf(left).length > 8 || wordsOf(right).length > 8) return [];
  return [left, right];
}
