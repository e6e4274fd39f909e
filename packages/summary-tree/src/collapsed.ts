import {
  type Embedder,
  embedAll,
  InvalidArgumentError,
  type VectorIndex,
  type VectorIndexFactory,
} from '@grag/core';
import type { SummaryTree } from './tree.js';

/** One hit of {@link searchCollapsedTree}. */
export interface CollapsedTreeHit {
  /** Node index in `tree.nodes` (also the vector id). */
  node: number;
  /** Node id (leaf or summary id). */
  id: string;
  level: number;
  /** Similarity to the query, higher is better. */
  score: number;
}

/**
 * Embed every node of the tree — leaves and summaries — into one cosine vector index made by
 * `factory` (vector id = node index): the collapsed tree of RAPTOR, which E2GraphRAG searches for
 * global queries (§3.1). A fittable embedder must be fitted before (e.g. on the node texts).
 */
export async function embedSummaryTree(
  tree: SummaryTree,
  embedder: Embedder,
  factory: VectorIndexFactory,
  options: { batchSize?: number; signal?: AbortSignal } = {},
): Promise<VectorIndex> {
  const texts = tree.nodes.map((n) => n.text);
  const vectors = await embedAll(embedder, texts, {
    ...(options.batchSize !== undefined ? { batchSize: options.batchSize } : {}),
    ...(options.signal ? { abortSignal: options.signal } : {}),
  });
  return indexSummaryTree(tree, vectors, factory, { dimensions: embedder.dimensions });
}

/**
 * The collapsed-tree index of {@link embedSummaryTree} from vectors already computed (e.g. kept
 * from an earlier run): one cosine index made by `factory`, vector `i` added as id `i`.
 * `dimensions` defaults to the length of the first vector.
 *
 * @throws InvalidArgumentError when there is not one vector per node.
 */
export function indexSummaryTree(
  tree: SummaryTree,
  vectors: readonly ArrayLike<number>[],
  factory: VectorIndexFactory,
  options: { dimensions?: number } = {},
): VectorIndex {
  if (vectors.length !== tree.nodes.length) {
    throw new InvalidArgumentError(
      'vectors',
      `indexSummaryTree: got ${vectors.length} vectors for ${tree.nodes.length} nodes; pass one vector per node, in node order.`,
    );
  }
  const dimensions = options.dimensions ?? vectors[0]?.length ?? 0;
  const index = factory.create({ dimensions, metric: 'cosine', capacity: vectors.length });
  vectors.forEach((vector, id) => {
    index.add(id, vector);
  });
  return index;
}

/**
 * Collapsed-tree dense retrieval: the `k` nodes of any level nearest to `query`, best first.
 * `levels` restricts the search (e.g. `[0]` for chunks only).
 *
 * @throws InvalidArgumentError for a negative or fractional `k`.
 */
export function searchCollapsedTree(
  tree: SummaryTree,
  index: VectorIndex,
  query: ArrayLike<number>,
  k: number,
  options: { levels?: readonly number[] } = {},
): CollapsedTreeHit[] {
  if (!Number.isInteger(k) || k < 0) {
    throw new InvalidArgumentError('k', `searchCollapsedTree: k must be a non-negative integer, got ${k}.`);
  }
  if (k === 0) return [];
  const levels = options.levels ? new Set(options.levels) : undefined;
  const hits = index.search(
    query,
    k,
    levels ? { filter: (id) => levels.has(tree.nodes[id]?.level ?? -1) } : {},
  );
  return hits.map(({ id, score }) => {
    const node = tree.nodes[id]!;
    return { node: id, id: node.id, level: node.level, score };
  });
}
