import type { BoxView } from '@grag/rstar-index';

/**
 * A query graph after entity normalization: each node is bound to a data node (`node`) or unknown
 * (`node === null`); edges join query node positions.
 */
export interface NormalizedQueryGraph {
  nodes: { id: string; node: number | null; isTarget: boolean }[];
  edges: { source: number; target: number; relation: string }[];
}

/** A query path: query node positions in order, `length` edges long. */
export type QueryPath = number[];

/** A data path matched to a query path: data node per query path position. */
export interface PathCandidate {
  /** Data path id in the index, or -1 for a single-edge check outside the index. */
  pathId: number;
  /** Data node of each position of the query path. */
  nodes: number[];
}

/** A subgraph isomorphic to the query graph: data node of every query node (-1: an isolated query node). */
export type Embedding = number[];

/** Key of an undirected pair of query nodes. */
export function edgeKey(a: number, b: number): string {
  return a < b ? `${a} ${b}` : `${b} ${a}`;
}

/** Degree of every query node (each query edge counted, repeated ones too). */
export function queryDegrees(q: NormalizedQueryGraph): number[] {
  const deg = q.nodes.map(() => 0);
  for (const e of q.edges) {
    deg[e.source]!++;
    deg[e.target]!++;
  }
  return deg;
}

/** Neighbours of every query node, each once, in edge order (self-loops and repeated edges skipped). */
export function queryNeighbours(q: NormalizedQueryGraph): number[][] {
  const adj: number[][] = q.nodes.map(() => []);
  const seen = new Set<string>();
  for (const e of q.edges) {
    const k = edgeKey(e.source, e.target);
    if (e.source === e.target || seen.has(k)) continue;
    seen.add(k);
    adj[e.source]!.push(e.target);
    adj[e.target]!.push(e.source);
  }
  return adj;
}

/** Query paths in both orientations (data paths are stored in one). */
export function orientations(path: QueryPath): QueryPath[] {
  const rev = [...path].reverse();
  return rev.join(',') === path.join(',') ? [path] : [path, rev];
}

/** The label key of a query path: data node per position, `NaN` for unknown positions. */
export function labelKey(
  q: NormalizedQueryGraph,
  path: QueryPath,
  binding: ReadonlyMap<number, number>,
): number[] {
  return path.map((n) => q.nodes[n]!.node ?? binding.get(n) ?? Number.NaN);
}

/**
 * Whether a label box can hold the label key (`exact`: equals it) — `NaN` positions of the key are
 * wildcards.
 */
export function labelFits(box: BoxView, key: readonly number[], exact: boolean): boolean {
  for (let i = 0; i < key.length; i++) {
    const k = key[i]!;
    if (Number.isNaN(k)) continue;
    if (exact) {
      if (box.labelMin[i] !== k || box.labelMax[i] !== k) return false;
    } else if (k < box.labelMin[i]! || k > box.labelMax[i]!) return false;
  }
  return true;
}
