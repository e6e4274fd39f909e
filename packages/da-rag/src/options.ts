import { InvalidArgumentError, type RetrieveOptions } from '@grag/core';
import {
  assertKnownOptions,
  checkOption,
  ENTRY_POINT_MODES,
  type OptionRule,
  opt,
  optionKeys,
  queryOptions,
  resolvePresetOptions,
} from '@grag/core/kit';
import type { DaRagQueryOptions } from './query-options.js';

/** Options that shape the offline index (DA-RAG §3); stored in the index manifest. */
export interface DaRagIndexOptions {
  /**
   * `'semantic'`: embedding-breakpoint semantic chunks (core `semanticChunkDocuments`), as DA-RAG §3
   * chooses; `'fixed'`: token windows of `chunkSize` with `overlap` — the "w/o SC" ablation of
   * Table 3a. @default 'semantic' (DA-RAG §3)
   */
  chunking: 'semantic' | 'fixed';
  /**
   * Tokens per fixed chunk, and the largest semantic chunk. @default 1200 (DA-RAG §6.3: the w/o SC
   * ablation uses 1200-token chunks)
   */
  chunkSize: number;
  /** Tokens shared by consecutive fixed chunks. @default 100 (DA-RAG §6.3) */
  overlap: number;
  /**
   * Percentile of the distances between adjacent sentence windows above which a semantic chunk breaks.
   * @default 95 (core `SEMANTIC_CHUNK_DEFAULTS`; the paper does not give one)
   */
  breakpointPercentile: number;
  /** Write the document title as the first line of each chunk's text. @default true */
  includeTitle: boolean;
  /** Extra graph-extraction passes per chunk. @default 1 (DA-RAG Table 4, entity_extract_max_gleaning) */
  gleanings: number;
  /** Entity types to extract; `null` for the task's default. @default null */
  entityTypes: string[] | null;
  /**
   * Build the Similarity layer (entities linked to their most similar entities). `false` is the
   * "w/o S" ablation of Table 3a. @default true (DA-RAG §3)
   */
  similarityLayer: boolean;
  /** Neighbours per entity in the Similarity layer. @default 5 (DA-RAG §6.3, appendix B.1) */
  similarityK: number;
  /**
   * How the Similarity layer's nearest neighbours are found: `'index'` with the build context's
   * vector index (exact with the flat index, approximate with HNSW, fast on large graphs), or
   * `'exact'` by brute force (core `buildKnnGraph`, O(n²·d)). @default 'index'
   */
  similarityKnn: 'index' | 'exact';
  /**
   * An entity mentioned in more chunks than this does not create Semantic Chunk layer edges (it stays
   * in the KG and Similarity layers). DA-RAG §3 links two chunks whenever a relation joins an entity of
   * one to an entity of the other; with hub entities (a country, a year) that links almost every pair
   * of chunks and the layer no longer discriminates. `null` applies the paper's rule literally.
   * @default 10 (not in the paper; see the README)
   */
  maxLinkEntityChunks: number | null;
  /**
   * Link entities across the corpus while assembling the KG (core `linkEntities`): each document's
   * title is the canonical entity of its chunks (and the extraction's `subject` hint), a chunk whose
   * text writes another document's title gets that entity, and aliases (case, diacritics, short
   * names, surnames, acronyms) fold into one entity. A film passage naming its director and the
   * director's own passage then share the director's entity, so the KG and chunk layers join them.
   * `false` merges entities by normalized name only, as DA-RAG §3 does. @default false (DA-RAG §3;
   * the `offline` preset: true, measured, see the README)
   */
  entityLinking: boolean;
  /**
   * Which settings the options not given explicitly take: `'paper'`, DA-RAG's (name merging only,
   * cosine relevance (Eq. 1), Q-Peel without a size bound (§5.2), no query vertex, one anchor chunk
   * community (§4), members by relevance, a report per community); `'offline'`, grag's measured offline settings
   * ({@link DA_RAG_OFFLINE_SETTINGS}). Explicit options override either; stored with the index.
   * `grag` picks `'offline'` with the offline providers and `'paper'` with an OpenAI-compatible
   * endpoint, and says which. @default 'paper'
   */
  preset: DaRagPreset;
  /**
   * Model calls run at once: chunks sent to extraction and to titles while building (overriding the
   * build runtime's `ctx.runtime.concurrency`), community assessments while retrieving.
   * @default the build runtime's (8) while building; 8 while retrieving
   */
  concurrency?: number;
}

export type { DaRagQueryOptions } from './query-options.js';

/** Every option of DA-RAG. */
export interface DaRagOptions extends DaRagIndexOptions, DaRagQueryOptions {}

