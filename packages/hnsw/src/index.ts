/**
 * `@grag/hnsw`: the grag `VectorIndex` contract on hnswlib's HNSW graph (via `hnswlib-node`).
 * @packageDocumentation
 */

export { type NativeBaseLayer, readNativeBaseLayer } from './base-layer.js';
export * from './hnsw-index.js';
export { HNSW_ENABLE_HINT, HnswUnavailableError, hnswAvailability } from './native.js';
