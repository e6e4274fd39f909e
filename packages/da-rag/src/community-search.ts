/**
 * The community search of one layer (DA-RAG §5): EACS (Q-Peel over a spread of k values of the
 * feasible range) or 1-hop retrieval (the "w/o ACS" ablation), on a graph given with the query
 * relevance of its nodes. Pure functions over `@grag/ktruss` graphs.
 */
import { type Community, compareCommunities, type TrussGraph, type TrussIndex } from '@grag/ktruss';
import type { DaRagQueryOptions } from './options.js';
import { topByScore } from './relevance.js';
import type { Layer } from './types.js';
import { identityArray } from './util.js';

/** A community found on one layer, in global node indices of that layer. */
export interface FoundCommunity {
  /** `<layer>-k<k>[+<k>…]`, or `<layer>-1hop`. */
  id: string;
  layer: Layer;
  /** k values whose Q-Peel gave this community (empty for 1-hop retrieval). */
  ks: number[];
  /** Nodes, most relevant first. */
  nodes: number[];
  edges: [number, number][];
  /** Mean relevance of the nodes (DA-RAG Eq. 1). */
  qrScore: number;
  /** QRScore of the k-truss component it was peeled from (`null` for 1-hop retrieval). */
  initialQrScore: number | null;
}

/** What a layer's search did, in the trace. */
export interface LayerTrace {
  /** Nodes and edges of the graph searched (the whole layer, or the working subgraph). */
  nodes: number;
  edges: number;
  /** `[kMin, k_max]`, or `null` when the graph has no k-truss for k ≥ kMin (or ACS is off). */
  feasibleK: [number, number] | null;
  /** k values tried. */
  kValues: number[];
  candidates: number;
}

/** A graph to search: the whole layer or a working subgraph of it. */
export interface LayerSearch {
  graph: TrussGraph;
  /** Global node index (in the layer) of each node of `graph`. */
  global: ArrayLike<number>;
  /** Query relevance of each node of `graph`. */
  relevance: Float64Array;
  /** The truss index of `graph` (made on first call, by the caller's choice cached). */
  truss: () => TrussIndex;
  /**
   * Query vertices of this search (local node indices), instead of the `querySeeds` most relevant
   * nodes.
   */
  seeds?: readonly number[];
}

/** The result of one layer's search. */
export interface LayerFound {
  communities: FoundCommunity[];
  trace: LayerTrace;
}

/** The k values tried over the feasible range `[lo, hi]`: `count` of them, spread, both ends included. */
export function spreadK(lo: number, hi: number, count: number, spacing: 'geometric' | 'linear'): number[] {
  if (hi < lo) return [];
  if (hi - lo + 1 <= count) return Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);
  if (count === 1) return [lo];
  const out = new Set<number>();
  for (let i = 0; i < count; i++) {
    const t = i / (count - 1);
    out.add(spacing === 'linear' ? Math.round(lo + t * (hi - lo)) : Math.round(lo * (hi / lo) ** t));
  }
  return [...out].sort((a, b) => a - b);
}

/** `nodes` by descending relevance, ties by ascending index. */
export function byRelevance(nodes: Iterable<number>, rel: ArrayLike<number>): number[] {
  return [...nodes].sort((a, b) => rel[b]! - rel[a]! || a - b);
}

/** The query options EACS reads. */
export type EacsOptions = Pick<
  DaRagQueryOptions,
  | 'kMin'
  | 'kMax'
  | 'candidatesPerLayer'
  | 'kSpacing'
  | 'querySeeds'
  | 'maxCommunityNodes'
  | 'searchRegion'
  | 'communitySearch'
  | 'localExactUpTo'
>;

/**
 * EACS on one graph: Q-Peel at each k of the spread feasible range `[kMin, min(kMax, k_max)]`,
 * around the query vertices (`search.seeds`, or the `querySeeds` most relevant nodes with a positive
 * relevance), each community bounded by `maxCommunityNodes` and, with query vertices, searched
 * within their `searchRegion`, or with `communitySearch: 'local'` by the local size-bounded search
 * around each of them (Q-Peel on a component of at most `localExactUpTo` nodes); a community found
 * at several k is one candidate.
 */
