/**
 * E2GraphRAG's adaptive retrieval (§3.2, appendix A Algorithm 1) on plain data: query entities in,
 * selected chunks (local mode) or tree nodes (global mode) out, with every branch taken recorded.
 */
import { InvalidArgumentError } from '@grag/core';
import type { EntityGraph } from '@grag/core/graph';
import { type OptionRule, opt, resolveOptions, validateOptions } from '@grag/core/kit';
import { type CollapsedTreeHit, type SummaryTree, subtreeWeights } from '@grag/summary-tree';
import { entityAwareRank, groupEvidence } from './evidence.js';

/** Retrieval parameters and the ablation switches of the paper's Table 2. */
export interface AdaptiveRetrievalOptions {
  /**
   * Most chunks (or tree nodes) returned, k. @default 25 (official code `max_chunk_setting: 25`; the
   * `offline` preset: 100, which fills the 12k budget, measured)
   */
  topK: number;
  /**
   * Largest hop distance h between two query entities kept by the graph filter (Eq. 1); decreased
   * by Algorithm 1 while index mapping returns too many chunks.
   * @default 4 (E2GraphRAG Appendix C: "we choose a relatively large value 4")
   */
  hops: number;
  /** While index mapping returns more chunks than this, h is decreased. @default 25 (Algorithm 1, line 11) */
  chunkThreshold: number;
  /**
   * Entity-aware ranking also prefers chunks in longer runs of adjacent candidate chunks (between
   * entity coverage and occurrences), as the official code does. @default false (the paper ranks by
   * coverage, then occurrences)
   */
  preferAdjacentRuns: boolean;
  /** Ablation "Dense Retrieval Only": always dense top-k over the collapsed tree. @default false */
  denseOnly: boolean;
  /** `false`: ablation "w/o Graph Filter": every pair of query entities is kept, h is never reduced. @default true */
  graphFilter: boolean;
  /** `false`: ablation "w/o Entity-Aware Ranking": too many chunks are cut to the first k in document order. @default true */
  entityAwareRanking: boolean;
  /**
   * `false`: ablation "w/o Dense Retrieval": global mode ranks every tree node with a non-zero
   * occurrence weight instead of the dense top-2k; a query without entities gets nothing. @default true
   */
  denseRetrieval: boolean;
  /** `false`: ablation "w/o Occurrence Ranking": global mode keeps the dense order. @default true */
  occurrenceRanking: boolean;
}

/** Defaults of {@link adaptiveRetrieve}. */
export const ADAPTIVE_RETRIEVAL_DEFAULTS: Readonly<AdaptiveRetrievalOptions> = {
  topK: 25,
  hops: 4,
  chunkThreshold: 25,
  preferAdjacentRuns: false,
  denseOnly: false,
  graphFilter: true,
  entityAwareRanking: true,
  denseRetrieval: true,
  occurrenceRanking: true,
};

/** What a valid value of each option of {@link adaptiveRetrieve} is. */
export const ADAPTIVE_RETRIEVAL_RULES: { readonly [K in keyof AdaptiveRetrievalOptions]-?: OptionRule } = {
  topK: opt.positiveInt,
  hops: opt.nonNegativeInt,
  chunkThreshold: opt.positiveInt,
  preferAdjacentRuns: opt.boolean,
  denseOnly: opt.boolean,
  graphFilter: opt.boolean,
  entityAwareRanking: opt.boolean,
  denseRetrieval: opt.boolean,
  occurrenceRanking: opt.boolean,
};

/** Which branch of Algorithm 1 produced the result. */
export type RetrievalBranch =
  /** Ablation: dense retrieval only. */
  | 'dense-only'
  /** No query entity in the graph: dense top-k over the tree (lines 2-3). */
  | 'no-entity'
  /** No pair within h hops (one entity, or unrelated ones): dense top-2k + occurrence ranking (lines 6-8). */
  | 'no-pair'
  /** Pairs kept but no chunk holds both entities of any of them: as `no-pair` (the official code does this; Algorithm 1 leaves it open). */
  | 'no-shared-chunk'
  /** Index mapping, with h reduced while there were too many chunks (lines 10-16, 20). */
  | 'local'
  /** Index mapping reduced to nothing or left too many chunks: the last non-empty set, entity-aware ranked (line 18). */
  | 'local-ranked';

/** One step of the index-mapping loop: h, pairs kept, chunks reached. */
export interface MappingStep {
  hops: number;
  pairs: number;
  chunks: number;
}

