/**
 * Test helpers that need vitest (an optional peer dependency of `@grag/core`): the shared
 * `VectorIndex` spec suite. Import from `@grag/core/test/vitest`; everything vitest-free is in
 * `@grag/core/test`.
 */

export { type MethodSpecOptions, runMethodSpec } from './method-spec.js';
export { runVectorIndexSpec, type VectorIndexSpecOptions } from './vector-index-spec.js';
