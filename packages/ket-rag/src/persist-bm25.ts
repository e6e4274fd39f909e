/**
 * The BM25 indexes of a KET-RAG index on disk (format 4): over the sub-chunks (entry points,
 * `subchunks.bm25`) and over the skeleton's entities (`entities.bm25`), each as core's
 * `Bm25Index.toArrays` (the terms as UTF-8 JSON, the postings as CSR, the document lengths), so that
 * `load` reads them instead of tokenizing every text again. Formats 2 and 3 rebuilt them at load.
 */
import { InvalidArgumentError } from '@grag/core';
import { Bm25Index, type OpenedIndex, type StoredArray } from '@grag/core/kit';

/** The file of the entry points' BM25 index, over the sub-chunks. */
export const SUBCHUNKS_BM25 = 'subchunks.bm25';
/** The file of the skeleton's BM25 index, over its entities. */
export const ENTITIES_BM25 = 'entities.bm25';

/** `index` as the arrays of its file. */
export function bm25Arrays(index: Bm25Index): Record<string, StoredArray> {
  const { terms, ...arrays } = index.toArrays();
  return { terms: new TextEncoder().encode(JSON.stringify(terms)), ...arrays };
}

/**
 * The BM25 index of `file` over `size` documents (with the default tokenizer, as the method builds
 * it), or undefined when the index has no such file. @throws IndexFormatError naming the file.
 */
export async function loadBm25<P, S>(
  opened: OpenedIndex<P, S>,
  file: string,
  size: number,
): Promise<Bm25Index | undefined> {
  if (!opened.names.includes(file)) return undefined;
  const a = await opened.arrays(file);
  const [terms, offsets, docs, tfs, lengths] = ['terms', 'offsets', 'docs', 'tfs', 'lengths'].map((n) =>
    a.get(n),
  );
  if (
    !(terms instanceof Uint8Array) ||
    !(offsets instanceof Uint32Array) ||
    !(docs instanceof Uint32Array) ||
    !(tfs instanceof Uint16Array) ||
    !(lengths instanceof Float64Array)
  ) {
    throw opened.error(file, 'lacks the arrays of a BM25 index (terms, offsets, docs, tfs, lengths)');
  }
  if (lengths.length !== size)
    throw opened.error(file, `holds ${lengths.length} documents, expected ${size}`);
  let list: unknown;
  try {
    list = JSON.parse(new TextDecoder().decode(terms));
  } catch (error) {
    throw opened.error(file, 'has terms that are not JSON', { cause: error });
  }
  if (!Array.isArray(list) || !list.every((t) => typeof t === 'string')) {
    throw opened.error(file, 'has terms that are not a list of strings');
  }
  try {
    return Bm25Index.fromArrays({ terms: list, offsets, docs, tfs, lengths });
  } catch (error) {
    if (!InvalidArgumentError.isInstance(error)) throw error;
    const problem = error.message.replace(/^Bm25Index\.fromArrays: /, '').replace(/\.$/, '');
    throw opened.error(file, problem, { cause: error });
  }
}