/** Defaults of the query options (those `retrieve` also takes). */
export const DA_RAG_QUERY_DEFAULTS: DaRagQueryOptions = {
  chunkLayer: true,
  similarityLayer: true,
  acs: true,
  kMin: 3,
  kMax: null,
  candidatesPerLayer: 3,
  kSpacing: 'geometric',
  anchor: 'best',
  scoring: 'auto',
  reports: true,
  communityText: 'report+members',
  communityTokens: 4000,
  oneHopSeeds: 5,
  relevance: 'dense',
  maxCommunityNodes: null,
  querySeeds: 0,
  searchRegion: null,
  communitySearch: 'q-peel',
  localExactUpTo: 200,
  tieSeed: 0,
  anchors: 1,
  fallbackCommunity: true,
  packing: 'greedy',
  fillBudget: false,
  entryPointsOnly: false,
  memberOrder: 'relevance',
};

/** Defaults of every DA-RAG option. */
export const DA_RAG_DEFAULTS: DaRagOptions = {
  chunking: 'semantic',
  chunkSize: 1200,
  overlap: 100,
  breakpointPercentile: 95,
  includeTitle: true,
  gleanings: 1,
  entityTypes: null,
  similarityK: 5,
  similarityKnn: 'index',
  maxLinkEntityChunks: 10,
  entityLinking: false,
  preset: 'paper',
  ...DA_RAG_QUERY_DEFAULTS,
};

/** Every settings preset (see {@link DaRagIndexOptions.preset}). */
export const DA_RAG_PRESETS = ['paper', 'offline'] as const;

/** A settings preset of {@link DA_RAG_PRESETS}. */
export type DaRagPreset = (typeof DA_RAG_PRESETS)[number];

/** The options the presets set differently. */
type PresetOption =
  | 'entityLinking'
  | 'relevance'
  | 'maxCommunityNodes'
  | 'querySeeds'
  | 'communitySearch'
  | 'memberOrder'
  | 'anchors'
  | 'reports'
  | 'fillBudget';

/**
 * grag's measured offline settings (the `offline` preset) of the options where they differ from
 * DA-RAG's: entity linking, hybrid relevance, a size bound on Q-Peel, one query vertex searched
 * by the local size-bounded search, two anchor chunk communities, members linked by document, no
 * community reports.
 */
export const DA_RAG_OFFLINE_SETTINGS: Readonly<Pick<DaRagOptions, PresetOption>> = {
  entityLinking: true,
  relevance: 'hybrid',
  maxCommunityNodes: 10,
  querySeeds: 1,
  communitySearch: 'local',
  memberOrder: 'linked',
  anchors: 2,
  reports: false,
  fillBudget: true,
};

/**
 * The paper's settings of the options the `offline` preset changes (the defaults, in
 * {@link DA_RAG_DEFAULTS}): name merging only, cosine relevance (Eq. 1), Q-Peel without a size
 * bound (§5.2) and with no query vertex, one anchor chunk community (§4), members by relevance, a
 * report per community (§5.1).
 */
export const DA_RAG_PAPER_DEFAULTS: Readonly<Pick<DaRagOptions, PresetOption>> = {
  entityLinking: false,
  relevance: 'dense',
  maxCommunityNodes: null,
  querySeeds: 0,
  communitySearch: 'q-peel',
  memberOrder: 'relevance',
  anchors: 1,
  reports: true,
  fillBudget: false,
};

/** What each preset sets over {@link DA_RAG_DEFAULTS} (the `paper` preset: nothing). */
export const DA_RAG_PRESET_OPTIONS: Readonly<Record<DaRagPreset, Partial<DaRagOptions>>> = {
  paper: {},
  offline: DA_RAG_OFFLINE_SETTINGS,
};

/** Retrieve options of DA-RAG: the budget, and any query option to override for this query. */
export interface DaRagRetrieveOptions extends RetrieveOptions, Partial<DaRagQueryOptions> {
  /**
   * Most communities packed into the context (after ranking by score); the chunks `fillBudget` adds
   * after them are not counted. @default no limit
   */
  topK?: number;
}

/** Every key of {@link DaRagOptions}; `build` refuses others. The query options are among them (their defaults). */
export const DA_RAG_BUILD_OPTION_KEYS: readonly string[] = optionKeys<DaRagOptions>({
  ...DA_RAG_DEFAULTS,
  concurrency: undefined,
});

/** What a valid value of each query option is. */
const QUERY_RULES: { readonly [K in keyof DaRagQueryOptions]-?: OptionRule } = {
  chunkLayer: opt.boolean,
  similarityLayer: opt.boolean,
  acs: opt.boolean,
  kMin: opt.int({ min: 2 }),
  kMax: opt.nullable(opt.int({ min: 2 })),
  candidatesPerLayer: opt.positiveInt,
  kSpacing: opt.oneOf('geometric', 'linear'),
  anchor: opt.oneOf('best', 'union'),
  scoring: opt.oneOf('auto', 'model', 'qrscore', 'evidence'),
  reports: opt.boolean,
  communityText: opt.oneOf('report', 'members', 'report+members'),
  communityTokens: opt.positiveInt,
  oneHopSeeds: opt.positiveInt,
  relevance: opt.oneOf(...ENTRY_POINT_MODES),
  maxCommunityNodes: opt.nullable(opt.positiveInt),
  querySeeds: opt.nonNegativeInt,
  searchRegion: opt.nullable(opt.positiveInt),
  communitySearch: opt.oneOf('q-peel', 'local'),
  localExactUpTo: opt.nonNegativeInt,
  tieSeed: opt.nonNegativeInt,
  anchors: opt.positiveInt,
  fallbackCommunity: opt.boolean,
  packing: opt.oneOf('greedy', 'truncate'),
  fillBudget: opt.boolean,
  entryPointsOnly: opt.boolean,
  memberOrder: opt.oneOf('relevance', 'linked'),
};

