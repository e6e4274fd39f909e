import type { Method, MethodTasks } from '@grag/core';
import { requireTasks } from '@grag/core/kit';
import { buildNodeRag } from './build.js';
import {
  NODERAG_BUILD_OPTION_KEYS,
  NODERAG_RETRIEVE_OPTION_KEYS,
  type NodeRagOptions,
  type NodeRagRetrieveOptions,
  resolveNodeRagOptions,
} from './options.js';
import { loadNodeRag, saveNodeRag } from './persist.js';
import { retrieveNodeRag } from './retrieve.js';
import type { NodeRagIndex } from './types.js';
import { updateNodeRag } from './update.js';

/** Settings of {@link createNodeRag}. */
export interface NodeRagSettings {
  /** Method name used in manifests and the CLI. @default 'noderag' */
  name?: string;
  /** Build options overriding {@link NODERAG_DEFAULTS}. */
  defaults?: Partial<NodeRagOptions>;
  /** Retrieve options overriding {@link NODERAG_RETRIEVE_DEFAULTS}. */
  retrieveDefaults?: Partial<NodeRagRetrieveOptions>;
}

/** NodeRAG as a grag {@link Method} whose `update` is always there (see the README's "Updates"). */
export type NodeRagMethod = Method<NodeRagIndex, NodeRagOptions, NodeRagRetrieveOptions> &
  Required<Pick<Method<NodeRagIndex, NodeRagOptions, NodeRagRetrieveOptions>, 'update'>>;

/**
 * On-disk layout version written by `save`: 2 stores the embeddings once (`embeddings.rows`; no
 * `vectors.bin` when the vector-index factory is exact) and gzips the JSON files but the build stats.
 */
export const NODERAG_FORMAT_VERSION = 2;
/** Older layout versions `load` still reads (1: `embeddings.f32` and plain JSON). */
const READS = [1] as const;

/**
 * The providers a NodeRAG index depends on: the embedder (the stored vectors; `retrieve` embeds the
 * query), the task suite (`retrieve` asks it for the query's entities) and the vector index
 * (`vectors.bin` is its file: HNSW with `hnswIndexFactory()` in the context, as the paper builds
 * it, else core's flat index).
 */
const USES = ['embedder', 'tasks', 'vectorIndex'] as const;

/**
 * The task contracts NodeRAG calls: semantic units of each chunk, summaries of the important
 * entities' attributes and a title and description of each community (build, `graph-stages.ts`),
 * and the entities of each question for the dual search (retrieve).
 */
const TASKS: MethodTasks = {
  build: { decomposeSemanticUnits: 1, summarize: 1, titleAndDescription: 1 },
  retrieve: { extractQueryEntities: 1 },
};

/**
 * What a build or an update needs of the task suite: its own tasks and the retrieve ones, since the
 * index retrieves with the suite it was built with (`USES` fingerprints it).
 */
const BUILD_NEEDS = { ...TASKS.build, ...TASKS.retrieve };

/**
 * NodeRAG (Xu et al., "NodeRAG: Structuring Graph-based RAG with Heterogeneous Nodes", 2025) as a
 * grag {@link Method}: build the heterograph G5 of seven node types, retrieve by dual search, shallow
 * personalized PageRank and cross nodes, and return only retrievable content (T, S, A, H, R), grouped
 * by node type within the token budget. `update` adds and removes documents, calling the models only
 * for what the index never asked (see the README's "Updates").
 *
 * @example
 * const index = await nodeRag.build(docs, ctx);
 * const retrieval = await nodeRag.retrieve(index, 'Who founded the shipyard?');
 */
export function createNodeRag(settings: NodeRagSettings = {}): NodeRagMethod {
  const name = settings.name ?? 'noderag';
  const format = {
    method: name,
    formatVersion: NODERAG_FORMAT_VERSION,
    uses: USES,
    reads: READS,
    tasks: TASKS.build,
  };
  const retrieval = { name, defaults: settings.retrieveDefaults };
  return {
    name,
    description: 'NodeRAG: heterograph of 7 node types, dual search + shallow PPR',
    capabilities: { uses: USES, tasks: TASKS },
    formatVersion: NODERAG_FORMAT_VERSION,
    optionKeys: { build: NODERAG_BUILD_OPTION_KEYS, retrieve: NODERAG_RETRIEVE_OPTION_KEYS },
    passageRanking: { kinds: ['text', 'semantic-unit'], order: 'score' },
    async build(docs, ctx, options = {}) {
      const resolved = resolveNodeRagOptions(`${name} build`, settings.defaults, options);
      requireTasks(`${name} build`, BUILD_NEEDS, ctx.tasks);
      return buildNodeRag(docs, ctx, resolved);
    },
    update: async (index, change, ctx, options = {}) => {
      requireTasks(`${name} update`, BUILD_NEEDS, ctx.tasks);
      return updateNodeRag(name, index, change, ctx, options);
    },
    retrieve: (index, query, options = {}) => retrieveNodeRag(index, query, options, retrieval),
    save: (index, target) => saveNodeRag(index, target, format),
    load: async (target, ctx) => {
      requireTasks(`${name} load`, TASKS.retrieve, ctx.tasks);
      return loadNodeRag(target, ctx, format);
    },
  };
}

/** NodeRAG with the paper's and the official code's defaults; CLI name `noderag`. */
export const nodeRag = createNodeRag();
