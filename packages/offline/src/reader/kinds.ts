/** Whether words name a kind of what a which/what question asks for (WordNet and the lexicon). */
import { NAME_HEAD_KINDS } from '../lexicon.js';
import type { Token } from '../nlp.js';
import { isKindByWordNet } from '../wordnet.js';
import { isKindOf } from './meaning.js';
import type { Span } from './spans.js';

/**
 * Whether tokens `start..end` name a kind of `descriptor` by WordNet's hierarchy ("cello" of
 * instrument, "German" of language): the last two words, or the head alone.
 */
export function namesKindOf(
  tokens: readonly Token[],
  start: number,
  end: number,
  descriptor: string,
): boolean {
  const head = tokens[end];
  if (head?.type !== 'word') return false;
  if (start < end && isKindByWordNet(`${tokens[end - 1]!.lemma} ${head.lemma}`, descriptor)) return true;
  return isKindByWordNet(head.lemma, descriptor) || isKindByWordNet(head.normal, descriptor);
}

/**
 * Where the kind a which-question asks for heads a span of `words` words: its last token ("Quillon
 * Shipyard" for "which shipyard"), or its first ("River Ode", "Lake Varn"); -1 when neither.
 */
export function kindWord(
  tokens: readonly Token[],
  span: Span,
  words: number,
  descriptor: string | null,
): number {
  if (!descriptor || words < 2) return -1;
  const last = tokens[span.end];
  if (isKindOf(last?.lemma ?? '', descriptor)) return span.end;
  // "Gullwing Records" for "which label": a company's name says what it is.
  if (
    /^\p{Lu}/u.test(last?.value ?? '') &&
    NAME_HEAD_KINDS.get(last!.normal)?.some((k) => isKindOf(k, descriptor))
  )
    return span.end;
  return tokens[span.start]?.lemma === descriptor ? span.start : -1;
}
