/**
 * KET-RAG's options: the build options with their defaults (the paper's, the official code's, or
 * measured offline), the variant presets layered under them, and one resolver that checks them.
 */
import { InvalidArgumentError, type RetrieveOptions } from '@grag/core';
import {
  assertKnownOptions,
  ENTRY_POINT_MODES,
  type EntryPointMode,
  namedChoice,
  type OptionRule,
  opt,
  optionKeys,
  RETRIEVE_OPTION_KEYS,
  resolveOptions,
  validateOptions,
} from '@grag/core/kit';
import type { CoreSelection } from '@grag/keyword-bipartite';
import {
  KET_RAG_VARIANT_PRESETS,
  KET_RAG_VARIANTS,
  type KetRagVariant,
  parseKetRagVariant,
  type TextChannel,
} from './variants.js';

/** How the context budget is split between the two channels (see {@link KetRagOptions.budgetSplit}). */
export type BudgetSplit = 'rest' | 'fixed';

/** Every settings preset (see {@link KetRagOptions.preset}). */
export const KET_RAG_PRESETS = ['offline', 'paper'] as const;

/** A settings preset of {@link KET_RAG_PRESETS}. */
export type KetRagPreset = (typeof KET_RAG_PRESETS)[number];

/**
 * Build options of KET-RAG. Defaults: {@link KET_RAG_DEFAULTS} (grag's measured offline values),
 * then the variant's preset, then the settings preset ({@link KET_RAG_PRESET_OPTIONS}): the paper's
 * values by default.
 */
