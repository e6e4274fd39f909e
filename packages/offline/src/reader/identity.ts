/**
 * What someone or something is: "Who was Edvard Brandt?", "What is Ruben Falk's profession?", "What
 * does Tobias Wren do for a living?", "What is the Brandt Medal?". The answer is the noun phrase the
 * context calls the name by: "X is a marine biologist …", "X, a harbour master of …", "the composer X".
 */
import { spanText, type Token } from '../nlp.js';
import { containsWords, contentWords } from '../words.js';
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
  const last = words.length - 1;
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

/** What a sentence calls the person whose name words are `name`, from token `k` of it on. */
function roleAfter(tokens: readonly Token[], k: number, end: number): [number, number] | null {
  let i = k;
  // "a marine biologist": what X is; "the birthplace of Y" relates X to Y instead.
  if (!/^(a|an)$/.test(tokens[i]?.normal ?? '')) return null;
  i++;
  const start = i;
  // Adjectives and nouns up to the head: "former harbour engineer", "marine biologist".
  while (i <= end && /^(ADJ|NOUN|ADV)$/.test(tokens[i]!.pos) && !capital(tokens[i])) i++;
  const last = i - 1;
  return last >= start && tokens[last]!.pos === 'NOUN' ? [start, last] : null;
}

/**
 * The noun phrase the context calls `name` by, with the sentence that says so: "X is a marine
 * biologist …" → "marine biologist"; "X, a harbour master of …" → "harbour master"; "the composer X"
 * → "composer". Sentences of X's own item come first. null when no sentence calls X anything.
 */
export function identityOf(
  name: string,
  sentences: readonly AnswerSentence[],
): { answer: string; sentence: number } | null {
  const words = contentWords(name);
  if (words.length === 0) return null;
  const own = aboutItems(name, sentences);
  let best: { answer: string; sentence: number; score: number } | null = null;
  for (let i = 0; i < sentences.length; i++) {
    const s = sentences[i]!;
    if (containsWords(wordSet(s), words.slice(-1)) < 1) continue;
    const tokens = s.ea.analysis.tokens;
    const range = s.ea.analysis.sentences[s.index]!;
    for (let k = range.start; k <= range.end; k++) {
      // The whole name ends here (or its last word alone, as a text calls a person again: "Marren").
      if (tokens[k]!.normal !== words[words.length - 1] || !capital(tokens[k])) continue;
      const whole = words.every((word, j) => tokens[k - (words.length - 1 - j)]?.normal === word);
      // Another person of the same surname ("Mayor Odile Brandt" for "Edvard Brandt") is not X.
      if (capital(tokens[k + 1]) || (!whole && capital(tokens[k - 1]))) continue;
      let role: [number, number] | null = null;
      let weight = 0;
      const next = tokens[k + 1]?.normal;
      if (/^(is|was)$/.test(next ?? '')) {
        role = roleAfter(tokens, k + 2, range.end);
        weight = 1;
      } else if (next === ',') {
        role = roleAfter(tokens, k + 2, range.end);
        weight = 0.9;
      }
      // "the composer Tobias Wren": a lower-case noun right before the name's first word.
      const first = k - (words.length - 1);
      const before = tokens[first - 1];
      if (
        !role &&
        before?.pos === 'NOUN' &&
        !capital(before) &&
        /^(the|a|an)$/.test(tokens[first - 2]?.normal ?? '')
      ) {
        let j = first - 1;
        while (j - 1 >= range.start && /^(ADJ|NOUN)$/.test(tokens[j - 1]!.pos) && !capital(tokens[j - 1]))
          j--;
        role = [j, first - 1];
        weight = 0.7;
      }
      // "The current director of the shipyard is Marta Kessler": the sentence's subject.
      if (
        !role &&
        /^(is|was)$/.test(before?.normal ?? '') &&
        tokens[range.start]?.normal === 'the' &&
        first - 2 - range.start <= 8
      ) {
        role = [range.start + 1, first - 2];
        weight = 0.8;
      }
      if (!role) continue;
      const score = weight * (own.has(s.item) ? 1.5 : 1) - 0.001 * i;
      if (!best || score > best.score)
        best = { answer: spanText(tokens, role[0], role[1]), sentence: i, score };
    }
  }
  return best ? { answer: best.answer, sentence: best.sentence } : null;
}
