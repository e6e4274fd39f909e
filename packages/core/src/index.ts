/**
 * `@grag/core`: what a pipeline author uses — contracts and types, errors, chunking, the
 * tokenizer, vector indexes, BM25 and entry points, graph assembly and search, persistence, the
 * meter and call cache, and the prompt task suite. Prompt texts, parsers and renderers are in
 * `@grag/core/tasks`; building blocks shared by grag's own packages (defaults tables, CSR and
 * typed-array PageRank, parser helpers, cache keys, ...) are in `@grag/core/internal`, with no
 * stability promise. The committed list of each entry point's names is `api/core.api.md`.
 *
 * Kept here only while method packages import them from `@grag/core` (each is also exported from
 * `@grag/core/internal`, or `@grag/core/tasks` for `createSimulatedChat`, where it belongs; drop it
 * from this file once no method package imports it from the root): `BM25_DEFAULTS`,
 * `BM25_STOP_WORDS`, `tokenizeForBm25`, `ENTRY_POINT_MODES`, `RRF_K`, `knnEdges`, `linkKey`,
 * `withVocabularyMatches`, `prepareLocalSearch`, `renderLocalSearchItem`, `createSimulatedChat`.
 *
 * @packageDocumentation
 */
export {
  cachedChat,
  cachedEmbedder,
  FileCallCache,
  MemoryCallCache,
  type ModelCallCache,
} from './cache.js';
export {
  type ChunkingMode,
  type ChunkOptions,
  chunkCorpus,
  chunkDocument,
  chunkDocuments,
  type SemanticBreakpoint,
  type SemanticChunkInput,
  type SemanticChunkOptions,
  type Span,
  semanticChunkDocuments,
  splitSentences,
  withTitle,
} from './chunking/index.js';
export { type PackContextOptions, type PackedContext, packContext } from './context.js';
export * from './errors.js';
export {
  type AliasKind,
  assembleKnowledgeGraph,
  buildKnnGraph,
  type EntityLinking,
  type EntityLinkingOptions,
  type EntityLinkingStats,
  EntityVocabulary,
  type ExtractionItem,
  type ExtractionLike,
  type ExtractionSource,
  type KnnEdge,
  type KnnGraph,
  type KnnOptions,
  type KnowledgeGraph,
  KnowledgeGraphBuilder,
  type KnowledgeGraphLinking,
  type KnowledgeGraphOptions,
  knnEdges,
  type LinkableItem,
  type LocalSearchEntity,
  type LocalSearchGraph,
  type LocalSearchInput,
  type LocalSearchOptions,
  type LocalSearchRelationship,
  type LocalSearchResult,
  type LocalSearchTextUnit,
  linkEntities,
  linkKey,
  localSearch,
  normalizeEntityName,
  type PageRankOptions,
  type PprOptions,
  type PprUpdate,
  pageRank,
  personalizedPageRank,
  prepareLocalSearch,
  renderLocalSearchItem,
  type SkippedExtraction,
  type VocabularyMatch,
  type VocabularyMatchOptions,
  withVocabularyMatches,
} from './graph/index.js';
export {
  BM25_DEFAULTS,
  BM25_STOP_WORDS,
  Bm25Index,
  type Bm25Options,
  ENTRY_POINT_MODES,
  type EntryPointMode,
  type EntryPointQuery,
  RRF_K,
  reciprocalRankFusion,
  searchEntryPoints,
  tokenizeForBm25,
} from './lexical/index.js';
export {
  Meter,
  type MeterOptions,
  type MeterSnapshot,
  meteredChat,
  meteredEmbedder,
  type StageUsage,
} from './meter.js';
export * from './method.js';
export * from './method-index.js';
export * from './models.js';
export * from './options.js';
export * from './persistence.js';
export type { ModelPrice, PriceTable } from './pricing.js';
export * from './runtime.js';
export {
  type AnswerWithCitations,
  type CommunityAssessment,
  type ContextItem,
  createPromptTasks,
  createSimulatedChat,
  type GraphExtraction,
  type GraphExtractionOptions,
  type ParseIssue,
  type PromptTaskOptions,
  type PromptTasks,
  type QueryEntities,
  type QueryEntitiesOptions,
  type QueryGraph,
  type QueryGraphEdge,
  type QueryGraphNode,
  type SemanticUnitDecomposition,
  type SemanticUnitRecord,
  type SimulatedChatOptions,
  type SummarizeOptions,
  type TaskName,
  type TaskSuite,
  type TitleDescription,
  type UnitRelationship,
} from './tasks/index.js';
export {
  type EncodingName,
  getTokenizer,
  type OffsetTokenizer,
  type Tokenizer,
} from './tokenizer.js';
export * from './types.js';
export * from './validate.js';
export {
  cosineSimilarity,
  FlatIndex,
  type FlatIndexOptions,
  flatIndexFactory,
  indexVectors,
  type Metric,
  type VectorHit,
  type VectorIndex,
  type VectorIndexFactory,
  type VectorIndexOptions,
  type VectorSearchOptions,
} from './vector/index.js';
