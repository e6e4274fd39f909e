/**
 * DA-RAG for grag: a chunk-layer oriented graph index with query-time attributed community search
 * (k-truss + Q-Peel, via `@grag/ktruss`).
 */

export { type LayerTrace, spreadK } from './community-search.js';
export { type ChunkLayerInput, chunkLayerEdges } from './layers.js';
export * from './measures.js';
export * from './method.js';
export {
  DA_RAG_BUILD_OPTION_KEYS,
  DA_RAG_DEFAULTS,
  DA_RAG_OFFLINE_SETTINGS,
  DA_RAG_PAPER_DEFAULTS,
  DA_RAG_PRESET_OPTIONS,
  DA_RAG_PRESETS,
  DA_RAG_QUERY_DEFAULTS,
  DA_RAG_RETRIEVE_OPTION_KEYS,
  type DaRagIndexOptions,
  type DaRagOptions,
  type DaRagPreset,
  type DaRagQueryOptions,
  type DaRagRetrieveOptions,
} from './options.js';
export type { TracedCommunity } from './pack.js';
export type { VectorPostings } from './relevance.js';
export type * from './types.js';
export { ENTITY_TEXT_CHARS, entityText } from './util.js';
