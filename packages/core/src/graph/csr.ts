import type { AbstractGraph } from 'graphology-types';
import { InvalidArgumentError } from '../contracts/errors.js';

/**
 * A compressed sparse row (CSR) view of a graph's out-adjacency, on typed arrays.
 *
 * Node `i` (the `i`-th entry of `nodeIds`) has its out-edges at positions
 * `offsets[i] .. offsets[i + 1] - 1` of `targets`, `weights` and `edgeIds`. An undirected edge
 * appears once in each direction; a self-loop appears once. Parallel edges of a multigraph stay
 * separate entries, so algorithms that sum over a row (PageRank) add their weights. Rows keep edge
 * order, or are ascending by target with `sortRows`.
 */
export interface Csr {
  /** Node keys, in graph iteration (insertion) order; the position is the node's CSR index. */
  nodeIds: string[];
  /** Node key to CSR index. */
  index: Map<string, number>;
  /** Row starts, length `n + 1`; `offsets[n]` is the number of stored (directed) entries. */
  offsets: Uint32Array;
  /** Target CSR index of every entry, row by row. */
  targets: Uint32Array;
  /** Weight of every entry, aligned with `targets`. */
  weights: Float64Array;
  /**
   * The edge each entry comes from, aligned with `targets`: its position in the graph's edge
   * iteration order ({@link toCsr}) or in the edge list ({@link csrFromEdges}). Both entries of an
   * undirected edge carry the same id, so per-edge data (a triangle count, a trussness) can be
   * kept in one array of length `m`.
   */
  edgeIds: Uint32Array;
  /** Sum of `weights` over each row (the weighted out-degree). */
  outWeight: Float64Array;
}

/** Options of {@link toCsr}. */
export interface ToCsrOptions {
  /**
   * Edge attribute read as the weight. A missing (`undefined`/`null`) value counts as 1; any other
   * value that is not a finite number is an error. `null` ignores attributes: every weight is 1.
   * @default 'weight'
   */
  weightAttribute: string | null;
  /**
   * How edge directions are read.
   * - `'auto'`: each edge as the graph declares it: a directed edge gives one entry
   *   `source → target`, an undirected edge gives both directions (mixed graphs work).
   * - `true`: every edge, undirected ones included, gives only its `source → target` entry.
   * - `false`: every edge, directed ones included, gives both directions (symmetrized).
   * @default 'auto'
   */
  directed: 'auto' | boolean;
  /**
   * Sort every row ascending by target (ties in edge order), so a row can be binary-searched or
   * merged with another (triangle counting). One more O(n + m) counting pass, no comparison sort.
   * @default false (rows in edge order)
   */
  sortRows: boolean;
}

/** Defaults of {@link toCsr}. */
export const CSR_DEFAULTS: ToCsrOptions = { weightAttribute: 'weight', directed: 'auto', sortRows: false };

/**
 * Build the {@link Csr} view of a graphology graph (any type: directed, undirected, mixed, multi).
 * O(n + m) time; nodes keep graph iteration order, each row keeps edge iteration order.
 *
 * @throws InvalidArgumentError when an edge weight is present but not a finite number.
 * @example
 * const csr = toCsr(graph, { weightAttribute: 'score' });
 * const row = csr.targets.subarray(csr.offsets[i], csr.offsets[i + 1]);
 */
export function toCsr(graph: AbstractGraph, options: Partial<ToCsrOptions> = {}): Csr {
  const { weightAttribute, directed, sortRows } = { ...CSR_DEFAULTS, ...options };
  const n = graph.order;
  const nodeIds: string[] = new Array(n);
  const index = new Map<string, number>();
  let i = 0;
  graph.forEachNode((node) => {
    nodeIds[i] = node;
    index.set(node, i);
    i++;
  });

  // First pass: record every edge once (as index pairs) and count the entries of each row.
  const m = graph.size;
  const src = new Uint32Array(m);
  const dst = new Uint32Array(m);
  const w = weightAttribute === null ? undefined : new Float64Array(m);
  const both = new Uint8Array(m);
  const counts = new Uint32Array(n + 1);
  let symmetric = true;
  let e = 0;
  graph.forEachEdge((edge, attributes, source, target, _sa, _ta, undirected) => {
    const s = index.get(source)!;
    const t = index.get(target)!;
    src[e] = s;
    dst[e] = t;
    if (w) w[e] = readWeight(attributes[weightAttribute!], edge, weightAttribute!);
    const twoWay = s !== t && (directed === 'auto' ? undirected : !directed);
    both[e] = twoWay ? 1 : 0;
    if (!twoWay && s !== t) symmetric = false;
    counts[s + 1]!++;
    if (twoWay) counts[t + 1]!++;
    e++;
  });
  return fill(nodeIds, index, counts, src, dst, w, both, m, sortRows, symmetric);
}

