import { InvalidArgumentError } from '../contracts/errors.js';
import { hasTokenOffsets, type Tokenizer } from '../contracts/tokenizer.js';
import type { Chunk, Document, SourceLocation } from '../contracts/types.js';
import { getTokenizer } from '../tokenizer.js';
import { hasSegments, textRegions } from './regions.js';

/** Options of the fixed-size token chunker. */
export interface ChunkOptions {
  /** Largest chunk, in tokens. @default 1200 (GraphRAG; KET-RAG §6.1, E2GraphRAG, DA-RAG "w/o SC") */
  chunkSize: number;
  /** Tokens shared by consecutive chunks; the window advances `chunkSize - overlap` tokens. @default 100 (same sources) */
  overlap: number;
  /** Tokenizer that measures chunks. @default getTokenizer() (cl100k_base) */
  tokenizer: Tokenizer;
}

/** Defaults of {@link chunkDocument}: 1200-token chunks with a 100-token overlap (GraphRAG, KET-RAG, E2GraphRAG). */
export const CHUNK_DEFAULTS = { chunkSize: 1200, overlap: 100 } as const;

/** A piece of a text with its character offsets and token count: `text === source.slice(start, end)`. */
export interface TokenSpan {
  text: string;
  start: number;
  end: number;
  tokens: number;
}

function isTokenizer(value: unknown): value is Tokenizer {
  const t = value as Partial<Tokenizer> | undefined;
  return typeof t?.encode === 'function' && typeof t.count === 'function' && typeof t.decode === 'function';
}

/** Merge and validate chunker options. `caller` names the public function in error messages. */
export function resolveChunkOptions(options: Partial<ChunkOptions>, caller: string): ChunkOptions {
  const chunkSize = options.chunkSize ?? CHUNK_DEFAULTS.chunkSize;
  const overlap = options.overlap ?? CHUNK_DEFAULTS.overlap;
  if (!Number.isInteger(chunkSize) || chunkSize < 1) {
    throw new InvalidArgumentError(
      'chunkSize',
      `${caller}: chunkSize must be a positive integer number of tokens, got ${String(chunkSize)}.`,
    );
  }
  if (!Number.isInteger(overlap) || overlap < 0 || overlap >= chunkSize) {
    throw new InvalidArgumentError(
      'overlap',
      `${caller}: overlap must be an integer with 0 <= overlap < chunkSize (${chunkSize}), got ${String(overlap)}.`,
    );
  }
  return { chunkSize, overlap, tokenizer: resolveTokenizer(options.tokenizer, caller) };
}

/** `tokenizer`, or `getTokenizer()` when it is undefined; throws when it is not a tokenizer. */
export function resolveTokenizer(tokenizer: Tokenizer | undefined, caller: string): Tokenizer {
  const resolved = tokenizer ?? getTokenizer();
  if (!isTokenizer(resolved)) {
    throw new InvalidArgumentError(
      'tokenizer',
      `${caller}: tokenizer must implement count, encode and decode (see getTokenizer()).`,
    );
  }
  return resolved;
}

/**
 * Tokens of `text` and the character offset where each token starts (`offsets[n] === text.length`),
 * every offset a valid cut. Tokenizers from `getTokenizer` say so directly; for others the tokens are
 * decoded one by one and grouped until they reproduce whole characters of `text`.
 */
function tokenOffsets(
  tokenizer: Tokenizer,
  text: string,
  caller: string,
): { tokens: number[]; offsets: number[] } {
  if (hasTokenOffsets(tokenizer)) return tokenizer.encodeWithOffsets(text);
  const tokens = tokenizer.encode(text);
  const offsets = new Array<number>(tokens.length + 1);
  let position = 0;
  let groupStart = 0;
  for (let t = 0; t < tokens.length; t++) {
    offsets[t] = position;
    const piece = tokenizer.decode(tokens.slice(groupStart, t + 1));
    const last = t === tokens.length - 1;
    // A group that ends inside a character decodes to U+FFFD; keep adding tokens until it matches.
    if (text.startsWith(piece, position) && (last || !piece.endsWith('\uFFFD'))) {
      position += piece.length;
      groupStart = t + 1;
    } else if (last) {
      throw new InvalidArgumentError(
        'tokenizer',
        `${caller}: tokenizer "${tokenizer.name}" does not decode its tokens back to the text, so chunk ` +
          'offsets cannot be computed; use a lossless tokenizer such as getTokenizer().',
      );
    }
  }
  // Tokens inside a group (a character split across tokens) got the group's start: a cut there snaps back.
  offsets[tokens.length] = text.length;
  if (tokens.length > 0 && position !== text.length) {
    throw new InvalidArgumentError(
      'tokenizer',
      `${caller}: tokenizer "${tokenizer.name}" does not decode its tokens back to the text, so chunk offsets ` +
        'cannot be computed; use a lossless tokenizer such as getTokenizer().',
    );
  }
  return { tokens, offsets };
}

/**
 * Split `text` into windows of at most `chunkSize` tokens that advance `chunkSize - overlap` tokens,
 * as GraphRAG's token splitter does, with exact character offsets. Windows are cut at token
 * boundaries of the whole text's encoding; a boundary inside a multi-byte character snaps back to
 * the start of that character. Each window is re-counted on its own and shrunk if the recount exceeds
 * `chunkSize` (re-tokenizing a slice can differ at its edges). Only a single character that alone
 * takes more than `chunkSize` tokens yields a longer window. Empty text gives no spans.
 */
