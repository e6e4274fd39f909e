/**
 * The residual query of a passage: what a question still asks once a passage has been read — the
 * question's BM25 terms the passage does not contain. A second hop behind that passage must match
 * them (grag's mention bridges, see `expandBridges` in `@grag/core/graph`).
 */
import type { Bm25Index } from './bm25.js';

/**
 * The texts of `index` matching the terms of `query` that `covered` does not contain, by BM25,
 * best first (only the ids `filter` accepts, when given; the best `k` of them, when given); none
 * when `covered` holds every term.
 * Terms are read with the index's own tokenizer.
 *
 * @example
 * ```ts
 * const bm25 = new Bm25Index(['Merrow Falls lies on the Veskan Strait.', 'The ferry leaves from Merrow Falls.']);
 * residualSearch(bm25, 'Which ferry leaves the town on the Veskan Strait?', 'Merrow Falls lies on the Veskan Strait.');
 * // → [{ id: 1, score: … }]: "ferry" and "leaves" are what the first passage does not answer
 * ```
 */
export function residualSearch(
  index: Bm25Index,
  query: string,
  covered: string,
  filter?: (id: number) => boolean,
  k: number = Number.POSITIVE_INFINITY,
): { id: number; score: number }[] {
  const { tokenize } = index.options;
  const seen = new Set(tokenize(covered));
  const rest = tokenize(query).filter((t) => !seen.has(t));
  if (rest.length === 0) return [];
  return index.search(rest.join(' '), k, filter ? { filter } : {});
}
