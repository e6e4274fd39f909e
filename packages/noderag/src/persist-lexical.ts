/**
 * The BM25 index of a NodeRAG index on disk since format 4 (`lexical.bm25`): over the texts of the
 * embedded nodes, in `vectorKeys` order, as core kit's BM25 file (`bm25FileArrays`), so that `load`
 * reads it instead of tokenizing every text again. Formats 1 to 3 did not store it: their `load`
 * builds it from the node texts.
 */
import {
  type Bm25Index,
  bm25FileArrays,
  type IndexWriter,
  loadBm25File,
  type OpenedIndex,
} from '@grag/core/kit';

/** The file of the BM25 index over the embedded nodes' texts. */
export const LEXICAL_FILE = 'lexical.bm25';

/** Write `lexical` as {@link LEXICAL_FILE}. */
export async function saveLexical(out: IndexWriter, lexical: Bm25Index): Promise<void> {
  await out.arrays(LEXICAL_FILE, bm25FileArrays(lexical));
}

/**
 * The BM25 index {@link saveLexical} wrote, over `size` documents (the default tokenizer, as the
 * method builds it). @throws IndexFormatError naming the file when it is missing or damaged.
 */
export async function loadLexical<P, S>(opened: OpenedIndex<P, S>, size: number): Promise<Bm25Index> {
  const lexical = await loadBm25File(opened, LEXICAL_FILE, size);
  if (!lexical) throw opened.error(LEXICAL_FILE, 'is missing');
  return lexical;
}