/** An edge of {@link csrFromEdges}: `[source, target, weight?]`, weight 1 when omitted. */
export type IndexEdge = readonly [source: number, target: number, weight?: number];

/**
 * The edges of {@link csrFromEdges}: a list of {@link IndexEdge}s, or a flat typed array of
 * `source, target` pairs (`s0, t0, s1, t1, ...`, every weight 1), which large graphs build without
 * one array per edge.
 */
export type IndexEdgeList = readonly IndexEdge[] | Uint32Array | Int32Array;

/** Options of {@link csrFromEdges}. */
export interface CsrFromEdgesOptions {
  /** `true`: each edge is `source → target` only; `false`: each edge gives both directions. */
  directed: boolean;
  /** Node keys, length `n`. @default the indices as strings, `'0'`, `'1'`, ... */
  ids?: readonly string[];
  /** Sort every row ascending by target (ties in edge order); see {@link ToCsrOptions.sortRows}. @default false */
  sortRows?: boolean;
  /**
   * The function named in error messages, for a builder that validates its input through this one
   * (`@grag/ktruss`'s `trussGraphFromEdges`). @default 'csrFromEdges'
   */
  caller?: string;
}

/**
 * Build a {@link Csr} from plain data: `n` nodes numbered `0 .. n - 1` and an edge list (tuples,
 * or a flat typed array of pairs). Self-loops are kept once; parallel edges stay separate entries.
 * Rows keep edge-list order unless `sortRows`. O(n + m).
 *
 * @throws InvalidArgumentError when an endpoint is not an integer in `[0, n)`, a weight is not a
 * finite number, a flat array has an odd length, or `ids` does not hold `n` distinct keys.
 * @example
 * const csr = csrFromEdges(3, [[0, 1], [1, 2, 0.5]], { directed: false });
 * const big = csrFromEdges(3, Uint32Array.of(0, 1, 1, 2), { directed: false, sortRows: true });
 */
export function csrFromEdges(n: number, edges: IndexEdgeList, options: CsrFromEdgesOptions): Csr {
  const caller = options.caller ?? 'csrFromEdges';
  if (!Number.isInteger(n) || n < 0) {
    throw new InvalidArgumentError('n', `${caller}: n must be a non-negative integer, got ${n}.`);
  }
  const nodeIds = options.ids ? options.ids.slice() : Array.from({ length: n }, (_, k) => String(k));
  if (nodeIds.length !== n) {
    throw new InvalidArgumentError(
      'options.ids',
      `${caller}: ids has ${nodeIds.length} keys but n is ${n}; pass one key per node.`,
    );
  }
  const index = new Map<string, number>();
  for (let k = 0; k < n; k++) index.set(nodeIds[k]!, k);
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
  const w = flat ? undefined : new Float64Array(m);
  const both = new Uint8Array(m);
  const counts = new Uint32Array(n + 1);
  const directed = options.directed;
  for (let e = 0; e < m; e++) {
    let s: number;
    let t: number;
    let weight: number | undefined;
    if (flat) {
      s = edges[2 * e]!;
      t = edges[2 * e + 1]!;
    } else {
      const edge = (edges as readonly IndexEdge[])[e]!;
      s = edge[0];
      t = edge[1];
      weight = edge[2];
    }
    if (!isIndex(s, n) || !isIndex(t, n)) {
      throw new InvalidArgumentError(
        'edges',
        `${caller}: edge ${e} is [${s}, ${t}], but endpoints must be integers in [0, ${n}); check n.`,
      );
    }
    if (weight !== undefined && !Number.isFinite(weight)) {
      throw new InvalidArgumentError(
        'edges',
        `${caller}: edge ${e} has weight ${weight}; weights must be finite numbers.`,
      );
    }
    src[e] = s;
    dst[e] = t;
    if (w) w[e] = weight ?? 1;
    const twoWay = s !== t && !directed;
    both[e] = twoWay ? 1 : 0;
    counts[s + 1]!++;
    if (twoWay) counts[t + 1]!++;
  }
  return fill(nodeIds, index, counts, src, dst, w, both, m, options.sortRows ?? false, !directed);
}

function isIndex(value: number, n: number): boolean {
  return Number.isInteger(value) && value >= 0 && value < n;
}

function readWeight(value: unknown, edge: string, attribute: string): number {
  if (value === undefined || value === null) return 1;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  throw new InvalidArgumentError(
    'graph',
    `toCsr: edge "${edge}" has ${attribute} = ${String(value)}, not a finite number; fix the attribute or ` +
      'pass { weightAttribute: null } to ignore weights.',
  );
}

/**
 * Second pass shared by both builders: prefix sums, then scatter the entries into their rows in
 * edge order (`w` undefined: every weight is 1). With `sortRows`, the rows are then put in target
 * order by transposing — reading rows 0, 1, ... and appending each row's index to its targets'
 * rows leaves every row ascending — once for a symmetric graph (its transpose is itself), twice
 * otherwise. Counting passes only, O(n + m).
 */
