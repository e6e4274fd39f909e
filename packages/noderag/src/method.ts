import type { Method, MethodTasks } from '@grag/core';
import { defineMethod, type UpdatableMethod } from '@grag/core/kit';
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
export type NodeRagMethod = UpdatableMethod<NodeRagIndex, NodeRagOptions, NodeRagRetrieveOptions>;

/**
 * On-disk layout version written by `save`: 4 stores BM25 over the embedded nodes' texts
 * (`lexical.bm25`) and the SHA-256 of `update.json` in `chunks.json` (so `load` decodes the update
 * data only when an update reads it); 3 stores the graph as typed arrays with its semantic edges
 * (`graph.arrays`, `graph-text.json`) and an HNSW index without its vectors (`hnsw-graph.bin`); 2
 * stored the embeddings once (`embeddings.rows`; no `vectors.bin` when the vector-index factory is
 * exact) and gzips the JSON files but the build stats.
 */
export const NODERAG_FORMAT_VERSION = 4;
/**
 * Older layout versions `load` still reads (3: BM25 built at load, `update.json` decoded at load;
 * 2: also `graph.json` and `vectors.bin`; 1: also `embeddings.f32` and plain JSON).
 */
const READS = [1, 2, 3] as const;

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
  const retrieval = { name, defaults: settings.retrieveDefaults };
  return defineMethod({
    name,
    description: 'NodeRAG: heterograph of 7 node types, dual search + shallow PPR',
    formatVersion: NODERAG_FORMAT_VERSION,
    reads: READS,
    uses: USES,
    tasks: TASKS,
    optionKeys: { build: NODERAG_BUILD_OPTION_KEYS, retrieve: NODERAG_RETRIEVE_OPTION_KEYS },
    passageRanking: { kinds: ['text', 'semantic-unit'], order: 'score' },
    resolve: (caller, options) => resolveNodeRagOptions(caller, settings.defaults, options),
    build: buildNodeRag,
    update: (index, change, ctx, options) => updateNodeRag(name, index, change, ctx, options),
    retrieve: (index, query, options) => retrieveNodeRag(index, query, options, retrieval),
    save: saveNodeRag,
    load: loadNodeRag,
  });
}

/** NodeRAG with the paper's and the official code's defaults; CLI name `noderag`. */
export const nodeRag = createNodeRag();