/** What {@link adaptiveRetrieve} did, for the `trace` of a retrieval. */
export interface AdaptiveRetrievalTrace {
  mode: 'local' | 'global';
  branch: RetrievalBranch;
  /** Distinct entities the extractor found in the query. */
  queryEntities: string[];
  /** Those that are graph vertices (the others are dropped as extraction noise, §3.2). */
  entities: string[];
  dropped: string[];
  /** Every pair of query entities with its hop distance (`null`: more than h hops or no path). */
  pairs: { a: string; b: string; hops: number | null }[];
  /** h at the start. */
  hops: number;
  /** h of the pair set the chunks come from (local mode). */
  hopsUsed?: number;
  /** Entity pairs the chunks come from (local mode). */
  keptPairs?: [string, string][];
  /** Index-mapping steps, one per h tried. */
  steps: MappingStep[];
  /** Why a fallback ran: `'single-entity'`, `'unrelated-pairs'`, `'no-shared-chunk'`, `'reduced-to-empty'`, `'over-k'`, `'graph-filter-off'`, `'no-occurrence'`, `'dense-disabled'`. */
  fallbacks: string[];
  /** Candidates ranked in the last step (dense hits, or chunks). */
  candidates: number;
  /** Items selected before packing. */
  selected: number;
}

/** Chunks of one evidence group: the query entities that reached them and their leaf indexes, in document order. */
export interface EvidenceGroup {
  /** Entity keys, in query order. */
  entities: string[];
  /** Leaf (node) indexes of the chunks, ascending. */
  leaves: number[];
}

/** Result of {@link adaptiveRetrieve}. */
export interface AdaptiveRetrievalResult {
  /** Local mode: evidence groups, ordered by entity coverage then by first chunk. */
  groups: EvidenceGroup[];
  /** Global mode: tree nodes, best first, with their score (similarity or occurrence weight). */
  nodes: { node: number; score: number }[];
  /**
   * Local mode: the selected chunks (leaf indexes) in relevance order (entity coverage, then
   * occurrences, then document order); empty in global mode.
   */
  ranked: number[];
  trace: AdaptiveRetrievalTrace;
}

/** What adaptive retrieval reads: the summary tree (leaves = chunks) and the entity graph over the same chunks. */
export interface AdaptiveRetrievalIndex {
  tree: SummaryTree;
  graph: EntityGraph;
}

/** Dense top-`k` over the collapsed tree, computed only when a branch needs it. */
export type DenseSearch = (k: number) => Promise<CollapsedTreeHit[]>;

/**
 * Algorithm 1 of E2GraphRAG. `queryEntities` come from the same extractor as the index; those that
 * are not graph vertices are dropped.
 *
 * 1. No entity left → global: dense top-k over the collapsed tree.
 * 2. Graph filter: keep pairs within `hops` hops (Eq. 1; bounded search).
 * 3. No pair kept → global: dense top-2k, ranked by the occurrence weight of the query entities
 *    (a summary weighs the sum of its children), non-zero ones, top k.
 * 4. Otherwise local: index mapping (chunks holding both entities of a kept pair, Eq. 2); while
 *    more than `chunkThreshold` chunks, decrease h and map again; if that empties the set, go back
 *    to the last non-empty one and rank it (entity coverage, then occurrences), top k.
 * 5. Chunks are grouped by the entities that reached them.
 */
