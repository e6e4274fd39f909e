/**
 * Test helpers that need vitest (an optional peer dependency of `@grag/core`): the shared
 * `VectorIndex`, `IndexStore` and `Method` spec suites, the provenance suite (`runLocationSpec`), `expectSameRetrievals`, `expectIdenticalRetrievals`, `expectCleanResume`, `expectConcurrencyLimits`, `expectRetrieveOptionKeys`, `updateReplacing`, `replaceAndRebuild` and `checkIndexFormats` (with `rewriteAsFormat1`), the temporary directories of `temporaryRoot` and `temporaryDirs`, and `refusalOf` (the error a call throws). Import from `@grag/core/test/vitest`; everything vitest-free is in
 * `@grag/core/test`.
 */

export { expectConcurrencyLimits } from './concurrency-expect.js';
export {
  checkIndexFormats,
  EXACT_AND_SAVED_FACTORIES,
  type Format1Vectors,
  type IndexFormatChecks,
  type IndexFormatResult,
  rewriteAsFormat1,
  savedFlatIndexFactory,
} from './index-format.js';
export { type LocationSpecOptions, runLocationSpec } from './location-spec.js';
export { type MethodSpecOptions, runMethodSpec } from './method-spec.js';
export { expectRetrieveOptionKeys } from './options-expect.js';
export { refusalOf } from './refusal.js';
export { replaceAndRebuild, updateReplacing } from './replace-expect.js';
export { expectCleanResume } from './resume-expect.js';
export { expectIdenticalRetrievals, expectSameRetrievals } from './retrievals.js';
export { type IndexStoreSpecOptions, runIndexStoreSpec } from './store-spec.js';
export { temporaryDirs, temporaryRoot } from './temporary.js';
export { runVectorIndexSpec, type VectorIndexSpecOptions } from './vector-index-spec.js';
