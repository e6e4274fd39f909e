import type { AbstractGraph } from 'graphology-types';
import { InvalidArgumentError } from '../errors.js';

/**
 * A compressed sparse row (CSR) view of a graph's out-adjacency, on typed arrays.
 *
 * Node `i` (the `i`-th entry of `nodeIds`) has its out-edges at positions
 * `offsets[i] .. offsets[i + 1] - 1` of `targets` and `weights`. An undirected edge appears once in
 * each direction; a self-loop appears once. Parallel edges of a multigraph stay separate entries,
 * so algorithms that sum over a row (PageRank) add their weights.
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
}

/** Defaults of {@link toCsr}. */
export const CSR_DEFAULTS: ToCsrOptions = { weightAttribute: 'weight', directed: 'auto' };

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
  const { weightAttribute, directed } = { ...CSR_DEFAULTS, ...options };
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
  const w = new Float64Array(m);
  const both = new Uint8Array(m);
  const counts = new Uint32Array(n + 1);
  let e = 0;
  graph.forEachEdge((edge, attributes, source, target, _sa, _ta, undirected) => {
    const s = index.get(source)!;
    const t = index.get(target)!;
    src[e] = s;
    dst[e] = t;
    w[e] = weightAttribute === null ? 1 : readWeight(attributes[weightAttribute], edge, weightAttribute);
    const twoWay = s !== t && (directed === 'auto' ? undirected : !directed);
    both[e] = twoWay ? 1 : 0;
    counts[s + 1]!++;
    if (twoWay) counts[t + 1]!++;
    e++;
  });
  return fill(nodeIds, index, counts, src, dst, w, both, m);
}

/** An edge of {@link csrFromEdges}: `[source, target, weight?]`, weight 1 when omitted. */
export type IndexEdge = readonly [source: number, target: number, weight?: number];

/** Options of {@link csrFromEdges}. */
export interface CsrFromEdgesOptions {
  /** `true`: each edge is `source → target` only; `false`: each edge gives both directions. */
  directed: boolean;
  /** Node keys, length `n`. @default the indices as strings, `'0'`, `'1'`, ... */
  ids?: string[];
}

/**
 * Build a {@link Csr} from plain data: `n` nodes numbered `0 .. n - 1` and an edge list. Self-loops
 * are kept once; parallel edges stay separate entries. Rows keep edge-list order.
 *
 * @throws InvalidArgumentError when an endpoint is not an integer in `[0, n)`, a weight is not a
 * finite number, or `ids` does not hold `n` distinct keys.
 * @example
 * const csr = csrFromEdges(3, [[0, 1], [1, 2, 0.5]], { directed: false });
 */
export function csrFromEdges(n: number, edges: readonly IndexEdge[], options: CsrFromEdgesOptions): Csr {
  if (!Number.isInteger(n) || n < 0) {
    throw new InvalidArgumentError('n', `csrFromEdges: n must be a non-negative integer, got ${n}.`);
  }
  const nodeIds = options.ids ? options.ids.slice() : Array.from({ length: n }, (_, k) => String(k));
  if (nodeIds.length !== n) {
    throw new InvalidArgumentError(
      'options.ids',
      `csrFromEdges: ids has ${nodeIds.length} keys but n is ${n}; pass one key per node.`,
    );
  }
  const index = new Map<string, number>();
  for (let k = 0; k < n; k++) index.set(nodeIds[k]!, k);
  if (index.size !== n) {
    throw new InvalidArgumentError(
      'options.ids',
      'csrFromEdges: ids contains duplicate keys; keys must be distinct.',
    );
  }
  const m = edges.length;
  const src = new Uint32Array(m);
  const dst = new Uint32Array(m);
  const w = new Float64Array(m);
  const both = new Uint8Array(m);
  const counts = new Uint32Array(n + 1);
  for (let e = 0; e < m; e++) {
    const [s, t, weight] = edges[e]!;
    if (!isIndex(s, n) || !isIndex(t, n)) {
      throw new InvalidArgumentError(
        'edges',
        `csrFromEdges: edge ${e} is [${s}, ${t}], but endpoints must be integers in [0, ${n}); check n.`,
      );
    }
    if (weight !== undefined && !Number.isFinite(weight)) {
      throw new InvalidArgumentError(
        'edges',
        `csrFromEdges: edge ${e} has weight ${weight}; weights must be finite numbers.`,
      );
    }
    src[e] = s;
    dst[e] = t;
    w[e] = weight ?? 1;
    const twoWay = s !== t && !options.directed;
    both[e] = twoWay ? 1 : 0;
    counts[s + 1]!++;
    if (twoWay) counts[t + 1]!++;
  }
  return fill(nodeIds, index, counts, src, dst, w, both, m);
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

/** Second pass shared by both builders: prefix sums, then scatter the entries into their rows. */
function fill(
  nodeIds: string[],
  index: Map<string, number>,
  counts: Uint32Array,
  src: Uint32Array,
  dst: Uint32Array,
  w: Float64Array,
  both: Uint8Array,
  m: number,
): Csr {
  const n = nodeIds.length;
  const offsets = counts; // counts[i + 1] holds the size of row i; prefix sums turn it into offsets
  for (let k = 0; k < n; k++) offsets[k + 1]! += offsets[k]!;
  const total = offsets[n]!;
  const targets = new Uint32Array(total);
  const weights = new Float64Array(total);
  const outWeight = new Float64Array(n);
  const cursor = offsets.slice(0, n);
  for (let e = 0; e < m; e++) {
    const s = src[e]!;
    const t = dst[e]!;
    const weight = w[e]!;
    let at = cursor[s]!++;
    targets[at] = t;
    weights[at] = weight;
    outWeight[s]! += weight;
    if (both[e] === 1) {
      at = cursor[t]!++;
      targets[at] = s;
      weights[at] = weight;
      outWeight[t]! += weight;
    }
  }
  return { nodeIds, index, offsets, targets, weights, outWeight };
}
