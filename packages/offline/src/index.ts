/**
 * @grag/offline: everything grag needs to run with no network and no download: heuristic
 * implementations of every task on wink-nlp, local embedders, and a text analyzer on wink-nlp.
 */
export {
  createOfflineEmbedder,
  createOfflineProviders,
  DEFAULT_OFFLINE_EMBEDDER,
  type OfflineEmbedderKind,
  type OfflineProvidersOptions,
  restoreOfflineEmbedder,
} from './embedders.js';
export { WINK_ENTITY_TYPES } from './entity-spans.js';
export {
  firstPrincipalComponent,
  SIF_GLOVE_DEFAULTS,
  SifGloveEmbedder,
  type SifGloveOptions,
  type SifGloveState,
} from './glove.js';
export { createWinkReader, type WinkIts, type WinkPipe, type WinkReader } from './nlp.js';
export { createOfflineTasks, NO_ANSWER } from './tasks.js';
export { OFFLINE_TASKS_DEFAULTS, type OfflineTasksOptions } from './tasks-options.js';
export { createWinkTextAnalyzer, WINK_TEXT_ANALYZER_ID } from './text-analyzer.js';
export {
  HASHED_TFIDF_DEFAULTS,
  HashedTfidfEmbedder,
  type HashedTfidfOptions,
  type HashedTfidfState,
} from './tfidf-embedder.js';
export {
  GLOVE_PACKAGE,
  gloveVectorsPath,
  isGloveAvailable,
  loadWordVectors,
  parseWinkVectors,
  type WordVectors,
} from './word-vectors.js';
