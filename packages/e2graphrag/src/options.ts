/**
 * E2GraphRAG's options: their types and defaults (the paper's), the settings presets (`paper`, and
 * `offline`: grag's measured offline configuration), the keys `build` and `retrieve` accept, the
 * rule each value must pass, and their resolution over the defaults and the preset.
 */
import type { RetrieveOptions } from '@grag/core';
import { BRIDGE_OPTION_RULES, type BridgeOptions } from '@grag/core/graph';
import {
  assertKnownOptions,
  ENTRY_POINT_MODES,
  type EntryPointMode,
  type OptionRule,
  opt,
  optionKeys,
  queryOptions,
  resolveOptions,
  resolvePresetOptions,
} from '@grag/core/kit';
import {
  ADAPTIVE_RETRIEVAL_DEFAULTS,
  ADAPTIVE_RETRIEVAL_RULES,
  type AdaptiveRetrievalOptions,
} from './adaptive.js';

/**
 * Retrieval options beyond Algorithm 1 (grag's offline configuration, the `offline` preset): how
 * entry points are searched, whether the graph's chunks are fused with them, and bridge chunks. Their
 * defaults are the paper's where the paper has the step (dense entry points, Algorithm 1's
 * selection alone, no bridges); the others only act when the `offline` preset (or an option) turns
 * fusion or bridges on. The bridge options are core's `BridgeOptions` (`@grag/core/graph`, where
 * each is described; title bridges need `entityLinking`): `bridges` 0 (the paper; the `offline`
 * preset: 2), `bridgeSeeds` 5, `bridgeOrder` 'coverage', `bridgeMaxRank` 0, `mentionBridges` 0 (the
 * paper; the `offline` preset: 1), `mentionSpread` 5, `mentionResidualRank` 10 (measured).
 */
export interface E2GraphRagRankingOptions extends Required<BridgeOptions> {
  /**
   * How the "dense retrieval" of Algorithm 1 (and the entry points fused with local chunks) searches
   * the tree nodes: `'dense'` (the embedder, the paper), `'lexical'` (BM25 over the node texts) or
   * `'hybrid'` (both, reciprocal rank fusion). @default 'dense' (the paper; the `offline` preset: 'hybrid')
   */
  entryPoints: EntryPointMode;
  /**
   * Rank the chunks Algorithm 1 selects together with the top-2k entry-point chunks (reciprocal rank
   * fusion) instead of returning only them; global mode's summaries follow the chunks. @default false
   * (the paper returns Algorithm 1's selection alone; the `offline` preset: true)
   */
  fuseEntryPoints: boolean;
  /**
   * Weight of Algorithm 1's chunk ranking in that fusion (the entry points weigh 1); 0 keeps the
   * entry-point order and only adds Algorithm 1's chunks behind it. @default 0 (measured)
   */
  graphWeight: number;
  /**
   * Search breadth of the dense entry search (Algorithm 1's "dense retrieval" and the entry points
   * fused with it) on an approximate vector index: HNSW's `ef`, at least the depth asked; exact
   * indexes ignore it. grag's own option (the paper searches a flat FAISS index), the same in every
   * preset, as bridge-rag's and naive-dense's `entryEf`. 0: the index's own (hnswlib's rule,
   * `max(efSearch, k)`, which found the planted fact for 95% of the scale benchmark's questions at
   * 60,858 tree nodes, 98.75% with an exact search). @default 1024 (measured; see the README's
   * Performance)
   */
  entryEf: number;
}

/**
 * Defaults of {@link E2GraphRagRankingOptions}: the paper's where it has the step (dense entry
 * points, Algorithm 1's selection alone, no bridges), grag's measured values for the rest.
 */
export const E2GRAPHRAG_RANKING_DEFAULTS: Readonly<E2GraphRagRankingOptions> = {
  entryPoints: 'dense',
  fuseEntryPoints: false,
  graphWeight: 0,
  entryEf: 1024,
  bridges: 0,
  bridgeSeeds: 5,
  bridgeOrder: 'coverage',
  bridgeMaxRank: 0,
  mentionBridges: 0,
  mentionSpread: 5,
  mentionResidualRank: 10,
};

/** Every option a query can set (its default is the index's). */
export interface E2GraphRagQueryOptions extends AdaptiveRetrievalOptions, E2GraphRagRankingOptions {}

/** Every settings preset (see {@link E2GraphRagOptions.preset}). */
export const E2GRAPHRAG_PRESETS = ['paper', 'offline'] as const;

/** A settings preset of {@link E2GRAPHRAG_PRESETS}. */
export type E2GraphRagPreset = (typeof E2GRAPHRAG_PRESETS)[number];

