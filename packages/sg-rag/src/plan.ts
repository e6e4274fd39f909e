import type { DominanceEmbedder } from '@grag/dominance-gnn';
import type { BoxView, RStarTree } from '@grag/rstar-index';

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

/** The path index of SG-RAG (Eq. 4): what path retrieval and label completion read. */
export interface PathIndexView {
  tree: RStarTree;
  /** Node indexes of every data path, flattened (`pathLength + 1` per path). */
  pathNodes: Int32Array;
  pathLength: number;
  /** Dominance dimensions per node (d). */
  dimensions: number;
  embedder: DominanceEmbedder;
}

function queryDegrees(q: NormalizedQueryGraph): number[] {
  const deg = q.nodes.map(() => 0);
  for (const e of q.edges) {
    deg[e.source]!++;
    deg[e.target]!++;
  }
  return deg;
}

function edgeKey(a: number, b: number): string {
  return a < b ? `${a} ${b}` : `${b} ${a}`;
}

/** Every simple path of `length` edges in the query graph (one orientation per path). */
function queryPathsOfLength(q: NormalizedQueryGraph, length: number): QueryPath[] {
  const adj: number[][] = q.nodes.map(() => []);
  const seen = new Set<string>();
  for (const e of q.edges) {
    const k = edgeKey(e.source, e.target);
    if (e.source === e.target || seen.has(k)) continue;
    seen.add(k);
    adj[e.source]!.push(e.target);
    adj[e.target]!.push(e.source);
  }
  const out: QueryPath[] = [];
  const keys = new Set<string>();
  const walk = (path: number[]): void => {
    if (path.length === length + 1) {
      const rev = [...path].reverse();
      const key = (path[0]! <= path.at(-1)! ? path : rev).join(',');
      if (!keys.has(key)) {
        keys.add(key);
        out.push(path[0]! <= path.at(-1)! ? [...path] : rev);
      }
      return;
    }
    for (const n of adj[path.at(-1)!]!) if (!path.includes(n)) walk([...path, n]);
  };
  q.nodes.forEach((_, i) => {
    walk([i]);
  });
  return out;
}

function pathEdges(p: QueryPath): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < p.length; i++) out.push(edgeKey(p[i]!, p[i + 1]!));
  return out;
}

/**
 * Cost-aware path decomposition (SG-RAG Algorithm 4). From the highest-degree query node, each
 * initial path of `length` edges seeds a plan that grows greedily — the next path is one connected
 * to the plan (when any is) that covers at least one uncovered edge with the least overlap, then the
 * least weight w(p) = −Σ deg(q_i) — until every query edge is covered; the cheapest plan (Σ w) wins.
 * Edges no path of `length` edges can cover (a component too small) get paths of one edge.
 */
export function decomposeQuery(q: NormalizedQueryGraph, length: number): QueryPath[] {
  const all = new Set(q.edges.filter((e) => e.source !== e.target).map((e) => edgeKey(e.source, e.target)));
  if (all.size === 0) return [];
  const deg = queryDegrees(q);
  const weight = (p: QueryPath) => -p.reduce((s, n) => s + deg[n]!, 0);
  let candidates = queryPathsOfLength(q, length);
  // Edges that no path of this length covers are covered by single-edge paths.
  const coverable = new Set(candidates.flatMap(pathEdges));
  for (const k of all) {
    if (!coverable.has(k)) {
      const [a, b] = k.split(' ').map(Number) as [number, number];
      candidates = [...candidates, [a, b]];
    }
  }
  let start = 0;
  deg.forEach((d, i) => {
    if (d > deg[start]!) start = i;
  });
  const initial = candidates.filter((p) => p.includes(start));
  let best: QueryPath[] = [];
  let bestCost = Number.POSITIVE_INFINITY;
  for (const first of initial.length > 0 ? initial : candidates) {
    const plan: QueryPath[] = [first];
    const covered = new Set(pathEdges(first));
    const planNodes = new Set(first);
    let cost = weight(first);
    while (covered.size < all.size) {
      let pick: QueryPath | undefined;
      let pickScore: [number, number, number] = [1, Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY];
      for (const p of candidates) {
        const edges = pathEdges(p);
        const fresh = edges.filter((e) => !covered.has(e)).length;
        if (fresh === 0) continue;
        const score: [number, number, number] = [
          p.some((n) => planNodes.has(n)) ? 0 : 1,
          edges.length - fresh,
          weight(p),
        ];
        if (
          score[0] < pickScore[0] ||
          (score[0] === pickScore[0] &&
            (score[1] < pickScore[1] || (score[1] === pickScore[1] && score[2] < pickScore[2])))
        ) {
          pick = p;
          pickScore = score;
        }
      }
      if (!pick) break;
      plan.push(pick);
      for (const e of pathEdges(pick)) covered.add(e);
      for (const n of pick) planNodes.add(n);
      cost += weight(pick);
    }
    if (cost < bestCost) {
      best = plan;
      bestCost = cost;
    }
  }
  return best;
}

