import { InvalidArgumentError, type RetrieveOptions } from '@grag/core';
import {
  assertKnownOptions,
  checkOption,
  ENTRY_POINT_MODES,
  type EntryPointMode,
  type OptionRule,
  opt,
  optionKeys,
  queryOptions,
  resolvePresetOptions,
} from '@grag/core/kit';

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

/** Options of the online retrieval (DA-RAG §4-5); defaults can be set at build time and overridden per query. */
export interface DaRagQueryOptions {
  /**
   * Start with EACS on the Semantic Chunk layer and search the KG and Similarity layers only inside the
   * entities of the chunk community (§4). `false` is the "w/o C" ablation: EACS directly on the whole
   * KG and Similarity layers. @default true (DA-RAG §4)
   */
  chunkLayer: boolean;
  /** Use the Similarity layer when the index has one. @default true */
  similarityLayer: boolean;
  /**
   * Attributed community search (Q-Peel). `false` is the "w/o ACS" ablation: on each layer, the
   * `oneHopSeeds` most relevant nodes and their 1-hop neighbours. @default true (DA-RAG §5)
   */
  acs: boolean;
  /** Smallest k of the feasible range (a 3-truss is the first with triangles). @default 3 */
  kMin: number;
  /**
   * Largest k tried; `null` for the largest k with a non-empty truss in the layer (the feasible range
   * ends there). @default null
   */
  kMax: number | null;
  /**
   * k values tried per layer, spread over the feasible range `[kMin, k_max]` (both ends included). Each
   * gives one candidate community (the best Q-Peel result); identical communities are merged.
   * @default 3 (the paper reports 8.3 assessment calls per query over its three layers)
   */
  candidatesPerLayer: number;
  /**
   * How the k values are spread: `'geometric'` (denser at small k, where communities depend most on
   * the query) or `'linear'`. @default 'geometric'
   */
  kSpacing: 'geometric' | 'linear';
  /**
   * Which chunk community induces the working subgraphs (§4): `'best'`, the candidate with the highest
   * score, or `'union'` of every chunk candidate. @default 'best'
   */
  anchor: 'best' | 'union';
  /**
   * Candidate score used to rank and pack: `'model'`, the relevance score the model returns with the
   * report (§5.1); `'qrscore'`, 10 × the community's QRScore (Eq. 1, on its own layer's relevance);
   * `'evidence'`, 10 × the mean chunk relevance of the chunks the community packs (one scale for
   * every layer); `'auto'`, `'evidence'` when the task suite declares `judgement: 'heuristic'` (the
   * offline task suite does: its "score" is a heuristic) and the model's score otherwise. @default 'auto'
   */
  scoring: 'auto' | 'model' | 'qrscore' | 'evidence';
  /**
   * Ask the model for a relevance score and a community report for each candidate (one call each,
   * §5.1). With `false` no call is made: the score is the QRScore (or the evidence, see `scoring`)
   * and there is no report. @default true (DA-RAG §5.1; the `offline` preset: false, since a
   * heuristic task suite's report is sentences of the members the context already holds; measured,
   * see the README)
   */
  reports: boolean;
  /**
   * What a packed community contributes to the context: its `'report'`, its `'members'` (chunk texts,
   * or entity and relation descriptions), or both. @default 'report+members'
   */
  communityText: 'report' | 'members' | 'report+members';
  /**
   * Token budget of one community's member text (what the model assesses and what is packed), most
   * relevant members first. @default 4000 (DA-RAG Table 4, max_token_for_text_unit)
   */
  communityTokens: number;
  /**
   * Seeds of 1-hop retrieval (`acs: false`), and chunks that anchor the working subgraphs when the chunk
   * layer has no k-truss. @default 5
   */
  oneHopSeeds: number;
  /**
   * Query relevance of the nodes (the attribute Q-Peel peels by, and the order of members):
   * `'dense'`, the cosine of the query and node embeddings (DA-RAG Eq. 1); `'lexical'`, BM25 of the
   * query over the chunk texts and entity texts (rebuilt from the stored texts on first use); or
   * `'hybrid'`, both fused by reciprocal rank (the top 100 of each list), scaled to
   * the best. @default 'dense' (DA-RAG Eq. 1; the `offline` preset: 'hybrid', measured, see the README)
   */
  relevance: EntryPointMode;
  /**
   * Size bound of a community: Q-Peel goes on peeling the least relevant nodes, past its QRScore test,
   * while the community has more nodes than this and the rest stays a connected k-truss (so the
   * community closes in on the query's nodes). `null`: no bound, Q-Peel as in DA-RAG §5.2.
   * @default null (DA-RAG §5.2; the `offline` preset: 10, measured, see the README)
   */
  maxCommunityNodes: number | null;
  /**
   * Query vertices of each layer's search: the `querySeeds` most relevant nodes. Q-Peel then searches
   * only the k-truss components holding one of them and never peels them off (attributed community
   * search with query vertices, as in ACQ / ATC, which DA-RAG §5 builds on). 0: no query vertex, the
   * best component anywhere (DA-RAG §5.2). @default 0 (DA-RAG §5.2; the `offline` preset: 1, measured)
   */
  querySeeds: number;
  /**
   * Local search (grag's, not in DA-RAG): with query vertices, Q-Peel peels only the region of this
   * many nodes around them (breadth first over edges of trussness at least k, the more relevant
   * first at each distance; `@grag/ktruss`'s `TrussIndex.qPeel` option `region`), not their whole
   * k-truss component, which on a large layer holds most of it. `null`: the whole component (DA-RAG
   * §5.2). No effect without query vertices. Measured (offline preset, 300): the chunk-layer search
   * 4.7 times faster on 4,457 passages, slower on 1,000 chunks; R@5 from 2.5 points lower to 1.6
   * higher on the dev slices; see the README.
   * @default null (DA-RAG §5.2, in both presets)
   */
  searchRegion: number | null;
  /**
   * The community search with query vertices: `'q-peel'`, Q-Peel on each query vertex's k-truss
   * component (DA-RAG §5.2, with the size bound when `maxCommunityNodes` is set); or `'local'`,
   * grag's local size-bounded search (`@grag/ktruss`'s `TrussIndex.localSearch`): the community
   * Q-Peel's size bound ends at on the component without Q-Peel's QRScore phase, least relevant
   * first and, among equal relevance, the farthest from the query vertex first, found from the query
   * vertex outwards (its cost does not grow with the component); a component of at most
   * `localExactUpTo` nodes is searched with Q-Peel itself. No effect without query vertices.
   * @default 'q-peel' (DA-RAG §5.2; the `offline` preset: 'local', measured, see the README)
   */
  communitySearch: 'q-peel' | 'local';
  /**
   * With `communitySearch: 'local'`: a query vertex whose k-truss component has at most this many
   * nodes is searched with Q-Peel (cheap there, and exact); a larger one with the local search.
   * @default 200
   */
  localExactUpTo: number;
  /**
   * The order among nodes of equal relevance in each layer's community search (grag's, not in
   * DA-RAG): Q-Peel's peel order, the local search's last tie, a layer's query vertices and its
   * communities' member order take such ties by node index, an order the paper leaves open (with
   * `'hybrid'` or `'lexical'` relevance most chunks of a layer tie at 0). A positive seed searches
   * each graph with its nodes relabelled by that seed's permutation instead, changing nothing but
   * those ties: rerunning with a few seeds shows how much the results rest on that order. Slower (a
   * relabelled layer's truss index is made once per seed, a working subgraph's per query).
   * 0: node index. @default 0
   */
  tieSeed: number;
  /**
   * How the ranked communities fill the budget: `'greedy'` takes each community whole, in score
   * order, leaving out one that does not fit and going on with the next (§5.1's greedy packing);
   * `'truncate'` stops at the first that does not fit and writes its head into what is left.
   * @default 'greedy' (DA-RAG §5.1)
   */
  packing: 'greedy' | 'truncate';
  /**
   * Anchor chunk communities (§4), each searched around its own query vertex: the most relevant chunk
   * outside the communities of the anchors before it. Each anchor's community gives its own working
   * subgraphs on the KG and Similarity layers, and every candidate of every anchor is ranked and
   * packed together. With 1, the anchor is the chunk community around the `querySeeds` most relevant
   * chunks, as in DA-RAG §4. @default 1 (DA-RAG §4; the `offline` preset: 2, measured, see the README)
   */
  anchors: number;
  /**
   * When an anchor's chunk search finds no community (its query vertex is in no k-truss, or the chunk
   * layer has none), the chunks that anchor the working subgraphs instead (the query vertex, or the
   * `oneHopSeeds` most relevant chunks) are a candidate community of their own, assessed, ranked and
   * packed like the others. `false`: they only anchor the working subgraphs, and the best-matching
   * chunk can be missing from the context. @default true (grag's; §4 does not say what happens then)
   */
  fallbackCommunity: boolean;
  /**
   * The "entry points only" configuration: no graph step. The chunks ranked by `relevance` are packed
   * in that order (items of kind `'chunk'`), with no community search and no assessment call; it
   * shows what the graph step adds. @default false
   */
  entryPointsOnly: boolean;
  /**
   * Order of a community's chunks (what the context and the passage ranking follow): `'relevance'`,
   * chunk-layer members most relevant first and an entity community's chunks by how many of its
   * entities they mention; `'linked'`, by relevance, each chunk followed by the community's chunks
   * whose document it mentions (through the inter-layer links to their title entities).
   * @default 'relevance' (the paper does not order members; the `offline` preset: 'linked', measured)
   */
  memberOrder: 'relevance' | 'linked';
}

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
  | 'reports';

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
};

/** What each preset sets over {@link DA_RAG_DEFAULTS} (the `paper` preset: nothing). */
export const DA_RAG_PRESET_OPTIONS: Readonly<Record<DaRagPreset, Partial<DaRagOptions>>> = {
  paper: {},
  offline: DA_RAG_OFFLINE_SETTINGS,
};

/** Retrieve options of DA-RAG: the budget, and any query option to override for this query. */
export interface DaRagRetrieveOptions extends RetrieveOptions, Partial<DaRagQueryOptions> {
  /** Most communities packed into the context (after ranking by score). @default no limit */
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
  entryPointsOnly: opt.boolean,
  memberOrder: opt.oneOf('relevance', 'linked'),
};

/** The query options: their keys, the keys `retrieve` accepts, one query's resolution. */
const QUERY = queryOptions<DaRagQueryOptions>({ defaults: DA_RAG_QUERY_DEFAULTS, rules: QUERY_RULES });

/** Every key of {@link DaRagRetrieveOptions}; `retrieve` refuses others. */
export const DA_RAG_RETRIEVE_OPTION_KEYS: readonly string[] = QUERY.retrieveKeys;

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
