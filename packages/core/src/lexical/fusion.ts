/** Rank fusion of several retrievers' result lists. */
import type { VectorHit } from '../contracts/vector.js';

/** The constant of reciprocal rank fusion. @default 60 (Cormack, Clarke & Büttcher 2009) */
export const RRF_K = 60;

/**
 * Reciprocal rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009): each list gives the hit at rank
 * r (1-based) the score `weight / (k + r)`; scores add over lists. Only ranks matter, so lists whose
 * scores are on different scales (BM25 and cosine) fuse without calibration. Returns every id of
 * any list, best first (ties: lower id), with the fused score.
 */
export function reciprocalRankFusion(
  lists: readonly (readonly VectorHit[])[],
  options: { k?: number; weights?: readonly number[] } = {},
): VectorHit[] {
  const k = options.k ?? RRF_K;
  const fused = new Map<number, number>();
  lists.forEach((list, l) => {
    const weight = options.weights?.[l] ?? 1;
    list.forEach((hit, rank) => {
      fused.set(hit.id, (fused.get(hit.id) ?? 0) + weight / (k + rank + 1));
    });
  });
  return [...fused].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score || a.id - b.id);
}
