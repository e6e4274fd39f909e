/**
 * NodeRAG's options: the build options (what the index is made with, stored in its manifest) and
 * the retrieve options (given per query), their defaults, keys and checks.
 */
import { InvalidArgumentError, type RetrieveOptions } from '@grag/core';
import type { PprUpdate } from '@grag/core/graph';
import {
  ENTRY_POINT_MODES,
  type EntryPointMode,
  type OptionRule,
  opt,
  optionKeys,
  RETRIEVE_OPTION_KEYS,
  resolveCheckedOptions,
  resolvePresetOptions,
} from '@grag/core/kit';
import type { CrossNodeSelection } from '@grag/heterograph';

/** Build options of NodeRAG (see {@link NODERAG_DEFAULTS}). */
export interface NodeRagOptions {
  /**
   * `'fixed'`: token windows of `chunkSize`; `'document'`: one text chunk per document (passage
   * corpora; one per segment of a document loaded with several, see core's `documentUnits`).
   * Neither crosses a segment boundary. @default 'fixed'
   */
  chunking: 'fixed' | 'document';
  /** Tokens per text chunk. @default 1048 (official code, `chunk_size`) */
  chunkSize: number;
  /** Tokens shared by consecutive chunks. @default 0 (the official splitter does not overlap) */
  overlap: number;
  /** Write the document title as the first line of each text chunk. @default true */
  includeTitle: boolean;
  /**
   * Chunks, entities or communities whose model calls are in flight at once. Embedding batches
   * always use the runtime's concurrency. @default the build runtime's (`ctx.runtime.concurrency`, 8)
   */
  concurrency?: number;
  /**
   * An entity must have been extracted at least this often to be a candidate important entity. The
   * paper is silent; the official code requires a weight above 1. @default 2 (official code)
   */
  attributeMinMentions: number;
  /** k-core rule of important-entity selection. @default 'core' (true core numbers; see @grag/heterograph) */
  coreRule: 'core' | 'degree';
  /** BFS sources sampled for betweenness. @default 10 (NodeRAG Algorithm 1) */
  betweennessSamples: number;
  /** Token cap of the semantic units and relationships summarized into one attribute. @default 4000 */
  attributeContextTokens: number;
  /** Target length of an attribute summary in tokens. @default 200 */
  attributeTokens: number;
  /** Leiden resolution γ. @default 1 (modularity, as the official code's `ModularityVertexPartition`) */
  leidenResolution: number;
  /** Leiden iterations. @default 2 (leidenalg's default, as the official code calls it) */
  leidenIterations: number;
  /** Token cap of the community content given to the model for a high-level element. @default 4000 */
  communityContextTokens: number;
  /**
   * The official code skips k-means and joins a high-level element to every S and A node of its
   * community when the mean cluster size n/K is at most this (`Hcluster_size` 39). 0 always runs
   * k-means, as Algorithm 2 says. @default 0 (the paper)
   */
  denseMatchingClusterSize: number;
  /** Lay HNSW semantic edges (G5). @default true */
  hnswEdges: boolean;
  /** HNSW links per node and layer. @default 50 (official code, `m`) */
  hnswM: number;
  /** HNSW construction breadth. @default 200 (official code, `ef`) */
  hnswEfConstruction: number;
  /** HNSW search breadth. @default 64 */
  hnswEfSearch: number;
  /** Seed of Leiden, betweenness sampling, k-means and HNSW levels. @default 42 */
  seed: number;
  /**
   * Link entities across the corpus before laying N nodes (`linkEntities` of `@grag/core`): each
   * document's title becomes an entity of all its semantic units, a unit that writes another
   * document's title links to that title's entity, and names that differ only in case, diacritics,
   * punctuation or a disambiguator are one N node. This is what lets the walk cross from a passage to
   * the passage about an entity it mentions. `false`: entities merged by exact normalized name only
   * (the paper). @default false (the paper; the `offline` preset: true, measured, see the README's
   * deviations)
   */
  entityLinking: boolean;
  /**
   * Which settings the options not given explicitly take, at build and at every query of the index:
   * `'paper'`, the paper's ({@link NODERAG_DEFAULTS}, {@link NODERAG_RETRIEVE_DEFAULTS}); `'offline'`,
   * grag's measured offline settings ({@link NODERAG_OFFLINE_SETTINGS}: entity linking, hybrid entry
   * points, rank-weighted entries, query entities by the index's vocabulary). Explicit options
   * override either. Stored with the index. `grag` picks `'offline'` with the offline providers and
   * `'paper'` with an OpenAI-compatible endpoint, and says which. @default 'paper'
   */
  preset: NodeRagPreset;
}

