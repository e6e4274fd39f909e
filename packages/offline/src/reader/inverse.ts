/**
 * A relative named from the other side: "Who is Mia's grandfather?" answered by "Mia is Peter
 * Holt's granddaughter" or "Mia, the granddaughter of Peter Holt". The kinship nouns whose inverse
 * is one noun of the other generation (grandparents and grandchildren, great-grandparents and
 * great-grandchildren, uncles and aunts, nephews and nieces); the relative is the possessor of the
 * inverse noun in a sentence that names the subject.
 */
import { containsWords, contentWords } from '../words.js';
import { aboutItems, personName, wordSet } from './about.js';
import type { QuestionReading } from './question.js';
import type { ResolvedEntity } from './resolve.js';
import { type Span, sentenceSpans } from './spans.js';
import type { AnswerSentence } from './types.js';

const UP = ['grandfather', 'grandmother', 'grandparent'];
const DOWN = ['grandson', 'granddaughter', 'grandchild'];
const GREAT_UP = UP.map((n) => `great-${n}`);
const GREAT_DOWN = DOWN.map((n) => `great-${n}`);
const ELDER = ['uncle', 'aunt'];
const YOUNGER = ['nephew', 'niece'];

/** The nouns that name a relation from the other side ("grandfather" ← "granddaughter"), or []. */
export function inverseKinNouns(noun: string): readonly string[] {
  for (const [a, b] of [
    [UP, DOWN],
    [GREAT_UP, GREAT_DOWN],
    [ELDER, YOUNGER],
  ] as const) {
    if (a.includes(noun)) return b;
    if (b.includes(noun)) return a;
  }
  return [];
}

/**
 * The relative `noun` names of `subject`, found as the possessor of an inverse noun in a sentence
 * naming the subject: "<subject> is Y's granddaughter", "the granddaughter of Y". null when none.
 */
export function resolveInverseKin(
  noun: string,
  subject: string,
  sentences: readonly AnswerSentence[],
  reading: QuestionReading,
): ResolvedEntity | null {
  const inverse = inverseKinNouns(noun);
  const subjectWords = contentWords(subject);
  if (inverse.length === 0 || subjectWords.length === 0) return null;
  const subjectSet = new Set(subjectWords);
  const about = aboutItems(subject, sentences);
  for (let i = 0; i < sentences.length; i++) {
    const s = sentences[i]!;
    if (!about.has(s.item) && containsWords(wordSet(s), subjectWords) < 0.8) continue;
    const tokens = s.ea.analysis.tokens;
    const range = s.ea.analysis.sentences[s.index]!;
    for (let k = range.start; k <= range.end; k++) {
      if (!inverse.includes(tokens[k]!.lemma) && !inverse.includes(tokens[k]!.normal)) continue;
      // "Y's granddaughter": the name ending before "'s"; "the granddaughter of Y": the one after "of".
      const possessive = /^['’]s?$/.test(tokens[k - 1]?.value ?? '');
      const of = tokens[k + 1]?.normal === 'of';
      if (!possessive && !of) continue;
      const spans = sentenceSpans(s.ea, s.index, reading).filter((x: Span) =>
        x.type === 'person' || x.type === 'other'
          ? possessive
            ? x.end === k - 2
            : x.start === k + 2 || (x.start === k + 3 && tokens[k + 2]?.normal === 'the')
          : false,
      );
      for (const span of spans) {
        const name = personName(tokens, span, range.end, sentences);
        const words = contentWords(name);
        if (words.length === 0 || containsWords(subjectSet, words) === 1) continue;
        return { name, sentence: i, score: 1 };
      }
    }
  }
  return null;
}
