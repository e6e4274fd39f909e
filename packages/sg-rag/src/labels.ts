import type { PathIndexView } from './path-index.js';
import {
  labelFits,
  labelKey,
  type NormalizedQueryGraph,
  orientations,
  type QueryPath,
} from './query-graph.js';

/** Input of {@link completeLabels}. */
export interface LabelCompletionInput {
  query: NormalizedQueryGraph;
  /** The decomposition of the query (see `decomposeQuery`). */
  paths: readonly QueryPath[];
  index: PathIndexView;
  /** Cap on the candidates of an unknown node that no labelled path constrains. */
  maxCandidates: number;
  /** Neighbours of every data node (for single-edge paths of a plan over a longer index). */
  neighbours: readonly (readonly number[])[];
}

/** Result of {@link completeLabels}. */
export interface LabelCompletion {
  /** Candidate data nodes of each unknown query node (U of Algorithm 5). */
  candidates: Map<number, number[]>;
  /** Unknown nodes whose candidates were cut at `maxCandidates`. */
  capped: number[];
  /** Index entries visited. */
  visited: number;
}

/**
 * Wildcard label completion (SG-RAG Algorithm 5): each query path with an unknown node is looked up
 * in the path index with `NaN` (wildcard) label dimensions at its unknown positions, traversing only
 * nodes whose MBR_0 holds the known labels; the labels found at an unknown position are its
 * candidates. A node in several such paths keeps the intersection (a match must satisfy each path).
 * Paths with no known node are used only for unknown nodes no other path constrains, and cut at
 * `maxCandidates` distinct labels (reported in `capped`).
 */
export function completeLabels(input: LabelCompletionInput): LabelCompletion {
  const { query: q, paths, index, maxCandidates, neighbours } = input;
  const unknown = q.nodes.flatMap((n, i) => (n.node === null ? [i] : []));
  const sets = new Map<number, Set<number>>();
  const capped: number[] = [];
  let visited = 0;
  const k = index.pathLength + 1;
  const lookup = (path: QueryPath, limit: number): Map<number, Set<number>> => {
    const found = new Map<number, Set<number>>();
    for (const n of path) if (q.nodes[n]!.node === null) found.set(n, new Set());
    for (const oriented of orientations(path)) {
      const key = labelKey(q, oriented, new Map());
      for (const { id } of index.tree.traverse({
        key: () => 0,
        acceptNode: (b) => labelFits(b, key, false),
        acceptEntry: (_id, b) => labelFits(b, key, true),
      })) {
        visited++;
        oriented.forEach((n, pos) => {
          if (Number.isNaN(key[pos]!)) found.get(n)!.add(index.pathNodes[id * k + pos]!);
        });
        if ([...found.values()].every((s) => s.size >= limit)) break;
      }
    }
    return found;
  };
  const known = (p: QueryPath) => p.some((n) => q.nodes[n]!.node !== null);
  const intersect = (n: number, set: Set<number>) => {
    const prev = sets.get(n);
    sets.set(n, prev ? new Set([...prev].filter((x) => set.has(x))) : set);
  };
  for (const path of paths.filter((p) => p.length === k && known(p))) {
    for (const [n, set] of lookup(path, Number.POSITIVE_INFINITY)) intersect(n, set);
  }
  // Single-edge paths of a plan over a longer index (an edge no longer path covers) read the graph's
  // adjacency for a known end.
  for (const path of paths.filter((p) => p.length === 2 && p.length !== k)) {
    const [x, y] = path as [number, number];
    const nx = q.nodes[x]!.node;
    const ny = q.nodes[y]!.node;
    if (nx !== null && ny === null) intersect(y, new Set(neighbours[nx]!));
    if (ny !== null && nx === null) intersect(x, new Set(neighbours[ny]!));
  }
  // Unknown nodes seen only in wildcard-only paths take the unconstrained candidates, capped.
  for (const u of unknown) {
    if (sets.has(u)) continue;
    const path = paths.find((p) => p.length === k && p.includes(u));
    const found = path ? lookup(path, maxCandidates).get(u) : undefined;
    const all = found ?? new Set<number>();
    if (!path) {
      // No path of the index length contains u: any data node of an indexed path.
      for (let i = 0; i < index.pathNodes.length && all.size < maxCandidates; i++)
        all.add(index.pathNodes[i]!);
    }
    if (all.size >= maxCandidates) capped.push(u);
    sets.set(u, new Set([...all].slice(0, maxCandidates)));
  }
  const candidates = new Map<number, number[]>();
  for (const u of unknown)
    candidates.set(
      u,
      [...(sets.get(u) ?? [])].sort((a, b) => a - b),
    );
  return { candidates, capped, visited };
}

/** Result of {@link labelCombinations}. */
export interface Combinations {
  bindings: Map<number, number>[];
  /** Combinations dropped because two query nodes would share one data node. */
  conflicts: number;
  /** Whether enumeration stopped at `maxCombinations`. */
  capped: boolean;
}

/**
 * Label combinations of the unknown nodes (SG-RAG Algorithm 6): the Cartesian product of the
 * candidate lists, without combinations that bind two query nodes (or a query node and a known
 * one) to the same data node, cut at `maxCombinations`.
 */
export function labelCombinations(
  q: NormalizedQueryGraph,
  candidates: ReadonlyMap<number, readonly number[]>,
  maxCombinations: number,
): Combinations {
  const unknown = [...candidates.keys()];
  const knownNodes = new Set(q.nodes.flatMap((n) => (n.node === null ? [] : [n.node])));
  const bindings: Map<number, number>[] = [];
  let conflicts = 0;
  let capped = false;
  const used = new Set<number>();
  const current = new Map<number, number>();
  const rec = (i: number): void => {
    if (capped) return;
    if (i === unknown.length) {
      if (bindings.length >= maxCombinations) {
        capped = true;
        return;
      }
      bindings.push(new Map(current));
      return;
    }
    const u = unknown[i]!;
    for (const node of candidates.get(u) ?? []) {
      if (used.has(node) || knownNodes.has(node)) {
        conflicts++;
        continue;
      }
      used.add(node);
      current.set(u, node);
      rec(i + 1);
      current.delete(u);
      used.delete(node);
      if (capped) return;
    }
  };
  rec(0);
  return { bindings, conflicts, capped };
}