/** Build options of E2GraphRAG; the retrieval ones are the defaults of every query of the index. */
export interface E2GraphRagOptions extends E2GraphRagQueryOptions {
  /**
   * Which settings the options not given explicitly take: `'paper'`, the paper's configuration
   * ({@link E2GRAPHRAG_DEFAULTS}); `'offline'`, grag's measured offline configuration
   * ({@link E2GRAPHRAG_OFFLINE_SETTINGS}: entity linking, hybrid entry points, Algorithm 1's chunks
   * behind them, title and mention bridges). Explicit options override either. `grag` picks
   * `'offline'` with the offline providers and `'paper'` with an OpenAI-compatible endpoint, and
   * says which. @default 'paper'
   */
  preset: E2GraphRagPreset;
  /**
   * Link entities across the corpus (core's `linkEntities`: aliases folded, each document's title
   * an entity of its chunks, missed title mentions added) and match query entities against the
   * index's entity names. Indexes saved before the rename read their `linking` param.
   * @default false (the paper uses spaCy's entities as they come; the `offline` preset: true)
   */
  entityLinking: boolean;
  /**
   * `'fixed'`: token windows of `chunkSize` with `overlap`; `'document'`: one chunk per document (a
   * corpus of passages, as in the multi-hop QA benchmarks; one per segment of a document loaded
   * with several, see core's `documentUnits`). Neither crosses a segment boundary. @default 'fixed'
   */
  chunking: 'fixed' | 'document';
  /** Tokens per chunk. @default 1200 (E2GraphRAG §3.1) */
  chunkSize: number;
  /** Tokens shared by consecutive chunks. @default 100 (E2GraphRAG §3.1) */
  overlap: number;
  /** Write the document title as the first line of its first chunk (unless the text starts with it). @default true */
  includeTitle: boolean;
  /** Nodes per summary, g. @default 5 (E2GraphRAG §4.4; official `merge_num: 5`) */
  groupSize: number;
  /** Stop summarizing at the first level with at most `stopRatio · g` nodes. @default 1.2 (official code) */
  stopRatio: number;
  /**
   * Summarization calls in flight at once (within one tree level). When unset, the build runtime's
   * concurrency applies (`ctx.runtime.concurrency`). @default the runtime's, 8
   */
  concurrency?: number;
  /** Length asked of each summary, in tokens. @default 200 */
  summaryMaxTokens: number;
}

/** Defaults of the query options. */
const QUERY_DEFAULTS: Readonly<E2GraphRagQueryOptions> = {
  ...ADAPTIVE_RETRIEVAL_DEFAULTS,
  ...E2GRAPHRAG_RANKING_DEFAULTS,
};

/** Defaults of {@link createE2GraphRag}: the paper's configuration (the `paper` preset). */
export const E2GRAPHRAG_DEFAULTS: Readonly<E2GraphRagOptions> = {
  preset: 'paper',
  chunking: 'fixed',
  chunkSize: 1200,
  overlap: 100,
  includeTitle: true,
  groupSize: 5,
  stopRatio: 1.2,
  summaryMaxTokens: 200,
  entityLinking: false,
  ...QUERY_DEFAULTS,
};

/**
 * The paper's configuration (E2GraphRAG §3, Algorithm 1): no entity linking, dense retrieval, the
 * selection of Algorithm 1 alone, no bridges — the defaults, kept under their older name.
 */
export const E2GRAPHRAG_PAPER_DEFAULTS: Readonly<E2GraphRagOptions> = E2GRAPHRAG_DEFAULTS;

/**
 * grag's measured offline configuration (the `offline` preset): what it sets over the defaults.
 * `--set preset=offline` on the command line, `createE2GraphRag({ defaults: { preset: 'offline' } })`
 * or `build(docs, ctx, { preset: 'offline' })` in code.
 */
export const E2GRAPHRAG_OFFLINE_SETTINGS: Readonly<
  Pick<
    E2GraphRagOptions,
    'entityLinking' | 'entryPoints' | 'fuseEntryPoints' | 'bridges' | 'mentionBridges' | 'topK'
  >
> = {
  entityLinking: true,
  entryPoints: 'hybrid',
  fuseEntryPoints: true,
  bridges: 2,
  mentionBridges: 1,
  topK: 100,
};

/** What each settings preset sets over {@link E2GRAPHRAG_DEFAULTS} (the `paper` preset: nothing). */
export const E2GRAPHRAG_PRESET_OPTIONS: Readonly<
  Record<E2GraphRagPreset, Readonly<Partial<E2GraphRagOptions>>>
> = {
  paper: {},
  offline: E2GRAPHRAG_OFFLINE_SETTINGS,
};

/** Query options: the context budget, `topK` (k), and any retrieval option of {@link E2GraphRagQueryOptions}. */
export interface E2GraphRagRetrieveOptions extends RetrieveOptions, Partial<E2GraphRagQueryOptions> {}

/** Every build option key; others are refused. The query options are among them (their defaults). */
export const E2GRAPHRAG_BUILD_OPTION_KEYS: readonly string[] = optionKeys<E2GraphRagOptions>({
  ...E2GRAPHRAG_DEFAULTS,
  concurrency: undefined,
});

