import type { BuildContext, Method, MethodTasks } from '@grag/core';
import { contextEntityExtractor, type EntityExtractor } from '@grag/core/graph';
import { defineMethod } from '@grag/core/kit';
import { buildBridgeRagIndex } from './build.js';
import {
  BRIDGE_RAG_BUILD_OPTION_KEYS,
  BRIDGE_RAG_RETRIEVE_DEFAULT_KEYS,
  BRIDGE_RAG_RETRIEVE_OPTION_KEYS,
  type BridgeRagOptions,
  type BridgeRagRetrieveOptions,
  resolveBridgeRagOptions,
} from './options.js';
import { loadBridgeRag, saveBridgeRag } from './persist.js';
import { retrieveBridgeRag } from './retrieve.js';
import type { BridgeRagIndex } from './types.js';
import { updateBridgeRag } from './update.js';

/** Settings of {@link createBridgeRag}. */
export interface BridgeRagSettings {
  /** Method name used in manifests and the CLI. @default 'bridge-rag' */
  name?: string;
  /** Option defaults of this instance (over {@link BRIDGE_RAG_DEFAULTS}). */
  defaults?: Partial<BridgeRagOptions>;
  /**
   * Entity extractor for indexing and queries. @default `createEntityExtractor(ctx.textAnalyzer)`
   * (core's, over the build context's text analyzer); a build or load whose context has none is
   * refused with an `InvalidArgumentError` saying so.
   */
  extractor?: EntityExtractor;
}

/** On-disk format version written by `save`. */
export const BRIDGE_RAG_FORMAT_VERSION = 1;

/**
 * The providers a bridge-rag index depends on: the embedder (chunk and query vectors) and the
 * vector index (`vectors.bin`). No task is asked anything, at build or query time.
 */
const USES = ['embedder', 'vectorIndex'] as const;

/** The task contracts bridge-rag calls: none (it reads entities with the text analyzer). */
const TASKS: MethodTasks = { build: {}, retrieve: {} };

/** Who the message of a missing text analyzer names. */
const EXTRACTOR_USER = { method: 'bridge-rag', factory: 'createBridgeRag' };

/**
 * bridge-rag, grag's own method: hybrid BM25 + dense entry passages, a passage–entity graph read
 * without a model and linked across the corpus, and bridge passages (title and mention bridges)
 * placed behind the first entry passages for the second hop of a multi-hop question.
 */
export function createBridgeRag(
  settings: BridgeRagSettings = {},
): Method<BridgeRagIndex, BridgeRagOptions, BridgeRagRetrieveOptions> {
  const name = settings.name ?? 'bridge-rag';
  const extractorOf = (ctx: BuildContext, caller: string): EntityExtractor =>
    settings.extractor ?? contextEntityExtractor(ctx, caller, EXTRACTOR_USER);
  return defineMethod({
    name,
    description: "grag's own: hybrid entry passages + linked passage-entity graph, title and mention bridges",
    formatVersion: BRIDGE_RAG_FORMAT_VERSION,
    uses: USES,
    tasks: TASKS,
    // The query options are in both lists: a build sets their defaults, a query overrides them.
    optionKeys: {
      build: BRIDGE_RAG_BUILD_OPTION_KEYS,
      retrieve: BRIDGE_RAG_RETRIEVE_OPTION_KEYS,
      retrieveDefaults: BRIDGE_RAG_RETRIEVE_DEFAULT_KEYS,
    },
    passageRanking: { kinds: ['chunk'] },
    resolve: (caller, options) => resolveBridgeRagOptions(caller, settings.defaults, options),
    build: (docs, ctx, options) =>
      buildBridgeRagIndex({ name, docs, ctx, options, extractor: () => extractorOf(ctx, `${name} build`) }),
    update: (index, change, ctx, options) => updateBridgeRag(index, change, ctx, options, name),
    retrieve: (index, query, options) => retrieveBridgeRag(index, query, options, name),
    save: saveBridgeRag,
    load: (target, ctx, format) => loadBridgeRag(target, ctx, extractorOf(ctx, `${name} load`), format),
  });
}

/** bridge-rag with default settings (`grag index --method bridge-rag`). */
export const bridgeRag = createBridgeRag();
