import type { IndexProviderKind, Method, MethodTasks } from '@grag/core';
import { defineMethod } from '@grag/core/kit';
import { buildKetRag } from './build.js';
import {
  BUILD_OPTION_KEYS,
  KET_RAG_RETRIEVE_DEFAULT_KEYS,
  KET_RAG_RETRIEVE_OPTION_KEYS,
  type KetRagOptions,
  type KetRagRetrieveOptions,
  type KetRagSettings,
  resolveKetRagOptionsFor,
} from './options.js';
import { loadKetRag, saveKetRag } from './persist.js';
import { retrieveKetRag } from './retrieve.js';
import type { KetRagIndex } from './types.js';
import { updateKetRag } from './update.js';
import { KET_RAG_VARIANTS, type KetRagVariant } from './variants.js';

/**
 * Version of the index files' layout: 2 stores each vector collection once and graphs as typed arrays,
 * 3 adds the token counts, 4 stores an HNSW index as its graph alone, 5 the entity vocabulary
 * (`vocabulary.bin`) instead of folding every name again at load (1 to 4 still load).
 */
const FORMAT_VERSION = 5;

/**
 * What a loaded index depends on: retrieval embeds the query and searches the stored vectors
 * (vector-index files and vector indexes rebuilt from float32 rows). It never calls the task suite:
 * the skeleton's extractions are stored, so an index loads with other tasks.
 */
const USES: readonly IndexProviderKind[] = ['embedder', 'vectorIndex'];

/**
 * The task contracts KET-RAG calls: graph extraction of the core chunks and summaries of
 * descriptions given more than once (build, the skeleton; variants without a skeleton, such as
 * `keyword-rag` and `text-rag`, call neither). Retrieval calls no task.
 */
const TASKS: MethodTasks = { build: { extractGraph: 1, summarize: 1 }, retrieve: {} };

/**
 * KET-RAG (Huang et al. 2025, "KET-RAG: A Cost-Efficient Multi-Granular Indexing Framework for
 * Graph-RAG") and the solutions it is compared with, as one method: pick one with `variant` (see
 * {@link KET_RAG_VARIANTS}); every variant is stored under the same method name and reads its
 * variant back from the manifest.
 *
 * Build (Algorithm 3): chunk; split chunks into sub-chunks; KNN chunk graph; core chunks (top β by
 * PageRank, or uniform); graph extraction on the core chunks only, entity descriptions and
 * embeddings, chunk links rewired to sub-chunks; the text-keyword bipartite graph over all
 * sub-chunks. Retrieve (Algorithm 4): GraphRAG local search on the skeleton with λ·L tokens, then the
 * keyword channel with what is left. Update: only the added documents' chunks are embedded and
 * extracted; the global stages are recomputed from kept and new results, and with `full` the core
 * set is selected again as a build does (see the README's Updates).
 */
export function createKetRag(
  settings: KetRagSettings = {},
): Method<KetRagIndex, KetRagOptions, KetRagRetrieveOptions> {
  const name = settings.name ?? 'ket-rag';
  return defineMethod({
    name,
    description: `KET-RAG: KG skeleton on PageRank core chunks + keyword bipartite graph (--variant ${KET_RAG_VARIANTS.join('|')})`,
    formatVersion: FORMAT_VERSION,
    uses: USES,
    tasks: TASKS,
    optionKeys: {
      build: BUILD_OPTION_KEYS,
      retrieve: KET_RAG_RETRIEVE_OPTION_KEYS,
      retrieveDefaults: KET_RAG_RETRIEVE_DEFAULT_KEYS,
    },
    passageRanking: { kinds: ['chunk'], order: 'score' },
    resolve: (caller, options) =>
      resolveKetRagOptionsFor(caller, [{ variant: settings.variant }, settings.defaults, options]),
    build: buildKetRag,
    retrieve: (index, query, options) => retrieveKetRag(name, index, query, options),
    save: (index, target, format) => saveKetRag(format, index, target),
    load: (target, ctx, format) => loadKetRag(format, target, ctx),
    update: (index, change, ctx, options) => updateKetRag(name, index, change, ctx, options),
  });
}

/** KET-RAG-P with default settings (method name `'ket-rag'`; pass `variant` to build another). */
export const ketRag = createKetRag();

/** One method per variant, each building its variant by default (all share the name `'ket-rag'`). */
export const ketRagVariants: Readonly<
  Record<KetRagVariant, Method<KetRagIndex, KetRagOptions, KetRagRetrieveOptions>>
> = Object.fromEntries(KET_RAG_VARIANTS.map((variant) => [variant, createKetRag({ variant })])) as Record<
  KetRagVariant,
  Method<KetRagIndex, KetRagOptions, KetRagRetrieveOptions>
>;
