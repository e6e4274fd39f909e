/**
 * Truss decomposition, maximal k-truss communities and Q-Peel attributed community search
 * (DA-RAG §5) on typed arrays.
 */
export * from './decomposition.js';
export * from './graph.js';
export * from './induced.js';
export type { LocalSearchResult } from './local-search.js';
export * from './measures.js';
export type { Pinning } from './phase-bound.js';
export * from './qpeel.js';
export * from './triangles.js';
export * from './truss-index.js';
