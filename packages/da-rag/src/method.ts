import type { Method, MethodTasks } from '@grag/core';
import { defineMethod } from '@grag/core/kit';
import { buildDaRagIndex } from './build.js';
import {
  DA_RAG_BUILD_OPTION_KEYS,
  DA_RAG_RETRIEVE_DEFAULT_KEYS,
  DA_RAG_RETRIEVE_OPTION_KEYS,
  type DaRagOptions,
  type DaRagRetrieveOptions,
  resolveDaRagOptions,
} from './options.js';
import { loadDaRag, saveDaRag } from './persist.js';
import { retrieveDaRag } from './retrieve.js';
import type { DaRagIndex } from './types.js';
import { updateDaRagIndex } from './update.js';

/** Settings of {@link createDaRag}. */
export interface DaRagSettings {
  /** Method name used in manifests and the CLI. @default 'da-rag' */
  name?: string;
  /** Option defaults of this instance (over {@link DA_RAG_DEFAULTS}). */
  defaults?: Partial<DaRagOptions>;
}

/**
 * On-disk format version written by `save`: 2 keeps the vectors as core's lossless vector rows
 * (`*.rows`) and the JSON files gzipped; 3 writes a JSON file that would pass `PART_CHARS`
 * characters in parts (`graph.json`, `graph.part-1.json`, …; see `json-parts.ts`), so that no
 * string grows with the corpus.
 */
export const DA_RAG_FORMAT_VERSION = 3;
/**
 * Older format versions `load` still reads (1: float32 `*.f32` rows and plain JSON; 2: each JSON
 * file whole, which is format 3's layout when nothing needs parts).
 */
const READS = [1, 2] as const;

/**
 * The providers a DA-RAG index depends on: the embedder (chunk and entity vectors, the query) and
 * the task suite (`retrieve` asks it to assess each candidate community). The vector index only
 * finds the Similarity layer's neighbours while building; its edges are stored.
 */
const USES = ['embedder', 'tasks'] as const;

/**
 * The task contracts DA-RAG calls: graph extraction and a title and description of each chunk
 * (build, `stages.ts`), and a community assessment per community found (retrieve, with reports on,
 * as they are by default; the offline preset asks for none).
 */
const TASKS: MethodTasks = {
  build: { extractGraph: 1, titleAndDescription: 1 },
  retrieve: { assessCommunity: 1 },
};

/**
 * DA-RAG (Dynamic Attributed community search for RAG): a chunk-layer oriented graph index — the
 * Semantic Chunk, Knowledge Graph and Similarity layers with inter-layer links — and a coarse-to-fine
 * retrieval that runs embedding-attributed community search (k-truss + Q-Peel) on the chunk layer, then
 * on the KG and Similarity working subgraphs of its entities, scores each candidate community with
 * the model over an adaptive range of k, and packs the best into the budget.
 */
export function createDaRag(
  settings: DaRagSettings = {},
): Method<DaRagIndex, DaRagOptions, DaRagRetrieveOptions> {
  const name = settings.name ?? 'da-rag';
  return defineMethod({
    name,
    description: 'DA-RAG: chunk-layer graph index + query-time attributed community search (k-truss, Q-Peel)',
    formatVersion: DA_RAG_FORMAT_VERSION,
    reads: READS,
    uses: USES,
    tasks: TASKS,
    // The query options are in both lists: a build sets their defaults, a query overrides them.
    optionKeys: {
      build: DA_RAG_BUILD_OPTION_KEYS,
      retrieve: DA_RAG_RETRIEVE_OPTION_KEYS,
      retrieveDefaults: DA_RAG_RETRIEVE_DEFAULT_KEYS,
    },
    passageRanking: { kinds: ['community', 'chunk'] },
    resolve: (caller, options) => resolveDaRagOptions(caller, settings.defaults, options),
    build: buildDaRagIndex,
    update: (index, change, ctx, options) => updateDaRagIndex(index, change, ctx, options, name),
    retrieve: (index, query, options) => retrieveDaRag(index, query, options, name),
    save: saveDaRag,
    load: loadDaRag,
  });
}

/** DA-RAG with default settings (method name `'da-rag'`). */
export const daRag = createDaRag();
