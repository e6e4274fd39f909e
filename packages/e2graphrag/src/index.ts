/**
 * @grag/e2graphrag: E2GraphRAG (Zhao et al. 2025) — a summary tree (via @grag/summary-tree) and an
 * entity graph extracted without any model, joined by entity↔chunk indexes, with adaptive
 * local/global retrieval (Algorithm 1).
 */
export * from './bridges.js';
export * from './entities.js';
export * from './graph.js';
export * from './linking.js';
export * from './method.js';
export * from './retrieve.js';
