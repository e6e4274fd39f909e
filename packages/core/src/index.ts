/**
 * `@grag/core`: what a pipeline author uses — contracts and types, errors, chunking, the
 * tokenizer, vector indexes, BM25 and entry points, graph assembly and search, persistence, the
 * meter and call cache, and the prompt task suite. Prompt texts, parsers and renderers are in
 * `@grag/core/tasks`; the method kit, graph algorithms and index stores also have entry points of
 * their own (`@grag/core/kit`, `@grag/core/graph`, `@grag/core/store`). The committed list of
 * each entry point's names is `api/core.api.md`.
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
  documentUnits,
  type SemanticBreakpoint,
  type SemanticChunkInput,
  type SemanticChunkOptions,
  type Span,
  semanticChunkDocuments,
  splitSentences,
  withTitle,
} from './chunking/index.js';
export {
  chunkItem,
  type FirstItemsOptions,
  firstItems,
  type PackContextOptions,
  type PackedContext,
  packContext,
  rankDepthFor,
  renderItem,
} from './context.js';
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
  type LinkableItem,
  type LocalSearchEntity,
  type LocalSearchGraph,
  type LocalSearchInput,
  type LocalSearchOptions,
  type LocalSearchRelationship,
  type LocalSearchResult,
  type LocalSearchTextUnit,
  linkEntities,
  localSearch,
  normalizeEntityName,
  type PageRankOptions,
  type PprOptions,
  type PprUpdate,
  pageRank,
  personalizedPageRank,
  type SkippedExtraction,
  type VocabularyMatch,
  type VocabularyMatchOptions,
} from './graph/index.js';
export {
  Bm25Index,
  type Bm25Options,
  type EntryPointMode,
  type EntryPointQuery,
  reciprocalRankFusion,
  searchEntryPoints,
  searchEntryPointsAsync,
} from './lexical/index.js';
export {
  baseTitle,
  decodeFileText,
  formatLocation,
  type LoadedFile,
  type Loader,
  type LoaderInput,
  type LoaderLimits,
  type LoaderOptions,
  type RecordFields,
  type SkippedInput,
  segmentAt,
  textLoader,
} from './loader.js';
export {
  Meter,
  type MeterOptions,
  type MeterSnapshot,
  meteredChat,
  meteredEmbedder,
  type StageUsage,
} from './meter.js';
export * from './method.js';
export {
  type IndexProviderKind,
  type IndexProviders,
  type IndexWriter,
  indexProviders,
  type MethodIndexFormat,
  type MethodIndexHeader,
  type OpenedIndex,
  type OpenMethodIndexOptions,
  openMethodIndex,
  packFloat32Rows,
  writeMethodIndex,
} from './method-index.js';
export * from './models.js';
export {
  assertKnownOptions,
  assertMethodOptions,
  checkOption,
  type OptionRule,
  type OptionsSpec,
  opt,
  optionKeys,
  pickOptions,
  RETRIEVE_OPTION_KEYS,
  RETRIEVE_OPTION_RULES,
  resolveCheckedOptions,
  resolveOptions,
  validateOptions,
} from './options.js';
export {
  checkManifest,
  chunkFields,
  chunkSchema,
  type IndexManifest,
  MANIFEST_FILE,
  type ManifestInput,
  parseManifest,
  readManifest,
  sourceLocationSchema,
} from './persistence.js';
export type { ModelPrice, PriceTable } from './pricing.js';
export {
  type ChunkRef,
  type CitedSource,
  citedSources,
  mergeProvenance,
  provenanceOf,
  sourceLabel,
  uniqueLocations,
  withLocations,
} from './provenance.js';
export { mulberry32, type Random, randomInt, shuffleInPlace, weylFmix32 } from './random.js';
export * from './runtime.js';
export {
  type DirectoryStore,
  type DirectoryStoreOptions,
  directoryStore,
  toIndexStore,
} from './store/directory.js';
export type { CreationProblem, IndexTarget } from './store/directory-files.js';
export { withStoreLock } from './store/lock.js';
export { type MemoryStoreOptions, memoryStore } from './store/memory.js';
export { checkArtifactName } from './store/scratch.js';
export type {
  ArtifactWriter,
  IndexStore,
  StoredIndex,
  StoreLock,
  StoreLockOptions,
  StoreTarget,
  VectorCollectionOptions,
} from './store/types.js';
export {
  type AnswerStreamPart,
  canStream,
  collectChatStream,
  type StreamingChatModel,
  streamAnswer,
  streamChat,
} from './streaming.js';
export {
  type AnswerWithCitations,
  type CommunityAssessment,
  type ContextItem,
  createPromptTasks,
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
  hasTokenOffsets,
  type OffsetTokenizer,
  type Tokenizer,
} from './tokenizer.js';
export * from './types.js';
export {
  assertSameEmbedder,
  type IndexChangePlan,
  keptFitNote,
  planIndexChange,
  refitForFullUpdate,
  startUpdate,
} from './update.js';
export {
  checkIndexFile,
  type Infer,
  type NumberBounds,
  type ObjectOf,
  type OptionalSchema,
  type Schema,
  shapeIssue,
  v,
  validate,
} from './validate.js';
export {
  cosineSimilarity,
  FlatIndex,
  type FlatIndexOptions,
  flatIndexFactory,
  indexVectors,
  isStoredVectors,
  type Metric,
  type StoredVectors,
  type VectorHit,
  type VectorIndex,
  type VectorIndexFactory,
  type VectorIndexOptions,
  type VectorSearchOptions,
} from './vector/index.js';
