/**
 * @grag/summary-tree: E2GraphRAG's summary tree over chunks (§3.1) — recursive summaries of
 * consecutive groups, collapsed-tree dense retrieval over every level, occurrence weights summed up
 * the tree — as plain data with save/load.
 */
export * from './collapsed.js';
export * from './io.js';
export * from './tree.js';
export * from './weights.js';
