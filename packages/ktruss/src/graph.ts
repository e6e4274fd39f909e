import { InvalidArgumentError } from '@grag/core';
import type { AbstractGraph } from 'graphology-types';

/**
 * A simple undirected graph on typed arrays, the input of every algorithm of this package.
 *
 * Nodes are `0 .. n - 1` (`nodeIds[i]` is node `i`'s key); edges are `0 .. m - 1`, edge `e` joins
 * `sources[e] < targets[e]`. The adjacency is a CSR: node `i`'s neighbours are
 * `neighbors[offsets[i] .. offsets[i + 1] - 1]`, sorted ascending, and `edgeIds` holds the edge id of
 * each entry (every edge appears once in each endpoint's row). No self-loops, no parallel edges.
 */
export interface TrussGraph {
  /** Number of nodes. */
  readonly n: number;
  /** Number of edges. */
  readonly m: number;
  /** Node keys; the position is the node index. */
  readonly nodeIds: readonly string[];
  /** Node key to node index. */
  readonly index: ReadonlyMap<string, number>;
  /** Row starts, length `n + 1`; `offsets[n] === 2 * m`. */
  readonly offsets: Uint32Array;
  /** Neighbour of every adjacency entry, ascending within each row. */
  readonly neighbors: Uint32Array;
  /** Edge id of every adjacency entry, aligned with `neighbors`. */
  readonly edgeIds: Uint32Array;
  /** Smaller endpoint of each edge. */
  readonly sources: Uint32Array;
  /** Larger endpoint of each edge. */
  readonly targets: Uint32Array;
  /** Keys of the edges in the graphology graph the view was made from (edge ids are its iteration order). */
  readonly edgeKeys?: readonly string[];
}

/** Options of {@link trussGraphFromEdges}. */
export interface TrussGraphFromEdgesOptions {
  /** Node keys, length `n`. @default the indices as strings, `'0'`, `'1'`, ... */
  ids?: readonly string[];
}

/** An edge list: `[source, target]` pairs, or a flat typed array `s0, t0, s1, t1, ...`. */
export type EdgeList = readonly (readonly [number, number])[] | Uint32Array | Int32Array;

/** Whether `value` is a {@link TrussGraph} (rather than a graphology graph). */
export function isTrussGraph(value: unknown): value is TrussGraph {
  const g = value as Partial<TrussGraph> | null;
  return (
    typeof g === 'object' &&
    g !== null &&
    g.offsets instanceof Uint32Array &&
    g.neighbors instanceof Uint32Array &&
    g.edgeIds instanceof Uint32Array &&
    g.sources instanceof Uint32Array
  );
}

/**
 * The {@link TrussGraph} of plain data: `n` nodes numbered `0 .. n - 1` and an edge list. Edge ids
 * follow the list order. O(n + m) time (rows are sorted by a counting pass, not a comparison sort).
 *
 * @throws InvalidArgumentError when an endpoint is not an integer in `[0, n)`, an edge is a self-loop,
 * two edges join the same pair (a multigraph), or `ids` does not hold `n` distinct keys.
 * @example
 * const g = trussGraphFromEdges(4, [[0, 1], [1, 2], [0, 2], [2, 3]]);
 */
