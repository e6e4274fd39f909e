/**
 * `@grag/core`: grag's contracts — the types every package shares (`Document`, `Chunk`,
 * `Retrieval`, ...), the errors, the model contracts (`ChatModel`, `Embedder`) with the few
 * functions every caller of a model needs, the task contracts (`TASK_CONTRACTS`, `TaskSuite` and each task's result),
 * the method contract (`Method`, `BuildContext`, `RetrieveOptions`, updates), the storage contract
 * (`IndexStore`), the vector-index contract (`VectorIndex`), the loader, tokenizer, meter and
 * build-runtime contracts, and the text-analysis contract (`TextAnalyzer`). It holds no implementation: every module behind this entry is under
 * `src/contracts/` and imports nothing else (`scripts/check-architecture.ts` checks it).
 *
 * The implementations are entry points of their own: `@grag/core/kit` (the method kit:
 * `createBuildContext`, options, persistence, runtime, meter, cache, chunking, tokenizer, BM25, flat
 * index, ...), `@grag/core/graph` (graph algorithms), `@grag/core/store` (index stores),
 * `@grag/core/tasks` (prompt tasks and parsers). The committed list of each entry point's names is
 * `api/core.api.md`.
 *
 * @packageDocumentation
 */
export {
  AbortError,
  BuildStageError,
  ConvergenceError,
  GragError,
  IndexFormatError,
  InputError,
  InvalidArgumentError,
  ModelOutputError,
  OutputError,
  ProviderError,
  StateError,
  throwIfAborted,
} from './contracts/errors.js';
export type {
  LoadedFile,
  Loader,
  LoaderInput,
  LoaderLimits,
  LoaderOptions,
  RecordFields,
  SkippedInput,
  TextEncodingName,
} from './contracts/loader.js';
export type { MeterSnapshot, StageUsage, UsageMeter } from './contracts/meter.js';
export {
  type BuildContext,
  DEFAULT_BUDGET_TOKENS,
  INDEX_PROVIDER_KINDS,
  type IndexChange,
  type IndexProviderKind,
  type IndexUpdate,
  type Method,
  type MethodCapabilities,
  type MethodOptionKeys,
  type MethodTasks,
  type PassageRanking,
  type ProgressEvent,
  type ProgressReporter,
  type RetrieveOptions,
  type UpdateOptions,
  type UpdateReport,
} from './contracts/method.js';
export {
  type ChatCallOptions,
  type ChatMessage,
  type ChatModel,
  type ChatResult,
  type ChatRole,
  type ChatStreamPart,
  type ChatTaskInfo,
  type EmbedCallOptions,
  type Embedder,
  type EmbedResult,
  embedAll,
  type FittableEmbedder,
  generateText,
  isFittableEmbedder,
  modelFingerprint,
  type TokenUsage,
} from './contracts/models.js';
export {
  type BuildIssue,
  type BuildRun,
  type BuildRuntimeSettings,
  type CheckpointStore,
  DEFAULT_BUILD_CONCURRENCY,
} from './contracts/runtime.js';
export type {
  ArtifactWriter,
  IndexManifest,
  IndexStore,
  ManifestInput,
  StoredIndex,
  StoreLock,
  StoreLockOptions,
  StoreTarget,
  VectorCollectionOptions,
  VectorPrecision,
} from './contracts/store.js';
export { isVectorPrecision, VECTOR_PRECISIONS } from './contracts/store.js';
export {
  type AnswerStreamPart,
  canStream,
  collectChatStream,
  type StreamingChatModel,
  streamChat,
} from './contracts/streaming.js';
export {
  type AnswerWithCitations,
  type CommunityAssessment,
  type ContextItem,
  DEFAULT_ENTITY_TYPES,
  EVERY_TASK_V1,
  type GraphExtraction,
  type GraphExtractionOptions,
  type ParseIssue,
  type QueryEntities,
  type QueryEntitiesOptions,
  type QueryGraph,
  type QueryGraphEdge,
  type QueryGraphNode,
  type QueryVocabulary,
  type SemanticUnitDecomposition,
  type SemanticUnitRecord,
  type SummarizeOptions,
  TASK_CONTRACTS,
  type TaskArguments,
  type TaskContract,
  type TaskJudgement,
  type TaskName,
  type TaskResult,
  type TaskSuite,
  type TaskVersions,
  type TitleDescription,
  taskVersion,
  type UnitRelationship,
  type VocabularyMatch,
  type VocabularyMatchOptions,
} from './contracts/tasks.js';
export type {
  AnalyzeCallOptions,
  TextAnalysis,
  TextAnalyzer,
  TextToken,
  TextTokenType,
} from './contracts/text.js';
export {
  type EncodingName,
  hasTokenOffsets,
  type OffsetTokenizer,
  type Tokenizer,
} from './contracts/tokenizer.js';
export type {
  Chunk,
  Document,
  DocumentSegment,
  ExtractedEntity,
  ExtractedRelation,
  KgEntity,
  KgRelation,
  Provenance,
  Retrieval,
  RetrievedItem,
  SourceLocation,
} from './contracts/types.js';
export {
  type GraphVectorIndex,
  indexVectors,
  isGraphVectorIndex,
  isStoredVectors,
  type Metric,
  type SearchableVectors,
  type StoredVectorSearchOptions,
  type StoredVectors,
  storedSearchFilter,
  storedVectorRows,
  type VectorHit,
  type VectorIndex,
  type VectorIndexFactory,
  type VectorIndexOptions,
  type VectorSearchOptions,
} from './contracts/vector.js';