export async function adaptiveRetrieve(
  index: AdaptiveRetrievalIndex,
  queryEntities: readonly string[],
  dense: DenseSearch,
  options: Partial<AdaptiveRetrievalOptions> = {},
): Promise<AdaptiveRetrievalResult> {
  const o = resolveOptions(ADAPTIVE_RETRIEVAL_DEFAULTS, options);
  validateOptions('adaptiveRetrieve', o, ADAPTIVE_RETRIEVAL_RULES);
  const { tree, graph } = index;
  const leafCount = tree.levels[0]!.length;
  if (graph.chunkCount !== leafCount) {
    throw new InvalidArgumentError(
      'index',
      `adaptiveRetrieve: the entity graph indexes ${graph.chunkCount} chunks but the tree has ${leafCount} leaves; build both from the same chunks.`,
    );
  }
  const distinct = [...new Set(queryEntities)];
  const ids: number[] = [];
  const entities: string[] = [];
  const dropped: string[] = [];
  for (const e of distinct) {
    const id = graph.id(e);
    if (id === undefined) dropped.push(e);
    else {
      ids.push(id);
      entities.push(e);
    }
  }
  const trace: AdaptiveRetrievalTrace = {
    mode: 'global',
    branch: 'no-entity',
    queryEntities: distinct,
    entities,
    dropped,
    pairs: [],
    hops: o.hops,
    steps: [],
    fallbacks: [],
    candidates: 0,
    selected: 0,
  };
  const done = (
    groups: EvidenceGroup[],
    nodes: { node: number; score: number }[],
    ranked: number[] = [],
  ): AdaptiveRetrievalResult => {
    trace.selected = groups.length > 0 ? groups.reduce((n, g) => n + g.leaves.length, 0) : nodes.length;
    return { groups, nodes, ranked, trace };
  };
  const denseTop = async (k: number) => {
    const hits = await dense(k);
    trace.candidates = hits.length;
    return hits.map((h) => ({ node: h.node, score: h.score }));
  };

  if (o.denseOnly) {
    trace.branch = 'dense-only';
    return done([], await denseTop(o.topK));
  }
  if (ids.length === 0) {
    trace.branch = 'no-entity';
    if (!o.denseRetrieval) {
      trace.fallbacks.push('dense-disabled');
      return done([], []);
    }
    return done([], await denseTop(o.topK));
  }

  // Graph filter: distances once, bounded by h; smaller h only filters them further.
  const pairs = entityPairs(graph, ids, o);
  trace.pairs = pairs.map((p) => ({
    a: entities[p.a]!,
    b: entities[p.b]!,
    hops: o.graphFilter && Number.isFinite(p.hops) ? p.hops : null,
  }));
  const h = o.hops;
  const current = pairs.filter((p) => p.hops <= h);
  const reached = chunksOfPairs(graph, ids, current);
  trace.steps.push({ hops: h, pairs: current.length, chunks: reached.size });
  if (current.length === 0 || reached.size === 0) {
    if (current.length === 0) {
      trace.branch = 'no-pair';
      trace.fallbacks.push(ids.length === 1 ? 'single-entity' : 'unrelated-pairs');
    } else {
      trace.branch = 'no-shared-chunk';
      trace.fallbacks.push('no-shared-chunk');
    }
    const occurrence = await occurrenceRanked({ index, ids, options: o, dense: denseTop });
    if (occurrence.candidates !== undefined) trace.candidates = occurrence.candidates;
    if (occurrence.fallback) trace.fallbacks.push(occurrence.fallback);
    return done([], occurrence.nodes);
  }

  return localRetrieval(index, o, trace, { ids, entities, pairs, current, reached, done });
}

/** A pair of query entities (positions in the kept entities) and their distance in hops. */
type Pair = { a: number; b: number; hops: number };

/** Every pair of query vertices with its distance, searched up to `hops` (0 without the graph filter). */
function entityPairs(
  graph: AdaptiveRetrievalIndex['graph'],
  ids: readonly number[],
  o: AdaptiveRetrievalOptions,
): Pair[] {
  const pairs: Pair[] = [];
  for (let i = 0; i < ids.length; i++) {
    for (let j = i + 1; j < ids.length; j++) {
      const hops = o.graphFilter ? graph.distance(ids[i]!, ids[j]!, o.hops) : 0;
      pairs.push({ a: i, b: j, hops });
    }
  }
  return pairs;
}

/** Index mapping (Eq. 2): chunk → positions (in the kept entities) of the entities whose pairs reached it. */
function chunksOfPairs(
  graph: AdaptiveRetrievalIndex['graph'],
  ids: readonly number[],
  ps: readonly Pair[],
): Map<number, Set<number>> {
  const reached = new Map<number, Set<number>>();
  for (const p of ps) {
    for (const c of graph.sharedChunks(ids[p.a]!, ids[p.b]!)) {
      let set = reached.get(c);
      if (!set) {
        set = new Set();
        reached.set(c, set);
      }
      set.add(p.a);
      set.add(p.b);
    }
  }
  return reached;
}

/**
 * The local branch (step 4): while more than `chunkThreshold` chunks, decrease h and map again; back
 * to the last non-empty mapping when that empties it; more than k chunks (or such a fallback) are
 * ranked by entity coverage, then occurrences.
 */