/** The query options: their keys, the keys `retrieve` accepts, one query's resolution. */
const QUERY = queryOptions<DaRagQueryOptions>({ defaults: DA_RAG_QUERY_DEFAULTS, rules: QUERY_RULES });

/** Every key of {@link DaRagRetrieveOptions}; `retrieve` refuses others. */
export const DA_RAG_RETRIEVE_OPTION_KEYS: readonly string[] = QUERY.retrieveKeys;

/**
 * The query options `build` only keeps as the index's defaults: all but `similarityLayer`, which
 * also decides whether the Similarity layer is built.
 */
export const DA_RAG_RETRIEVE_DEFAULT_KEYS: readonly string[] = QUERY.keys.filter(
  (key) => key !== 'similarityLayer',
);

/** What a valid value of every option is. */
const RULES: { readonly [K in keyof DaRagOptions]-?: OptionRule } = {
  chunking: opt.oneOf('semantic', 'fixed'),
  chunkSize: opt.positiveInt,
  overlap: opt.nonNegativeInt,
  breakpointPercentile: opt.number({ min: 0, max: 100 }),
  includeTitle: opt.boolean,
  gleanings: opt.nonNegativeInt,
  entityTypes: opt.nullable(opt.stringList),
  similarityK: opt.positiveInt,
  similarityKnn: opt.oneOf('index', 'exact'),
  maxLinkEntityChunks: opt.nullable(opt.positiveInt),
  entityLinking: opt.boolean,
  preset: opt.oneOf(...DA_RAG_PRESETS),
  concurrency: opt.optional(opt.positiveInt),
  ...QUERY_RULES,
};

/** The checks that involve two query options (each value already passed its rule). */
function checkQueryRelations(caller: string, o: DaRagQueryOptions): void {
  if (o.kMax !== null && o.kMax < o.kMin) {
    throw new InvalidArgumentError(
      'kMax',
      `${caller}: kMax (${o.kMax}) must be at least kMin (${o.kMin}), or null.`,
    );
  }
}

/**
 * The options of a build (or of a saved index, on load): each layer's keys checked, the layers
 * resolved over {@link DA_RAG_DEFAULTS} (`undefined` values ignored) and every value checked.
 * @throws InvalidArgumentError naming `caller`, on an unknown key or a bad value.
 */
export function resolveDaRagOptions(
  caller: string,
  ...layers: readonly (Partial<DaRagOptions> | Readonly<Record<string, unknown>> | undefined)[]
): DaRagOptions {
  const o = resolvePresetOptions(
    caller,
    {
      defaults: DA_RAG_DEFAULTS,
      presets: DA_RAG_PRESETS,
      presetOptions: (preset) => DA_RAG_PRESET_OPTIONS[preset],
      rules: RULES,
      known: DA_RAG_BUILD_OPTION_KEYS,
    },
    ...layers,
  );
  if (o.overlap >= o.chunkSize) {
    throw new InvalidArgumentError(
      'overlap',
      `${caller}: overlap (${o.overlap}) must be below chunkSize (${o.chunkSize}).`,
    );
  }
  checkQueryRelations(caller, o);
  return o;
}

/**
 * The options of a saved index (its manifest's params), checked as a build's are. An index saved
 * before presets existed was built with the offline settings then the defaults: what its params do
 * not hold takes those.
 * @throws InvalidArgumentError naming `caller`.
 */
export function savedDaRagOptions(caller: string, saved: Readonly<Record<string, unknown>>): DaRagOptions {
  return resolveDaRagOptions(caller, { preset: 'offline' }, saved);
}

/**
 * The query options in effect for one query: the index's (set at build time), overridden by those
 * given to `retrieve` (`undefined` leaves the index's; `null` is a value).
 * @throws InvalidArgumentError naming `caller`, on an unknown option key or a bad value.
 */
export function resolveQueryOptions(
  caller: string,
  base: DaRagQueryOptions,
  overrides: DaRagRetrieveOptions,
): DaRagQueryOptions {
  assertKnownOptions(caller, overrides, DA_RAG_RETRIEVE_OPTION_KEYS);
  checkOption(caller, 'topK', overrides.topK, opt.optional(opt.positiveInt));
  const q = QUERY.resolve(caller, base, overrides);
  checkQueryRelations(caller, q);
  return q;
}
