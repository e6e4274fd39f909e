import type { IndexProviderKind, Method, MethodTasks } from '@grag/core';
import { defineMethod } from '@grag/core/kit';
import { buildSgRagIndex } from './build.js';
import {
  resolveBuildOptions,
  resolveRetrieveOptions,
  SG_RAG_BUILD_OPTION_KEYS,
  SG_RAG_RETRIEVE_OPTION_KEYS,
  type SgRagOptions,
  type SgRagRetrieveOptions,
  type SgRagSettings,
} from './options.js';
import { loadSgRagIndex, saveSgRagIndex } from './persist.js';
import { retrieveSgRag } from './retrieve.js';
import type { SgRagIndex } from './types.js';
import { updateSgRagIndex } from './update.js';

/**
 * On-disk format version written by `save`: 3 stores the data graph's edges as typed arrays
 * (`graph.bin`) and its strings once each (`graph.json`); 2 stored the label embeddings once
 * (`labels.rows`; no `labels.bin` when the vector-index factory is exact) and gzips `graph.json` and
 * `update.json`.
 */
export const SG_RAG_FORMAT_VERSION = 3;
/** Older format versions `load` still reads (1: `label-embeddings.f32` and plain JSON; 2: the graph as JSON). */
const READS = [1, 2] as const;

/**
 * What an index depends on: the embedder and the vector index hold the node label embeddings that
 * entity normalization searches; the task suite extracts the graph from documents and the query
 * graph of every question (the path index is SG-RAG's own R*-tree).
 */
const USES: readonly IndexProviderKind[] = ['embedder', 'tasks', 'vectorIndex'];

/**
 * The task contracts SG-RAG calls: graph extraction of each chunk (build and update of a text
 * corpus; a corpus of triples calls none) and the query graph of each question (retrieve).
 */
const TASKS: MethodTasks = { build: { extractGraph: 1 }, retrieve: { extractQueryGraph: 1 } };

/**
 * SG-RAG (Structure Guided RAG for factual queries): a knowledge graph — extracted from the
 * documents or loaded from triples — indexed as paths in an R*-tree keyed by label and dominance
 * embeddings; a query graph is normalized, decomposed into paths, completed, matched path by path and
 * assembled into exact subgraphs whose target bindings answer the question.
 */
export function createSgRag(
  settings: SgRagSettings = {},
): Method<SgRagIndex, SgRagOptions, SgRagRetrieveOptions> {
  const name = settings.name ?? 'sg-rag';
  return defineMethod({
    name,
    description:
      'SG-RAG: query graph -> path decomposition -> dominance embeddings in an R*-tree -> exact subgraphs',
    formatVersion: SG_RAG_FORMAT_VERSION,
    reads: READS,
    uses: USES,
    tasks: TASKS,
    capabilities: { triples: true },
    optionKeys: { build: SG_RAG_BUILD_OPTION_KEYS, retrieve: SG_RAG_RETRIEVE_OPTION_KEYS },
    resolve: (caller, options) => resolveBuildOptions(caller, settings.defaults, options),
    // The manifest records the index's options; the triples and text settings are the build's.
    savedParams: (resolved) => resolved.index,
    build: buildSgRagIndex,
    retrieve: (index, query, options) =>
      retrieveSgRag(
        index,
        query,
        resolveRetrieveOptions(`${name} retrieve`, settings.retrieveDefaults, options),
        name,
      ),
    update: (index, change, ctx, options) => updateSgRagIndex(index, change, ctx, options, name),
    save: saveSgRagIndex,
    load: (target, ctx, format) => {
      const custom = settings.defaults?.dominanceEmbedder;
      return loadSgRagIndex(target, ctx, format, typeof custom === 'object' ? custom : undefined);
    },
  });
}

/** SG-RAG with default settings; CLI name `sg-rag`. */
export const sgRag = createSgRag();
