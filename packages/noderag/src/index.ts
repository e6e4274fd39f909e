/**
 * @grag/noderag: NodeRAG (Xu et al. 2025) for grag — a heterogeneous graph of seven node types built
 * from semantic units, retrieved by dual search and shallow personalized PageRank.
 */
export * from './method.js';
export * from './options.js';
export {
  buildNodeRag,
  layBaseLayer,
  type NodeRagBuildStats,
  type NodeRagIndex,
  textUnits,
} from './pipeline.js';
