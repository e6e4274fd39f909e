/**
 * @grag/heterograph: NodeRAG's heterogeneous graph (seven node types), important-entity selection
 * (k-core + betweenness), Leiden communities, k-means semantic matching, HNSW semantic edges, dual
 * search and shallow personalized PageRank search.
 */
export * from './centrality.js';
export type { CrossNodeLimits, CrossNodeSelection } from './cross-nodes.js';
export * from './graph.js';
export * from './kmeans.js';
export * from './leiden.js';
export * from './names.js';
export { randomInt, seededRandom, shuffleInPlace } from './random.js';
export * from './search.js';
export * from './types.js';