/** What a valid value of each query option is. */
const QUERY_RULES: { readonly [K in keyof E2GraphRagQueryOptions]-?: OptionRule } = {
  ...ADAPTIVE_RETRIEVAL_RULES,
  entryPoints: opt.oneOf(...ENTRY_POINT_MODES),
  fuseEntryPoints: opt.boolean,
  graphWeight: opt.nonNegative,
  entryEf: opt.nonNegativeInt,
  ...BRIDGE_OPTION_RULES,
};

/** The query options: their keys, the keys `retrieve` accepts, one query's resolution. */
const QUERY = queryOptions<E2GraphRagQueryOptions>({ defaults: QUERY_DEFAULTS, rules: QUERY_RULES });

/** Every retrieve option key; others are refused. */
export const E2GRAPHRAG_RETRIEVE_OPTION_KEYS: readonly string[] = QUERY.retrieveKeys;

/**
 * The query options `build` only keeps as the index's defaults: all of them (`entryPoints` makes
 * the BM25 view of the tree at build time or, when an override needs it, at the first query).
 */
export const E2GRAPHRAG_RETRIEVE_DEFAULT_KEYS: readonly string[] = QUERY.keys;

/** What a valid value of every option is. */
const RULES: { readonly [K in keyof E2GraphRagOptions]-?: OptionRule } = {
  preset: opt.oneOf(...E2GRAPHRAG_PRESETS),
  entityLinking: opt.boolean,
  chunking: opt.oneOf('fixed', 'document'),
  chunkSize: opt.positiveInt,
  overlap: opt.nonNegativeInt,
  includeTitle: opt.boolean,
  groupSize: opt.int({ min: 2 }),
  stopRatio: opt.positive,
  concurrency: opt.optional(opt.positiveInt),
  summaryMaxTokens: opt.positive,
  ...QUERY_RULES,
};

type Layer = Partial<E2GraphRagOptions> | Readonly<Record<string, unknown>> | undefined;

/**
 * The options of a build (or of a saved index, on load): each layer's keys checked; the settings
 * preset named by the last layer that names one (else `'paper'`); the layers resolved over
 * {@link E2GRAPHRAG_DEFAULTS} and that preset's options (`undefined` values ignored); every value
 * checked.
 * @throws InvalidArgumentError naming `caller`, on an unknown key, an unknown preset or a bad value.
 */
export function resolveE2GraphRagOptions(caller: string, ...layers: readonly Layer[]): E2GraphRagOptions {
  for (const layer of layers) assertKnownOptions(caller, layer, E2GRAPHRAG_BUILD_OPTION_KEYS);
  return resolvePresetOptions(
    caller,
    {
      defaults: E2GRAPHRAG_DEFAULTS,
      presets: E2GRAPHRAG_PRESETS,
      presetOptions: (preset) => E2GRAPHRAG_PRESET_OPTIONS[preset],
      rules: RULES,
      known: E2GRAPHRAG_BUILD_OPTION_KEYS,
    },
    ...layers,
  );
}

/**
 * The query options in effect for one query: the index's (set at build time), overridden by those
 * given to `retrieve` (`undefined` leaves the index's).
 * @throws InvalidArgumentError naming `caller`, on an unknown option key or a bad value.
 */
export function resolveQueryOptions(
  caller: string,
  base: E2GraphRagQueryOptions,
  overrides: E2GraphRagRetrieveOptions,
): E2GraphRagQueryOptions {
  return QUERY.resolve(caller, base, overrides);
}

/**
 * What an index saved before entity linking, entry points and bridges existed was built with (and
 * one saved before mention bridges existed: none).
 */
const BEFORE_LINKING: Readonly<Partial<E2GraphRagOptions>> = {
  entityLinking: false,
  entryPoints: 'dense',
  fuseEntryPoints: false,
  bridges: 0,
  mentionBridges: 0,
};

/**
 * The params of a saved index, as {@link resolveE2GraphRagOptions} takes them: `linking` (the name
 * of `entityLinking` before it was renamed) read as `entityLinking`, and an index saved before
 * linking, entry points and bridges existed read as built the paper's way (it has none of them);
 * one saved before mention bridges existed reads `mentionBridges: 0`, as it was built and measured.
 * An index saved before presets existed holds every other option it was built with; its preset is
 * read as `'offline'` when it was built with linking, fusion or bridges (the defaults then), else
 * `'paper'`, so its options are exactly the ones it was built with.
 */
export function savedParams(saved: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { linking, ...params } = saved;
  const resolved = resolveOptions<Record<string, unknown>>(
    BEFORE_LINKING,
    { entityLinking: linking },
    params,
  );
  if (resolved.preset === undefined) {
    const offline =
      resolved.entityLinking === true ||
      resolved.fuseEntryPoints === true ||
      (typeof resolved.bridges === 'number' && resolved.bridges > 0);
    resolved.preset = offline ? 'offline' : 'paper';
  }
  return resolved;
}
