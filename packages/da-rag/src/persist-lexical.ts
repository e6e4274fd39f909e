/**
 * The BM25 indexes of a DA-RAG index on disk (`chunks.bm25`, `entities.bm25`): over the chunk texts
 * and over the entity texts, as core kit's BM25 file, so that the first query with lexical or hybrid
 * relevance (the offline preset's) after a load reads them instead of tokenizing every chunk and
 * entity text. Kept whatever the relevance the index was built with (a query option: the files of an
 * index do not depend on query options). Indexes saved before they were kept build them on first
 * use, as before.
 */
import { Bm25Index, bm25FileArrays, type IndexWriter, loadBm25File, type OpenedIndex } from '@grag/core/kit';
import { memberTables } from './member-tables.js';
import type { DaRagIndex } from './types.js';

/** The file of the BM25 index over the chunk texts. */
export const CHUNKS_BM25_FILE = 'chunks.bm25';
/** The file of the BM25 index over the entity texts (`entityText` of each entity). */
export const ENTITIES_BM25_FILE = 'entities.bm25';

/** BM25 over the chunk texts (made on first use and kept in the index cache). */
export function lexicalChunks(index: DaRagIndex): Bm25Index {
  index.cache.lexicalChunks ??= new Bm25Index(index.texts);
  return index.cache.lexicalChunks;
}

/**
 * BM25 over the entity texts, the member tables' (made on first use and kept in the index cache).
 */
export function lexicalEntities(index: DaRagIndex): Bm25Index {
  index.cache.lexicalEntities ??= new Bm25Index(memberTables(index).entityTexts);
  return index.cache.lexicalEntities;
}

/** Write the two BM25 indexes (made now if not yet). */
export async function saveLexical(out: Pick<IndexWriter, 'arrays'>, index: DaRagIndex): Promise<void> {
  await out.arrays(CHUNKS_BM25_FILE, bm25FileArrays(lexicalChunks(index)));
  await out.arrays(ENTITIES_BM25_FILE, bm25FileArrays(lexicalEntities(index)));
}

/**
 * Put the BM25 indexes the index holds into its cache (none when it holds none).
 * @throws IndexFormatError naming the file when one is damaged or counts other documents.
 */
export async function loadLexical<P, S>(opened: OpenedIndex<P, S>, index: DaRagIndex): Promise<void> {
  const chunks = await loadBm25File(opened, CHUNKS_BM25_FILE, index.chunks.length);
  if (chunks) index.cache.lexicalChunks = chunks;
  const entities = await loadBm25File(opened, ENTITIES_BM25_FILE, index.entities.length);
  if (entities) index.cache.lexicalEntities = entities;
}
