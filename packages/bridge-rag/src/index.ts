/**
 * @grag/bridge-rag: grag's own offline graph-RAG method — hybrid BM25 + dense entry passages, a
 * passage–entity graph read without a model and linked across the corpus (core's building blocks,
 * shared with @grag/e2graphrag), and bridge passages for the second hop.
 */
export { chunkTexts } from './build.js';
export * from './method.js';
export {
  BRIDGE_RAG_DEFAULTS,
  BRIDGE_RAG_QUERY_DEFAULTS,
  type BridgeRagOptions,
  type BridgeRagQueryOptions,
  type BridgeRagRetrieveOptions,
} from './options.js';
export type { BridgeRagIndex, BridgeRagKept, BridgeRagStats } from './types.js';
