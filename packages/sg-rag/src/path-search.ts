import type { DominanceEmbedder } from '@grag/dominance-gnn';
import type { BoxView } from '@grag/rstar-index';
import type { PathIndexView } from './path-index.js';
import {
  labelFits,
  labelKey,
  type NormalizedQueryGraph,
  orientations,
  type PathCandidate,
  type QueryPath,
  queryNeighbours,
} from './query-graph.js';

/**
 * The dominance embedding o(p_q) of a query path (Eq. 16): per query node, the star of its bound
 * data node's label with the labels bound to its query neighbours.
 */
export function queryPathEmbedding(
  q: NormalizedQueryGraph,
  path: QueryPath,
  binding: ReadonlyMap<number, number>,
  embedder: DominanceEmbedder,
): Float32Array {
  const bound = (n: number) => q.nodes[n]!.node ?? binding.get(n)!;
  const neighbours = queryNeighbours(q);
  const parts = path.map((n) =>
    embedder.embed(
      String(bound(n)),
      neighbours[n]!.map((m) => String(bound(m))),
    ),
  );
  const d = embedder.dimensions;
  const out = new Float32Array(parts.length * d);
  parts.forEach((p, i) => {
    out.set(p, i * d);
  });
  return out;
}

/**
 * Path-level retrieval (SG-RAG Algorithm 7) of one fully labelled query path: best-first over the
 * R*-tree on the L1 norm of the MBR's upper corner (largest first), entering a node only when its
 * MBR_0 holds the label key and its MBR meets the dominance region DR(o(p_q)) (Eq. 5); a stored
 * path is a candidate when its label key equals the query's and o(p_q) ⪯ o(p_z). Both orientations
 * of the query path are tried (data paths are stored in one).
 */
export function retrievePath(
  q: NormalizedQueryGraph,
  path: QueryPath,
  binding: ReadonlyMap<number, number>,
  index: PathIndexView,
): { candidates: PathCandidate[]; visited: number } {
  const k = index.pathLength + 1;
  const out: PathCandidate[] = [];
  let visited = 0;
  for (const oriented of orientations(path)) {
    const key = labelKey(q, oriented, binding);
    const o = queryPathEmbedding(q, oriented, binding, index.embedder);
    let norm = 0;
    for (const x of o) norm += x;
    const dominates = (b: BoxView) => {
      for (let i = 0; i < o.length; i++) if (b.max[i]! < o[i]!) return false;
      return true;
    };
    for (const { id, key: nodeKey } of index.tree.traverse({
      key: (b) => {
        let s = 0;
        for (const x of b.max) s += x;
        return -s;
      },
      acceptNode: (b) => labelFits(b, key, false) && dominates(b),
      acceptEntry: (_id, b) => labelFits(b, key, true) && dominates(b),
    })) {
      visited++;
      if (-nodeKey < norm) break; // Algorithm 7 line 12: nothing further can dominate.
      const nodes: number[] = [];
      for (let i = 0; i < k; i++) nodes.push(index.pathNodes[id * k + i]!);
      // Positions follow `path`, not the orientation that matched.
      out.push({ pathId: id, nodes: oriented === path ? nodes : nodes.reverse() });
    }
  }
  return { candidates: out, visited };
}
