/**
 * `@grag/core/store`: where indexes are kept — the directory store (the default, what a path
 * means), the in-process memory store, the writer lock, and the pieces a store implementation
 * shares (manifest text and parsing, artifact names and locations, scratch files, lock files, the
 * index-directory checks the CLI makes before writing). The `IndexStore` contract is in
 * `@grag/core`; `runIndexStoreSpec` in `@grag/core/test/vitest` checks an implementation.
 *
 * @packageDocumentation
 */
export { checkManifest, completeManifest, manifestText, parseManifest } from '../persistence.js';
export {
  type DirectoryStore,
  type DirectoryStoreOptions,
  directoryStore,
  toIndexStore,
} from './directory.js';
export {
  type CreationProblem,
  checkIndexTarget,
  creationProblem,
  type IndexTarget,
  type WriteIndexDirOptions,
  writeIndexDir,
} from './directory-files.js';
export {
  type LockAttempt,
  type LockOwner,
  lockInTurn,
  pidIsDead,
  pollWriterLock,
  withStoreLock,
} from './lock.js';
export { type MemoryStoreOptions, memoryStore } from './memory.js';
export { vectorPrecisionOption } from './precision.js';
export { artifactLocator, checkArtifactName, Scratch } from './scratch.js';
