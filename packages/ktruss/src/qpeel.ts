import { InvalidArgumentError } from '@grag/core';
import type { AbstractGraph } from 'graphology-types';
import { assertK, maximalKTruss } from './decomposition.js';
import { asTrussGraph, type TrussGraph } from './graph.js';
import { peelPrepared } from './peel.js';
import { type PreparedTruss, prepareTruss } from './prepared.js';

/**
 * Cosine similarity of `query` with each vector: the per-node relevance that QRScore averages
 * (DA-RAG Eq. 1). A zero vector has relevance 0.
 *
 * @throws InvalidArgumentError when a vector's length differs from the query's.
 */
export { compareCommunities } from './peel.js';
export { type PreparedTruss, prepareTruss } from './prepared.js';

export function queryRelevance(
  query: ArrayLike<number>,
  vectors: readonly ArrayLike<number>[],
): Float64Array {
  const d = query.length;
  let qn = 0;
  for (let c = 0; c < d; c++) qn += query[c]! * query[c]!;
  qn = Math.sqrt(qn);
  const out = new Float64Array(vectors.length);
  for (let i = 0; i < vectors.length; i++) {
    const v = vectors[i]!;
    if (v.length !== d) {
      throw new InvalidArgumentError(
        'vectors',
        `queryRelevance: vector ${i} has ${v.length} dimensions, the query ${d}; embed both with the same model.`,
      );
    }
    let dot = 0;
    let vn = 0;
    for (let c = 0; c < d; c++) {
      dot += v[c]! * query[c]!;
      vn += v[c]! * v[c]!;
    }
    out[i] = qn === 0 || vn === 0 ? 0 : dot / (qn * Math.sqrt(vn));
  }
  return out;
}

/**
 * QRScore (DA-RAG Eq. 1): the mean relevance of a community's nodes, `1/|V_H| · Σ cos(f(v), f(q))`,
 * given each node's relevance (see {@link queryRelevance}). `NaN` for no nodes.
 */
export function qrScore(nodes: Iterable<number>, relevance: ArrayLike<number>): number {
  let sum = 0;
  let count = 0;
  for (const v of nodes) {
    sum += relevance[v]!;
    count++;
  }
  return count === 0 ? Number.NaN : sum / count;
}

/** Per-node relevance: an array aligned with the node indices, or a function of the node key and index. */
export type Relevance = ArrayLike<number> | ((node: string, index: number) => number);

/** Options of {@link qPeel}. */
export interface QPeelOptions {
  /** Trussness of every edge of the graph, when already computed (saves the decomposition). */
  trussness?: ArrayLike<number>;
  /**
   * How many communities to return (the best of each component, highest QRScore first). DA-RAG
   * returns the single best. @default 1 (DA-RAG §5.2)
   */
  top: number;
  /**
   * Upper bound on peeling sweeps over a component (a sweep tries every remaining node in ascending
   * relevance; sweeps repeat until one removes nothing). @default Infinity
   */
  maxSweeps: number;
  /**
   * Size bound: when a refined component still has more nodes than this, peeling goes on past the
   * QRScore test, least relevant node first, as long as what remains is a connected k-truss, until
   * the component fits or no node can go (a connected k-truss with an edge keeps at least k nodes).
   * Not in DA-RAG, whose Q-Peel stops when no removal raises the QRScore; see the README.
   * @default Infinity (DA-RAG §5.2)
   */
  maxNodes: number;
  /**
   * Query nodes (indices): only components of the k-truss holding one of them are searched, and
   * peeling never removes them (attributed community search with query vertices, as in ACQ and ATC,
   * Fang et al. 2016, Huang & Lakshmanan 2017). Empty: any component (DA-RAG §5.2). @default []
   */
  keep: readonly number[];
  /**
   * Skip work certain not to change the result (see the README's Algorithms): with a finite
   * `maxNodes`, settle a component without peeling its nodes of relevance 0 when they cannot change
   * it (`shortcuts`); and search components from the highest bound on their QRScore (the mean of
   * their k most relevant nodes), leaving out those whose bound is below the `top` best communities
   * found (`pruned`). Same communities, but `checks` then leaves out the removal tests not run.
   * @default true
   */
  shortcut: boolean;
}

/** Defaults of {@link qPeel}. */
export const QPEEL_DEFAULTS: Omit<QPeelOptions, 'trussness'> = {
  top: 1,
  maxSweeps: Number.POSITIVE_INFINITY,
  maxNodes: Number.POSITIVE_INFINITY,
  keep: [],
  shortcut: true,
};

/** A community found by {@link qPeel}: a connected k-truss. */
export interface Community {
  k: number;
  /** Node indices, ascending. */
  nodes: Uint32Array;
  /** Node keys, aligned with `nodes`. */
  keys: string[];
  /** Edge ids (of the input graph), ascending. */
  edges: Uint32Array;
  /** QRScore of the community. */
  qrScore: number;
  /** QRScore of the k-truss component it was peeled from. */
  initialQrScore: number;
  /** Nodes of the component that peeling removed. */
  removed: number;
}

