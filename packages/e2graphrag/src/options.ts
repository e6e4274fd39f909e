/**
 * E2GraphRAG's options: their types and defaults (the paper's and grag's measured offline ones),
 * the keys `build` and `retrieve` accept, the rule each value must pass, and their resolution
 * over the defaults.
 */
import type { RetrieveOptions } from '@grag/core';
import { BRIDGE_ORDERS, type BridgeOrder } from '@grag/core/graph';
import {
  assertKnownOptions,
  ENTRY_POINT_MODES,
  type EntryPointMode,
  type OptionRule,
  opt,
  optionKeys,
  pickOptions,
  RETRIEVE_OPTION_KEYS,
  resolveCheckedOptions,
  resolveOptions,
} from '@grag/core/kit';
import {
  ADAPTIVE_RETRIEVAL_DEFAULTS,
  ADAPTIVE_RETRIEVAL_RULES,
  type AdaptiveRetrievalOptions,
} from './adaptive.js';

/**
 * Retrieval options of grag's offline configuration (beyond Algorithm 1): how entry points are
 * searched, whether the graph's chunks are fused with them, and bridge chunks.
 */
export interface E2GraphRagRankingOptions {
  /**
   * How the "dense retrieval" of Algorithm 1 (and the entry points fused with local chunks) searches
   * the tree nodes: `'dense'` (the embedder, the paper), `'lexical'` (BM25 over the node texts) or
   * `'hybrid'` (both, reciprocal rank fusion). @default 'hybrid' (measured; the paper: 'dense')
   */
  entryPoints: EntryPointMode;
  /**
   * Rank the chunks Algorithm 1 selects together with the top-2k entry-point chunks (reciprocal rank
   * fusion) instead of returning only them; global mode's summaries follow the chunks. @default true
   * (measured; the paper returns Algorithm 1's selection alone)
   */
  fuseEntryPoints: boolean;
  /**
   * Weight of Algorithm 1's chunk ranking in that fusion (the entry points weigh 1); 0 keeps the
   * entry-point order and only adds Algorithm 1's chunks behind it. @default 0 (measured)
   */
  graphWeight: number;
  /**
   * Title bridges placed behind each of the first `bridgeSeeds` ranked chunks: the chunks of the
   * documents whose title entities it names (needs `entityLinking`). 0: the bridge step is off,
   * mention bridges included (the paper). @default 2 (measured)
   */
  bridges: number;
  /** How many of the first ranked chunks get bridges. @default 5 (measured) */
  bridgeSeeds: number;
  /**
   * How one seed's title-bridge candidates are ordered: `'coverage'` (most query entities in the
   * candidate chunk, then the entity named in fewest chunks), `'entry'` (the candidate's
   * entry-point rank for the question first) or `'residual'` (its BM25 score for the question's
   * terms the seed does not contain first). @default 'coverage' (measured)
   */
  bridgeOrder: BridgeOrder;
  /**
   * Place a title bridge only when its entry-point rank for the question is below this; 0: always.
   * @default 0 (measured)
   */
  bridgeMaxRank: number;
  /**
   * Mention bridges behind each seed, after its title bridges: chunks among the first
   * `mentionResidualRank` BM25 hits of the seed's residual query (the question's terms the seed
   * does not contain) that share with the seed an entity named in at most `mentionSpread` chunks.
   * 0: off. Only with `bridges` above 0. @default 1 (measured)
   */
  mentionBridges: number;
  /** Most chunks an entity shared by a seed and its mention bridge may be named in. @default 5 (measured) */
  mentionSpread: number;
  /** How many hits of the seed's residual query may become mention bridges. @default 10 (measured) */
  mentionResidualRank: number;
}

/** Defaults of {@link E2GraphRagRankingOptions}: grag's measured offline configuration. */
export const E2GRAPHRAG_RANKING_DEFAULTS: Readonly<E2GraphRagRankingOptions> = {
  entryPoints: 'hybrid',
  fuseEntryPoints: true,
  graphWeight: 0,
  bridges: 2,
  bridgeSeeds: 5,
  bridgeOrder: 'coverage',
  bridgeMaxRank: 0,
  mentionBridges: 1,
  mentionSpread: 5,
  mentionResidualRank: 10,
};

/** Every option a query can set (its default is the index's). */
export interface E2GraphRagQueryOptions extends AdaptiveRetrievalOptions, E2GraphRagRankingOptions {}

