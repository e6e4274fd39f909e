/**
 * `@grag/core/kit`: the method kit, what a method package is written with — `defineMethod` (the
 * method skeleton written once), the build context factory, options, the persistence envelope and its validation kit, the build and update runtime,
 * the meter and prices, the model-call cache, chunking, the tokenizer, BM25 and entry points, the
 * exact flat vector index and vector math, context packing and provenance, the seeded random
 * generators, the text loader's helpers, and the helpers of an embedding provider's calls. Graph algorithms are in `@grag/core/graph`, index
 * stores in `@grag/core/store`, prompt tasks in `@grag/core/tasks`; the contracts they implement
 * are in `@grag/core`.
 *
 * @packageDocumentation
 */

export {
  checkVectorRowsArtifact,
  compress,
  decodeArrays,
  decodeVectorRows,
  decompressed,
  encodeArrays,
  encodeVectorRows,
  packLists,
  type SparseVectorRows,
  type StoredArray,
  sparseVectorRows,
  unpackLists,
  type VectorRowsOptions,
} from './artifact-codec.js';
export { bm25FileArrays, loadBm25File } from './bm25-file.js';
export { createBuildContext } from './build-context.js';
export {
  cachedChat,
  cachedEmbedder,
  callCacheKey,
  chatCallKey,
  embeddingKey,
  FileCallCache,
  MemoryCallCache,
  type ModelCallCache,
  readOnlyCache,
  sha256Hex,
  stableJson,
} from './cache.js';
export {
  CHUNK_DEFAULTS,
  type ChunkingMode,
  type ChunkingSettings,
  type ChunkOptions,
  chunkBySettings,
  chunkCorpus,
  chunkDocument,
  chunkDocuments,
  documentUnits,
  SEMANTIC_CHUNK_DEFAULTS,
  type SemanticBreakpoint,
  type SemanticChunkInput,
  type SemanticChunkOptions,
  type Span,
  semanticChunkDocuments,
  splitSentences,
  splitTextByTokens,
  type TokenSpan,
  titledChunks,
  titledChunksBySettings,
  withTitle,
} from './chunking/index.js';
export {
  chunkItem,
  type FirstItemsOptions,
  firstItems,
  type PackContextOptions,
  type PackedContext,
  packContext,
  prefixedCount,
  rankDepthFor,
  renderItem,
  suffixedCount,
} from './context.js';
export {
  buildTaskNeeds,
  defineMethod,
  type MethodDefinition,
  type UpdatableMethod,
} from './define-method.js';
export {
  assertEmbedValues,
  embeddingBatches,
  embedInBatches,
  positiveIntegerSetting,
  probeVectorLength,
} from './embedding-calls.js';
export {
  changedTitleRecord,
  type EntityIndexKept,
  entitiesStage,
  entityGraphStage,
  entityIndexUpdatable,
  nonBlankChunks,
  nonBlankDocuments,
  requireDocuments,
  titleRecord,
} from './entity-index.js';
export {
  assertSameExtractor,
  ENTITY_INDEX_FILES,
  type EntityIndexHeaderParts,
  entityIndexHeader,
  entityKeptSchema,
  openEntityIndex,
  readEntityGraph,
  readEntityIndexKept,
  readEntityKept,
  readHomes,
  writeEntityIndexFiles,
} from './entity-index-files.js';
export {
  type PackedExtraction,
  packExtractions,
  unpackExtractions,
} from './extraction-codec.js';
export { fromFloat16Bits, toFloat16Bits } from './float16.js';
export { isRetryableStatus, oneLine, type StatusHints, statusHint } from './http-failures.js';
export { lazyField } from './lazy-field.js';
export {
  BM25_DEFAULTS,
  BM25_STOP_WORDS,
  type Bm25Arrays,
  Bm25Index,
  type Bm25Options,
  ENTRY_POINT_MODES,
  type EntryPointMode,
  type EntryPointQuery,
  RRF_K,
  reciprocalRankFusion,
  residualSearch,
  searchEntryPoints,
  searchEntryPointsAsync,
  tokenizeForBm25,
} from './lexical/index.js';
export { baseTitle, decodeFileText, formatLocation, segmentAt, textLoader } from './loader.js';
export {
  addStageUsage,
  emptyStageUsage,
  Meter,
  type MeterOptions,
  meteredChat,
  meteredEmbedder,
} from './meter.js';
export {
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
export { chatModelAs, embedderAs } from './model-identity.js';
export {
  assertKnownOptions,
  assertMethodOptions,
  checkOption,
  closestMatch,
  editDistance,
  namedChoice,
  type OptionRule,
  type OptionsSpec,
  opt,
  optionKeys,
  type PresetOptionsSpec,
  pickOptions,
  type QueryOptions,
  queryOptions,
  RETRIEVE_OPTION_KEYS,
  RETRIEVE_OPTION_RULES,
  resolveCheckedOptions,
  resolveOptions,
  resolvePresetOptions,
  validateOptions,
} from './options.js';
export {
  chunkFields,
  chunkSchema,
  extractedEntitySchema,
  extractedRelationSchema,
  MANIFEST_FILE,
  parseJsonArtifact,
  readJson,
  readManifest,
  sourceLocationSchema,
  writeJson,
} from './persistence.js';
export { findPrice, type ModelPrice, type PriceTable, priceTokens } from './pricing.js';
export {
  type ChunkRef,
  type CitedSource,
  citedSources,
  locationKey,
  mergeProvenance,
  provenanceOf,
  sourceLabel,
  uniqueLocations,
  withLocations,
} from './provenance.js';
export { mulberry32, type Random, randomInt, shuffleInPlace, weylFmix32 } from './random.js';
export { RecentMemo } from './recent-memo.js';
export {
  BuildRuntime,
  buildKey,
  FileCheckpointStore,
  type MapOptions,
  MemoryCheckpointStore,
  requireTasks,
  type StageOptions,
  startBuild,
  trackBuilds,
} from './runtime.js';
export { hashedBagOfWords } from './simulate.js';
export { keyedTable, stringTable } from './string-table.js';
export { type BinaryBytes, type DecodedText, decodeText } from './text-decoding.js';
export { countingWith, getTokenizer } from './tokenizer.js';
export {
  assertSameEmbedder,
  type ChangedChunks,
  changedChunks,
  fullUpdateFit,
  type IndexChangePlan,
  keptChunkPositions,
  keptFitNote,
  type PreparedUpdate,
  planIndexChange,
  prepareUpdate,
  providersAfterRefit,
  refitForFullUpdate,
  refitStage,
  startUpdate,
  type UpdatableIndex,
  type UpdateFit,
  updateEmbeddings,
} from './update.js';
export {
  checkIndexFile,
  type Infer,
  indexFileError,
  type NumberBounds,
  type ObjectOf,
  type OptionalSchema,
  type Schema,
  shapeIssue,
  v,
  validate,
} from './validate.js';
export {
  assertK,
  assertVector,
  assertVectorId,
  FlatIndex,
  type FlatIndexOptions,
  flatIndexFactory,
} from './vector/flat.js';
export { readIndexFile } from './vector/index-file.js';
export { cosineSimilarity, dot, norm, normalize, squaredL2 } from './vector/math.js';
export {
  keptVectorRows,
  keptWithVectorRows,
  readVectorCollection,
  searchVectors,
  writeVectorCollection,
} from './vector-collections.js';
export { exportsVectorGraph, loadVectorGraph, saveVectorGraph } from './vector-graph.js';