function localRetrieval(
  index: AdaptiveRetrievalIndex,
  o: AdaptiveRetrievalOptions,
  trace: AdaptiveRetrievalTrace,
  found: {
    ids: readonly number[];
    entities: readonly string[];
    pairs: readonly Pair[];
    current: Pair[];
    reached: Map<number, Set<number>>;
    done: (
      groups: EvidenceGroup[],
      nodes: { node: number; score: number }[],
      ranked?: number[],
    ) => AdaptiveRetrievalResult;
  },
): AdaptiveRetrievalResult {
  const { graph } = index;
  const { ids, entities, pairs, done } = found;
  trace.mode = 'local';
  trace.branch = 'local';
  let h = o.hops;
  let { current, reached } = found;
  let previous: { pairs: Pair[]; reached: Map<number, Set<number>>; hops: number } | undefined;
  while (reached.size > o.chunkThreshold) {
    if (!o.graphFilter) {
      trace.fallbacks.push('graph-filter-off');
      break;
    }
    previous = { pairs: current, reached, hops: h };
    h -= 1;
    current = pairs.filter((p) => p.hops <= h);
    reached = chunksOfPairs(graph, ids, current);
    trace.steps.push({ hops: h, pairs: current.length, chunks: reached.size });
  }
  if (reached.size === 0 && previous) {
    trace.fallbacks.push('reduced-to-empty');
    ({ pairs: current, reached, hops: h } = previous);
  }
  trace.hopsUsed = h;
  trace.keptPairs = current.map((p) => [entities[p.a]!, entities[p.b]!]);
  let chosen = [...reached.keys()].sort((x, y) => x - y);
  if (chosen.length > o.topK || trace.fallbacks.includes('reduced-to-empty')) {
    if (chosen.length > o.topK && !trace.fallbacks.includes('reduced-to-empty') && o.graphFilter) {
      trace.fallbacks.push('over-k');
    }
    trace.branch = 'local-ranked';
    trace.candidates = chosen.length;
    chosen = o.entityAwareRanking
      ? entityAwareRank(index, chosen, ids, o.preferAdjacentRuns).slice(0, o.topK)
      : chosen.slice(0, o.topK);
  } else {
    trace.candidates = chosen.length;
  }
  const ranked = o.entityAwareRanking ? entityAwareRank(index, chosen, ids, o.preferAdjacentRuns) : chosen;
  return done(groupEvidence(chosen, reached, entities), [], ranked);
}

/** What {@link occurrenceRanked} selected, and what the trace records of it. */
interface OccurrenceRanking {
  nodes: { node: number; score: number }[];
  /** Nodes ranked, when not the dense hits (which record their own count). */
  candidates?: number;
  fallback?: 'no-occurrence';
}

/** Occurrence ranking over dense candidates (or every weighted node without dense retrieval). */
async function occurrenceRanked(input: {
  index: AdaptiveRetrievalIndex;
  ids: readonly number[];
  options: AdaptiveRetrievalOptions;
  dense: (k: number) => Promise<{ node: number; score: number }[]>;
}): Promise<OccurrenceRanking> {
  const { index, ids, options: o, dense } = input;
  if (o.denseRetrieval && !o.occurrenceRanking) return { nodes: await dense(o.topK) };
  const weights = subtreeWeights(index.tree, leafOccurrences(index, ids));
  if (!o.denseRetrieval) {
    const all: { node: number; score: number }[] = [];
    weights.forEach((w, node) => {
      if (w > 0) all.push({ node, score: w });
    });
    if (o.occurrenceRanking) all.sort((x, y) => y.score - x.score || x.node - y.node);
    return { nodes: all.slice(0, o.topK), candidates: all.length };
  }
  const candidates = await dense(2 * o.topK);
  const weighted = candidates
    .map((c, rank) => ({ node: c.node, score: weights[c.node]!, rank }))
    .filter((c) => c.score > 0)
    .sort((x, y) => y.score - x.score || x.rank - y.rank);
  if (weighted.length === 0) return { nodes: candidates.slice(0, o.topK), fallback: 'no-occurrence' };
  return { nodes: weighted.slice(0, o.topK).map(({ node, score }) => ({ node, score })) };
}

/** Per leaf: total occurrences of the query entities in its chunk, w(c) = Count(c, E_q). */
function leafOccurrences(index: AdaptiveRetrievalIndex, ids: readonly number[]): Float64Array {
  const counts = new Float64Array(index.tree.levels[0]!.length);
  for (const id of ids) {
    const { chunks, counts: n } = index.graph.chunksOf(id);
    for (let i = 0; i < chunks.length; i++) counts[chunks[i]!]! += n[i]!;
  }
  return counts;
}
