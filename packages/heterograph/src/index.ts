/**
 * @grag/heterograph: NodeRAG's heterogeneous graph (seven node types), important-entity selection
 * (k-core + betweenness), Leiden communities, k-means semantic matching, HNSW semantic edges, dual
 * search and shallow personalized PageRank search.
 */

/**
 * The seeded generator of this package's algorithms is `weylFmix32` from `@grag/core` (exported
 * here as `seededRandom`, as before); `randomInt` and `shuffleInPlace` are core's.
 */
export { randomInt, shuffleInPlace, weylFmix32 as seededRandom } from '@grag/core/kit';
export * from './centrality.js';
export { EDGE_KINDS, type HeteroGraphArrays } from './compact.js';
export type { CrossNodeLimits, CrossNodeSelection } from './cross-nodes.js';
export * from './graph.js';
export { KMEANS_DEFAULTS, type KMeansOptions, type KMeansResult, kMeans } from './kmeans.js';
export * from './leiden.js';
export * from './names.js';
export * from './search.js';
export * from './semantic-edges.js';
export * from './semantic-matching.js';
export * from './types.js';
