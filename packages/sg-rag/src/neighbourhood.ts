import type { Adjacency, SgGraph } from './kg.js';

/** Input of {@link gatherEdges}. */
export interface GatherInput {
  adjacency: Adjacency;
  /** Data nodes to start from (repeats ignored). */
  seeds: readonly number[];
  /** Hops to walk. */
  hops: number;
  /** Stop at this many edges. */
  limit: number;
}

/**
 * The edges within `hops` of the seeds, breadth first (a node's edges in adjacency order), at most
 * `limit`: the facts of SG-RAG's fallback and of the hop baselines of Table 3.
 */
export function gatherEdges(input: GatherInput): number[] {
  const { adjacency, hops, limit } = input;
  const { neighbours, edgeOf } = adjacency;
  const edges = new Set<number>();
  let frontier = [...new Set(input.seeds)];
  const seen = new Set(frontier);
  for (let h = 0; h < hops && edges.size < limit; h++) {
    const next: number[] = [];
    for (const n of frontier) {
      for (const m of neighbours[n]!) {
        if (edges.size >= limit) break;
        edges.add(edgeOf[n]!.get(m)!);
        if (!seen.has(m)) {
          seen.add(m);
          next.push(m);
        }
      }
    }
    frontier = next;
  }
  return [...edges];
}

/**
 * The offline answerer for context that is not an exact match: the labels of the entities of the
 * given edges (other than the `known` query entities) linked to the most query entities; ties all
 * kept, in order of first appearance. Empty when no edge touches a query entity.
 */
export function coverageAnswers(
  graph: SgGraph,
  edgeIds: readonly number[],
  known: ReadonlySet<number>,
): string[] {
  const links = new Map<number, Set<number>>();
  for (const id of edgeIds) {
    const e = graph.edges[id]!;
    for (const [x, y] of [
      [e.a, e.b],
      [e.b, e.a],
    ] as const) {
      if (known.has(y) && !known.has(x)) {
        const s = links.get(x) ?? new Set<number>();
        links.set(x, s);
        s.add(y);
      }
    }
  }
  let best = 0;
  for (const s of links.values()) best = Math.max(best, s.size);
  if (best === 0) return [];
  return [...links].filter(([, s]) => s.size === best).map(([x]) => graph.labels[x]!);
}
