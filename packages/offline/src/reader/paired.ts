/**
 * The two names a question compares or asks about together: "Are A and B both …?", "Does A have the
 * same nationality as B?".
 */
import { spanText, type Token } from '../nlp.js';
import { aboutItems } from './about.js';
import { cleanName, NAME_JOINERS, POSSESSIVE } from './chain.js';
import { isCapital } from './clause-end.js';
import { DEMONYMS } from './demonyms.js';
import type { AnswerSentence } from './types.js';

const LEADING = new Set(
  'is are was were do does did has have had can could will would what which who whom whose where when how'.split(
    ' ',
  ),
);
const LEADING_LOWER = new Set('both either the a an'.split(' '));

/** A run of name tokens from `k` towards `step` (±1): capitalised words and what joins them. */
function nameRun(tokens: readonly Token[], k: number, step: 1 | -1): number {
  let edge = -1;
  for (let i = k; i >= 0 && i < tokens.length; i += step) {
    const t = tokens[i]!;
    const next = tokens[i + step];
    if (isCapital(t)) edge = i;
    else if (POSSESSIVE.test(t.value) && isCapital(next) && isCapital(tokens[i - step])) continue;
    else if (t.type === 'word' && t.value !== 'and' && NAME_JOINERS.has(t.normal) && isCapital(next))
      continue;
    else if (t.type !== 'word' && t.type !== 'number' && !/^[?]$/.test(t.value)) {
      // Brackets and marks inside or closing a name ("Tides (1922 Film)", "Row, Row!").
      if (/^[()!'’"“”:.\-–]$/.test(t.value) || (t.value === ',' && isCapital(next))) {
        if (/^[)!]$/.test(t.value) && step === 1) edge = i;
        if (/^[(]$/.test(t.value) && step === -1) edge = i;
        continue;
      }
      break;
    } else break;
  }
  return edge;
}

/**
 * "Are both A and B *Welsh*?", "Were A and B *Welsh* poets?": the end of the second name without
 * the nationality asked after it (a name of two words or more keeps its others: "Mara Quist").
 */
function askedAfter(tokens: readonly Token[], start: number, end: number): number {
  return end > start + 1 && DEMONYMS[tokens[end]!.normal] !== undefined ? end - 1 : end;
}

/**
 * The two things a question compares by "and" or "the same … as": "Are A and B both from …?",
 * "Do both A and B films have …?", "Does A have the same nationality as B?". Title-cased names
 * keep their capitalised "And" ("Salt And Iron"); the lower-case "and" joins the two.
 */
export function pairedNames(tokens: readonly Token[]): [string, string] | null {
  const trimLeft = (s: number, e: number): number => {
    let i = s;
    while (
      i <= e &&
      (LEADING.has(tokens[i]!.normal) ||
        LEADING_LOWER.has(tokens[i]!.value) ||
        (tokens[i]!.type !== 'word' && tokens[i]!.type !== 'number'))
    )
      i++;
    return i;
  };
  const text = (s: number, e: number): string => cleanName(spanText(tokens, s, e));
  for (let a = 1; a < tokens.length - 1; a++) {
    if (tokens[a]!.value !== 'and') continue;
    const start = nameRun(tokens, a - 1, -1);
    const end = nameRun(tokens, a + 1, 1);
    if (start < 0 || end < 0) continue;
    const s = trimLeft(start, a - 1);
    if (s > a - 1) continue;
    return [text(s, a - 1), text(a + 1, askedAfter(tokens, a + 1, end))];
  }
  const phrases = pairedPhrases(tokens);
  if (phrases) return phrases;
  const as = tokens.findIndex(
    (t, k) => t.normal === 'as' && k > 0 && tokens.slice(0, k).some((x) => x.normal === 'same'),
  );
  if (as > 0) {
    const first = tokens.findIndex((t, k) => k > 0 && isCapital(t));
    if (first < 0 || first > as) return null;
    const firstEnd = nameRun(tokens, first, 1);
    const end = nameRun(tokens, as + 1, 1);
    if (firstEnd >= first && end > as) return [text(first, firstEnd), text(as + 1, end)];
  }
  return null;
}

/**
 * "Are the grey wren and the dune lark both songbirds?": two lower-case noun phrases joined by "and"
 * before "both" (or before the verb: "Do the red fox and the arctic fox both live …"), each opened
 * by an article, as the names of a yes/no question. null unless the question opens with its
 * auxiliary.
 */
function pairedPhrases(tokens: readonly Token[]): [string, string] | null {
  if (tokens[0]?.pos !== 'AUX') return null;
  const a = tokens.findIndex((t) => t.value === 'and');
  if (a < 3) return null;
  const nominal = (t: Token | undefined): boolean => !!t && /^(NOUN|ADJ|PROPN)$/.test(t.pos);
  let s = a - 1;
  while (s > 1 && nominal(tokens[s - 1])) s--;
  let e = a + 2;
  while (nominal(tokens[e + 1])) e++;
  const opened = (k: number) => /^(the|a|an)$/.test(tokens[k]?.normal ?? '');
  const closed = /^(both|VERB|ADP|AUX)$/;
  const after = tokens[e + 1];
  if (!opened(s - 1) || !opened(a + 1) || !nominal(tokens[a - 1]) || !nominal(tokens[a + 2])) return null;
  if (!after || !(closed.test(after.normal) || closed.test(after.pos))) return null;
  return [spanText(tokens, s, a - 1), spanText(tokens, a + 2, e)];
}

/**
 * "Were A and B Ice Hockey teams?": the second name as the context knows it. A name the context
 * never writes loses its last words while a shorter name is one an item is about ("B Ice Hockey"
 * → "B"); the words it loses are then asked of both.
 */
export function pairInContext(
  pair: readonly [string, string],
  sentences: readonly AnswerSentence[],
): [string, string] {
  const words = pair[1].split(' ');
  const written = (name: string): boolean => {
    const lower = name.toLowerCase();
    return sentences.some((s) => s.text.toLowerCase().includes(lower));
  };
  if (words.length < 2 || written(pair[1])) return [pair[0], pair[1]];
  for (let n = words.length - 1; n >= 1; n--) {
    const shorter = words.slice(0, n).join(' ');
    if (aboutItems(shorter, sentences).size > 0) return [pair[0], shorter];
  }
  return [pair[0], pair[1]];
}

/** The tokens where `q` first writes each subject whole, or null when it does not write one so. */
export function subjectTokens(q: readonly Token[], subjects: readonly string[]): Set<number> | null {
  const out = new Set<number>();
  for (const subject of subjects) {
    const words = subject.toLowerCase().split(/\s+/);
    const start = q.findIndex((_, j) => words.every((w, m) => q[j + m]?.value.toLowerCase() === w));
    if (start < 0) return null;
    for (let m = 0; m < words.length; m++) out.add(start + m);
  }
  return out;
}