export function trussGraphFromEdges(
  n: number,
  edges: EdgeList,
  options: TrussGraphFromEdgesOptions = {},
): TrussGraph {
  const caller = 'trussGraphFromEdges';
  if (!Number.isInteger(n) || n < 0) {
    throw new InvalidArgumentError('n', `${caller}: n must be a non-negative integer, got ${String(n)}.`);
  }
  const nodeIds = options.ids ? options.ids.slice() : Array.from({ length: n }, (_, i) => String(i));
  if (nodeIds.length !== n) {
    throw new InvalidArgumentError(
      'options.ids',
      `${caller}: ids has ${nodeIds.length} keys but n is ${n}; pass one key per node.`,
    );
  }
  const index = new Map<string, number>();
  for (let i = 0; i < n; i++) index.set(nodeIds[i]!, i);
  if (index.size !== n) {
    throw new InvalidArgumentError(
      'options.ids',
      `${caller}: ids contains duplicate keys; keys must be distinct.`,
    );
  }
  const flat = edges instanceof Uint32Array || edges instanceof Int32Array;
  if (flat && edges.length % 2 !== 0) {
    throw new InvalidArgumentError(
      'edges',
      `${caller}: a flat edge array holds source, target pairs, so its length must be even; got ${edges.length}.`,
    );
  }
  const m = flat ? edges.length / 2 : edges.length;
  const src = new Uint32Array(m);
  const dst = new Uint32Array(m);
  for (let e = 0; e < m; e++) {
    let s: number;
    let t: number;
    if (flat) {
      s = edges[2 * e]!;
      t = edges[2 * e + 1]!;
    } else {
      const pair = (edges as readonly (readonly [number, number])[])[e]!;
      s = pair[0];
      t = pair[1];
    }
    if (!(Number.isInteger(s) && s >= 0 && s < n && Number.isInteger(t) && t >= 0 && t < n)) {
      throw new InvalidArgumentError(
        'edges',
        `${caller}: edge ${e} is [${s}, ${t}], but endpoints must be integers in [0, ${n}); check n.`,
      );
    }
    if (s === t) {
      throw new InvalidArgumentError(
        'edges',
        `${caller}: edge ${e} is a self-loop on node ${s}; trusses are defined on simple graphs, remove self-loops first.`,
      );
    }
    src[e] = s;
    dst[e] = t;
  }
  return buildTrussGraph(nodeIds, index, src, dst, undefined, (a, b, e1, e2) => {
    return new InvalidArgumentError(
      'edges',
      `${caller}: edges ${e1} and ${e2} both join nodes ${a} and ${b} (a multigraph); ` +
        'trusses are defined on simple graphs, remove duplicate edges first.',
    );
  });
}

/**
 * The {@link TrussGraph} view of a graphology graph. Nodes keep graph iteration order; edge ids are
 * the edge iteration order (`edgeKeys` maps them back). Edge attributes are ignored.
 *
 * @throws InvalidArgumentError for a directed graph (or a mixed graph with a directed edge), a graph
 * with a self-loop, or parallel edges (a multigraph): trusses are defined on simple undirected graphs.
 */
export function toTrussGraph(graph: AbstractGraph): TrussGraph {
  const caller = 'toTrussGraph';
  if (graph.type === 'directed' || graph.directedSize > 0) {
    throw new InvalidArgumentError(
      'graph',
      `${caller}: the graph is directed (type '${graph.type}', ${graph.directedSize} directed edges); ` +
        'k-truss needs an undirected graph: build an UndirectedGraph, or symmetrize with graphology-operators toUndirected.',
    );
  }
  if (graph.selfLoopCount > 0) {
    throw new InvalidArgumentError(
      'graph',
      `${caller}: the graph has ${graph.selfLoopCount} self-loop(s); trusses are defined on simple graphs, drop self-loops first.`,
    );
  }
  const n = graph.order;
  const nodeIds: string[] = new Array(n);
  const index = new Map<string, number>();
  let i = 0;
  graph.forEachNode((node) => {
    nodeIds[i] = node;
    index.set(node, i);
    i++;
  });
  const m = graph.size;
  const src = new Uint32Array(m);
  const dst = new Uint32Array(m);
  const edgeKeys: string[] = new Array(m);
  let e = 0;
  graph.forEachEdge((edge, _attributes, source, target) => {
    src[e] = index.get(source)!;
    dst[e] = index.get(target)!;
    edgeKeys[e] = edge;
    e++;
  });
  return buildTrussGraph(nodeIds, index, src, dst, edgeKeys, (a, b, e1, e2) => {
    return new InvalidArgumentError(
      'graph',
      `${caller}: edges "${edgeKeys[e1]}" and "${edgeKeys[e2]}" both join "${nodeIds[a]}" and "${nodeIds[b]}" ` +
        '(a multigraph); trusses are defined on simple graphs, merge parallel edges first.',
    );
  });
}

