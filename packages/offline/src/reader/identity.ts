/**
 * What someone or something is: "Who was Edvard Brandt?", "What is Ruben Falk's profession?", "What
 * does Tobias Wren do for a living?", "What is the Brandt Medal?". The answer is the noun phrase the
 * context calls the name by: "X is a marine biologist …", "X, a harbour master of …", "the composer X".
 */
import { spanText, type Token } from '../nlp.js';
import { containsWords, contentWords, foldedWord } from '../words.js';
import { aboutItems, wordSet } from './about.js';
import type { AnswerSentence } from './types.js';

const ROLE_NOUNS = /^(profession|occupation|job|career|trade|vocation|line)$/;

const capital = (t: Token | undefined): boolean => !!t && /^\p{Lu}/u.test(t.value);

/**
 * The name a question asks the identity or occupation of, or null: "Who is/was X?", "What is/was
 * X's profession?", "What is the occupation of X?", "What does/did X do (for a living)?", "What is
 * (the) X?".
 */
export function identityName(tokens: readonly Token[]): string | null {
  const words = tokens.filter((t) => t.type !== 'punctuation' || /^['’]s?$/.test(t.value));
  const w = words.map((t) => t.normal);
  const nameAt = (from: number, to: number): string | null => {
    if (to < from) return null;
    const run = words.slice(from, to + 1);
    if (!run.every((t) => capital(t) || /^(of|de|van|von|the)$/.test(t.normal)) || !capital(run[0]))
      return null;
    return run.map((t) => t.value).join(' ');
  };
  // "What was X's job before she became mayor?": a clause of time after the question is left aside.
  const clause = w.findIndex((x, i) => i > 3 && /^(before|after|when|while|until)$/.test(x));
  const last = clause > 0 ? clause - 1 : words.length - 1;
  if (w[0] === 'who' && /^(is|was)$/.test(w[1] ?? '')) return nameAt(2, last);
  if (w[0] === 'what' && /^(is|was)$/.test(w[1] ?? '')) {
    // "What is X's profession?"
    if (ROLE_NOUNS.test(w[last] ?? '') && /^['’]s?$/.test(words[last - 1]?.value ?? ''))
      return nameAt(2, last - 2);
    // "What is the profession of X?"
    if (w[2] === 'the' && ROLE_NOUNS.test(w[3] ?? '') && w[4] === 'of') return nameAt(5, last);
    // "What is the Brandt Medal?", "What was Kestry Mill?"
    return nameAt(w[2] === 'the' ? 3 : 2, last);
  }
  // "What does X do (for a living / for work)?"
  if (w[0] === 'what' && /^(does|did|do)$/.test(w[1] ?? '')) {
    let end = last;
    if (w[end - 2] === 'for' && /^(living|work)$/.test(w[end] ?? '')) end -= 3;
    else if (w[end - 1] === 'for' && /^(living|work)$/.test(w[end] ?? '')) end -= 2;
    if (w[end] === 'do') return nameAt(2, end - 1);
  }
  return null;
}

/** Words that place a thing in a series of its kind: "the second album", "the debut novel". */
const SERIES =
  /^(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|\d+(st|nd|rd|th)|debut|final|last|latest|only)$/;

/**
 * Whether token `k` opens what a thing is called: "a marine biologist", or "the" before a series
 * word ("the second studio album by Y" is one of a series of albums); "the birthplace of Y"
 * relates the thing to Y instead.
 */
export function opensKind(tokens: readonly Token[], k: number): boolean {
  const word = tokens[k]?.normal ?? '';
  return /^(a|an)$/.test(word) || (word === 'the' && SERIES.test(tokens[k + 1]?.normal ?? ''));
}

/** What a sentence calls the person whose name words are `name`, from token `k` of it on. */
function roleAfter(tokens: readonly Token[], k: number, end: number): [number, number] | null {
  if (!opensKind(tokens, k)) return null;
  let i = k + 1;
  const start = i;
  // Adjectives and nouns up to the head: "former harbour engineer", "marine biologist"; a people's
  // name before them ("an English composer").
  const modifier = (t: Token | undefined): boolean => !!t && /^(ADJ|NOUN|ADV)$/.test(t.pos) && !capital(t);
  // ("singer-songwriter": a hyphen between two words joins them.)
  const hyphen = (j: number): boolean =>
    tokens[j]?.value === '-' && modifier(tokens[j - 1]) && modifier(tokens[j + 1]) && j > start;
  while (
    i <= end &&
    (modifier(tokens[i]) || hyphen(i) || (capital(tokens[i]) && i < end && modifier(tokens[i + 1])))
  )
    i++;
  const last = i - 1;
  return last >= start && tokens[last]!.pos === 'NOUN' ? [start, last] : null;
}

/** A noun phrase a sentence calls a name by: tokens `start..end` of sentence `sentence`. */
export interface RoleSpan {
  sentence: number;
  start: number;
  end: number;
  /** How surely the sentence says it ("X is a …" most, "the composer X" least), its item first. */
  score: number;
}

/**
 * Every noun phrase the context calls `name` by: "X is a marine biologist …" → "marine biologist";
 * "X, a harbour master of …" → "harbour master"; "the composer X" → "composer"; "The director of
 * the shipyard is X" → "director of the shipyard". Best first; sentences of X's own item count most.
 */
export function roleSpans(name: string, sentences: readonly AnswerSentence[]): RoleSpan[] {
  const words = contentWords(name);
  if (words.length === 0) return [];
  const own = aboutItems(name, sentences);
  const out: RoleSpan[] = [];
  for (let i = 0; i < sentences.length; i++) {
    const s = sentences[i]!;
    if (containsWords(wordSet(s), words.slice(-1)) < 1) continue;
    const tokens = s.ea.analysis.tokens;
    const range = s.ea.analysis.sentences[s.index]!;
    const word = (at: number): string | undefined => {
      const t = tokens[at];
      return t && foldedWord(t.value);
    };
    for (let k = range.start; k <= range.end; k++) {
      // The whole name ends here (or its last word alone, as a text calls a person again: "Marren").
      if (word(k) !== words[words.length - 1]) continue;
      const whole = words.every((w, j) => word(k - (words.length - 1 - j)) === w);
      // A common name in lower case ("the grey wren") only whole.
      if (!capital(tokens[k]) && !(whole && words.length > 1)) continue;
      // Another person of the same surname ("Mayor Odile Brandt" for "Edvard Brandt") is not X,
      // but the name with a middle name is ("Ada Maria Fenn" for "Ada Fenn").
      let first = k - (words.length - 1);
      if (!whole && words.length > 1) {
        let j = k - 1;
        while (j > range.start && capital(tokens[j]) && word(j) !== words[0]) j--;
        if (word(j) === words[0] && k - j <= words.length + 2) first = j;
      }
      const middle = first < k - (words.length - 1);
      if (capital(tokens[k + 1]) || (!whole && !middle && capital(tokens[k - 1]))) continue;
      const found = roleAt(tokens, k, first, range);
      if (found)
        out.push({ sentence: i, ...found, score: found.weight * (own.has(s.item) ? 1.5 : 1) - 0.001 * i });
    }
  }
  return out.sort((a, b) => b.score - a.score);
}

/** The role a sentence gives the name ending at token `k` (first word at `first`), or null. */
function roleAt(
  tokens: readonly Token[],
  k: number,
  first: number,
  range: { start: number; end: number },
): { start: number; end: number; weight: number } | null {
  // "Ruben Falk (1885 – 1960) was a …", "X (born 1971) is a …": the brackets after a name aside.
  let after = k;
  if (tokens[k + 1]?.value === '(') {
    let close = k + 2;
    while (close <= range.end && tokens[close]!.value !== ')') close++;
    if (close <= range.end && close - k <= 16) after = close;
  }
  const next = tokens[after + 1]?.normal;
  let role: [number, number] | null = null;
  if (/^(is|was|are|were)$/.test(next ?? '')) role = roleAfter(tokens, after + 2, range.end);
  if (role) return { start: role[0], end: role[1], weight: 1 };
  if (next === ',') role = roleAfter(tokens, after + 2, range.end);
  if (role) return { start: role[0], end: role[1], weight: 0.9 };
  // "the composer Tobias Wren": a lower-case noun right before the name's first word.
  const before = tokens[first - 1];
  if (before?.pos === 'NOUN' && !capital(before) && /^(the|a|an)$/.test(tokens[first - 2]?.normal ?? '')) {
    let j = first - 1;
    while (j - 1 >= range.start && /^(ADJ|NOUN)$/.test(tokens[j - 1]!.pos) && !capital(tokens[j - 1])) j--;
    return { start: j, end: first - 1, weight: 0.7 };
  }
  // "The current director of the shipyard is Marta Kessler": the sentence's subject.
  if (
    /^(is|was)$/.test(before?.normal ?? '') &&
    tokens[range.start]?.normal === 'the' &&
    first - 2 - range.start <= 8
  )
    return { start: range.start + 1, end: first - 2, weight: 0.8 };
  return null;
}

/**
 * The noun phrase the context calls `name` by, with the sentence that says so ({@link roleSpans},
 * the best). null when no sentence calls X anything.
 */
export function identityOf(
  name: string,
  sentences: readonly AnswerSentence[],
): { answer: string; sentence: number } | null {
  const best = roleSpans(name, sentences)[0];
  if (!best) return null;
  const tokens = sentences[best.sentence]!.ea.analysis.tokens;
  return { answer: spanText(tokens, best.start, best.end), sentence: best.sentence };
}

/**
 * The heads (lemmas) of what the context calls `name`: "X was a Norwegian marine biologist" →
 * "biologist".
 */
export function roleHeads(name: string, sentences: readonly AnswerSentence[]): Set<string> {
  const heads = new Set<string>();
  for (const r of roleSpans(name, sentences)) {
    const tokens = sentences[r.sentence]!.ea.analysis.tokens;
    for (const [, end] of coordinatedRoles(tokens, r.start, r.end)) heads.add(tokens[end]!.lemma);
  }
  return heads;
}

/**
 * The role at tokens `start..end` and those coordinated after it, each on its own: "an English
 * composer and organist" → "English composer", "organist"; "painter, sculptor and poet".
 */
export function coordinatedRoles(tokens: readonly Token[], start: number, end: number): [number, number][] {
  const out: [number, number][] = [[start, end]];
  let k = end + 1;
  while (/^(and|or|,)$/.test(tokens[k]?.normal ?? '')) {
    let e = k + 1;
    if (tokens[e]?.normal === 'and') e++;
    const from = e;
    while (tokens[e] && /^(ADJ|NOUN)$/.test(tokens[e]!.pos) && !capital(tokens[e])) e++;
    if (e === from || tokens[e - 1]!.pos !== 'NOUN') break;
    out.push([from, e - 1]);
    k = e;
  }
  return out;
}