export interface KetRagOptions {
  /** Which solution of KET-RAG §6.1 to build; sets `beta`, `coreSelection`, `lambda`, `textChannel`. @default 'ket-rag-p' */
  variant: KetRagVariant;
  /**
   * Which settings the options not given explicitly take: `'paper'`, the paper's values
   * ({@link KET_RAG_PAPER_SETTINGS} over {@link KET_RAG_DEFAULTS}: dense entry points, no entity
   * linking, k = 2, 1× keyword collection, a fixed (1 − λ)·L text budget, ...); `'offline'`, grag's
   * measured offline values of {@link KET_RAG_DEFAULTS}. Explicit options override either. `grag`
   * picks `'offline'` with the offline providers and `'paper'` with an OpenAI-compatible endpoint,
   * and says which. @default 'paper'
   */
  preset: KetRagPreset;
  /**
   * `'fixed'`: token windows of `chunkSize` with `overlap`; `'document'`: one chunk per document (a
   * corpus of short passages; one per segment of a document loaded with several, see core's
   * `documentUnits`). Neither crosses a segment boundary. @default 'fixed'
   */
  chunking: 'fixed' | 'document';
  /** Tokens per chunk. @default 1200 (KET-RAG §6.1, GraphRAG) */
  chunkSize: number;
  /** Tokens shared by consecutive chunks. @default 100 (GraphRAG) */
  overlap: number;
  /** Write the document title as the first line of every chunk and sub-chunk text. @default true */
  includeTitle: boolean;
  /** Tokens per sub-chunk. @default 150 (official KET-RAG code; 3 halvings of a 1200-token chunk) */
  subChunkSize: number;
  /** Split chunks by this many recursive halvings instead of by `subChunkSize` (KET-RAG §5.1's m). */
  halvings?: number;
  /**
   * Lexical neighbours per chunk in the KNN graph (the paper's k). @default 1 (official KET-RAG
   * code `knn_edges`; the `paper` preset: 2, the column of Table 5 that matches Table 3's KET-RAG-P)
   */
  lexicalK: number;
  /** Semantic neighbours per chunk in the KNN graph (the paper's k). @default 1 (official code; `paper` preset: 2) */
  semanticK: number;
  /** Keywords in more than this fraction of chunks do not count for lexical similarity. @default 1 */
  maxDocumentFrequency: number;
  /**
   * How the KNN graph's semantic neighbours are found: `'index'` with the build context's vector
   * index (exact with the flat index; approximate with HNSW, whose cost grows about as n·log n),
   * or `'exact'` by brute force over every pair of chunks (core `buildKnnGraph`, O(n²·d): a
   * 1M-token build of 4,944 chunks takes 71 s with it and 60 s with the index, and the scan costs a
   * hundred times as much for ten times the chunks). The paper does not say how its KNN graph is
   * computed. Indexes saved before this option load as `'exact'`. @default 'index'
   */
  semanticKnn: 'index' | 'exact';
  /** Fraction β of chunks whose graph is extracted. @default 0.8 (KET-RAG §6.1) */
  beta: number;
  /** How core chunks are chosen. @default 'pagerank' (KET-RAG-P) */
  coreSelection: CoreSelection;
  /** PageRank damping (teleport `1 - damping`). @default 0.85 (KET-RAG §5.1) */
  damping: number;
  /** Seed of the uniform core sample (KET-RAG-U). @default 42 (official KET-RAG code) */
  seed: number;
  /** Entity types to extract. @default the task suite's default (GraphRAG's four) */
  entityTypes?: string[];
  /** Gleaning passes of the extraction task. @default the task suite's default */
  gleanings?: number;
  /**
   * Merge the several descriptions of an entity or relationship with the summarize task (GraphRAG
   * does); otherwise they are joined. Either way a description is cut to `descriptionMaxTokens`.
   * @default true
   */
  summarizeDescriptions: boolean;
  /** Longest entity or relationship description, in tokens. @default 200 */
  descriptionMaxTokens: number;
  /**
   * Chunks (extraction) or descriptions (summaries) sent to the model at once while indexing; set
   * it to override the build runtime's concurrency for this method.
   * @default the build runtime's (`ctx.runtime.concurrency`, 8)
   */
  concurrency?: number;
  /** Share λ of the budget for the knowledge-graph channel. @default 0.5 (official KET-RAG README) */
  lambda: number;
  /** Channel that fills the rest of the budget. @default 'keyword' */
  textChannel: TextChannel;
  /** Seed entities of the local search. @default 10 (KET-RAG §2.3) */
  topKEntities: number;
  /** Out-network relationships per seed. @default 10 (GraphRAG) */
  topKRelationships: number;
  /** Share of the local-search budget for text units. @default 0.5 (GraphRAG `text_unit_prop`) */
  textUnitProp: number;
  /**
   * The keyword channel collects candidates up to this multiple of its budget. @default 2 (official
   * KET-RAG code; the `paper` preset: 1, Algorithm 4 stops when the candidates hold the budget)
   */
  collectFactor: number;
  /**
   * How the budget L is split between the channels: `'rest'`, the text channel gets L minus the
   * tokens the knowledge-graph channel wrote (at least (1 − λ)·L); `'fixed'`, it gets (1 − λ)·L
   * whatever the graph channel left unused (the paper: "the remaining 1 − θ of the context budget").
   * Also a retrieve option. @default 'rest' (the `paper` preset: 'fixed')
   */
  budgetSplit: BudgetSplit;
  /** Most seed keywords examined per query. @default 1000 (official KET-RAG code) */
  maxSeedKeywords: number;
  /**
   * How both channels find their entry points for a query: `'dense'` by the embedder (the paper:
   * seed entities by their description embeddings, seed keywords by their sentence embeddings,
   * candidate sub-chunks by cosine), `'lexical'` by BM25 (seed entities by BM25 over `name:
   * description`, seed keywords = the query's own keywords, rarest first, sub-chunks by BM25),
   * `'hybrid'` by both, fused by reciprocal rank. BM25 is rebuilt at load from the stored texts.
   * @default 'hybrid' (measured offline; the paper's is 'dense')
   */
  entryPoints: EntryPointMode;
  /**
   * Entity linking in the skeleton: document titles are entities (every chunk of a titled document
   * and every chunk that writes its title links to it), aliases fold into their canonical entity,
   * the extraction task gets the title as the chunk's subject, and entities written in the query
   * (longest match over the skeleton's names and aliases) become the first seed entities.
   * @default true (measured offline; the paper merges entities by exact name)
   */
  entityLinking: boolean;
  /**
   * With `entityLinking`, a title entity's text units are every sub-chunk of its document, core
   * chunk or not, before the other sub-chunks that mention it (the skeleton otherwise knows only the
   * core chunks' text). No extraction is added. @default true (measured offline)
   */
  titleUnits: boolean;
  /**
   * How the knowledge-graph channel picks its seed entities: `'query'` by the `entryPoints` search
   * over the entities' `name: description` texts (the paper's Algorithm 2); `'units'` from the text
   * units the `entryPoints` search finds first: for each of the `seedUnits` best sub-chunks, the
   * title entity of its document, then the other title entities it links to (GraphRAG local search
   * from the entities of the best passages; needs `entityLinking`); `'both'`: the two lists
   * alternate, units first. With `entityLinking`, entities written in the query come first either
   * way. @default 'units' (measured offline; the paper's is 'query')
   */
  entitySeeds: 'query' | 'units' | 'both';
  /** Entry sub-chunks whose entities seed the graph channel (`entitySeeds` `'units'` or `'both'`). @default 5 */
  seedUnits: number;
  /**
   * Most text units the local search takes from one seed entity (its first ones: with `titleUnits`,
   * its own document's), so that a hub entity mentioned in many chunks ("United States") does not
   * fill the text-unit share alone. `0`: no cap (GraphRAG). @default 1 (measured offline)
   */
  unitsPerEntity: number;
}

