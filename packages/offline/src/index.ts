/**
 * @grag/offline: everything grag needs to run with no network and no download: heuristic
 * implementations of every task on wink-nlp, and local embedders.
 */
export {
  createOfflineEmbedder,
  createOfflineProviders,
  DEFAULT_OFFLINE_EMBEDDER,
  type OfflineEmbedderKind,
  type OfflineProvidersOptions,
  restoreOfflineEmbedder,
} from './embedders.js';
export { WINK_ENTITY_TYPES } from './entities.js';
export {
  firstPrincipalComponent,
  GLOVE_PACKAGE,
  gloveVectorsPath,
  isGloveAvailable,
  loadWordVectors,
  parseWinkVectors,
  SIF_GLOVE_DEFAULTS,
  SifGloveEmbedder,
  type SifGloveOptions,
  type SifGloveState,
  type WordVectors,
} from './glove.js';
export { createWinkReader, type WinkIts, type WinkPipe, type WinkReader } from './nlp.js';
export { createOfflineTasks, NO_ANSWER, OFFLINE_TASKS_DEFAULTS, type OfflineTasksOptions } from './tasks.js';
export {
  HASHED_TFIDF_DEFAULTS,
  HashedTfidfEmbedder,
  type HashedTfidfOptions,
  type HashedTfidfState,
} from './tfidf-embedder.js';
