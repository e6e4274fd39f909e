/** BM25 moved to @grag/core so every method can use it for entry points; re-exported here unchanged. */
export {
  BM25_DEFAULTS,
  BM25_STOP_WORDS as ENGLISH_STOP_WORDS,
  Bm25Index,
  type Bm25Options,
  tokenizeForBm25,
} from '@grag/core/kit';
