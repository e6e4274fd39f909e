/**
 * @grag/e2graphrag: E2GraphRAG (Zhao et al. 2025) — a summary tree (via @grag/summary-tree) and an
 * entity graph extracted without any model, joined by entity↔chunk indexes, with adaptive
 * local/global retrieval (Algorithm 1).
 */
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
export {
  BRIDGE_ORDERS,
  type Bridge,
  type BridgeInput,
  type BridgeOptions,
  type BridgeOrder,
  expandBridges,
  homeChunks,
} from './bridges.js';
export * from './entities.js';
export { entityAwareRank } from './evidence.js';
export * from './graph.js';
export * from './linking.js';
export * from './method.js';
export {
  E2GRAPHRAG_DEFAULTS,
  E2GRAPHRAG_PAPER_DEFAULTS,
  E2GRAPHRAG_RANKING_DEFAULTS,
  type E2GraphRagOptions,
  type E2GraphRagQueryOptions,
  type E2GraphRagRankingOptions,
  type E2GraphRagRetrieveOptions,
} from './options.js';
export type { E2GraphRagIndex, E2GraphRagKept, E2GraphRagStats } from './types.js';