export function splitTextByTokens(text: string, options: Partial<ChunkOptions> = {}): TokenSpan[] {
  const { chunkSize, overlap, tokenizer } = resolveChunkOptions(options, 'splitTextByTokens');
  return splitResolved(text, chunkSize, overlap, tokenizer, 'splitTextByTokens');
}

/** {@link splitTextByTokens} with options already validated. */
export function splitResolved(
  text: string,
  chunkSize: number,
  overlap: number,
  tokenizer: Tokenizer,
  caller: string,
): TokenSpan[] {
  if (text.length === 0) return [];
  const { tokens, offsets } = tokenOffsets(tokenizer, text, caller);
  const n = tokens.length;
  if (n === 0) return [];
  const at = (i: number): number => offsets[i] as number;
  const spans: TokenSpan[] = [];
  const stride = chunkSize - overlap;
  let a = 0;
  for (;;) {
    const start = at(a);
    let b = Math.min(a + chunkSize, n);
    // A window inside one multi-token character is empty: widen it to the whole character.
    while (b < n && at(b) <= start) b++;
    let piece = text.slice(start, at(b));
    let count = tokenizer.count(piece);
    while (count > chunkSize) {
      let shorter = b - 1;
      while (shorter > a && at(shorter) <= start) shorter--;
      if (shorter <= a) break;
      b = shorter;
      piece = text.slice(start, at(b));
      count = tokenizer.count(piece);
    }
    spans.push({ text: piece, start, end: at(b), tokens: count });
    if (b >= n) break;
    let next = Math.max(a + 1, Math.min(a + stride, b - overlap));
    while (next < b && at(next) <= start) next++;
    a = next;
  }
  return spans;
}

/** A span of a document's text with the location of the segment it lies in, if the document has segments. */
export type LocatedSpan = Omit<TokenSpan, 'text'> & { location?: SourceLocation };

/**
 * The token windows of `doc`: of its whole text, or, for a document with segments, of each region
 * of it ({@link textRegions}) on its own, so that no window crosses a segment boundary; each window
 * then carries its region's location.
 */
export function splitDocument(
  doc: Document,
  chunkSize: number,
  overlap: number,
  tokenizer: Tokenizer,
  caller: string,
): LocatedSpan[] {
  if (!hasSegments(doc)) return splitResolved(doc.text, chunkSize, overlap, tokenizer, caller);
  return textRegions(doc, caller).flatMap((region) =>
    splitResolved(doc.text.slice(region.start, region.end), chunkSize, overlap, tokenizer, caller).map(
      (span) => ({
        start: region.start + span.start,
        end: region.start + span.end,
        tokens: span.tokens,
        ...(region.location ? { location: region.location } : {}),
      }),
    ),
  );
}

/**
 * Split a document into fixed-size token chunks: windows of `chunkSize` tokens advancing by
 * `chunkSize - overlap` (GraphRAG's default chunking, also used by KET-RAG and E2GraphRAG). Chunks
 * are in document order, with ids `${doc.id}#${order}`, token counts, and character offsets such that
 * `doc.text.slice(chunk.start, chunk.end) === chunk.text`. Empty text gives no chunks.
 *
 * A document with `segments` (from a loader) is windowed segment by segment: no chunk crosses a
 * segment boundary, windows overlap only within a segment, and each chunk's `location` is its
 * segment's. Blank segments give no chunk; non-blank text outside every segment is chunked on its
 * own, located by the file alone (`{ path }`). Ids and orders still run over the whole document, so
 * an unchanged file gives the same chunks on every build.
 *
 * @throws InvalidArgumentError for a non-positive `chunkSize`, an `overlap` outside `[0, chunkSize)`,
 * or segments out of text order, overlapping or outside the text.
 */
export function chunkDocument(doc: Document, options: Partial<ChunkOptions> = {}): Chunk[] {
  const { chunkSize, overlap, tokenizer } = resolveChunkOptions(options, 'chunkDocument');
  return toChunks(doc, splitDocument(doc, chunkSize, overlap, tokenizer, 'chunkDocument'));
}

/**
 * {@link chunkDocument} over many documents, in input order (documents with segments are chunked
 * segment by segment, as there).
 *
 * @throws InvalidArgumentError when two documents share an id (their chunk ids would collide), or
 * for segments out of text order, overlapping or outside the text.
 */
export function chunkDocuments(docs: readonly Document[], options: Partial<ChunkOptions> = {}): Chunk[] {
  const { chunkSize, overlap, tokenizer } = resolveChunkOptions(options, 'chunkDocuments');
  assertUniqueIds(docs, 'chunkDocuments');
  return docs.flatMap((doc) =>
    toChunks(doc, splitDocument(doc, chunkSize, overlap, tokenizer, 'chunkDocuments')),
  );
}

/** Number spans of `doc` as its chunks (ids `${doc.id}#${order}`), each with its span's location. */
export function toChunks(doc: Document, spans: readonly LocatedSpan[]): Chunk[] {
  return spans.map((span, order) => {
    const chunk: Chunk = {
      id: `${doc.id}#${order}`,
      docId: doc.id,
      order,
      text: doc.text.slice(span.start, span.end),
      tokens: span.tokens,
      start: span.start,
      end: span.end,
    };
    if (span.location) chunk.location = span.location;
    return chunk;
  });
}

/** Throw when two documents share an id. */
export function assertUniqueIds(docs: readonly Document[], caller: string): void {
  const seen = new Set<string>();
  for (const doc of docs) {
    if (seen.has(doc.id)) {
      throw new InvalidArgumentError(
        'docs',
        `${caller}: two documents have the id ${JSON.stringify(doc.id)}; give every document a unique id.`,
      );
    }
    seen.add(doc.id);
  }
}
