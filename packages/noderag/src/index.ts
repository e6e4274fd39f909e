/**
 * @grag/noderag: NodeRAG (Xu et al. 2025) for grag — a heterogeneous graph of seven node types built
 * from semantic units, retrieved by dual search and shallow personalized PageRank.
 */
export { buildNodeRag } from './build.js';
export { CONTEXT_TYPE_ORDER } from './context.js';
export { exactBaseLayer, layBaseLayer } from './hnsw.js';
export type { KeptDecomposition, KeptElement, NodeRagKept } from './kept.js';
export * from './method.js';
export {
  NODERAG_BUILD_OPTION_KEYS,
  NODERAG_DEFAULTS,
  NODERAG_OFFLINE_SETTINGS,
  NODERAG_PLAIN_TOP_K,
  NODERAG_PRESET_OPTIONS,
  NODERAG_PRESETS,
  NODERAG_RETRIEVE_DEFAULTS,
  NODERAG_RETRIEVE_OPTION_KEYS,
  type NodeRagOptions,
  type NodeRagPreset,
  type NodeRagQueryOptions,
  type NodeRagRetrieveOptions,
  resolveNodeRagOptions,
} from './options.js';
export { nodeRagStats } from './persist.js';
export type { NodeRagBuildStats, NodeRagIndex, NodeRagLinkingStats } from './types.js';
export { textUnits } from './units.js';