/** The result of {@link qPeel}. */
export interface QPeelResult {
  k: number;
  /** The best communities, highest QRScore first (ties: larger first); empty when the k-truss is. */
  communities: Community[];
  /** Connected components of the maximal k-truss. */
  components: number;
  /** Removal attempts that passed the relevance test and were checked for structure. */
  checks: number;
  /** Components settled by the shortcut (see `QPeelOptions.shortcut`), when any. */
  shortcuts?: number;
  /**
   * Components not searched because no community of theirs could be among the best (see
   * `QPeelOptions.shortcut`), when any.
   */
  pruned?: number;
}

/**
 * Q-Peel (DA-RAG §5.2, Algorithm 1), the heuristic for embedding-attributed community search (EACS):
 * extract the maximal k-truss; for each connected component, visit its nodes in ascending relevance
 * and remove a node when (1) that raises the component's QRScore (its relevance is below the current
 * mean) and (2) what remains is still a connected k-truss; repeat the sweep until it removes nothing.
 * Return the refined component with the highest QRScore (the best `top`).
 *
 * A removal of `v` only lowers the support of the edges `{a, b}` of triangles `{v, a, b}`, so the
 * k-truss test looks at `v`'s neighbourhood only (each such edge must keep support ≥ k − 2 inside the
 * community); connectivity holds at once when `v`'s remaining neighbours are connected among
 * themselves, and is otherwise checked by a search from one of them that stops when it has reached
 * them all. Worst case O(m^1.5) for the truss plus O(c · n_c² · m_N) for peeling (c components of at
 * most n_c nodes, m_N edges around a node; DA-RAG appendix A.5); in practice each sweep stops at the
 * first node whose relevance is not below the mean.
 *
 * @param relevance Relevance of every node to the query, e.g. {@link queryRelevance} of the node
 *   embeddings (an array aligned with node indices, or a function of key and index).
 * @throws InvalidArgumentError for `k` < 2, a relevance array of the wrong length or with a
 *   non-finite value, or a graph that is not simple and undirected.
 * @example
 * const relevance = queryRelevance(queryVector, nodeVectors);
 * const [best] = qPeel(graph, 4, relevance).communities;
 */
export function qPeel(
  input: TrussGraph | AbstractGraph,
  k: number,
  relevance: Relevance,
  options: Partial<QPeelOptions> = {},
): QPeelResult {
  assertK('qPeel', k);
  const { top, maxSweeps, maxNodes, keep, trussness, shortcut } = { ...QPEEL_DEFAULTS, ...options };
  checkTop(top, 'qPeel');
  checkMaxNodes(maxNodes, 'qPeel');
  const g = asTrussGraph(input);
  const rel = resolveRelevance(g, relevance, 'qPeel');
  const truss = maximalKTruss(g, k, trussness === undefined ? {} : { trussness });
  return peelTruss(prepareTruss(truss), rel, top, maxSweeps, maxNodes, keep, shortcut);
}

export function checkTop(top: number, caller: string): void {
  if (!(Number.isInteger(top) && top >= 1)) {
    throw new InvalidArgumentError(
      'options.top',
      `${caller}: top must be a positive integer, got ${String(top)}.`,
    );
  }
}

export function checkMaxNodes(maxNodes: number, caller: string): void {
  if (!(maxNodes === Number.POSITIVE_INFINITY || (Number.isInteger(maxNodes) && maxNodes >= 1))) {
    throw new InvalidArgumentError(
      'options.maxNodes',
      `${caller}: maxNodes must be a positive integer or Infinity, got ${String(maxNodes)}.`,
    );
  }
}

/**
 * The peeling phase of {@link qPeel} on a maximal k-truss already prepared by {@link prepareTruss}
 * (not modified, except that its `triangles` are made when absent: supports are copied).
 *
 * Removal tests and cascades read the prepared triangle lists; a failed test is skipped in later
 * sweeps while the reason it failed still holds. The decisions, and so the communities and `checks`,
 * are those of Q-Peel scanning rows (see the README's Algorithms).
 */
export function peelTruss(
  prepared: PreparedTruss,
  rel: Float64Array,
  top: number,
  maxSweeps: number,
  maxNodes: number = Number.POSITIVE_INFINITY,
  keep: readonly number[] = [],
  shortcut = true,
): QPeelResult {
  return peelPrepared(prepared, rel, top, maxSweeps, maxNodes, keep, undefined, shortcut);
}

/** Relevance as a Float64Array aligned with the node indices, validated. */
export function resolveRelevance(g: TrussGraph, relevance: Relevance, caller: string): Float64Array {
  let out: Float64Array;
  if (typeof relevance === 'function') {
    out = new Float64Array(g.n);
    for (let i = 0; i < g.n; i++) out[i] = relevance(g.nodeIds[i]!, i);
  } else {
    if (relevance.length !== g.n) {
      throw new InvalidArgumentError(
        'relevance',
        `${caller}: relevance has ${relevance.length} entries but the graph has ${g.n} nodes; pass one score per node (in node index order).`,
      );
    }
    out = Float64Array.from(relevance);
  }
  for (let i = 0; i < g.n; i++) {
    if (!Number.isFinite(out[i]!)) {
      throw new InvalidArgumentError(
        'relevance',
        `${caller}: the relevance of node "${g.nodeIds[i]}" is ${out[i]}; relevance must be a finite number.`,
      );
    }
  }
  return out;
}