function fill(
  nodeIds: string[],
  index: Map<string, number>,
  counts: Uint32Array,
  src: Uint32Array,
  dst: Uint32Array,
  w: Float64Array | undefined,
  both: Uint8Array,
  m: number,
  sortRows: boolean,
  symmetric: boolean,
): Csr {
  const n = nodeIds.length;
  const offsets = counts; // counts[i + 1] holds the size of row i; prefix sums turn it into offsets
  for (let k = 0; k < n; k++) offsets[k + 1]! += offsets[k]!;
  const total = offsets[n]!;
  let rows: Rows = {
    targets: new Uint32Array(total),
    edgeIds: new Uint32Array(total),
    weights: w ? new Float64Array(total) : EMPTY_WEIGHTS,
  };
  const { targets, edgeIds, weights } = rows;
  const outWeight = new Float64Array(n);
  const cursor = offsets.slice(0, n);
  if (w) {
    for (let e = 0; e < m; e++) {
      const s = src[e]!;
      const t = dst[e]!;
      const weight = w[e]!;
      let at = cursor[s]!++;
      targets[at] = t;
      edgeIds[at] = e;
      weights[at] = weight;
      outWeight[s]! += weight;
      if (both[e] === 1) {
        at = cursor[t]!++;
        targets[at] = s;
        edgeIds[at] = e;
        weights[at] = weight;
        outWeight[t]! += weight;
      }
    }
  } else {
    // Unweighted: every weight is 1 and a row's weight is its length.
    for (let e = 0; e < m; e++) {
      const s = src[e]!;
      const t = dst[e]!;
      let at = cursor[s]!++;
      targets[at] = t;
      edgeIds[at] = e;
      if (both[e] === 1) {
        at = cursor[t]!++;
        targets[at] = s;
        edgeIds[at] = e;
      }
    }
    for (let i = 0; i < n; i++) outWeight[i] = offsets[i + 1]! - offsets[i]!;
  }
  if (sortRows) {
    const weighted = w !== undefined;
    if (symmetric) {
      rows = transpose(rows, offsets, offsets, weighted);
    } else {
      const inOffsets = new Uint32Array(n + 1);
      for (let p = 0; p < total; p++) inOffsets[targets[p]! + 1]!++;
      for (let k = 0; k < n; k++) inOffsets[k + 1]! += inOffsets[k]!;
      rows = transpose(transpose(rows, offsets, inOffsets, weighted), inOffsets, offsets, weighted);
    }
  }
  const csr: Csr = {
    nodeIds,
    index,
    offsets,
    targets: rows.targets,
    weights: rows.weights,
    edgeIds: rows.edgeIds,
    outWeight,
  };
  return w ? csr : withUnitWeights(csr, total);
}

const EMPTY_WEIGHTS = new Float64Array(0);

/**
 * An unweighted CSR's `weights` (all ones) are made on first read, so algorithms that only walk
 * the structure (truss peeling) never pay 8 bytes per entry for them.
 */
function withUnitWeights(csr: Csr, total: number): Csr {
  return Object.defineProperty(csr, 'weights', {
    configurable: true,
    enumerable: true,
    get(this: Csr) {
      const weights = new Float64Array(total).fill(1);
      Object.defineProperty(this, 'weights', {
        value: weights,
        writable: true,
        enumerable: true,
        configurable: true,
      });
      return weights;
    },
  });
}

/** Entries of a CSR, aligned. */
interface Rows {
  targets: Uint32Array;
  edgeIds: Uint32Array;
  weights: Float64Array;
}

/**
 * The transpose of `from` (rows starting at `fromStarts`) as rows starting at `intoStarts`: entry
 * `i → t` becomes `t → i`, appended in the order of `i`, so every row comes out ascending. Without
 * `weighted`, every weight is 1 and `from.weights` is reused as it is.
 */
function transpose(from: Rows, fromStarts: Uint32Array, intoStarts: Uint32Array, weighted: boolean): Rows {
  const n = fromStarts.length - 1;
  const total = from.targets.length;
  const targets = new Uint32Array(total);
  const edgeIds = new Uint32Array(total);
  const weights = weighted ? new Float64Array(total) : from.weights;
  const cursor = intoStarts.slice(0, intoStarts.length - 1);
  for (let i = 0; i < n; i++) {
    const end = fromStarts[i + 1]!;
    for (let p = fromStarts[i]!; p < end; p++) {
      const at = cursor[from.targets[p]!]!++;
      targets[at] = i;
      edgeIds[at] = from.edgeIds[p]!;
      if (weighted) weights[at] = from.weights[p]!;
    }
  }
  return { targets, edgeIds, weights };
}
