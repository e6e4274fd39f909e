import { type BuildContext, InvalidArgumentError, type Method, type MethodTasks } from '@grag/core';
import { createEntityExtractor, type EntityExtractor } from '@grag/core/graph';
import { requireTasks } from '@grag/core/kit';
import { buildBridgeRagIndex } from './build.js';
import {
  BRIDGE_RAG_BUILD_OPTION_KEYS,
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

function contextEntityExtractor(ctx: Pick<BuildContext, 'textAnalyzer'>, caller: string): EntityExtractor {
  if (!ctx.textAnalyzer) {
    throw new InvalidArgumentError(
      'ctx',
      `${caller}: bridge-rag reads entities with a text analyzer and the build context has none; pass \`textAnalyzer: createWinkTextAnalyzer()\` from @grag/offline (createOfflineProviders() includes it), or an \`extractor\` to createBridgeRag.`,
    );
  }
  return createEntityExtractor(ctx.textAnalyzer);
}

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
    settings.extractor ?? contextEntityExtractor(ctx, caller);
  const format = { method: name, formatVersion: BRIDGE_RAG_FORMAT_VERSION, uses: USES, tasks: TASKS.build };
  return {
    name,
    description: "grag's own: hybrid entry passages + linked passage-entity graph, title and mention bridges",
    capabilities: { uses: USES, tasks: TASKS },
    formatVersion: BRIDGE_RAG_FORMAT_VERSION,
    // The query options are in both lists: a build sets their defaults, a query overrides them.
    optionKeys: { build: BRIDGE_RAG_BUILD_OPTION_KEYS, retrieve: BRIDGE_RAG_RETRIEVE_OPTION_KEYS },
    passageRanking: { kinds: ['chunk'] },
    async build(docs, ctx, options = {}) {
      const resolved = resolveBridgeRagOptions(`${name} build`, settings.defaults, options);
      requireTasks(`${name} build`, TASKS.build, ctx.tasks);
      return buildBridgeRagIndex({
        name,
        docs,
        ctx,
        options: resolved,
        extractor: () => extractorOf(ctx, `${name} build`),
      });
    },
    update: async (index, change, ctx, options = {}) => {
      requireTasks(`${name} update`, TASKS.build, ctx.tasks);
      return updateBridgeRag(index, change, ctx, options, name);
    },
    retrieve: (index, query, options = {}) => retrieveBridgeRag(index, query, options, name),
    save: (index, target) => saveBridgeRag(index, target, format),
    load: (target, ctx) => loadBridgeRag(target, ctx, extractorOf(ctx, `${name} load`), format),
  };
}

/** bridge-rag with default settings (`grag index --method bridge-rag`). */
export const bridgeRag = createBridgeRag();
