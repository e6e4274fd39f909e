import type { Tokenizer } from '../tokenizer.js';
import { getTokenizer } from '../tokenizer.js';
import type { Chunk, Document } from '../types.js';
import { type ChunkOptions, chunkDocuments } from './fixed.js';

/**
 * How documents become retrieval units: `'fixed'` token windows, or `'document'`: one unit per
 * document (a corpus of passages, as in the multi-hop QA benchmarks).
 */
export type ChunkingMode = 'fixed' | 'document';

/** The whole document as one chunk (`id` = the document id, order 0). */
export function documentChunk(doc: Document, tokenizer: Tokenizer = getTokenizer()): Chunk {
  return {
    id: doc.id,
    docId: doc.id,
    order: 0,
    text: doc.text,
    tokens: tokenizer.count(doc.text),
    start: 0,
    end: doc.text.length,
  };
}

/**
 * Chunks of a corpus in either {@link ChunkingMode}. Blank documents give no chunks in both modes.
 */
export function chunkCorpus(
  docs: readonly Document[],
  options: Partial<ChunkOptions> & { chunking?: ChunkingMode } = {},
): Chunk[] {
  const { chunking = 'fixed', ...fixed } = options;
  if (chunking === 'document') {
    const tokenizer = fixed.tokenizer ?? getTokenizer();
    return docs.filter((doc) => doc.text.trim() !== '').map((doc) => documentChunk(doc, tokenizer));
  }
  return chunkDocuments(docs, fixed);
}

/**
 * The text a unit is searched and shown by: the document title as a first line, then the text. A
 * title that already is the text's first line (a markdown heading) is not written twice.
 */
export function withTitle(text: string, title: string | undefined, include = true): string {
  if (!include || !title) return text;
  const firstLine = /^\s*#*\s*(.*)/.exec(text)?.[1]?.trim();
  return firstLine === title.trim() ? text : `${title}\n${text}`;
}
