import { InvalidArgumentError } from '@grag/core';
import { toCsr } from '@grag/core/graph';
import { randomInt } from '@grag/core/kit';

/** A graphology graph (any type), as accepted by `toCsr` of `@grag/core`. */
export type GraphLike = Parameters<typeof toCsr>[0];

/**
 * A labelled, undirected, simple graph in compressed sparse row form: what the embedders read.
 * Node `i` has label `labels[i]` and its distinct neighbours (self-loops dropped, parallel and
 * opposite edges merged) at `neighbours[offsets[i] .. offsets[i + 1] - 1]`, in increasing order.
 */
export interface StarGraph {
  /** Node keys; the position is the node's index. */
  readonly ids: readonly string[];
  /** Label of every node, aligned with `ids`. */
  readonly labels: readonly string[];
  /** Row starts, length `ids.length + 1`. */
  readonly offsets: Uint32Array;
  /** Neighbour indices, row by row, each row sorted and without duplicates. */
  readonly neighbours: Uint32Array;
  /** Node key to index. */
  readonly index: ReadonlyMap<string, number>;
}

/**
 * A star subgraph g(v) (SG-RAG §4.2, appendix C): a centre label and the labels of the centre's
 * neighbours. A sub-star keeps the centre and any sub-multiset of the neighbour labels.
 */
export interface Star {
  centre: string;
  neighbours: string[];
}

function buildRows(
  n: number,
  pairs: Iterable<readonly [number, number]>,
): { offsets: Uint32Array; neighbours: Uint32Array } {
  const rows: number[][] = Array.from({ length: n }, () => []);
  for (const [a, b] of pairs) {
    if (a === b) continue;
    rows[a]!.push(b);
    rows[b]!.push(a);
  }
  const offsets = new Uint32Array(n + 1);
  const flat: number[] = [];
  for (let i = 0; i < n; i++) {
    const row = rows[i]!.sort((x, y) => x - y);
    let last = -1;
    for (const v of row) {
      if (v !== last) flat.push(v);
      last = v;
    }
    offsets[i + 1] = flat.length;
  }
  return { offsets, neighbours: Uint32Array.from(flat) };
}

/**
 * Build a {@link StarGraph} from node labels and edges. Edges are read as undirected; self-loops
 * are dropped and repeated edges merged (a star is a set of neighbours).
 *
 * @param labels node key → label, as a `Map` or a plain object; its order is the node order.
 * @param edges pairs of node keys.
 * @throws InvalidArgumentError when an edge names a node that has no label.
 * @example
 * const g = createStarGraph({ a: 'person', b: 'film', c: 'film' }, [['a', 'b'], ['a', 'c']]);
 */
export function createStarGraph(
  labels: ReadonlyMap<string, string> | Readonly<Record<string, string>>,
  edges: Iterable<readonly [string, string]>,
): StarGraph {
  const entries = labels instanceof Map ? [...labels] : Object.entries(labels as Record<string, string>);
  const ids = entries.map(([id]) => id);
  const index = new Map<string, number>();
  for (let i = 0; i < ids.length; i++) index.set(ids[i]!, i);
  const pairs: [number, number][] = [];
  for (const [s, t] of edges) {
    const a = index.get(s);
    const b = index.get(t);
    if (a === undefined || b === undefined) {
      throw new InvalidArgumentError(
        'edges',
        `createStarGraph: edge (${s}, ${t}) names node "${a === undefined ? s : t}", which has no label — add it to \`labels\`.`,
      );
    }
    pairs.push([a, b]);
  }
  const { offsets, neighbours } = buildRows(ids.length, pairs);
  return { ids, labels: entries.map(([, l]) => l), offsets, neighbours, index };
}

/** Options of {@link starGraphFromGraph}. */
export interface FromGraphOptions {
  /**
   * Where a node's label comes from: the name of a node attribute, or a function of the node key
   * and its attributes.
   * @default 'label'
   */
  label: string | ((node: string, attributes: Record<string, unknown>) => string);
}

/** Defaults of {@link starGraphFromGraph}. */
export const FROM_GRAPH_DEFAULTS: FromGraphOptions = { label: 'label' };

/**
 * Build a {@link StarGraph} from a graphology graph of any type; every edge counts as undirected.
 *
 * @throws InvalidArgumentError when a node has no string label.
 */