export function eacs(layer: Layer, search: LayerSearch, q: EacsOptions): LayerFound {
  const trace: LayerTrace = {
    nodes: search.graph.n,
    edges: search.graph.m,
    feasibleK: null,
    kValues: [],
    candidates: 0,
  };
  if (search.graph.m === 0) return { communities: [], trace };
  const index = search.truss();
  if (index.maxTrussness < q.kMin) return { communities: [], trace };
  const hi = q.kMax === null ? index.maxTrussness : Math.min(q.kMax, index.maxTrussness);
  trace.feasibleK = [q.kMin, index.maxTrussness];
  trace.kValues = spreadK(q.kMin, hi, q.candidatesPerLayer, q.kSpacing);
  // Query vertices: the most relevant nodes of the searched graph (none: any component, as in §5.2).
  const seeds =
    search.seeds ??
    (q.querySeeds > 0
      ? topByScore(search.relevance, q.querySeeds).filter((v) => search.relevance[v]! > 0)
      : []);
  const byNodes = new Map<string, FoundCommunity>();
  const found: FoundCommunity[] = [];
  for (const k of trace.kValues) {
    const maxNodes = q.maxCommunityNodes ?? Number.POSITIVE_INFINITY;
    const community =
      q.communitySearch === 'local' && seeds.length > 0
        ? localBest(index, k, search.relevance, seeds, maxNodes, q.localExactUpTo)
        : index.qPeel(k, search.relevance, {
            maxNodes,
            keep: seeds,
            region: q.searchRegion ?? Number.POSITIVE_INFINITY,
          }).communities[0];
    if (community === undefined) continue;
    const key = Array.from(community.nodes).join(',');
    const seen = byNodes.get(key);
    if (seen) {
      seen.ks.push(k);
      continue;
    }
    const g = index.graph;
    const c: FoundCommunity = {
      id: '',
      layer,
      ks: [k],
      nodes: byRelevance(community.nodes, search.relevance).map((v) => search.global[v]!),
      edges: Array.from(community.edges, (e) => [
        search.global[g.sources[e]!]!,
        search.global[g.targets[e]!]!,
      ]),
      qrScore: community.qrScore,
      initialQrScore: community.initialQrScore,
    };
    byNodes.set(key, c);
    found.push(c);
  }
  const communities = found.map((c) => ({ ...c, id: `${layer}-k${c.ks.join('+')}` }));
  trace.candidates = communities.length;
  return { communities, trace };
}

/**
 * The local search's community around each query vertex (Q-Peel's around it when its component has
 * at most `exactUpTo` nodes), the best of them in the order Q-Peel ranks the communities of several
 * components (`compareCommunities`: highest QRScore, then larger, then lower first node).
 */
function localBest(
  index: TrussIndex,
  k: number,
  relevance: Float64Array,
  seeds: readonly number[],
  maxNodes: number,
  exactUpTo: number,
): Community | undefined {
  let best: Community | undefined;
  for (const seed of seeds) {
    const c =
      index.componentSize(k, seed, exactUpTo) <= exactUpTo
        ? index.qPeel(k, relevance, { maxNodes, keep: [seed] }).communities[0]
        : index.localSearch(k, relevance, seed, maxNodes).community;
    if (c && (best === undefined || compareCommunities(c, best) < 0)) best = c;
  }
  return best;
}

/**
 * 1-hop retrieval on one graph (the "w/o ACS" ablation): the `seeds` most relevant nodes, their
 * neighbours, and the edges at the seeds, as one community.
 */
export function oneHop(layer: Layer, search: LayerSearch, seeds: number): LayerFound {
  const { graph, relevance: rel } = search;
  const trace: LayerTrace = { nodes: graph.n, edges: graph.m, feasibleK: null, kValues: [], candidates: 0 };
  if (graph.n === 0) return { communities: [], trace };
  const top = byRelevance(identityArray(graph.n), rel).slice(0, seeds);
  const isSeed = new Set(top);
  const nodes = new Set(top);
  const edges: [number, number][] = [];
  for (const s of top) {
    for (let p = graph.offsets[s]!; p < graph.offsets[s + 1]!; p++) {
      const w = graph.neighbors[p]!;
      nodes.add(w);
      if (!isSeed.has(w) || s < w) edges.push([search.global[s]!, search.global[w]!]);
    }
  }
  const local = byRelevance(nodes, rel);
  const relevance = local.map((v) => rel[v]!);
  trace.candidates = 1;
  const community: FoundCommunity = {
    id: `${layer}-1hop`,
    layer,
    ks: [],
    nodes: local.map((v) => search.global[v]!),
    edges,
    qrScore: relevance.reduce((a, b) => a + b, 0) / relevance.length,
    initialQrScore: null,
  };
  return { communities: [community], trace };
}
