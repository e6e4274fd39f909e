/**
 * Graph primitives shared by grag's methods: a CSR view of graphology graphs, PageRank and
 * personalized PageRank on typed arrays, exact k-nearest-neighbour graphs, and knowledge-graph
 * assembly with entity merging and corpus-level entity linking.
 */
export * from './csr.js';
export * from './kg.js';
export * from './knn.js';
export * from './link-keys.js';
export * from './linking.js';
export * from './local-search.js';
export * from './local-search-graph.js';
export * from './local-search-ranking.js';
export { cleanEntityName, normalizeEntityName } from './names.js';
export * from './pagerank.js';
export * from './vocabulary.js';
