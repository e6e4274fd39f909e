export {
  CHUNK_DEFAULTS,
  type ChunkOptions,
  chunkDocument,
  chunkDocuments,
  splitTextByTokens,
  type TokenSpan,
} from './fixed.js';
export {
  SEMANTIC_CHUNK_DEFAULTS,
  type SemanticBreakpoint,
  type SemanticChunkInput,
  type SemanticChunkOptions,
  semanticChunk,
  semanticChunkDocuments,
} from './semantic.js';
export { type Span, splitSentences } from './sentences.js';
export {
  type ChunkingMode,
  type ChunkingSettings,
  chunkBySettings,
  chunkCorpus,
  documentChunk,
  documentUnits,
  titledChunks,
  titledChunksBySettings,
  withTitle,
} from './units.js';
