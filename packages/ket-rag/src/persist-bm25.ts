/**
 * The BM25 indexes of a KET-RAG index on disk (format 4): over the sub-chunks (entry points,
 * `subchunks.bm25`) and over the skeleton's entities (`entities.bm25`), each as core kit's BM25 file
 * (`bm25FileArrays` / `loadBm25File`), so that `load` reads them instead of tokenizing every text
 * again. Formats 2 and 3 rebuilt them at load.
 */

/** The file of the entry points' BM25 index, over the sub-chunks. */
export const SUBCHUNKS_BM25 = 'subchunks.bm25';
/** The file of the skeleton's BM25 index, over its entities. */
export const ENTITIES_BM25 = 'entities.bm25';
