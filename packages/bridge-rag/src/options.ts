/**
 * bridge-rag's options: their types and defaults (grag's measured offline configuration), the keys
 * `build` and `retrieve` accept, the rule each value must pass, and their resolution.
 */
import type { RetrieveOptions } from '@grag/core';
import { BRIDGE_OPTION_RULES, type BridgeOptions } from '@grag/core/graph';
import {
  ENTRY_POINT_MODES,
  type EntryPointMode,
  type OptionRule,
  opt,
  optionKeys,
  queryOptions,
  resolveCheckedOptions,
} from '@grag/core/kit';

/**
 * The options a query can set (their defaults are the index's). The bridge options are core's
 * `BridgeOptions` (`@grag/core/graph`, where each is described); bridge-rag's defaults, measured:
 * `bridges` 2, `bridgeSeeds` 5, `bridgeOrder` 'coverage', `bridgeMaxRank` 0, `mentionBridges` 1,
 * `mentionSpread` 5, `mentionResidualRank` 10.
 */
export interface BridgeRagQueryOptions extends Required<BridgeOptions> {
  /**
   * Passages returned, at most (bridges included); the budget stops the packing first when they do
   * not fit. @default 100 (measured: the passages after the first 25 fill the 12k budget, raising
   * Coverage at an unchanged R@5; see the README)
   */
  topK: number;
  /**
   * How the entry passages are found: `'dense'` (the embedder), `'lexical'` (BM25) or `'hybrid'`
   * (both, reciprocal rank fusion). 2·topK of them are ranked. @default 'hybrid' (measured)
   */
  entryPoints: EntryPointMode;
  /**
   * Search breadth of the dense entry search on an approximate vector index (HNSW's `ef`, at least
   * the depth asked); exact indexes ignore it. 0: the index's own. @default 400 (measured)
   */
  entryEf: number;
}

/** Build options of bridge-rag; the query ones are the defaults of every query of the index. */
export interface BridgeRagOptions extends BridgeRagQueryOptions {
  /**
   * `'fixed'`: token windows of `chunkSize` with `overlap`; `'document'`: one chunk per document (one
   * per segment of a document loaded with several, see core's `documentUnits`). @default 'fixed'
   */
  chunking: 'fixed' | 'document';
  /** Tokens per chunk. @default 1200 */
  chunkSize: number;
  /** Tokens shared by consecutive chunks. @default 100 */
  overlap: number;
  /** Write the document title as the first line of its first chunk (unless the text starts with it). @default true */
  includeTitle: boolean;
}

/** Defaults of the query options: grag's measured offline configuration (see the README). */
export const BRIDGE_RAG_QUERY_DEFAULTS: Readonly<BridgeRagQueryOptions> = {
  topK: 100,
  entryPoints: 'hybrid',
  entryEf: 400,
  bridges: 2,
  bridgeSeeds: 5,
  bridgeOrder: 'coverage',
  bridgeMaxRank: 0,
  mentionBridges: 1,
  mentionSpread: 5,
  mentionResidualRank: 10,
};

/** Defaults of {@link createBridgeRag}. */
export const BRIDGE_RAG_DEFAULTS: Readonly<BridgeRagOptions> = {
  chunking: 'fixed',
  chunkSize: 1200,
  overlap: 100,
  includeTitle: true,
  ...BRIDGE_RAG_QUERY_DEFAULTS,
};

/** Query options: the context budget, `topK`, and any option of {@link BridgeRagQueryOptions}. */
export interface BridgeRagRetrieveOptions extends RetrieveOptions, Partial<BridgeRagQueryOptions> {}

/** Every build option key; others are refused. The query options are among them (their defaults). */
export const BRIDGE_RAG_BUILD_OPTION_KEYS: readonly string[] =
  optionKeys<BridgeRagOptions>(BRIDGE_RAG_DEFAULTS);

const QUERY_RULES: { readonly [K in keyof BridgeRagQueryOptions]-?: OptionRule } = {
  topK: opt.positiveInt,
  entryPoints: opt.oneOf(...ENTRY_POINT_MODES),
  entryEf: opt.nonNegativeInt,
  ...BRIDGE_OPTION_RULES,
};

/** The query options: their keys, the keys `retrieve` accepts, one query's resolution. */
const QUERY = queryOptions<BridgeRagQueryOptions>({
  defaults: BRIDGE_RAG_QUERY_DEFAULTS,
  rules: QUERY_RULES,
});

/** Every retrieve option key; others are refused. */
export const BRIDGE_RAG_RETRIEVE_OPTION_KEYS: readonly string[] = QUERY.retrieveKeys;

/** The query options `build` only keeps as the index's defaults: all of them. */
export const BRIDGE_RAG_RETRIEVE_DEFAULT_KEYS: readonly string[] = QUERY.keys;

const RULES: { readonly [K in keyof BridgeRagOptions]-?: OptionRule } = {
  chunking: opt.oneOf('fixed', 'document'),
  chunkSize: opt.positiveInt,
  overlap: opt.nonNegativeInt,
  includeTitle: opt.boolean,
  ...QUERY_RULES,
};

/**
 * The options of a build (or of a saved index, on load): each layer's keys checked, the layers
 * resolved over {@link BRIDGE_RAG_DEFAULTS} (`undefined` values ignored) and every value checked.
 * @throws InvalidArgumentError naming `caller`, on an unknown key or a bad value.
 */
export function resolveBridgeRagOptions(
  caller: string,
  ...layers: readonly (Partial<BridgeRagOptions> | Readonly<Record<string, unknown>> | undefined)[]
): BridgeRagOptions {
  return resolveCheckedOptions(
    caller,
    { defaults: BRIDGE_RAG_DEFAULTS, rules: RULES, known: BRIDGE_RAG_BUILD_OPTION_KEYS },
    ...layers,
  );
}

/**
 * The query options in effect for one query: the index's, overridden by those given to `retrieve`.
 * @throws InvalidArgumentError naming `caller`, on an unknown option key or a bad value.
 */
export function resolveBridgeRagQuery(
  caller: string,
  base: BridgeRagQueryOptions,
  overrides: BridgeRagRetrieveOptions,
): BridgeRagQueryOptions {
  return QUERY.resolve(caller, base, overrides);
}
