/**
 * Local search around query vertices: Q-Peel on a bounded region of the graph instead of the whole
 * k-truss component (grag's, not in DA-RAG; the idea of searching a community from its query
 * vertices outwards is that of local community search, Cui et al., SIGMOD 2014).
 */
import { maximalKTruss, trussDecomposition } from './decomposition.js';
import type { TrussGraph } from './graph.js';
import { trussGraphFromEdges } from './graph.js';
import { inducedTriangles } from './induced.js';
import { peelSubgraph } from './peel.js';
import { type PreparedTruss, prepareTrussWithin, trianglesOf } from './prepared.js';
import type { QPeelOptions, QPeelResult } from './qpeel.js';

/**
 * The search region of `seeds` at `k`: the seeds, then their neighbours, then those neighbours'
 * neighbours, and so on (breadth first), over edges of trussness at least `k` only, until `size`
 * nodes are in; within one distance the more relevant nodes come first (ties: the lower index).
 * Only edges of trussness ≥ k can be in a k-truss of any subgraph, so no other edge leads anywhere
 * useful. Returns the region's node indices, ascending.
 */
export function regionNodes(
  g: TrussGraph,
  trussness: ArrayLike<number>,
  k: number,
  seeds: readonly number[],
  size: number,
  relevance: ArrayLike<number>,
): Uint32Array {
  const reached = new Uint8Array(g.n);
  const region: number[] = [];
  let level: number[] = [];
  for (const s of seeds) {
    if (reached[s]) continue;
    reached[s] = 1;
    region.push(s);
    level.push(s);
  }
  while (level.length > 0 && region.length < size) {
    const next: number[] = [];
    for (const v of level) {
      for (let p = g.offsets[v]!; p < g.offsets[v + 1]!; p++) {
        const w = g.neighbors[p]!;
        if (reached[w] || trussness[g.edgeIds[p]!]! < k) continue;
        reached[w] = 1;
        next.push(w);
      }
    }
    next.sort((a, b) => relevance[b]! - relevance[a]! || a - b);
    for (let i = 0; i < next.length && region.length < size; i++) region.push(next[i]!);
    level = next;
  }
  return Uint32Array.from(region).sort();
}

/**
 * Q-Peel at `k` on the subgraph the region of `options.keep` induces (see {@link regionNodes}),
 * with its edges of trussness ≥ k: the communities are given in the graph's node and edge indices,
 * `components` and `checks` are those of the region's search. `null` when the region holds fewer
 * than `size` nodes: it is then the query nodes' whole k-truss components, where Q-Peel finds the
 * same communities (the caller's own search of them is the cheaper one).
 *
 * `prepared` is the graph's maximal k-truss: the region's edges are those of it between two region
 * nodes, and their triangles are read from its listing (those whose third node is in the region),
 * not listed again, so a search costs the triangles on the region's edges, not O(m^1.5) of the
 * region.
 */
export function regionQPeel(
  prepared: PreparedTruss,
  trussness: ArrayLike<number>,
  rel: Float64Array,
  size: number,
  options: Omit<QPeelOptions, 'trussness'>,
): QPeelResult | null {
  const { graph: g, k } = prepared.truss;
  const nodes = regionNodes(g, trussness, k, options.keep, size, rel);
  if (nodes.length < size) return null;
  const local = new Int32Array(g.n).fill(-1);
  nodes.forEach((v, i) => {
    local[v] = i;
  });
  // Edges numbered by smaller end, then larger end (as `inducedSubgraph` numbers them).
  const edges: number[] = [];
  const globalEdge: number[] = [];
  for (const v of nodes) {
    for (let p = g.offsets[v]!; p < g.offsets[v + 1]!; p++) {
      const w = g.neighbors[p]!;
      const e = g.edgeIds[p]!;
      if (w <= v || local[w]! < 0 || trussness[e]! < k) continue;
      edges.push(local[v]!, local[w]!);
      globalEdge.push(e);
    }
  }
  const sub = trussGraphFromEdges(nodes.length, Uint32Array.from(edges));
  const regionEdges = Uint32Array.from(globalEdge);
  const triangles = inducedTriangles(trianglesOf(prepared), g, { graph: sub, nodes, edges: regionEdges });
  const { trussness: subTrussness } = trussDecomposition(sub, { triangles });
  const truss = prepareTrussWithin(triangles, maximalKTruss(sub, k, { trussness: subTrussness }));
  const keep = options.keep.map((s) => local[s]!);
  return peelSubgraph(truss, g, nodes, regionEdges, rel, options, keep);
}