/** Build options of E2GraphRAG; the retrieval ones are the defaults of every query of the index. */
export interface E2GraphRagOptions extends E2GraphRagQueryOptions {
  /**
   * Link entities across the corpus (core's `linkEntities`: aliases folded, each document's title
   * an entity of its chunks, missed title mentions added) and match query entities against the
   * index's entity names. Indexes saved before the rename read their `linking` param.
   * @default true (measured; the paper uses spaCy's entities as they come)
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

/** Defaults of {@link createE2GraphRag}. */
export const E2GRAPHRAG_DEFAULTS: Readonly<E2GraphRagOptions> = {
  chunking: 'fixed',
  chunkSize: 1200,
  overlap: 100,
  includeTitle: true,
  groupSize: 5,
  stopRatio: 1.2,
  summaryMaxTokens: 200,
  entityLinking: true,
  ...QUERY_DEFAULTS,
};

/**
 * The paper's configuration (E2GraphRAG §3, Algorithm 1): no entity linking, dense retrieval, the
 * selection of Algorithm 1 alone, no bridges. `grag eval --methods e2graphrag --set
 * entityLinking=false --set entryPoints=dense --set fuseEntryPoints=false --set bridges=0`.
 */
export const E2GRAPHRAG_PAPER_DEFAULTS: Readonly<E2GraphRagOptions> = {
  ...E2GRAPHRAG_DEFAULTS,
  entityLinking: false,
  entryPoints: 'dense',
  fuseEntryPoints: false,
  bridges: 0,
  mentionBridges: 0,
};

/** Query options: the context budget, `topK` (k), and any retrieval option of {@link E2GraphRagQueryOptions}. */
export interface E2GraphRagRetrieveOptions extends RetrieveOptions, Partial<E2GraphRagQueryOptions> {}

/** Every key of {@link E2GraphRagQueryOptions}. */
const QUERY_KEYS = optionKeys<E2GraphRagQueryOptions>(QUERY_DEFAULTS);

/** Every build option key; others are refused. The query options are among them (their defaults). */
export const E2GRAPHRAG_BUILD_OPTION_KEYS: readonly string[] = optionKeys<E2GraphRagOptions>({
  ...E2GRAPHRAG_DEFAULTS,
  concurrency: undefined,
});

/** Every retrieve option key; others are refused. */
export const E2GRAPHRAG_RETRIEVE_OPTION_KEYS: readonly string[] = [...RETRIEVE_OPTION_KEYS, ...QUERY_KEYS];

/** What a valid value of each query option is. */
const QUERY_RULES: { readonly [K in keyof E2GraphRagQueryOptions]-?: OptionRule } = {
  ...ADAPTIVE_RETRIEVAL_RULES,
  entryPoints: opt.oneOf(...ENTRY_POINT_MODES),
  fuseEntryPoints: opt.boolean,
  graphWeight: opt.nonNegative,
  bridges: opt.nonNegativeInt,
  bridgeSeeds: opt.nonNegativeInt,
  bridgeOrder: opt.oneOf(...BRIDGE_ORDERS),
  bridgeMaxRank: opt.nonNegativeInt,
  mentionBridges: opt.nonNegativeInt,
  mentionSpread: opt.positiveInt,
  mentionResidualRank: opt.positiveInt,
};

/** What a valid value of every option is. */
const RULES: { readonly [K in keyof E2GraphRagOptions]-?: OptionRule } = {
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

/**
 * The options of a build (or of a saved index, on load): each layer's keys checked, the layers
 * resolved over {@link E2GRAPHRAG_DEFAULTS} (`undefined` values ignored) and every value checked.
 * @throws InvalidArgumentError naming `caller`, on an unknown key or a bad value.
 */
export function resolveE2GraphRagOptions(
  caller: string,
  ...layers: readonly (Partial<E2GraphRagOptions> | Readonly<Record<string, unknown>> | undefined)[]
): E2GraphRagOptions {
  return resolveCheckedOptions(
    caller,
    { defaults: E2GRAPHRAG_DEFAULTS, rules: RULES, known: E2GRAPHRAG_BUILD_OPTION_KEYS },
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
  assertKnownOptions(caller, overrides, E2GRAPHRAG_RETRIEVE_OPTION_KEYS);
  return resolveCheckedOptions<E2GraphRagQueryOptions>(
    caller,
    { defaults: QUERY_DEFAULTS, rules: QUERY_RULES },
    pickOptions(base, QUERY_KEYS),
    pickOptions(overrides, QUERY_KEYS),
  );
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
 */
export function savedParams(saved: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { linking, ...params } = saved;
  return resolveOptions<Record<string, unknown>>(BEFORE_LINKING, { entityLinking: linking }, params);
}
