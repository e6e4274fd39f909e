/**
 * `@grag/core/internal`: building blocks that grag's own packages share and a pipeline author
 * rarely needs — defaults tables, the CSR view and typed-array PageRank for algorithm packages,
 * vector-index argument checks and vector math, call-cache keys, meter arithmetic, price lookup,
 * text decoding, entity-linking and local-search steps, and the lenient-parsing helpers. No
 * stability promise: these may change in any release. Everything a pipeline author uses is in
 * `@grag/core`; prompt texts, parsers and renderers are in `@grag/core/tasks`.
 *
 * @packageDocumentation
 */
export {
  callCacheKey,
  chatCallKey,
  embeddingKey,
  readOnlyCache,
  stableJson,
} from './cache.js';
export {
  CHUNK_DEFAULTS,
  documentChunk,
  SEMANTIC_CHUNK_DEFAULTS,
  semanticChunk,
  splitTextByTokens,
  type TokenSpan,
} from './chunking/index.js';
export {
  CSR_DEFAULTS,
  type Csr,
  type CsrFromEdgesOptions,
  cleanEntityName,
  csrFromEdges,
  type IndexEdge,
  type IndexEdgeList,
  KNN_DEFAULTS,
  KNN_TO_GRAPH_DEFAULTS,
  type KnnToGraphOptions,
  KnowledgeGraph,
  knnEdges,
  knnGraphToGraphology,
  type LinkToken,
  LOCAL_SEARCH_DEFAULTS,
  linkKey,
  linkTokens,
  PAGERANK_DEFAULTS,
  PPR_DEFAULTS,
  pageRankCsr,
  personalizationVector,
  personalizedPageRankCsr,
  prepareLocalSearch,
  type RankedRelationship,
  type RankedTextUnit,
  rankRelationships,
  rankTextUnits,
  relationId,
  renderLocalSearchItem,
  type SeedEntity,
  selectSeedEntities,
  stripDisambiguator,
  type ToCsrOptions,
  toCsr,
  UNKNOWN_ENTITY_TYPE,
  withVocabularyMatches,
} from './graph/index.js';
export {
  BM25_DEFAULTS,
  BM25_STOP_WORDS,
  ENTRY_POINT_MODES,
  RRF_K,
  tokenizeForBm25,
} from './lexical/index.js';
export { addStageUsage, emptyStageUsage, STAGE_COUNTERS, UNSTAGED } from './meter.js';
export { INDEX_PROVIDER_KINDS, providerFingerprints } from './method-index.js';
export { closestMatch, editDistance } from './options.js';
export {
  assertSameProviders,
  checkVectorRows,
  completeManifest,
  EMBEDDER_STATE_FILE,
  MANIFEST_VERSION,
  manifestText,
  parseJsonArtifact,
  readBinary,
  readJson,
  restoreEmbedderState,
  saveEmbedderState,
  writeJson,
} from './persistence.js';
export { findPrice, priceTokens } from './pricing.js';
export { hashedBagOfWords } from './simulate.js';
export {
  checkIndexTarget,
  creationProblem,
  foreignEntries,
  INDEX_COMPANION_FILES,
  indexLockPath,
  lockIndexDir,
  realIndexDir,
  sweepIndexLeftovers,
  writeIndexDir,
} from './store/directory-files.js';
export { acquireLockFile, type LockOwner, lockInTurn, pidIsDead } from './store/lock.js';
export { artifactLocator, Scratch, sweepStaleScratch } from './store/scratch.js';
export { type BinaryBytes, type DecodedText, decodeText, type TextEncodingName } from './text-decoding.js';
export { hasTokenOffsets } from './tokenizer.js';
export { float32Rows, indexFileError, indexFileMessage, ShapeIssue } from './validate.js';
export {
  assertK,
  assertVector,
  assertVectorId,
  dot,
  FLAT_INDEX_FORMAT_VERSION,
  FLAT_INDEX_MAGIC,
  norm,
  normalize,
  squaredL2,
} from './vector/index.js';
