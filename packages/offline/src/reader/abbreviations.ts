/**
 * "What does NMRA stand for?": the words the context writes out for an abbreviation, beside it in
 * brackets ("The NMRA (Northern Maritime Research Association)", "the Northern Maritime Research
 * Association (NMRA)"), their initials the abbreviation's letters.
 */
import type { Token } from '../nlp.js';
import type { AnswerSentence } from './types.js';

/** Letters of an abbreviation as written: "NMRA", "N.M.R.A.", "UNESCO". */
const ABBREVIATION = /^(?:[A-Z]\.?){2,8}$/;

/** Small words an expansion may hold without a letter of its own ("Bank *of* England"). */
const LINKS = new Set(['of', 'and', 'for', 'the', 'de', 'la', 'du', 'des', 'in', 'on', 'at', 'to', '&']);

/**
 * The abbreviation a question asks to be written out: "What does X stand for?", "What is X short
 * for?", "X stands for what?", "What is the full name of X?"; null for any other question.
 */
export function abbreviationAsked(tokens: readonly Token[]): string | null {
  const words = tokens.filter((t) => t.type !== 'punctuation');
  const normals = words.map((t) => t.normal);
  const at = words.findIndex((t) => ABBREVIATION.test(t.value));
  if (at < 0) return null;
  const rest = normals.slice(at + 1).join(' ');
  const asks =
    /^(stand|stands|stood) for( what)?$/.test(rest) ||
    (rest === 'short for' && /^(is|was)$/.test(normals[at - 1] ?? '')) ||
    (/^what (is|was) the (full|long) (name|form) of( the)?$/.test(normals.slice(0, at).join(' ')) &&
      rest === '');
  return asks ? words[at]!.value.replace(/\./g, '') : null;
}

/** The expansion of `abbreviation` in the sentences, with the sentence that writes it; null when none does. */
export function expansionOf(
  abbreviation: string,
  sentences: readonly AnswerSentence[],
): { answer: string; sentence: number } | null {
  const letters = abbreviation.toUpperCase();
  const escaped = letters.split('').join('\\.?');
  // "NMRA (Northern …)" and "Northern … (NMRA)".
  const after = new RegExp(`\\b${escaped}\\.?\\s*\\(([^()]{3,120})\\)`);
  const before = new RegExp(`((?:[\\p{L}&'’-]+\\s+){1,12})\\(${escaped}\\.?\\)`, 'u');
  for (let i = 0; i < sentences.length; i++) {
    const text = sentences[i]!.text;
    const inBrackets = after.exec(text)?.[1];
    if (inBrackets && initialsMatch(inBrackets.trim(), letters))
      return { answer: inBrackets.trim(), sentence: i };
    const preceding = before.exec(text)?.[1];
    if (preceding) {
      const words = preceding.trim().split(/\s+/);
      // The shortest run of words ending before the bracket whose initials spell the letters.
      for (let start = words.length - 1; start >= 0; start--) {
        const candidate = words.slice(start).join(' ');
        if (initialsMatch(candidate, letters)) return { answer: candidate, sentence: i };
      }
    }
  }
  return null;
}

/** Whether the capitalised words of `phrase` (small linking words aside) begin with `letters` in order. */
function initialsMatch(phrase: string, letters: string): boolean {
  const words = phrase.split(/[\s-]+/).filter((w) => w && !LINKS.has(w.toLowerCase()));
  if (words.length !== letters.length) return false;
  return words.every((w, i) => w[0]?.toUpperCase() === letters[i] && /^\p{Lu}/u.test(w));
}