/** Every settings preset (see {@link NodeRagOptions.preset}). */
export const NODERAG_PRESETS = ['paper', 'offline'] as const;

/** A settings preset of {@link NODERAG_PRESETS}. */
export type NodeRagPreset = (typeof NODERAG_PRESETS)[number];

/** Defaults of NodeRAG's build. */
export const NODERAG_DEFAULTS: NodeRagOptions = {
  chunking: 'fixed',
  chunkSize: 1048,
  overlap: 0,
  includeTitle: true,
  attributeMinMentions: 2,
  coreRule: 'core',
  betweennessSamples: 10,
  attributeContextTokens: 4000,
  attributeTokens: 200,
  leidenResolution: 1,
  leidenIterations: 2,
  communityContextTokens: 4000,
  denseMatchingClusterSize: 0,
  hnswEdges: true,
  hnswM: 50,
  hnswEfConstruction: 200,
  hnswEfSearch: 64,
  seed: 42,
  entityLinking: false,
  preset: 'paper',
};

/** The retrieval settings of one query (see {@link NODERAG_RETRIEVE_DEFAULTS}). */
export interface NodeRagQueryOptions {
  /**
   * How the entry points among T, S, A, H nodes are found: `'dense'` by the embedder (the paper),
   * `'lexical'` by BM25 over the same node texts, `'hybrid'` by both fused with reciprocal rank
   * fusion. @default 'dense' (the paper; the `offline` preset: 'hybrid', measured)
   */
  entryPoints: EntryPointMode;
  /**
   * Personalization weight of the vector entry points: `'uniform'` 1/|entries| each (the paper), or
   * `'rank'`, the i-th entry (0-based) weighing 1/(i + 1), so the walk starts mostly from the best
   * entries. Exact-match entries (N, O) weigh 1 in both. @default 'uniform' (the paper; the
   * `offline` preset: 'rank', measured)
   */
  entryWeighting: 'uniform' | 'rank';
  /**
   * How query entities become N/O entry points: `'phrase'`, every extracted query entity matched as a
   * whole-word phrase inside N and O names (the official code's search); `'vocabulary'`, only the
   * index's entity names found in the question by longest match (`EntityVocabulary`), each to its own
   * N node, plus phrase matches of O names. @default 'phrase' (the official code; the `offline`
   * preset: 'vocabulary', measured)
   */
  queryEntityMatch: 'phrase' | 'vocabulary';
  /** Vector entry points: the k nearest embedded nodes. @default 10 (official `HNSW_results`) */
  vectorTopK: number;
  /** PPR teleport α. @default 0.5 (NodeRAG §2.5) */
  teleport: number;
  /** PPR iterations t (Figure 4 sweeps 1-10). @default 2 (NodeRAG §2.5) */
  pprIterations: number;
  /** PPR update: `'paper'` π = αp + (1−α)Pᵀπ, or the official code's `'lazy'` walk. @default 'paper' */
  pprUpdate: PprUpdate;
  /**
   * Entities taken from the PPR ranking, each bringing its attributes (`'official'` selection only).
   * @default 10 (official `Enode`)
   */
  entities: number;
  /** Relationships taken from the PPR ranking (`'official'` selection only). @default 30 (official `Rnode`) */
  relationships: number;
  /**
   * Overviews taken from the ranking, each bringing its high-level element (`'official'` selection
   * only). @default 10 (official `Hnode`)
   */
  overviews: number;
  /**
   * How cross nodes are chosen from the PPR ranking: `'paper'`, the top `crossNodes` nodes of each
   * type, then entries and cross nodes filtered to T, S, A, H, R (NodeRAG §2.5); `'official'`, the
   * official code's buckets: `entities` entities that bring their attributes, `overviews` overviews
   * that bring their high-level elements, `relationships` relationships, and `crossNodes` other
   * retrievable nodes shared by T, S, A and H. @default 'paper' (NodeRAG §2.5; measured against
   * `'official'` in the README's deviations)
   */
  crossNodeSelection: CrossNodeSelection;
  /**
   * `'official'`: the retrievable cross nodes (T, S, A, H) besides the buckets. `'paper'`: the k of
   * every type (the paper gives no value). @default 10 (official `cross_node`; the `offline`
   * preset: 30, which fills the 12k budget, measured)
   */
  crossNodes: number;
  /** Ablation: `false` uses vector entry points only (Table 2 "w/o Dual Search"). @default true */
  dualSearch: boolean;
  /** Ablation: `false` walks without HNSW semantic edges (Table 2 "w/o HNSW"). @default true */
  semanticEdges: boolean;
  /**
   * Ablation: `false` skips the graph and returns the `topK` (default {@link NODERAG_PLAIN_TOP_K})
   * most similar embedded nodes (Table 2 "w/o Cross Node", k = 10/20/30). @default true
   */
  graphSearch: boolean;
  /** Edge weights of the walk: as built, or the official code's `'unbalance-adjust'`. @default 'paper' */
  edgeWeighting: 'paper' | 'unbalance-adjust';
}

