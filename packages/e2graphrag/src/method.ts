import type { BuildContext, Method, MethodTasks } from '@grag/core';
import { contextEntityExtractor, type EntityExtractor } from '@grag/core/graph';
import { defineMethod } from '@grag/core/kit';
import { buildE2GraphRagIndex } from './build.js';
import {
  E2GRAPHRAG_BUILD_OPTION_KEYS,
  E2GRAPHRAG_RETRIEVE_DEFAULT_KEYS,
  E2GRAPHRAG_RETRIEVE_OPTION_KEYS,
  type E2GraphRagOptions,
  type E2GraphRagRetrieveOptions,
  resolveE2GraphRagOptions,
} from './options.js';
import { loadE2GraphRag, saveE2GraphRag } from './persist.js';
import { retrieveE2GraphRag } from './retrieve.js';
import type { E2GraphRagIndex } from './types.js';
import { updateE2GraphRag } from './update.js';

/** Settings of {@link createE2GraphRag}. */
export interface E2GraphRagSettings {
  /** Method name used in manifests and the CLI. @default 'e2graphrag' */
  name?: string;
  /** Option defaults of this instance (over {@link E2GRAPHRAG_DEFAULTS}). */
  defaults?: Partial<E2GraphRagOptions>;
  /**
   * Entity extractor for indexing and queries. @default `createEntityExtractor(ctx.textAnalyzer)`:
   * the build context's text analyzer (`createWinkTextAnalyzer()` from `@grag/offline`, which
   * `createOfflineProviders()` includes); a build or load whose context has none is refused with an
   * `InvalidArgumentError` saying so.
   */
  extractor?: EntityExtractor;
}

/**
 * On-disk format version written by `save`: 2 stores the node embeddings once (`embeddings.rows`;
 * no `vectors.bin` when the vector-index factory is exact) and gzips `tree.json`, `graph.json`,
 * `links.json` and `update.json`.
 */
export const E2GRAPHRAG_FORMAT_VERSION = 2;
/** Older layout versions `load` still reads (1: `embeddings.f32`, `vectors.bin` always, plain JSON). */
const READS = [1] as const;

/**
 * The providers an E2GraphRAG index depends on: the embedder (the tree nodes' vectors, the query's)
 * and the vector index (`vectors.bin` is its file). The task suite only writes the summaries while
 * building; retrieval asks it nothing.
 */
const USES = ['embedder', 'vectorIndex'] as const;

/**
 * The task contracts E2GraphRAG calls: summaries of the tree's groups (build); entities are read
 * with the text analyzer, and retrieval calls no task.
 */
const TASKS: MethodTasks = { build: { summarize: 1 }, retrieve: {} };

/** Who the message of a missing text analyzer names. */
const EXTRACTOR_USER = { method: 'E2GraphRAG', factory: 'createE2GraphRag' };

/**
 * E2GraphRAG (Zhao et al. 2025): a summary tree built with the `summarize` task and an entity graph
 * built without any model, joined by entity↔chunk indexes; queries pick local or global retrieval
 * by themselves (Algorithm 1).
 */
export function createE2GraphRag(
  settings: E2GraphRagSettings = {},
): Method<E2GraphRagIndex, E2GraphRagOptions, E2GraphRagRetrieveOptions> {
  const name = settings.name ?? 'e2graphrag';
  const extractorOf = (ctx: BuildContext, caller: string): EntityExtractor =>
    settings.extractor ?? contextEntityExtractor(ctx, caller, EXTRACTOR_USER);
  return defineMethod({
    name,
    description: 'E2GraphRAG: summary tree + NLP entity graph, adaptive local/global retrieval',
    formatVersion: E2GRAPHRAG_FORMAT_VERSION,
    reads: READS,
    uses: USES,
    tasks: TASKS,
    // The query options are in both lists: a build sets their defaults, a query overrides them.
    optionKeys: {
      build: E2GRAPHRAG_BUILD_OPTION_KEYS,
      retrieve: E2GRAPHRAG_RETRIEVE_OPTION_KEYS,
      retrieveDefaults: E2GRAPHRAG_RETRIEVE_DEFAULT_KEYS,
    },
    passageRanking: { kinds: ['chunk'] },
    resolve: (caller, options) => resolveE2GraphRagOptions(caller, settings.defaults, options),
    build: (docs, ctx, options) =>
      buildE2GraphRagIndex({ docs, ctx, options, extractor: () => extractorOf(ctx, `${name} build`) }),
    update: (index, change, ctx, options) => updateE2GraphRag(index, change, ctx, options, name),
    retrieve: (index, query, options) => retrieveE2GraphRag(index, query, options, name),
    save: saveE2GraphRag,
    load: (target, ctx, format) => loadE2GraphRag(target, ctx, extractorOf(ctx, `${name} load`), format),
  });
}

/** E2GraphRAG with default settings (`grag index --method e2graphrag`). */
export const e2GraphRag = createE2GraphRag();
