import { InvalidArgumentError } from '@grag/core';
import { type Csr, csrFromEdges, toCsr } from '@grag/core/graph';
import type { AbstractGraph } from 'graphology-types';

/**
 * A simple undirected graph on typed arrays, the input of every algorithm of this package.
 *
 * Nodes are `0 .. n - 1` (`nodeIds[i]` is node `i`'s key); edges are `0 .. m - 1`, edge `e` joins
 * `sources[e] < targets[e]`. The adjacency is `@grag/core`'s CSR with sorted rows: node `i`'s
 * neighbours are `neighbors[offsets[i] .. offsets[i + 1] - 1]` (the CSR's `targets`), ascending, and
 * `edgeIds` holds the edge id of each entry (every edge appears once in each endpoint's row). No
 * self-loops, no parallel edges.
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
 * follow the list order. O(n + m) time: the adjacency is core's CSR (`csrFromEdges` with sorted
 * rows, a counting pass rather than a comparison sort).
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
  const csr = csrFromEdges(n, edges, {
    directed: false,
    sortRows: true,
    caller,
    ...(options.ids ? { ids: options.ids } : {}),
  });
  return fromSortedCsr(
    csr,
    undefined,
    {
      selfLoop: (node, e) =>
        new InvalidArgumentError(
          'edges',
          `${caller}: edge ${e} is a self-loop on node ${node}; trusses are defined on simple graphs, remove self-loops first.`,
        ),
      duplicate: (a, b, e1, e2) =>
        new InvalidArgumentError(
          'edges',
          `${caller}: edges ${e1} and ${e2} both join nodes ${a} and ${b} (a multigraph); ` +
            'trusses are defined on simple graphs, remove duplicate edges first.',
        ),
    },
    edges,
  );
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
  const csr = toCsr(graph, { weightAttribute: null, directed: false, sortRows: true });
  const edgeKeys = graph.edges();
  const { nodeIds } = csr;
  return fromSortedCsr(csr, edgeKeys, {
    selfLoop: (node) =>
      new InvalidArgumentError(
        'graph',
        `${caller}: node "${nodeIds[node]}" has a self-loop; drop self-loops first.`,
      ),
    duplicate: (a, b, e1, e2) =>
      new InvalidArgumentError(
        'graph',
        `${caller}: edges "${edgeKeys[e1]}" and "${edgeKeys[e2]}" both join "${nodeIds[a]}" and "${nodeIds[b]}" ` +
          '(a multigraph); trusses are defined on simple graphs, merge parallel edges first.',
      ),
  });
}

/** A {@link TrussGraph} as it is, or the view of a graphology graph. */
export function asTrussGraph(input: TrussGraph | AbstractGraph): TrussGraph {
  return isTrussGraph(input) ? input : toTrussGraph(input as AbstractGraph);
}

/** How {@link fromSortedCsr} reports an input that is not a simple graph. */
interface SimpleGraphErrors {
  selfLoop: (node: number, edge: number) => Error;
  duplicate: (a: number, b: number, e1: number, e2: number) => Error;
}

/**
 * The {@link TrussGraph} over core's symmetric CSR with ascending rows (`directed: false,
 * sortRows: true`): its `offsets`, `targets` and `edgeIds` are the adjacency as they are. One
 * sequential pass over the rows checks that the graph is simple (a self-loop is an entry equal to
 * its row; parallel edges are equal neighbours side by side in a sorted row). Each edge's
 * endpoints are read from `edges` when the caller has the edge list (a sequential pass), else
 * from the rows.
 */
function fromSortedCsr(
  csr: Csr,
  edgeKeys: string[] | undefined,
  errors: SimpleGraphErrors,
  edges?: EdgeList,
): TrussGraph {
  const { nodeIds, index, offsets, targets: neighbors, edgeIds } = csr;
  const n = nodeIds.length;
  for (let i = 0; i < n; i++) {
    const end = offsets[i + 1]!;
    let previous = -1;
    for (let p = offsets[i]!; p < end; p++) {
      const j = neighbors[p]!;
      if (j === i) throw errors.selfLoop(i, edgeIds[p]!);
      if (j === previous) {
        const e1 = Math.min(edgeIds[p]!, edgeIds[p - 1]!);
        const e2 = Math.max(edgeIds[p]!, edgeIds[p - 1]!);
        throw errors.duplicate(Math.min(i, j), Math.max(i, j), e1, e2);
      }
      previous = j;
    }
  }
  const m = neighbors.length >>> 1;
  const sources = new Uint32Array(m);
  const targets = new Uint32Array(m);
  if (edges instanceof Uint32Array || edges instanceof Int32Array) {
    for (let e = 0; e < m; e++) {
      const s = edges[2 * e]!;
      const t = edges[2 * e + 1]!;
      sources[e] = Math.min(s, t);
      targets[e] = Math.max(s, t);
    }
  } else if (edges) {
    for (let e = 0; e < m; e++) {
      const [s, t] = edges[e]!;
      sources[e] = Math.min(s, t);
      targets[e] = Math.max(s, t);
    }
  } else {
    for (let i = 0; i < n; i++) {
      const end = offsets[i + 1]!;
      for (let p = offsets[i]!; p < end; p++) {
        const j = neighbors[p]!;
        if (i < j) {
          sources[edgeIds[p]!] = i;
          targets[edgeIds[p]!] = j;
        }
      }
    }
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