/**
 * Defaults of {@link KetRagOptions} before the variant's preset and the settings preset are applied:
 * grag's measured offline values (the `offline` preset); the default `paper` preset sets
 * {@link KET_RAG_PAPER_SETTINGS} over them.
 */
export const KET_RAG_DEFAULTS: Omit<KetRagOptions, 'halvings' | 'entityTypes' | 'gleanings' | 'concurrency'> =
  {
    variant: 'ket-rag-p',
    preset: 'paper',
    chunking: 'fixed',
    chunkSize: 1200,
    overlap: 100,
    includeTitle: true,
    subChunkSize: 150,
    lexicalK: 1,
    semanticK: 1,
    maxDocumentFrequency: 1,
    semanticKnn: 'index',
    ...KET_RAG_VARIANT_PRESETS['ket-rag-p'],
    damping: 0.85,
    seed: 42,
    summarizeDescriptions: true,
    descriptionMaxTokens: 200,
    topKEntities: 10,
    topKRelationships: 10,
    textUnitProp: 0.5,
    collectFactor: 2,
    budgetSplit: 'rest',
    maxSeedKeywords: 1000,
    entryPoints: 'hybrid',
    entityLinking: true,
    titleUnits: true,
    entitySeeds: 'units',
    seedUnits: 5,
    unitsPerEntity: 1,
  };

/**
 * The paper's values of the options whose defaults are not the paper's (the `paper` preset): dense
 * entry points, names merged only when equal, seed entities by the entry search over entities,
 * every text unit of a seed, KNN k = 2 (Table 5's column that matches Table 3's KET-RAG-P), keyword
 * candidates collected up to 1× the channel's budget and the text channel fixed at (1 − λ)·L
 * (Algorithm 4). `--set preset=paper` on the command line, or `createKetRag({ defaults: { preset:
 * 'paper' } })`; explicit options still override it.
 */
export const KET_RAG_PAPER_SETTINGS: Readonly<
  Pick<
    KetRagOptions,
    | 'entryPoints'
    | 'entityLinking'
    | 'titleUnits'
    | 'unitsPerEntity'
    | 'entitySeeds'
    | 'lexicalK'
    | 'semanticK'
    | 'collectFactor'
    | 'budgetSplit'
  >
> = {
  entryPoints: 'dense',
  entityLinking: false,
  titleUnits: false,
  unitsPerEntity: 0,
  entitySeeds: 'query',
  lexicalK: 2,
  semanticK: 2,
  collectFactor: 1,
  budgetSplit: 'fixed',
};

/** What each settings preset sets over {@link KET_RAG_DEFAULTS} (the `offline` preset: nothing; `paper`, the default: the paper's values). */
export const KET_RAG_PRESET_OPTIONS: Readonly<Record<KetRagPreset, Readonly<Partial<KetRagOptions>>>> = {
  offline: {},
  paper: KET_RAG_PAPER_SETTINGS,
};

/** Retrieval options of KET-RAG. */
export interface KetRagRetrieveOptions extends RetrieveOptions {
  /** Override the index's λ for this query (ignored when the text channel is `'none'`). */
  lambda?: number;
  /** Override the index's `budgetSplit` for this query (see {@link KetRagOptions.budgetSplit}). */
  budgetSplit?: BudgetSplit;
}

/** Every build option key (`variant` included); others are refused. */
export const BUILD_OPTION_KEYS: readonly string[] = optionKeys<KetRagOptions>({
  ...KET_RAG_DEFAULTS,
  halvings: undefined,
  entityTypes: undefined,
  gleanings: undefined,
  concurrency: undefined,
});

/** Every retrieve option key; others are refused. */
export const KET_RAG_RETRIEVE_OPTION_KEYS: readonly string[] = [
  ...RETRIEVE_OPTION_KEYS,
  'lambda',
  'budgetSplit',
];

/** The query options `build` only keeps as the index's defaults. */
export const KET_RAG_RETRIEVE_DEFAULT_KEYS: readonly string[] = ['lambda', 'budgetSplit'];