/** The label key of a query path: data node per position, `NaN` for unknown positions. */
function labelKey(q: NormalizedQueryGraph, path: QueryPath, binding: ReadonlyMap<number, number>): number[] {
  return path.map((n) => q.nodes[n]!.node ?? binding.get(n) ?? Number.NaN);
}

function labelFits(box: BoxView, key: readonly number[], exact: boolean): boolean {
  for (let i = 0; i < key.length; i++) {
    const k = key[i]!;
    if (Number.isNaN(k)) continue;
    if (exact) {
      if (box.labelMin[i] !== k || box.labelMax[i] !== k) return false;
    } else if (k < box.labelMin[i]! || k > box.labelMax[i]!) return false;
  }
  return true;
}

/** Query paths in both orientations (data paths are stored in one). */
function orientations(path: QueryPath): QueryPath[] {
  const rev = [...path].reverse();
  return rev.join(',') === path.join(',') ? [path] : [path, rev];
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
export function completeLabels(
  q: NormalizedQueryGraph,
  paths: readonly QueryPath[],
  index: PathIndexView,
  maxCandidates: number,
  neighbours: (node: number) => readonly number[],
): LabelCompletion {
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
    if (nx !== null && ny === null) intersect(y, new Set(neighbours(nx)));
    if (ny !== null && nx === null) intersect(x, new Set(neighbours(ny)));
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

/** A data path matched to a query path: data node per query path position. */
export interface PathCandidate {
  /** Data path id in the index, or -1 for a single-edge check outside the index. */
  pathId: number;
  /** Data node of each position of the query path. */
  nodes: number[];
}

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
  const neighbours: number[][] = q.nodes.map(() => []);
  const seen = new Set<string>();
  for (const e of q.edges) {
    const key = edgeKey(e.source, e.target);
    if (e.source === e.target || seen.has(key)) continue;
    seen.add(key);
    neighbours[e.source]!.push(e.target);
    neighbours[e.target]!.push(e.source);
  }
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

/** A subgraph isomorphic to the query graph: data node of every query node (-1: an isolated query node). */
export type Embedding = number[];

/**
 * Subgraph assembly (SG-RAG Algorithm 8): every combination of one candidate per query path whose
 * node mappings agree, and which maps distinct query nodes to distinct data nodes, is a match.
 * `edgeOk` checks each query edge against the data (e.g. single-edge paths outside the index, or
 * relation labels).
 */
export function assembleSubgraphs(
  q: NormalizedQueryGraph,
  paths: readonly QueryPath[],
  candidateLists: readonly PathCandidate[][],
  edgeOk: (queryEdge: number, a: number, b: number) => boolean,
  maxMatches: number,
): { matches: Embedding[]; conflicts: number; injectivityConflicts: number } {
  const matches: Embedding[] = [];
  const seen = new Set<string>();
  let conflicts = 0;
  let injectivityConflicts = 0;
  const map = new Map<number, number>();
  const rec = (i: number): void => {
    if (matches.length >= maxMatches) return;
    if (i === paths.length) {
      // Query nodes on no edge (isolated) stay unbound (-1); every other node must be bound.
      if (!q.edges.every((e) => map.has(e.source) && map.has(e.target))) return;
      const emb = q.nodes.map((_, n) => map.get(n) ?? -1);
      if (!q.edges.every((e, ei) => edgeOk(ei, emb[e.source]!, emb[e.target]!))) return;
      const key = emb.join(',');
      if (!seen.has(key)) {
        seen.add(key);
        matches.push(emb);
      }
      return;
    }
    const path = paths[i]!;
    for (const cand of candidateLists[i]!) {
      const added: number[] = [];
      let ok = true;
      for (let pos = 0; pos < path.length; pos++) {
        const qn = path[pos]!;
        const dn = cand.nodes[pos]!;
        const prev = map.get(qn);
        if (prev !== undefined) {
          if (prev !== dn) {
            ok = false;
            conflicts++;
            break;
          }
          continue;
        }
        if ([...map.values()].includes(dn)) {
          ok = false;
          injectivityConflicts++;
          break;
        }
        map.set(qn, dn);
        added.push(qn);
      }
      if (ok) rec(i + 1);
      for (const qn of added) map.delete(qn);
    }
  };
  rec(0);
  return { matches, conflicts, injectivityConflicts };
}
