import type { Tokenizer } from '../contracts/tokenizer.js';
import type { Chunk, Document } from '../contracts/types.js';
import { getTokenizer } from '../tokenizer.js';
import { type ChunkOptions, chunkDocuments } from './fixed.js';
import { hasSegments, textRegions } from './regions.js';

/**
 * How documents become retrieval units: `'fixed'` token windows, or `'document'`: one unit per
 * document (a corpus of passages, as in the multi-hop QA benchmarks) — per segment for a document
 * loaded with several (see {@link documentUnits}).
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
 * The `'document'`-mode units of one document. Without segments: the whole document as one unit
 * ({@link documentChunk}; none for blank text). With segments, the units are its regions (each
 * non-blank segment, and non-blank text outside the segments; see `chunkDocument`):
 * - one region: the whole document as one unit, `id` = the document id as without segments, with
 *   that region's `location` (a plain-text file, one page, one record);
 * - several: one unit per region, in text order, `id` = `${doc.id}#${order}` (order from 0, as the
 *   fixed chunker numbers chunks), each with its text, offsets and `location`.
 *
 * The ids depend on the text and its segments alone, so an unchanged file keeps its unit ids.
 */
export function documentUnits(doc: Document, tokenizer: Tokenizer = getTokenizer()): Chunk[] {
  if (doc.text.trim() === '') return [];
  if (!hasSegments(doc)) return [documentChunk(doc, tokenizer)];
  const regions = textRegions(doc, 'chunkCorpus');
  if (regions.length === 1) {
    const location = regions[0]!.location;
    return [{ ...documentChunk(doc, tokenizer), ...(location ? { location } : {}) }];
  }
  return regions.map((region, order) => {
    const text = doc.text.slice(region.start, region.end);
    const unit: Chunk = {
      id: `${doc.id}#${order}`,
      docId: doc.id,
      order,
      text,
      tokens: tokenizer.count(text),
      start: region.start,
      end: region.end,
    };
    if (region.location) unit.location = region.location;
    return unit;
  });
}

/**
 * Chunks of a corpus in either {@link ChunkingMode}. Blank documents give no chunks in both modes.
 * Documents with segments are cut at their segment boundaries in both modes, and each chunk gets its
 * segment's `location`.
 *
 * @throws InvalidArgumentError for segments out of text order, overlapping or outside the text, and
 * in `'fixed'` mode for two documents with one id (as `chunkDocuments`).
 */
export function chunkCorpus(
  docs: readonly Document[],
  options: Partial<ChunkOptions> & { chunking?: ChunkingMode } = {},
): Chunk[] {
  const { chunking = 'fixed', ...fixed } = options;
  if (chunking === 'document') {
    const tokenizer = fixed.tokenizer ?? getTokenizer();
    return docs.flatMap((doc) => documentUnits(doc, tokenizer));
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

/**
 * `docs` chunked as `options` say ({@link chunkCorpus}), with the text each chunk is searched and
 * shown by: its document's title (`titleOf`, by default `doc.title`) as a first line unless
 * `includeTitle` is false ({@link withTitle}).
 */
export function titledChunks(
  docs: readonly Document[],
  options: Partial<ChunkOptions> & {
    chunking?: ChunkingMode;
    includeTitle: boolean;
    titleOf?: (doc: Document) => string | undefined;
  },
): { chunks: Chunk[]; texts: string[] } {
  const { includeTitle, titleOf = (doc) => doc.title, ...chunking } = options;
  const titles = new Map(docs.map((d) => [d.id, titleOf(d)]));
  const chunks = chunkCorpus(docs, chunking);
  return { chunks, texts: chunks.map((c) => withTitle(c.text, titles.get(c.docId), includeTitle)) };
}

/** A method's chunking options: what its build and its update chunk a corpus by. */
export interface ChunkingSettings {
  chunking: ChunkingMode;
  chunkSize: number;
  overlap: number;
}

/** The {@link chunkCorpus} options of a method's chunking `settings` with `tokenizer`. */
function settingsOptions(
  settings: Readonly<ChunkingSettings>,
  tokenizer: Tokenizer,
): Partial<ChunkOptions> & { chunking: ChunkingMode } {
  return { chunking: settings.chunking, chunkSize: settings.chunkSize, overlap: settings.overlap, tokenizer };
}

/**
 * `docs` chunked by a method's chunking `settings` with `tokenizer` ({@link chunkCorpus}), as its
 * build and its update chunk them.
 */
export function chunkBySettings(
  docs: readonly Document[],
  settings: Readonly<ChunkingSettings>,
  tokenizer: Tokenizer,
): Chunk[] {
  return chunkCorpus(docs, settingsOptions(settings, tokenizer));
}

/**
 * {@link titledChunks} of `docs` by a method's chunking `settings` (with its `includeTitle`) and
 * `tokenizer`; `titleOf` as there.
 */
export function titledChunksBySettings(
  docs: readonly Document[],
  settings: Readonly<ChunkingSettings & { includeTitle: boolean }>,
  tokenizer: Tokenizer,
  titleOf?: (doc: Document) => string | undefined,
): { chunks: Chunk[]; texts: string[] } {
  return titledChunks(docs, {
    ...settingsOptions(settings, tokenizer),
    includeTitle: settings.includeTitle,
    ...(titleOf ? { titleOf } : {}),
  });
}
