/**
 * The BM25 index of a NodeRAG index on disk since format 4 (`lexical.bm25`): over the texts of the
 * embedded nodes, in `vectorKeys` order, as core's `Bm25Index.toArrays` (the terms as UTF-8 JSON,
 * the postings as CSR, the document lengths), so that `load` reads it instead of tokenizing every
 * text again. Formats 1 to 3 did not store it: their `load` builds it from the node texts.
 */
import { InvalidArgumentError } from '@grag/core';
import { Bm25Index, type IndexWriter, type OpenedIndex } from '@grag/core/kit';

/** The file of the BM25 index over the embedded nodes' texts. */
export const LEXICAL_FILE = 'lexical.bm25';

/** Write `lexical` as {@link LEXICAL_FILE}. */
export async function saveLexical(out: IndexWriter, lexical: Bm25Index): Promise<void> {
  const { terms, ...arrays } = lexical.toArrays();
  await out.arrays(LEXICAL_FILE, { terms: new TextEncoder().encode(JSON.stringify(terms)), ...arrays });
}

/**
 * The BM25 index {@link saveLexical} wrote, over `size` documents (the default tokenizer, as the
 * method builds it). @throws IndexFormatError naming the file when it is missing or damaged.
 */
export async function loadLexical<P, S>(opened: OpenedIndex<P, S>, size: number): Promise<Bm25Index> {
  if (!opened.names.includes(LEXICAL_FILE)) throw opened.error(LEXICAL_FILE, 'is missing');
  const stored = await opened.arrays(LEXICAL_FILE);
  const [terms, offsets, docs, tfs, lengths] = ['terms', 'offsets', 'docs', 'tfs', 'lengths'].map((name) =>
    stored.get(name),
  );
  if (
    !(terms instanceof Uint8Array) ||
    !(offsets instanceof Uint32Array) ||
    !(docs instanceof Uint32Array) ||
    !(tfs instanceof Uint16Array) ||
    !(lengths instanceof Float64Array)
  ) {
    throw opened.error(LEXICAL_FILE, 'lacks the arrays of a BM25 index (terms, offsets, docs, tfs, lengths)');
  }
  if (lengths.length !== size) {
    throw opened.error(LEXICAL_FILE, `holds ${lengths.length} documents for the ${size} vector keys`);
  }
  let list: unknown;
  try {
    list = JSON.parse(new TextDecoder().decode(terms));
  } catch (error) {
    throw opened.error(LEXICAL_FILE, 'has terms that are not JSON', { cause: error });
  }
  if (!Array.isArray(list) || !list.every((term) => typeof term === 'string')) {
    throw opened.error(LEXICAL_FILE, 'has terms that are not a list of strings');
  }
  try {
    return Bm25Index.fromArrays({ terms: list, offsets, docs, tfs, lengths });
  } catch (error) {
    if (!InvalidArgumentError.isInstance(error)) throw error;
    const problem = error.message.replace(/^Bm25Index\.fromArrays: /, '').replace(/\.$/, '');
    throw opened.error(LEXICAL_FILE, problem, { cause: error });
  }
}