export function starGraphFromGraph(graph: GraphLike, options: Partial<FromGraphOptions> = {}): StarGraph {
  const { label } = { ...FROM_GRAPH_DEFAULTS, ...options };
  const csr = toCsr(graph, { weightAttribute: null, directed: false });
  const labels = csr.nodeIds.map((node) => {
    const attributes = graph.getNodeAttributes(node) as Record<string, unknown>;
    const value = typeof label === 'function' ? label(node, attributes) : attributes[label];
    if (typeof value !== 'string') {
      throw new InvalidArgumentError(
        'graph',
        `starGraphFromGraph: node "${node}" has no string label${typeof label === 'string' ? ` in attribute "${label}"` : ''} — set one or pass \`label\`.`,
      );
    }
    return value;
  });
  function* pairs(): Generator<[number, number]> {
    for (let i = 0; i < csr.nodeIds.length; i++) {
      for (let e = csr.offsets[i]!; e < csr.offsets[i + 1]!; e++) yield [i, csr.targets[e]!];
    }
  }
  const { offsets, neighbours } = buildRows(csr.nodeIds.length, pairs());
  return { ids: csr.nodeIds, labels, offsets, neighbours, index: csr.index };
}

/** Number of distinct neighbours of node `i`. */
export function degree(graph: StarGraph, i: number): number {
  return graph.offsets[i + 1]! - graph.offsets[i]!;
}

/** The star g(v) of node `i`: its label and its neighbours' labels, sorted. */
export function starOf(graph: StarGraph, i: number): Star {
  const neighbours: string[] = [];
  for (let e = graph.offsets[i]!; e < graph.offsets[i + 1]!; e++)
    neighbours.push(graph.labels[graph.neighbours[e]!]!);
  return { centre: graph.labels[i]!, neighbours: neighbours.sort() };
}

/** A multiset of labels: distinct labels in sorted order with their multiplicities. */
export interface LabelMultiset {
  labels: string[];
  counts: number[];
}

/** Count the labels of `labels` into a {@link LabelMultiset}. */
export function toMultiset(labels: readonly string[]): LabelMultiset {
  const sorted = [...labels].sort();
  const out: LabelMultiset = { labels: [], counts: [] };
  for (const l of sorted) {
    if (out.labels.at(-1) === l) out.counts[out.counts.length - 1]!++;
    else {
      out.labels.push(l);
      out.counts.push(1);
    }
  }
  return out;
}

/**
 * Number of distinct sub-multisets of `set`, itself and the empty one included: the product of
 * (multiplicity + 1). A star whose neighbours all have different labels and degree d has 2^d.
 */
export function subMultisetCount(set: LabelMultiset): number {
  let n = 1;
  for (const c of set.counts) n *= c + 1;
  return n;
}

/**
 * Every distinct sub-multiset of `set` as a sorted label list, the empty one first; the full set is
 * left out unless `includeFull`. Sub-stars that differ only in which of two same-label neighbours
 * they keep have the same embedding (every embedder here reads the neighbour multiset), so this is
 * an exhaustive enumeration of the sub-stars of a star.
 */
export function* subMultisets(set: LabelMultiset, includeFull = false): Generator<string[]> {
  const m = set.labels.length;
  const take = new Array<number>(m).fill(0);
  for (;;) {
    let full = true;
    for (let i = 0; i < m; i++) if (take[i] !== set.counts[i]) full = false;
    if (!full || includeFull) {
      const out: string[] = [];
      for (let i = 0; i < m; i++) for (let k = 0; k < take[i]!; k++) out.push(set.labels[i]!);
      yield out;
    }
    let i = 0;
    while (i < m && take[i] === set.counts[i]) take[i++] = 0;
    if (i === m) return;
    take[i]!++;
  }
}

/**
 * A random proper sub-star of `neighbours` (labels): a size drawn uniformly from
 * [`minSize`, `neighbours.length - 1`], then that many distinct positions. Returns sorted labels.
 */
export function randomSubStar(neighbours: readonly string[], rand: () => number, minSize = 0): string[] {
  const d = neighbours.length;
  const lo = Math.min(minSize, Math.max(0, d - 1));
  const size = lo + randomInt(rand, Math.max(1, d - lo));
  const pool = [...neighbours];
  for (let i = 0; i < size; i++) {
    const j = i + randomInt(rand, d - i);
    const t = pool[i]!;
    pool[i] = pool[j]!;
    pool[j] = t;
  }
  return pool.slice(0, size).sort();
}

/** Whether the label multiset `sub` is contained in `sup` (label → multiplicity). */
export function isSubMultiset(sub: readonly string[], sup: ReadonlyMap<string, number>): boolean {
  const need = new Map<string, number>();
  for (const l of sub) {
    const n = (need.get(l) ?? 0) + 1;
    if (n > (sup.get(l) ?? 0)) return false;
    need.set(l, n);
  }
  return true;
}

/** Label → multiplicity of the neighbours of node `i`. */
export function neighbourLabelCounts(graph: StarGraph, i: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (let e = graph.offsets[i]!; e < graph.offsets[i + 1]!; e++) {
    const l = graph.labels[graph.neighbours[e]!]!;
    counts.set(l, (counts.get(l) ?? 0) + 1);
  }
  return counts;
}
