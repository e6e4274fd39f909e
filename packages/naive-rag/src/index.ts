export * from './bm25.js';
export * from './bm25-rag.js';
export * from './dense-rag.js';
export {
  type Bm25RagOptions,
  CHUNKING_DEFAULTS,
  type ChunkingOptions,
  DENSE_RAG_DEFAULTS,
  type DenseRagOptions,
} from './options.js';
export { type Bm25RagIndex, type DenseRagIndex, toUnits } from './units.js';
