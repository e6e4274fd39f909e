/**
 * Q-Peel on the components of a k-truss that hold the query nodes, each prepared on its own
 * (internal: not exported from the package): what `TrussIndex.qPeel` does with query nodes in small
 * components before it has prepared the whole k-truss, so that a search there costs the triangles of
 * those components rather than of the whole k-truss.
 */
import type { KTruss, TrussComponent } from './decomposition.js';
import { inducedSubgraph } from './induced.js';
import { peelSubgraph } from './peel.js';
import { prepareTruss } from './prepared.js';
import type { QPeelResult } from './qpeel.js';

/** The options of the search (as `TrussIndex.qPeel` resolved them), `keep` not empty. */
export interface ComponentPeelOptions {
  top: number;
  maxSweeps: number;
  maxNodes: number;
  keep: readonly number[];
  shortcut: boolean;
}

/**
 * Q-Peel of `truss` with query nodes `options.keep`, on the components that hold one of them only:
 * the same result as the search on the whole prepared truss, or `null` when those components hold
 * more than `limit` nodes.
 *
 * Q-Peel searches only the components that hold a query node, and a component's triangles are all
 * inside it, so it is prepared alone: the subgraph its nodes induce, its edges of trussness ≥ k (the
 * component's edges), the relevance of its nodes. Node order is kept (node `i` of the subgraph is the
 * `i`-th of the components' nodes, ascending), so every tie among nodes breaks as on the whole graph;
 * edges are numbered differently, which no decision reads (rows and triangle lists are read whole).
 * The communities are mapped back to the graph's nodes and edges.
 *
 * @param componentOf Each node's component in `truss` (−1: in none).
 */
export function componentQPeel(
  truss: KTruss,
  componentOf: Int32Array,
  trussness: ArrayLike<number>,
  rel: Float64Array,
  options: ComponentPeelOptions,
  limit: number,
): QPeelResult | null {
  const { k, graph: g } = truss;
  const chosen: number[] = [];
  let size = 0;
  // A query node that is no node of the graph is in no component (as the whole search ignores it).
  const inGraph = (v: number) => Number.isInteger(v) && v >= 0 && v < g.n;
  for (const v of options.keep) {
    const c = inGraph(v) ? componentOf[v]! : -1;
    if (c < 0 || chosen.includes(c)) continue;
    chosen.push(c);
    size += truss.components[c]!.nodes.length;
    if (size > limit) return null;
  }
  const result: QPeelResult = { k, communities: [], components: truss.components.length, checks: 0 };
  // No query node in the k-truss: no component is searched.
  if (chosen.length === 0) return result;
  // Components in the truss's order, so that they are searched in the same order.
  chosen.sort((a, b) => a - b);
  const nodes = new Uint32Array(size);
  let at = 0;
  for (const c of chosen) {
    nodes.set(truss.components[c]!.nodes, at);
    at += truss.components[c]!.nodes.length;
  }
  nodes.sort();
  const sub = inducedSubgraph(g, nodes);
  const local = new Int32Array(g.n).fill(-1);
  for (let i = 0; i < nodes.length; i++) local[nodes[i]!] = i;
  // The subgraph's edges in the k-truss, by the component of their ends.
  const edgesOf = chosen.map((): number[] => []);
  const edges: number[] = [];
  for (let j = 0; j < sub.edges.length; j++) {
    if (trussness[sub.edges[j]!]! < k) continue;
    edges.push(j);
    edgesOf[chosen.indexOf(componentOf[sub.nodes[sub.graph.sources[j]!]!]!)]!.push(j);
  }
  const components: TrussComponent[] = chosen.map((c, i) => ({
    nodes: Uint32Array.from(truss.components[c]!.nodes, (v) => local[v]!),
    edges: Uint32Array.from(edgesOf[i]!),
  }));
  const prepared = prepareTruss({
    k,
    graph: sub.graph,
    nodes: Uint32Array.from(nodes.keys()),
    edges: Uint32Array.from(edges),
    components,
  });
  const keep = options.keep.filter((v) => inGraph(v) && local[v]! >= 0).map((v) => local[v]!);
  const found = peelSubgraph(prepared, g, nodes, sub.edges, rel, options, keep);
  return { ...found, components: truss.components.length };
}

/** Each node's component in `truss` (−1 for a node in none). */
export function componentLabels(truss: KTruss): Int32Array {
  const out = new Int32Array(truss.graph.n).fill(-1);
  truss.components.forEach((component, c) => {
    for (const v of component.nodes) out[v] = c;
  });
  return out;
}