/** Retrieve options of NodeRAG: the budget, and any retrieval setting to override for this query. */
export interface NodeRagRetrieveOptions extends RetrieveOptions, Partial<NodeRagQueryOptions> {}

/** Defaults of NodeRAG's retrieval. */
export const NODERAG_RETRIEVE_DEFAULTS: NodeRagQueryOptions = {
  entryPoints: 'dense',
  entryWeighting: 'uniform',
  queryEntityMatch: 'phrase',
  vectorTopK: 10,
  teleport: 0.5,
  pprIterations: 2,
  pprUpdate: 'paper',
  entities: 10,
  relationships: 30,
  overviews: 10,
  crossNodeSelection: 'paper',
  crossNodes: 10,
  dualSearch: true,
  semanticEdges: true,
  graphSearch: true,
  edgeWeighting: 'paper',
};

/**
 * grag's measured offline settings (the `offline` preset): what it sets over the paper's build and
 * retrieval defaults.
 */
export const NODERAG_OFFLINE_SETTINGS: Readonly<{
  build: Readonly<Pick<NodeRagOptions, 'entityLinking'>>;
  retrieve: Readonly<
    Pick<NodeRagQueryOptions, 'entryPoints' | 'entryWeighting' | 'queryEntityMatch' | 'crossNodes'>
  >;
}> = {
  build: { entityLinking: true },
  retrieve: { entryPoints: 'hybrid', entryWeighting: 'rank', queryEntityMatch: 'vocabulary', crossNodes: 30 },
};

/** What each preset sets over the defaults, at build and at query time (the `paper` preset: nothing). */
export const NODERAG_PRESET_OPTIONS: Readonly<
  Record<NodeRagPreset, { build: Partial<NodeRagOptions>; retrieve: Partial<NodeRagQueryOptions> }>
> = {
  paper: { build: {}, retrieve: {} },
  offline: NODERAG_OFFLINE_SETTINGS,
};

/** `topK` of the "w/o cross node" ablation (`graphSearch: false`) when none is given. */
export const NODERAG_PLAIN_TOP_K = 10;

/** Every build option key; `build` refuses others. */
export const NODERAG_BUILD_OPTION_KEYS: readonly string[] = optionKeys<NodeRagOptions>({
  ...NODERAG_DEFAULTS,
  concurrency: undefined,
});

/** Every key of {@link NodeRagQueryOptions}. */
const QUERY_KEYS: readonly string[] = optionKeys<NodeRagQueryOptions>(NODERAG_RETRIEVE_DEFAULTS);

/** Every retrieve option key; `retrieve` refuses others. */
export const NODERAG_RETRIEVE_OPTION_KEYS: readonly string[] = [...RETRIEVE_OPTION_KEYS, ...QUERY_KEYS];

/** What a valid value of each build option is. */
const BUILD_RULES: { readonly [K in keyof NodeRagOptions]-?: OptionRule } = {
  chunking: opt.oneOf('fixed', 'document'),
  chunkSize: opt.positiveInt,
  overlap: opt.nonNegativeInt,
  includeTitle: opt.boolean,
  concurrency: opt.optional(opt.positiveInt),
  attributeMinMentions: opt.nonNegative,
  coreRule: opt.oneOf('core', 'degree'),
  betweennessSamples: opt.positiveInt,
  attributeContextTokens: opt.positiveInt,
  attributeTokens: opt.positiveInt,
  leidenResolution: opt.nonNegative,
  leidenIterations: opt.positiveInt,
  communityContextTokens: opt.positiveInt,
  denseMatchingClusterSize: opt.nonNegative,
  hnswEdges: opt.boolean,
  // hnswlib needs at least two links per node (and its saved files are refused below 2).
  hnswM: opt.int({ min: 2 }),
  hnswEfConstruction: opt.positiveInt,
  hnswEfSearch: opt.positiveInt,
  seed: opt.int(),
  entityLinking: opt.boolean,
  preset: opt.oneOf(...NODERAG_PRESETS),
};

