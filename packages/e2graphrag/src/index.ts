/**
 * @grag/e2graphrag: E2GraphRAG (Zhao et al. 2025) — a summary tree (via @grag/summary-tree) and an
 * entity graph extracted without any model, joined by entity↔chunk indexes, with adaptive
 * local/global retrieval (Algorithm 1).
 */

// The passage–entity graph and its building blocks moved to @grag/core/graph (shared with
// @grag/bridge-rag); re-exported here as before.
export {
  BRIDGE_ORDERS,
  type Bridge,
  type BridgeInput,
  type BridgeOptions,
  type BridgeOrder,
  createEntityExtractor,
  ENTITY_EXTRACTOR_DEFAULTS,
  type EntityExtractor,
  type EntityExtractorOptions,
  EntityGraph,
  type EntityGraphData,
  entityExtractorFromFunction,
  entityVocabulary,
  expandBridges,
  homeChunks,
  type LinkChunk,
  type LinkedChunkEntities,
  linkChunkEntities,
  linkQueryEntities,
  sentencesOf,
} from '@grag/core/graph';
export {
  ADAPTIVE_RETRIEVAL_DEFAULTS,
  type AdaptiveRetrievalIndex,
  type AdaptiveRetrievalOptions,
  type AdaptiveRetrievalResult,
  type AdaptiveRetrievalTrace,
  adaptiveRetrieve,
  type DenseSearch,
  type EvidenceGroup,
  type MappingStep,
  type RetrievalBranch,
} from './adaptive.js';
export { entityAwareRank } from './evidence.js';
export * from './method.js';
export {
  E2GRAPHRAG_DEFAULTS,
  E2GRAPHRAG_OFFLINE_SETTINGS,
  E2GRAPHRAG_PAPER_DEFAULTS,
  E2GRAPHRAG_PRESET_OPTIONS,
  E2GRAPHRAG_PRESETS,
  E2GRAPHRAG_RANKING_DEFAULTS,
  type E2GraphRagOptions,
  type E2GraphRagPreset,
  type E2GraphRagQueryOptions,
  type E2GraphRagRankingOptions,
  type E2GraphRagRetrieveOptions,
} from './options.js';
export type { E2GraphRagIndex, E2GraphRagKept, E2GraphRagStats } from './types.js';
