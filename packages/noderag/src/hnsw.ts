/**
 * G5 of NodeRAG (§2.4): the HNSW index over the embedded nodes, whose level-0 links become semantic
 * edges of the graph. NodeRAG needs the real HNSW graph, so it builds `@grag/hnsw`'s index itself
 * (not the build context's `vectorIndex`).
 */
import type { VectorIndexFactory } from '@grag/core';
import { addSemanticEdges, type HeteroGraph } from '@grag/heterograph';
import { HnswIndex, hnswIndexFactory } from '@grag/hnsw';
import type { NodeRagOptions } from './options.js';

/**
 * The vector index provider of every NodeRAG index (`kind` `'hnsw'`, what its manifest records):
 * its vectors live in an `@grag/hnsw` index whatever `ctx.vectorIndex` is.
 */
export const NODERAG_VECTOR_INDEX: VectorIndexFactory = hnswIndexFactory();

/** An HNSW index (cosine) holding `vectors[i]` under id i, built with the HNSW options of `o`. */
export function buildHnsw(input: {
  vectors: readonly Float32Array[];
  dimensions: number;
  options: Pick<NodeRagOptions, 'hnswM' | 'hnswEfConstruction' | 'hnswEfSearch' | 'seed'>;
  /** Called after every 1000th vector and the last, with how many were added. */
  onAdded?: (done: number) => void;
}): HnswIndex {
  const { vectors, options: o } = input;
  const hnsw = new HnswIndex({
    dimensions: input.dimensions,
    metric: 'cosine',
    capacity: Math.max(1, vectors.length),
    M: o.hnswM,
    efConstruction: o.hnswEfConstruction,
    efSearch: o.hnswEfSearch,
    seed: o.seed,
  });
  vectors.forEach((vector, id) => {
    hnsw.add(id, vector);
    if ((id + 1) % 1000 === 0 || id + 1 === vectors.length) input.onAdded?.(id + 1);
  });
  return hnsw;
}

/** Add the HNSW base layer (level-0 links) of `hnsw` to `graph` as semantic edges. */
export async function layBaseLayer(
  graph: HeteroGraph,
  hnsw: HnswIndex,
  vectorKeys: readonly string[],
): Promise<{ added: number; reinforced: number }> {
  const layer = await hnsw.baseLayerGraph();
  const lists: [string, string[]][] = [];
  for (const [id, links] of layer) {
    lists.push([vectorKeys[id]!, links.map((l) => vectorKeys[l]!)]);
  }
  return addSemanticEdges(graph, lists);
}
