/**
 * grag's offline chunk ranking for E2GraphRAG: the chunks Algorithm 1 selected, fused with the
 * entry-point chunks by reciprocal rank fusion (with `graphWeight` 0 they only follow the entry
 * points).
 */
import { reciprocalRankFusion } from '@grag/core/kit';
import type { AdaptiveRetrievalResult } from './adaptive.js';

/**
 * The leaves Algorithm 1 selected, best first: local mode's ranked chunks, or global mode's nodes
 * that are leaves (summaries left out), in their order.
 */
export function graphLeaves(
  result: Pick<AdaptiveRetrievalResult, 'ranked' | 'nodes'>,
  leafCount: number,
): number[] {
  if (result.ranked.length > 0) return [...result.ranked];
  return result.nodes.filter((n) => n.node < leafCount).map((n) => n.node);
}

/**
 * One chunk ranking from the entry points (best first) and Algorithm 1's leaves (best first):
 * reciprocal rank fusion with the entry points weighing 1 and the leaves `graphWeight` (0 counts as
 * a vanishing weight, so the leaves only break ties and follow the entry points); the entry points
 * alone when Algorithm 1 selected no leaf.
 */
export function fuseChunkRanking(input: {
  entry: readonly { id: number }[];
  leaves: readonly number[];
  graphWeight: number;
}): number[] {
  const { entry, leaves, graphWeight } = input;
  if (leaves.length === 0) return entry.map((h) => h.id);
  const lists = [entry.map((h) => ({ id: h.id, score: 0 })), leaves.map((id) => ({ id, score: 0 }))];
  return reciprocalRankFusion(lists, { weights: [1, Math.max(graphWeight, 1e-9)] }).map((h) => h.id);
}
