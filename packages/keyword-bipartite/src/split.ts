/**
 * Sub-chunks (KET-RAG Algorithm 3, line 10): each chunk split into equal pieces, either by a token
 * size (the official code's `split_size`, default 150) or by `m` recursive halvings (the paper).
 */
import { type Chunk, hasTokenOffsets, InvalidArgumentError, type Tokenizer } from '@grag/core';
import { getTokenizer, splitTextByTokens } from '@grag/core/kit';

/** A piece of a chunk. Offsets are in the document, like the chunk's: `doc.text.slice(start, end) === text`. */
export interface SubChunk extends Chunk {
  /** Id of the chunk the piece comes from. */
  chunkId: string;
}

/** Options of {@link splitChunk}. */
export interface SubChunkOptions {
  /**
   * Tokens per sub-chunk; the last piece of a chunk takes the rest. Ignored when `halvings` is set.
   * @default 150 (official KET-RAG code, `CHUNK_SPLIT_SIZE`; with 1200-token chunks the same as 3 halvings)
   */
  size: number;
  /**
   * Split each chunk by `m` recursive halvings into `2^m` pieces whose token counts differ by at most
   * one (KET-RAG §5.1). A chunk of `T` tokens gives pieces of about `T / 2^m` tokens, so `size = 150`
   * matches `halvings = 3` for 1200-token chunks. `0` keeps chunks whole. @default undefined (use `size`)
   */
  halvings?: number;
  /** Tokenizer that measures pieces. @default getTokenizer() (cl100k_base) */
  tokenizer: Tokenizer;
}

/** Defaults of {@link splitChunk}. */
export const SUB_CHUNK_DEFAULTS = { size: 150 } as const;

/**
 * Split a chunk into sub-chunks at token boundaries of the chunk's own encoding, so every token of the
 * chunk is in exactly one piece and the pieces concatenate to the chunk text. Ids are
 * `${chunk.id}/${order}`. A boundary inside a multi-byte character snaps back to its start (a piece
 * that would be empty is merged into the next).
 *
 * @throws InvalidArgumentError for a `size` that is not a positive integer or `halvings` that is not
 * a non-negative integer.
 */
export function splitChunk(chunk: Chunk, options: Partial<SubChunkOptions> = {}): SubChunk[] {
  const { size, halvings, tokenizer } = resolve(options);
  return splitResolved(chunk, size, halvings, tokenizer);
}

/** {@link splitChunk} over many chunks, in order. */
export function splitChunks(chunks: readonly Chunk[], options: Partial<SubChunkOptions> = {}): SubChunk[] {
  const { size, halvings, tokenizer } = resolve(options);
  return chunks.flatMap((chunk) => splitResolved(chunk, size, halvings, tokenizer));
}

function resolve(options: Partial<SubChunkOptions>): {
  size: number;
  halvings: number | undefined;
  tokenizer: Tokenizer;
} {
  const size = options.size ?? SUB_CHUNK_DEFAULTS.size;
  const { halvings } = options;
  if (!Number.isInteger(size) || size < 1) {
    throw new InvalidArgumentError('size', `splitChunk: size must be a positive integer, got ${size}.`);
  }
  if (halvings !== undefined && (!Number.isInteger(halvings) || halvings < 0 || halvings > 30)) {
    throw new InvalidArgumentError(
      'halvings',
      `splitChunk: halvings must be an integer from 0 to 30, got ${halvings}.`,
    );
  }
  return { size, halvings, tokenizer: options.tokenizer ?? getTokenizer() };
}

/** Token ranges [a, b) of `m` recursive halvings of [0, total): the left half takes the extra token. */
export function halvingRanges(total: number, m: number): [number, number][] {
  const out: [number, number][] = [];
  const split = (a: number, b: number, depth: number): void => {
    if (depth === 0 || b - a <= 1) {
      if (b > a) out.push([a, b]);
      return;
    }
    const mid = a + Math.ceil((b - a) / 2);
    split(a, mid, depth - 1);
    split(mid, b, depth - 1);
  };
  split(0, total, m);
  return out;
}

function splitResolved(
  chunk: Chunk,
  size: number,
  halvings: number | undefined,
  tokenizer: Tokenizer,
): SubChunk[] {
  const text = chunk.text;
  if (text.length === 0) return [];
  let spans: { start: number; end: number }[];
  if (hasTokenOffsets(tokenizer)) {
    const { tokens, offsets } = tokenizer.encodeWithOffsets(text);
    const ranges: [number, number][] =
      halvings !== undefined
        ? halvingRanges(tokens.length, halvings)
        : Array.from({ length: Math.ceil(tokens.length / size) }, (_, i) => [
            i * size,
            Math.min(tokens.length, (i + 1) * size),
          ]);
    spans = [];
    let start = 0;
    for (const [, b] of ranges) {
      const end = offsets[b]!;
      if (end > start) {
        spans.push({ start, end });
        start = end;
      }
    }
    if (start < text.length) {
      if (spans.length > 0) spans[spans.length - 1]!.end = text.length;
      else spans.push({ start, end: text.length });
    }
  } else {
    // Without token offsets, cut windows of the equivalent size with the core splitter.
    const width =
      halvings !== undefined ? Math.max(1, Math.ceil(tokenizer.count(text) / 2 ** halvings)) : size;
    spans = splitTextByTokens(text, { chunkSize: width, overlap: 0, tokenizer });
  }
  return spans.map((span, order) => {
    const piece = text.slice(span.start, span.end);
    const sub: SubChunk = {
      id: `${chunk.id}/${order}`,
      chunkId: chunk.id,
      docId: chunk.docId,
      order,
      text: piece,
      tokens: tokenizer.count(piece),
      start: chunk.start + span.start,
      end: chunk.start + span.end,
    };
    // A piece lies in its chunk, so in the chunk's segment.
    if (chunk.location) sub.location = chunk.location;
    return sub;
  });
}
