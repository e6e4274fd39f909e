import { InvalidArgumentError } from '@grag/core';
import type { SummaryTree } from './tree.js';

/**
 * Occurrence weights over the whole tree (E2GraphRAG §3.2, Occurrence Ranking): a leaf's weight is
 * given (e.g. how often the query entities occur in its chunk); a summary's weight is the sum of its
 * children's weights, recursively, so it equals the sum over the leaves it covers.
 *
 * @param leafWeights one weight per leaf, in leaf order.
 * @returns one weight per node, indexed like `tree.nodes`.
 * @throws InvalidArgumentError when `leafWeights` does not have one finite number per leaf.
 */
export function subtreeWeights(tree: SummaryTree, leafWeights: ArrayLike<number>): Float64Array {
  const leaves = tree.levels[0]?.length ?? 0;
  if (leafWeights.length !== leaves) {
    throw new InvalidArgumentError(
      'leafWeights',
      `subtreeWeights: expected one weight per leaf (${leaves}), got ${leafWeights.length}.`,
    );
  }
  const weights = new Float64Array(tree.nodes.length);
  for (let i = 0; i < leaves; i++) {
    const w = leafWeights[i]!;
    if (!Number.isFinite(w)) {
      throw new InvalidArgumentError(
        'leafWeights',
        `subtreeWeights: weight of leaf ${i} is not finite (${w}).`,
      );
    }
    weights[i] = w;
  }
  // Levels in order: every child is summed before its parent.
  for (let level = 1; level < tree.levels.length; level++) {
    for (const node of tree.levels[level]!) {
      let sum = 0;
      for (const child of tree.nodes[node]!.children) sum += weights[child]!;
      weights[node] = sum;
    }
  }
  return weights;
}
