/**
 * Searches in another tie order (`tieSeed`, grag's, not in DA-RAG): the searched graph with its nodes
 * relabelled by a seeded permutation. Q-Peel, the local search, the choice of query vertices and the
 * member order break ties in relevance by node index, an order the paper leaves open (with ranked
 * relevance most chunks of a layer tie at 0). Relabelling changes nothing but those ties, so what
 * moves under it shows how much a result rests on that order.
 */
import { mulberry32, shuffleInPlace } from '@grag/core/kit';
import { type TrussGraph, TrussIndex, trussGraphFromEdges } from '@grag/ktruss';
import type { LayerSearch } from './community-search.js';

/** A graph relabelled for one seed: node i of `graph` is node `order[i]` of the original. */
export interface Relabelled {
  order: Uint32Array;
  /** Inverse of `order`: the relabelled index of each original node. */
  position: Uint32Array;
  graph: TrussGraph;
  truss?: TrussIndex;
}

/**
 * Relabellings kept per searched graph and seed: the whole layers are searched with the same graph
 * on every query, so their relabelled graph and its truss index are made once (a working subgraph's
 * go with it).
 */
const kept = new WeakMap<TrussGraph, Map<number, Relabelled>>();

/** `graph` with its `n` nodes in the seeded order (Fisher–Yates with core's `mulberry32(seed)`). */
export function relabelGraph(graph: TrussGraph, seed: number): Relabelled {
  const order = shuffleInPlace(
    Uint32Array.from({ length: graph.n }, (_, i) => i),
    mulberry32(seed),
  );
  const position = new Uint32Array(graph.n);
  for (let i = 0; i < graph.n; i++) position[order[i]!] = i;
  const edges = new Uint32Array(2 * graph.m);
  for (let e = 0; e < graph.m; e++) {
    edges[2 * e] = position[graph.sources[e]!]!;
    edges[2 * e + 1] = position[graph.targets[e]!]!;
  }
  const ids = Array.from(order, (v) => graph.nodeIds[v]!);
  return { order, position, graph: trussGraphFromEdges(graph.n, edges, { ids }) };
}

/**
 * `search` on its graph relabelled by `seed` (see the module comment): the same nodes, edges,
 * relevance and query vertices, in the global indices of `search`, with ties in another order.
 */
export function inTieOrder(search: LayerSearch, seed: number): LayerSearch {
  let bySeed = kept.get(search.graph);
  if (bySeed === undefined) {
    bySeed = new Map();
    kept.set(search.graph, bySeed);
  }
  let r = bySeed.get(seed);
  if (r === undefined) {
    r = relabelGraph(search.graph, seed);
    bySeed.set(seed, r);
  }
  const relabelled = r;
  const { order, position, graph } = relabelled;
  return {
    graph,
    global: Array.from(order, (v) => search.global[v]!),
    relevance: Float64Array.from(order, (v) => search.relevance[v]!),
    truss: () => {
      relabelled.truss ??= new TrussIndex(graph);
      return relabelled.truss;
    },
    ...(search.seeds ? { seeds: search.seeds.map((s) => position[s]!) } : {}),
  };
}
