import { InvalidArgumentError, type VectorIndex } from '@grag/core';
import {
  assertPprOptions,
  type Csr,
  PPR_DEFAULTS,
  type PprTransition,
  type PprUpdate,
  personalizedPageRankCsr,
  pprTransition,
} from '@grag/core/graph';
import {
  type CrossNodeLimits,
  type CrossNodeSelection,
  selectCrossNodes,
  type TypeCodes,
} from './cross-nodes.js';
import type { HeteroGraph } from './graph.js';
import { NameIndex } from './names.js';
import { ALL_NODE_TYPES, EXACT_ENTRY_TYPES, type NodeType, RETRIEVABLE_TYPES } from './types.js';

/** How PPR and edges are set up for {@link HeteroSearch}. */
export interface HeteroSearchOptions {
  /** Teleport α. @default 0.5 (NodeRAG §2.5) */
  teleport: number;
  /** PPR iterations t. @default 2 (NodeRAG §2.5) */
  iterations: number;
  /** PPR update rule (`'lazy'`: the official code's). @default 'paper' */
  update: PprUpdate;
  /** Use HNSW semantic edges (the "w/o HNSW" ablation sets false). @default true */
  semanticEdges: boolean;
  /**
   * Edge weights for the walk. `'paper'`: as built (1 per edge, +1 for an HNSW edge on a structural
   * one). `'unbalance-adjust'`: the official code's `unbalance_adjust`, which caps each edge at
   * 1/deg of both ends, i.e. w' = min(w, 1/max(deg u, deg v)). @default 'paper'
   */
  edgeWeighting: 'paper' | 'unbalance-adjust';
  /**
   * How cross nodes are chosen from the ranking: `'paper'`, the top `limits.cross` of each type
   * (NodeRAG §2.5); `'official'`, the official code's buckets (see {@link CrossNodeSelection}).
   * @default 'paper' (NodeRAG §2.5)
   */
  crossNodeSelection: CrossNodeSelection;
  /** How many cross nodes each selection keeps. */
  limits: CrossNodeLimits;
}

/** Defaults of {@link HeteroSearch.search}. */
export const HETERO_SEARCH_DEFAULTS: HeteroSearchOptions = {
  teleport: PPR_DEFAULTS.teleport,
  iterations: PPR_DEFAULTS.iterations,
  update: PPR_DEFAULTS.update,
  semanticEdges: true,
  edgeWeighting: 'paper',
  crossNodeSelection: 'paper',
  limits: { entities: 10, relationships: 30, overviews: 10, cross: 10 },
};

/** Why a node is in a search result. */
export type RetrievalReason = 'entry' | 'cross' | 'attribute' | 'high-level' | 'relationship';

/** A retrievable node chosen by {@link HeteroSearch.search}. */
export interface RetrievedNode {
  key: string;
  type: NodeType;
  /** Its PPR score. */
  score: number;
  reason: RetrievalReason;
}

/** What {@link HeteroSearch.search} returns. */
export interface HeteroSearchResult {
  /** Entry nodes: exact matches (N, O) and vector hits, as given. */
  entries: { exact: string[]; vector: string[] };
  /** Retrievable nodes only (never N or O), in selection order. */
  nodes: RetrievedNode[];
  /**
   * Entities and overviews picked from the ranking (never returned as content; with `'official'`
   * selection they bring their attributes and high-level elements).
   */
  picked: { entities: string[]; overviews: string[] };
  /** PPR score of every node, by CSR index (see {@link HeteroSearch.csr} for the node order). */
  ppr: Float64Array;
  /** PPR score of a node (0 for a node the walk did not reach or an unknown key). */
  scoreOf(key: string): number;
}

/**
 * Graph search on a heterograph (NodeRAG §2.5): personalized PageRank from the entry nodes on a
 * typed-array CSR, then the cross nodes of the ranking, by `crossNodeSelection`: the top k of each
 * type (`'paper'`), or the official code's buckets (`'official'`: the top entities, relationships and
 * overviews and the top other retrievable nodes; entities bring their attributes and overviews their
 * high-level element). Only retrievable types are returned.
 *
 * Build it once per graph; the CSRs are cached per edge setting.
 *
 * @example
 * const search = new HeteroSearch(hetero);
 * const exact = search.exactMatch(['Hinton']);
 * const result = search.search({ exact, vector: vectorHits });
 */