/** What a valid value of each retrieve option is. */
const RETRIEVE_RULES: { readonly [K in keyof NodeRagRetrieveOptions]?: OptionRule } = {
  budgetTokens: opt.optional(opt.nonNegative),
  topK: opt.optional(opt.positiveInt),
  entryPoints: opt.oneOf(...ENTRY_POINT_MODES),
  entryWeighting: opt.oneOf('uniform', 'rank'),
  queryEntityMatch: opt.oneOf('phrase', 'vocabulary'),
  vectorTopK: opt.nonNegativeInt,
  teleport: opt.fraction,
  pprIterations: opt.nonNegativeInt,
  pprUpdate: opt.oneOf('paper', 'lazy'),
  entities: opt.nonNegativeInt,
  relationships: opt.nonNegativeInt,
  overviews: opt.nonNegativeInt,
  crossNodeSelection: opt.oneOf('paper', 'official'),
  crossNodes: opt.nonNegativeInt,
  dualSearch: opt.boolean,
  semanticEdges: opt.boolean,
  graphSearch: opt.boolean,
  edgeWeighting: opt.oneOf('paper', 'unbalance-adjust'),
};

/**
 * The options of a build: each layer's keys checked, the layers resolved over
 * {@link NODERAG_DEFAULTS} (`undefined` values ignored) and every value checked.
 * @throws InvalidArgumentError naming `caller`, on an unknown key or a bad value.
 */
export function resolveNodeRagOptions(
  caller: string,
  ...layers: readonly (Partial<NodeRagOptions> | Readonly<Record<string, unknown>> | undefined)[]
): NodeRagOptions {
  for (const layer of layers) {
    const retrieval = QUERY_KEYS.find((key) => layer !== undefined && key in layer);
    if (retrieval !== undefined) {
      throw new InvalidArgumentError(
        retrieval,
        `${caller}: ${JSON.stringify(retrieval)} is a retrieve option, not a build option; give it to ` +
          '`retrieve` (`grag query --set`; `grag eval --set` routes it to retrieve).',
      );
    }
  }
  const o = resolvePresetOptions(
    caller,
    {
      defaults: NODERAG_DEFAULTS,
      presets: NODERAG_PRESETS,
      presetOptions: (preset) => NODERAG_PRESET_OPTIONS[preset].build,
      rules: BUILD_RULES,
      known: NODERAG_BUILD_OPTION_KEYS,
    },
    ...layers,
  );
  if (o.chunking === 'fixed' && o.overlap >= o.chunkSize) {
    throw new InvalidArgumentError(
      'overlap',
      `${caller}: overlap (${o.overlap}) must be below chunkSize (${o.chunkSize}).`,
    );
  }
  return o;
}

/**
 * The build options of a saved index (its manifest's params), checked as a build's are. Indexes
 * written before retrieval settings became retrieve-only may hold one as a retrieval default; such
 * an index is refused with a message that says so (the envelope adds "rebuild the index").
 * @throws InvalidArgumentError naming `caller`.
 */
export function savedNodeRagOptions(
  caller: string,
  saved: Readonly<Record<string, unknown>>,
): NodeRagOptions {
  const stale = QUERY_KEYS.filter((key) => key in saved);
  if (stale.length > 0) {
    const keys = stale.map((key) => JSON.stringify(key)).join(', ');
    throw new InvalidArgumentError(
      stale[0]!,
      `${caller}: the index keeps the retrieval setting${stale.length > 1 ? 's' : ''} ${keys} as a default, ` +
        'which noderag no longer does: retrieval settings are retrieve options now (give them to ' +
        '`retrieve`, or `grag query --set`)',
    );
  }
  // An index saved before presets existed was built, and queried, with the offline settings then
  // the defaults: its options it holds, the retrieval ones it does not (they were global defaults).
  return resolveNodeRagOptions(caller, { preset: 'offline' }, saved);
}

/**
 * The options of one query: each layer's keys checked, the retrieval settings resolved over
 * {@link NODERAG_RETRIEVE_DEFAULTS} and what the index's `preset` sets over them (`undefined` values
 * ignored), every value checked.
 * @throws InvalidArgumentError naming `caller`, on an unknown key or a bad value.
 */
export function resolveRetrieveOptions(
  caller: string,
  defaults: Partial<NodeRagRetrieveOptions> | undefined,
  options: NodeRagRetrieveOptions,
  preset: NodeRagPreset = 'paper',
): NodeRagQueryOptions & RetrieveOptions {
  return resolveCheckedOptions<NodeRagQueryOptions & RetrieveOptions>(
    caller,
    {
      defaults: { ...NODERAG_RETRIEVE_DEFAULTS, ...NODERAG_PRESET_OPTIONS[preset].retrieve },
      rules: RETRIEVE_RULES,
      known: NODERAG_RETRIEVE_OPTION_KEYS,
    },
    defaults,
    options,
  );
}