/** A {@link TrussGraph} as it is, or the view of a graphology graph. */
export function asTrussGraph(input: TrussGraph | AbstractGraph): TrussGraph {
  return isTrussGraph(input) ? input : toTrussGraph(input as AbstractGraph);
}

function buildTrussGraph(
  nodeIds: string[],
  index: Map<string, number>,
  src: Uint32Array,
  dst: Uint32Array,
  edgeKeys: string[] | undefined,
  duplicate: (a: number, b: number, e1: number, e2: number) => Error,
): TrussGraph {
  const n = nodeIds.length;
  const m = src.length;
  const offsets = new Uint32Array(n + 1);
  for (let e = 0; e < m; e++) {
    offsets[src[e]! + 1]!++;
    offsets[dst[e]! + 1]!++;
  }
  for (let i = 0; i < n; i++) offsets[i + 1]! += offsets[i]!;
  // Pass 1: rows in edge order. Pass 2: scan the rows of t = 0, 1, ... and append t to the row of each
  // of its neighbours, which leaves every row sorted without a comparison sort.
  const rawNeighbors = new Uint32Array(2 * m);
  const rawEdges = new Uint32Array(2 * m);
  const cursor = offsets.slice(0, n);
  for (let e = 0; e < m; e++) {
    const s = src[e]!;
    const t = dst[e]!;
    let at = cursor[s]!++;
    rawNeighbors[at] = t;
    rawEdges[at] = e;
    at = cursor[t]!++;
    rawNeighbors[at] = s;
    rawEdges[at] = e;
  }
  const neighbors = new Uint32Array(2 * m);
  const edgeIds = new Uint32Array(2 * m);
  cursor.set(offsets.subarray(0, n));
  for (let t = 0; t < n; t++) {
    const end = offsets[t + 1]!;
    for (let p = offsets[t]!; p < end; p++) {
      const s = rawNeighbors[p]!;
      const at = cursor[s]!++;
      neighbors[at] = t;
      edgeIds[at] = rawEdges[p]!;
    }
  }
  for (let i = 0; i < n; i++) {
    const end = offsets[i + 1]!;
    for (let p = offsets[i]! + 1; p < end; p++) {
      if (neighbors[p] === neighbors[p - 1]) {
        const a = Math.min(i, neighbors[p]!);
        const b = Math.max(i, neighbors[p]!);
        const e1 = Math.min(edgeIds[p]!, edgeIds[p - 1]!);
        const e2 = Math.max(edgeIds[p]!, edgeIds[p - 1]!);
        throw duplicate(a, b, e1, e2);
      }
    }
  }
  const sources = new Uint32Array(m);
  const targets = new Uint32Array(m);
  for (let e = 0; e < m; e++) {
    const s = src[e]!;
    const t = dst[e]!;
    sources[e] = Math.min(s, t);
    targets[e] = Math.max(s, t);
  }
  const g: TrussGraph = { n, m, nodeIds, index, offsets, neighbors, edgeIds, sources, targets };
  return edgeKeys ? { ...g, edgeKeys } : g;
}

/** Edge id of `{a, b}`, or -1 when there is none (binary search in `a`'s sorted row). */
export function findEdge(g: TrussGraph, a: number, b: number): number {
  let lo = g.offsets[a]!;
  let hi = g.offsets[a + 1]! - 1;
  const nb = g.neighbors;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const x = nb[mid]!;
    if (x === b) return g.edgeIds[mid]!;
    if (x < b) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** Degree of node `i`. */
export function degree(g: TrussGraph, i: number): number {
  return g.offsets[i + 1]! - g.offsets[i]!;
}