export class HeteroSearch {
  readonly hetero: HeteroGraph;
  readonly #csrs = new Map<string, Csr>();
  readonly #transitions = new WeakMap<Csr, PprTransition>();
  #types: Uint8Array | undefined;
  #names: NameIndex | undefined;
  readonly #typeCodes = new Map(ALL_NODE_TYPES.map((t, i) => [t, i]));
  readonly #codes: TypeCodes = {
    N: ALL_NODE_TYPES.indexOf('N'),
    R: ALL_NODE_TYPES.indexOf('R'),
    O: ALL_NODE_TYPES.indexOf('O'),
    retrievable: Uint8Array.from(ALL_NODE_TYPES, (t) => (RETRIEVABLE_TYPES.includes(t) ? 1 : 0)),
  };

  constructor(hetero: HeteroGraph) {
    this.hetero = hetero;
  }

  /** The CSR the walk runs on for an edge setting (cached). */
  csr(options: Pick<HeteroSearchOptions, 'semanticEdges' | 'edgeWeighting'> = HETERO_SEARCH_DEFAULTS): Csr {
    const key = `${options.semanticEdges}:${options.edgeWeighting}`;
    let csr = this.#csrs.get(key);
    if (!csr) {
      csr = this.hetero.csr(options.semanticEdges ? 'weight' : 'baseWeight');
      if (options.edgeWeighting === 'unbalance-adjust') unbalanceAdjust(csr);
      this.#csrs.set(key, csr);
    }
    return csr;
  }

  /** The walk's transition on the CSR of an edge setting (made once per CSR). */
  #transition(csr: Csr): PprTransition {
    let transition = this.#transitions.get(csr);
    if (!transition) {
      transition = pprTransition(csr);
      this.#transitions.set(csr, transition);
    }
    return transition;
  }

  /** Type code of every CSR index (positions in {@link ALL_NODE_TYPES}). */
  #typeArray(csr: Csr): Uint8Array {
    if (!this.#types || this.#types.length !== csr.nodeIds.length) {
      const types = new Uint8Array(csr.nodeIds.length);
      csr.nodeIds.forEach((id, i) => {
        types[i] = this.#typeCodes.get(this.hetero.typeOf(id)!)!;
      });
      this.#types = types;
    }
    return this.#types;
  }

  /** Exact matching of query entities against the names of N and O nodes; keys without duplicates. */
  exactMatch(entities: readonly string[]): string[] {
    if (!this.#names) {
      const names = new NameIndex();
      for (const key of this.hetero.nodes()) {
        if (EXACT_ENTRY_TYPES.includes(this.hetero.typeOf(key)!)) names.add(key, this.hetero.textOf(key)!);
      }
      this.#names = names;
    }
    const out = new Set<string>();
    for (const entity of entities) for (const key of this.#names.match(entity)) out.add(key);
    return [...out];
  }

  /**
   * Search from entry nodes: `exact` (N and O matches) and `vector` (nodes from vector similarity).
   * Every entry weighs the same in the personalization vector (1/|entries|, NodeRAG §2.5), unless
   * `weights` gives an entry its own (non-negative) weight; the vector is normalized to sum 1.
   *
   * @throws InvalidArgumentError when an entry is not a node of the graph.
   */
  search(
    entries: {
      exact: readonly string[];
      vector: readonly string[];
      /** Personalization weight of an entry (others weigh 1). @default every entry 1 */
      weights?: ReadonlyMap<string, number>;
    },
    options: Partial<Omit<HeteroSearchOptions, 'limits'>> & { limits?: Partial<CrossNodeLimits> } = {},
  ): HeteroSearchResult {
    const o = {
      ...HETERO_SEARCH_DEFAULTS,
      ...options,
      limits: { ...HETERO_SEARCH_DEFAULTS.limits, ...options.limits },
    };
    const csr = this.csr(o);
    const types = this.#typeArray(csr);
    const n = csr.nodeIds.length;
    const ppr = new Float64Array(n);
    const result: HeteroSearchResult = {
      entries: { exact: [...entries.exact], vector: [...entries.vector] },
      nodes: [],
      picked: { entities: [], overviews: [] },
      ppr,
      scoreOf: (key) => {
        const i = csr.index.get(key);
        return i === undefined ? 0 : ppr[i]!;
      },
    };
    const seeds = new Set([...entries.exact, ...entries.vector]);
    if (seeds.size === 0 || n === 0) return result;
    const p = new Float64Array(n);
    for (const key of seeds) {
      const i = csr.index.get(key);
      if (i === undefined) {
        throw new InvalidArgumentError(
          'entries',
          `HeteroSearch.search: entry "${key}" is not a node of the graph.`,
        );
      }
      const weight = entries.weights?.get(key) ?? 1;
      if (!(weight >= 0) || !Number.isFinite(weight)) {
        throw new InvalidArgumentError(
          'entries',
          `HeteroSearch.search: entry "${key}" has weight ${weight}; weights must be finite and non-negative.`,
        );
      }
      p[i] = weight;
    }
    if (!p.some((w) => w > 0)) return result;
    assertPprOptions(o);
    // The walk touches only the nodes it reaches (core's active-set mode: the same scores).
    ppr.set(
      personalizedPageRankCsr(csr, p, {
        teleport: o.teleport,
        iterations: o.iterations,
        update: o.update,
        activeSet: true,
        transition: this.#transition(csr),
      }),
    );

    const chosen = new Set<string>();
    const add = (key: string, reason: RetrievalReason) => {
      if (chosen.has(key)) return;
      const type = this.hetero.typeOf(key)!;
      if (!RETRIEVABLE_TYPES.includes(type)) return;
      chosen.add(key);
      result.nodes.push({ key, type, score: ppr[csr.index.get(key)!]!, reason });
    };
    // Vector entries are retrieved as they are (N and O entries only seed the walk).
    for (const key of entries.vector) add(key, 'entry');
    const picks = selectCrossNodes({
      selection: o.crossNodeSelection,
      ppr,
      types,
      codes: this.#codes,
      vector: new Set(entries.vector.map((key) => csr.index.get(key)!)),
      limits: o.limits,
    });
    for (const i of picks.cross) add(csr.nodeIds[i]!, 'cross');
    result.picked.entities = picks.entities.map((i) => csr.nodeIds[i]!);
    result.picked.overviews = picks.overviews.map((i) => csr.nodeIds[i]!);
    if (o.crossNodeSelection === 'official') {
      for (const entity of result.picked.entities) {
        for (const attribute of this.hetero.neighbors(entity, 'A')) add(attribute, 'attribute');
      }
      for (const overview of result.picked.overviews) {
        for (const high of this.hetero.neighbors(overview, 'H')) add(high, 'high-level');
      }
      for (const i of picks.relationships) add(csr.nodeIds[i]!, 'relationship');
    }
    return result;
  }
}

