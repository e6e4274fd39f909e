/**
 * A BM25 index in a method index's files: `Bm25Index.toArrays` with the terms as UTF-8 JSON, the
 * postings as CSR and the document lengths, so that a method's `load` reads the index instead of
 * tokenizing every text again. KET-RAG (its entry points and skeleton) and NodeRAG (its embedded
 * nodes) store theirs this way.
 */

import type { StoredArray } from './artifact-codec.js';
import { InvalidArgumentError } from './contracts/errors.js';
import { Bm25Index } from './lexical/index.js';
import type { OpenedIndex } from './method-index.js';

/** `index` as the arrays of its file (for `IndexWriter.arrays`). */
export function bm25FileArrays(index: Bm25Index): Record<string, StoredArray> {
  const { terms, ...arrays } = index.toArrays();
  return { terms: new TextEncoder().encode(JSON.stringify(terms)), ...arrays };
}

/**
 * The BM25 index stored as `file` over `size` documents (the default tokenizer, as the methods build
 * theirs), or undefined when the index has no such file. @throws IndexFormatError naming the file
 * when its arrays are not a BM25 index's, or it holds another number of documents.
 */
export async function loadBm25File<P, S>(
  opened: OpenedIndex<P, S>,
  file: string,
  size: number,
): Promise<Bm25Index | undefined> {
  if (!opened.names.includes(file)) return undefined;
  const stored = await opened.arrays(file);
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
  if (!Array.isArray(list) || !list.every((term) => typeof term === 'string')) {
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
