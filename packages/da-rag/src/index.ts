/**
 * DA-RAG for grag: a chunk-layer oriented graph index with query-time attributed community search
 * (k-truss + Q-Peel, via `@grag/ktruss`).
 */
export { chunkLayerEdges } from './build.js';
export * from './measures.js';
export * from './method.js';
export * from './options.js';
export { type LayerTrace, spreadK, type TracedCommunity } from './retrieve.js';
export type * from './types.js';
export { ENTITY_TEXT_CHARS, entityText } from './util.js';
