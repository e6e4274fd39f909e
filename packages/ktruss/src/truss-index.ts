import { InvalidArgumentError } from '@grag/core';
import type { AbstractGraph } from 'graphology-types';
import { componentLabels, componentQPeel } from './component-peel.js';
import {
  assertK,
  type KTruss,
  maximalKTruss,
  type TrussDecomposition,
  trussDecomposition,
} from './decomposition.js';
import { asTrussGraph, type TrussGraph } from './graph.js';
import { componentSize, type LocalSearchResult, localSearch } from './local-search.js';
import { peelPrepared } from './peel.js';
import { PeelMemo } from './peel-memo.js';
import { prepareTrussWithin } from './prepared.js';
import {
  checkMaxNodes,
  checkTop,
  type PreparedTruss,
  prepareTruss,
  QPEEL_DEFAULTS,
  type QPeelOptions,
  type QPeelResult,
  type Relevance,
  resolveRelevance,
} from './qpeel.js';
import { regionQPeel } from './region.js';
import type { EdgeTriangles } from './triangles.js';

/**
 * A search with query nodes whose k-truss components hold at most a `1 / SMALL_COMPONENTS` share of
 * the graph's nodes, before the k-truss was prepared, prepares those components only.
 */
const SMALL_COMPONENTS = 16;

/** Options of {@link TrussIndex.qPeel}: those of {@link qPeel}, and a search region. */
export interface TrussIndexQPeelOptions extends Omit<QPeelOptions, 'trussness'> {
  /**
   * Local search (grag's, not in DA-RAG): with query nodes (`keep`), peel only the region of this
   * many nodes around them, reached breadth first over edges of trussness ≥ k, more relevant nodes
   * first at each distance (see the README), instead of their whole k-truss component.
   * Faster on large components; the communities can differ from Q-Peel's on the whole component.
   * When the walk reaches fewer nodes than this (the region is then the whole component), the
   * component is searched as without a region. Without query nodes it has no effect.
   * @default Infinity (the whole component, DA-RAG §5.2)
   */
  region: number;
}

/** Options of {@link TrussIndex}: what is already known of the graph. */
export interface TrussIndexOptions {
  /** Its truss decomposition. @default computed (from `triangles` when given) */
  decomposition?: TrussDecomposition;
  /**
   * Its triangles ({@link edgeTriangles}; e.g. {@link inducedTriangles} of a subgraph from its
   * graph's): the decomposition peels on them, and each k-truss's triangles are filtered from them
   * instead of listed. @default listed per k-truss as it is first searched
   */
  triangles?: EdgeTriangles;
}

/**
 * A graph prepared for many attributed community searches (many queries, several k): the truss
 * decomposition is computed once, and each maximal k-truss with the supports and triangles inside it
 * is computed on first use and cached, so a {@link TrussIndex.qPeel} call only peels. The QRScore
 * phase of the last search at each k is kept too: a search with the same relevance and other query
 * vertices (several query vertices of one query, searched one at a time) starts from it when no
 * query vertex of either search was among the nodes that phase reached, which gives the same result.
 *
 * @example
 * const index = new TrussIndex(graph);
 * for (const query of queries) {
 *   const relevance = queryRelevance(await embed(query), nodeVectors);
 *   const [best] = index.qPeel(4, relevance).communities;
 * }
 */
export class TrussIndex {
  /** The graph searched. */
  readonly graph: TrussGraph;
  /** Its truss decomposition. */
  readonly decomposition: TrussDecomposition;
  readonly #trusses = new Map<number, PreparedTruss>();
  readonly #ktrusses = new Map<number, { truss: KTruss; componentOf?: Int32Array }>();
  readonly #memos = new Map<number, PeelMemo>();
  readonly #triangles: EdgeTriangles | undefined;

  /**
   * @param options What is known of the graph (a {@link TrussDecomposition} alone is taken as
   *   `{ decomposition }`).
   * @throws InvalidArgumentError for a graph that is not simple and undirected, or a decomposition
   *   or listing of another graph's edges.
   */
  constructor(input: TrussGraph | AbstractGraph, options: TrussIndexOptions | TrussDecomposition = {}) {
    this.graph = asTrussGraph(input);
    const { decomposition, triangles } = 'trussness' in options ? { decomposition: options } : options;
    for (const [name, length] of [
      ['decomposition', decomposition?.trussness.length],
      ['triangles', triangles && triangles.offsets.length - 1],
    ] as const) {
      if (length !== undefined && length !== this.graph.m) {
        throw new InvalidArgumentError(
          `options.${name}`,
          `TrussIndex: the ${name} covers ${length} edges but the graph has ${this.graph.m}; pass one made of this graph.`,
        );
      }
    }
    this.#triangles = triangles;
    this.decomposition = decomposition ?? trussDecomposition(this.graph, triangles ? { triangles } : {});
  }

  /** Largest trussness of any edge (0 without edges): the feasible k end at it. */
  get maxTrussness(): number {
    return this.decomposition.maxTrussness;
  }

  /** The maximal k-truss and its components (cached). */
  truss(k: number): KTruss {
    return this.#ktruss(k).truss;
  }