/** Settings of {@link createKetRag}. */
export interface KetRagSettings {
  /** Method name used in manifests and the CLI. @default 'ket-rag' */
  name?: string;
  /** Variant built when the build options do not name one. @default 'ket-rag-p' */
  variant?: KetRagVariant;
  /** Build options applied before the per-call options. */
  defaults?: Partial<KetRagOptions>;
}

/** The check of every build option (`variant` is read by {@link parseKetRagVariant}). */
const RULES: { readonly [K in keyof KetRagOptions]?: OptionRule } = {
  chunking: opt.oneOf('fixed', 'document'),
  chunkSize: opt.positiveInt,
  overlap: opt.nonNegativeInt,
  includeTitle: opt.boolean,
  subChunkSize: opt.positiveInt,
  halvings: opt.optional(opt.int({ min: 0, max: 30 })),
  lexicalK: opt.nonNegativeInt,
  semanticK: opt.nonNegativeInt,
  maxDocumentFrequency: opt.number({ above: 0, max: 1 }),
  semanticKnn: opt.oneOf('index', 'exact'),
  beta: opt.fraction,
  coreSelection: opt.oneOf('pagerank', 'uniform'),
  damping: opt.fraction,
  seed: opt.int(),
  entityTypes: opt.optional(opt.stringList),
  gleanings: opt.optional(opt.nonNegativeInt),
  summarizeDescriptions: opt.boolean,
  descriptionMaxTokens: opt.positiveInt,
  concurrency: opt.optional(opt.positiveInt),
  lambda: opt.fraction,
  textChannel: opt.oneOf('keyword', 'dense', 'knn', 'entry', 'none'),
  topKEntities: opt.positiveInt,
  topKRelationships: opt.nonNegativeInt,
  textUnitProp: opt.fraction,
  collectFactor: opt.number({ min: 1 }),
  budgetSplit: opt.oneOf('rest', 'fixed'),
  preset: opt.oneOf(...KET_RAG_PRESETS),
  maxSeedKeywords: opt.nonNegativeInt,
  entryPoints: opt.oneOf(...ENTRY_POINT_MODES),
  entityLinking: opt.boolean,
  titleUnits: opt.boolean,
  entitySeeds: opt.oneOf('query', 'units', 'both'),
  seedUnits: opt.positiveInt,
  unitsPerEntity: opt.nonNegativeInt,
};

type Layer = Partial<KetRagOptions> | Readonly<Record<string, unknown>> | undefined;

/**
 * The options of one build or load, for `caller` (e.g. `'ket-rag build'`): unknown keys refused in
 * every layer; the variant and the settings preset named by the last layer that names each (else
 * the defaults); then {@link KET_RAG_DEFAULTS}, the variant's preset, the settings preset and the
 * layers in order (`undefined` values ignored); every value checked. Errors are `InvalidArgumentError`s naming `caller`.
 */
export function resolveKetRagOptionsFor(caller: string, layers: readonly Layer[]): KetRagOptions {
  for (const layer of layers) assertKnownOptions(caller, layer, BUILD_OPTION_KEYS);
  let variant: KetRagVariant = KET_RAG_DEFAULTS.variant;
  for (const layer of layers) {
    const named: unknown = layer?.variant;
    if (named === undefined) continue;
    if (typeof named !== 'string') {
      throw new InvalidArgumentError(
        'variant',
        `${caller}: variant must be one of ${KET_RAG_VARIANTS.join(', ')} (got ${String(named)}).`,
      );
    }
    variant = parseKetRagVariant(named);
  }
  const preset = namedChoice(caller, 'preset', layers, KET_RAG_PRESETS, KET_RAG_DEFAULTS.preset);
  // The variant as parsed (aliases such as `KEYWORD_RAG` normalized) replaces the one the layers name.
  const base: KetRagOptions = {
    ...KET_RAG_DEFAULTS,
    ...KET_RAG_VARIANT_PRESETS[variant],
    ...KET_RAG_PRESET_OPTIONS[preset],
  };
  const options = { ...resolveOptions(base, ...layers), variant, preset };
  validateOptions(caller, options, RULES);
  return options;
}

/** Resolve build options: defaults, the variant's preset, the settings preset, then each layer (see {@link resolveKetRagOptionsFor}). */
export function resolveKetRagOptions(...layers: Layer[]): KetRagOptions {
  return resolveKetRagOptionsFor('ket-rag', layers);
}
