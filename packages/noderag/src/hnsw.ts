/**
 * G5 of NodeRAG (§2.4): the vector index over the embedded nodes, made by the build context's
 * vector-index factory, whose base layer (level-0 links) becomes semantic edges of the graph. With
 * a graph index (`hnswIndexFactory()` from `@grag/hnsw`, a `GraphVectorIndex`), NodeRAG builds it
 * with its HNSW settings and lays the base layer the index built; with an exact index (core's flat
 * index, `createBuildContext`'s default), the semantic edges are the base layer HNSW's insertion
 * rule makes over exact neighbours ({@link exactBaseLayer}).
 */
import type { GraphVectorIndex, VectorIndex, VectorIndexFactory } from '@grag/core';
import { addSemanticEdges, type HeteroGraph, withSemanticEdges } from '@grag/heterograph';
import type { NodeRagOptions } from './options.js';

/**
 * A vector index (cosine) of `factory` holding `vectors[i]` under id i; a graph index (HNSW) is
 * built with the HNSW settings of `o` (an exact index ignores them).
 */
export function buildVectorIndex(input: {
  factory: VectorIndexFactory;
  vectors: readonly Float32Array[];
  dimensions: number;
  options: Pick<NodeRagOptions, 'hnswM' | 'hnswEfConstruction' | 'hnswEfSearch' | 'seed'>;
  /** Called after every 1000th vector and the last, with how many were added. */
  onAdded?: (done: number) => void;
}): VectorIndex {
  const { vectors, options: o } = input;
  const index = input.factory.create({
    dimensions: input.dimensions,
    metric: 'cosine',
    capacity: Math.max(1, vectors.length),
    M: o.hnswM,
    efConstruction: o.hnswEfConstruction,
    efSearch: o.hnswEfSearch,
    seed: o.seed,
  });
  vectors.forEach((vector, id) => {
    index.add(id, vector);
    if ((id + 1) % 1000 === 0 || id + 1 === vectors.length) input.onAdded?.(id + 1);
  });
  return index;
}

/**
 * The level-0 graph HNSW's insertion rule makes when every search is exact: the vectors are
 * inserted in id order; each one takes, among the `efConstruction` nearest (cosine) earlier ones,
 * at most `M` chosen by hnswlib's neighbour-selection heuristic (all of them when fewer than `M`;
 * else a candidate is kept when it is not nearer to a neighbour kept before it than to the new
 * vector), and each chosen neighbour links back,
 * its links cut to `2·M` by the same heuristic when they overflow. Deterministic (ties by lower id);
 * O(n²·d) time. What NodeRAG lays as semantic edges over an exact index, in place of a graph
 * index's `baseLayerGraph()`.
 */
export function exactBaseLayer(
  vectors: readonly ArrayLike<number>[],
  options: { M: number; efConstruction: number },
): Map<number, number[]> {
  const n = vectors.length;
  const d = n === 0 ? 0 : vectors[0]!.length;
  const M = options.M;
  const maxM0 = 2 * M;
  const ef = Math.max(options.efConstruction, M);
  const unit = new Float32Array(n * d);
  vectors.forEach((vector, i) => {
    let sum = 0;
    for (let j = 0; j < d; j++) sum += (vector[j] as number) ** 2;
    const scale = sum > 0 ? 1 / Math.sqrt(sum) : 0;
    for (let j = 0; j < d; j++) unit[i * d + j] = (vector[j] as number) * scale;
  });
  const sim = (a: number, b: number): number => {
    let s = 0;
    const oa = a * d;
    const ob = b * d;
    for (let j = 0; j < d; j++) s += unit[oa + j]! * unit[ob + j]!;
    return s;
  };
  /**
   * hnswlib's getNeighborsByHeuristic2: `ids` (nearest first, `scores` their similarity to the
   * base), at most `limit` kept; all of them when there are fewer than `limit`.
   */
  const select = (ids: readonly number[], scores: readonly number[], limit: number): number[] => {
    if (ids.length < limit) return [...ids];
    const kept: number[] = [];
    for (let c = 0; c < ids.length && kept.length < limit; c++) {
      const id = ids[c]!;
      const s = scores[c]!;
      let good = true;
      // dropped when nearer to a kept neighbour than to the base (hnswlib: curdist < dist_to_query)
      for (const other of kept) {
        if (sim(id, other) > s) {
          good = false;
          break;
        }
      }
      if (good) kept.push(id);
    }
    return kept;
  };
  /** `ids` sorted nearest first by `score` (ties by lower id). */
  const nearestFirst = (
    ids: number[],
    score: (id: number) => number,
  ): { ids: number[]; scores: number[] } => {
    ids.sort((a, b) => score(b) - score(a) || a - b);
    return { ids, scores: ids.map(score) };
  };
  const links: number[][] = Array.from({ length: n }, () => []);
  const row = new Float64Array(n);
  for (let i = 1; i < n; i++) {
    for (let j = 0; j < i; j++) row[j] = sim(i, j);
    let top = Array.from({ length: i }, (_, j) => j);
    if (top.length > ef) {
      // the ef nearest by a partial order first: sort only what can be among them
      const sortedScores = Float64Array.from(top, (j) => row[j]!).sort();
      const cut = sortedScores[i - ef]!;
      top = top.filter((j) => row[j]! >= cut);
    }
    const candidates = nearestFirst(top, (j) => row[j]!);
    const chosen = select(candidates.ids.slice(0, ef), candidates.scores.slice(0, ef), M);
    links[i] = chosen;
    for (const other of chosen) {
      const back = links[other]!;
      if (back.length < maxM0) {
        back.push(i);
        continue;
      }
      const pool = nearestFirst([...back, i], (id) => sim(other, id));
      links[other] = select(pool.ids, pool.scores, maxM0);
    }
  }
  return new Map(links.map((list, id) => [id, list]));
}

/** Add the level-0 links `layer` (vector id → linked ids) to `graph` as semantic edges. */
export function layLinks(
  graph: HeteroGraph,
  layer: ReadonlyMap<number, readonly number[]>,
  vectorKeys: readonly string[],
): { added: number; reinforced: number } {
  const lists: [string, string[]][] = [];
  for (const [id, links] of layer) {
    lists.push([vectorKeys[id]!, links.map((l) => vectorKeys[l]!)]);
  }
  const { added, reinforced } = addSemanticEdges(graph, lists);
  return { added, reinforced };
}

/**
 * `graph` with the level-0 links `layer` laid as semantic edges, as {@link layLinks} lays them, made
 * as a new graph on arrays (see `withSemanticEdges`); `graph` is left as it was.
 */
export function withLinks(
  graph: HeteroGraph,
  layer: ReadonlyMap<number, readonly number[]>,
  vectorKeys: readonly string[],
): { graph: HeteroGraph; added: number; reinforced: number } {
  const lists: [string, string[]][] = [];
  for (const [id, links] of layer) lists.push([vectorKeys[id]!, links.map((l) => vectorKeys[l]!)]);
  const { graph: linked, added, reinforced } = withSemanticEdges(graph, lists);
  return { graph: linked, added, reinforced };
}

/** Add the base layer (level-0 links) of the graph index `index` (HNSW) to `graph` as semantic edges. */
export async function layBaseLayer(
  graph: HeteroGraph,
  index: GraphVectorIndex,
  vectorKeys: readonly string[],
): Promise<{ added: number; reinforced: number }> {
  return layLinks(graph, await index.baseLayerGraph(), vectorKeys);
}