  #ktruss(k: number): { truss: KTruss; componentOf?: Int32Array } {
    assertK('TrussIndex.truss', k);
    let entry = this.#ktrusses.get(k);
    if (entry === undefined) {
      entry = { truss: maximalKTruss(this.graph, k, { trussness: this.decomposition.trussness }) };
      this.#ktrusses.set(k, entry);
    }
    return entry;
  }

  #prepared(k: number): PreparedTruss {
    let entry = this.#trusses.get(k);
    if (entry === undefined) {
      const truss = this.#ktruss(k).truss;
      // The triangles of a k-truss are those of a smaller k's truss (or of the graph) with every
      // edge in it.
      let lower: PreparedTruss | undefined;
      for (const [j, prepared] of this.#trusses) {
        if (j < k && prepared.triangles && j > (lower?.truss.k ?? 0)) lower = prepared;
      }
      const within = lower?.triangles ?? this.#triangles;
      entry = within ? prepareTrussWithin(within, truss) : prepareTruss(truss);
      this.#trusses.set(k, entry);
    }
    return entry;
  }

  /** {@link qPeel} on the indexed graph, reusing the cached k-truss. */
  qPeel(k: number, relevance: Relevance, options: Partial<TrussIndexQPeelOptions> = {}): QPeelResult {
    const caller = 'TrussIndex.qPeel';
    assertK(caller, k);
    const { top, maxSweeps, maxNodes, keep, shortcut, region } = {
      ...QPEEL_DEFAULTS,
      region: Infinity,
      ...options,
    };
    checkTop(top, caller);
    checkMaxNodes(maxNodes, caller);
    checkRegion(region, caller);
    const rel = resolveRelevance(this.graph, relevance, caller);
    if (region !== Number.POSITIVE_INFINITY && keep.length > 0) {
      for (const v of keep) checkNode(this.graph, v, caller, 'options.keep');
      const options = { top, maxSweeps, maxNodes, keep, shortcut };
      const local = regionQPeel(this.#prepared(k), this.decomposition.trussness, rel, region, options);
      if (local !== null) return local;
    }
    if (keep.length > 0 && !this.#trusses.has(k)) {
      // Query nodes in small components, the k-truss not prepared yet: prepare those components only.
      const entry = this.#ktruss(k);
      entry.componentOf ??= componentLabels(entry.truss);
      const options = { top, maxSweeps, maxNodes, keep, shortcut };
      const limit = Math.floor(this.graph.n / SMALL_COMPONENTS);
      const found = componentQPeel(
        entry.truss,
        entry.componentOf,
        this.decomposition.trussness,
        rel,
        options,
        limit,
      );
      if (found !== null) return found;
    }
    let memo = this.#memos.get(k);
    if (memo === undefined) {
      memo = new PeelMemo();
      this.#memos.set(k, memo);
    }
    return peelPrepared(this.#prepared(k), rel, top, maxSweeps, maxNodes, keep, memo, shortcut);
  }

  /**
   * Local size-bounded search (grag's, not in DA-RAG; see {@link localSearch}) around `query` at `k`:
   * the community Q-Peel's size bound ends at on its k-truss component without Q-Peel's QRScore
   * phase, with relevance ties broken by closeness to it, at a cost that does not grow with the
   * component.
   *
   * @throws InvalidArgumentError for `k` < 2, a query that is not a node index, a bound that is not
   *   a positive integer or Infinity, or a relevance of the wrong length or with a non-finite value.
   */
  localSearch(k: number, relevance: Relevance, query: number, maxNodes: number): LocalSearchResult {
    const caller = 'TrussIndex.localSearch';
    assertK(caller, k);
    checkMaxNodes(maxNodes, caller);
    checkNode(this.graph, query, caller, 'query');
    const rel = resolveRelevance(this.graph, relevance, caller);
    return localSearch(this.graph, this.decomposition.trussness, k, rel, query, maxNodes);
  }

  /**
   * Nodes of `node`'s component in the maximal k-truss (reached over edges of trussness ≥ k; 0 when
   * it has no such edge), counted up to `limit`: a larger component gives `limit + 1`, at the cost of
   * that many nodes' rows rather than the component's.
   *
   * @throws InvalidArgumentError for `k` < 2 or a node that is not a node index.
   */
  componentSize(k: number, node: number, limit = Number.POSITIVE_INFINITY): number {
    const caller = 'TrussIndex.componentSize';
    assertK(caller, k);
    checkNode(this.graph, node, caller, 'node');
    return componentSize(this.graph, this.decomposition.trussness, k, node, limit);
  }

  /** Drop the cached k-trusses and the kept QRScore phases. */
  clearCache(): void {
    this.#trusses.clear();
    this.#ktrusses.clear();
    this.#memos.clear();
  }
}

function checkRegion(region: number, caller: string): void {
  if (!(region === Number.POSITIVE_INFINITY || (Number.isInteger(region) && region >= 1))) {
    throw new InvalidArgumentError(
      'options.region',
      `${caller}: region must be a positive integer or Infinity, got ${String(region)}.`,
    );
  }
}

function checkNode(g: TrussGraph, v: number, caller: string, name: string): void {
  if (!(Number.isInteger(v) && v >= 0 && v < g.n)) {
    throw new InvalidArgumentError(
      name,
      `${caller}: query node ${String(v)} is not a node index of the graph (0 to ${g.n - 1}).`,
    );
  }
}