/** The official code's `unbalance_adjust`: each edge weight becomes min(w, 1/deg u, 1/deg v). */
function unbalanceAdjust(csr: Csr): void {
  const n = csr.nodeIds.length;
  const degree = new Uint32Array(n);
  for (let v = 0; v < n; v++) degree[v] = csr.offsets[v + 1]! - csr.offsets[v]!;
  csr.outWeight.fill(0);
  for (let v = 0; v < n; v++) {
    for (let e = csr.offsets[v]!; e < csr.offsets[v + 1]!; e++) {
      const u = csr.targets[e]!;
      const cap = 1 / Math.max(degree[v]!, degree[u]!, 1);
      if (csr.weights[e]! > cap) csr.weights[e] = cap;
      csr.outWeight[v]! += csr.weights[e]!;
    }
  }
}

/**
 * Vector entry points: the `k` nearest embedded nodes to `query` in `index`, whose integer ids map to
 * node keys through `keys` (id i ↔ keys[i]). NodeRAG §2.5's similarity ranking R(q, v, k).
 *
 * @throws InvalidArgumentError when the index returns an id outside `keys`.
 */
export function vectorEntries(
  index: VectorIndex,
  keys: readonly string[],
  query: ArrayLike<number>,
  k = 10,
): { key: string; score: number }[] {
  return index.search(query, k).map(({ id, score }) => {
    const key = keys[id];
    if (key === undefined) {
      throw new InvalidArgumentError('keys', `vectorEntries: the index returned id ${id}, which has no key.`);
    }
    return { key, score };
  });
}

/**
 * Lay HNSW semantic edges (NodeRAG §2.4, G5 = G4 ∪ L0): each unordered pair of the neighbour lists
 * becomes an edge of weight 1, or adds 1 to an existing edge (once per pair, however often it is
 * listed). Pairs whose ends are not nodes of the graph are counted and skipped.
 *
 * @param lists node key → neighbour keys (e.g. the level-0 links of an HNSW index).
 */
export function addSemanticEdges(
  hetero: HeteroGraph,
  lists: Iterable<readonly [string, Iterable<string>]>,
): { added: number; reinforced: number; skipped: number } {
  const counts = { added: 0, reinforced: 0, skipped: 0 };
  for (const [key, neighbors] of lists) {
    for (const other of neighbors) {
      if (other === key) continue;
      if (!hetero.hasNode(key) || !hetero.hasNode(other)) {
        counts.skipped++;
        continue;
      }
      const outcome = hetero.addSemanticEdge(key, other);
      if (outcome === 'added') counts.added++;
      else if (outcome === 'reinforced') counts.reinforced++;
    }
  }
  return counts;
}
