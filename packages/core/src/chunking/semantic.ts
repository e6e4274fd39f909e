import { InvalidArgumentError, ModelOutputError, throwIfAborted } from '../contracts/errors.js';
import { type Embedder, embedAll } from '../contracts/models.js';
import type { Tokenizer } from '../contracts/tokenizer.js';
import type { Chunk, Document } from '../contracts/types.js';
import { stringTable } from '../string-table.js';
import { cosineSimilarity } from '../vector/math.js';
import { assertUniqueIds, type LocatedSpan, resolveTokenizer, splitResolved, toChunks } from './fixed.js';
import { type TextRegion, textRegions } from './regions.js';
import { splitSentences } from './sentences.js';

/**
 * Where the semantic chunker breaks between two windows of sentences, by the cosine distance
 * `1 - cos` of their embeddings: above the `value`-th percentile of all distances in the document
 * (linear interpolation between ranks, as `numpy.percentile`), or above a fixed distance.
 */
export type SemanticBreakpoint = { type: 'percentile'; value: number } | { type: 'threshold'; value: number };

/** Options of {@link semanticChunk}. */
export interface SemanticChunkOptions {
  /** Embeds the sentence windows. Required. */
  embedder: Embedder;
  /** Tokenizer that measures chunks. @default getTokenizer() (cl100k_base) */
  tokenizer: Tokenizer;
  /**
   * Largest chunk, in tokens: a chunk is closed before it would exceed it, and a single longer
   * sentence is cut into fixed-size token pieces. @default 1200 (the fixed-size chunk size of
   * GraphRAG, which DA-RAG's "w/o SC" ablation replaces semantic chunks with)
   */
  maxTokens: number;
  /**
   * Sentences per window. The distance at the gap after sentence `i` compares the embedding of the
   * `windowSize` sentences ending at `i` with that of the `windowSize` sentences starting at `i + 1`
   * (TextTiling-style block comparison; windows are clipped at the document ends). 1 compares adjacent
   * sentences; larger windows smooth out short asides. @default 1
   */
  windowSize: number;
  /**
   * When a gap is a topic change. @default { type: 'percentile', value: 95 } (the default of the
   * LangChain `SemanticChunker` and LlamaIndex `SemanticSplitterNodeParser`)
   */
  breakpoint: SemanticBreakpoint;
  /**
   * Smallest chunk, in tokens, that a semantic breakpoint may close: while the open chunk is smaller,
   * breakpoints are ignored (the `maxTokens` limit still applies). @default 0 (every breakpoint breaks)
   */
  minTokens: number;
  /** Values per embedding call; `embedAll` also honours `embedder.maxBatchSize`. */
  batchSize?: number;
  /**
   * Window texts embedded per pass: documents are chunked in passes that each embed the windows of
   * their documents (a text repeated within a pass once) once they hold at least this many, so
   * memory holds about this many embeddings rather than the whole corpus's. The chunks are the same
   * for any value. @default 8192
   */
  windowsPerPass: number;
  abortSignal?: AbortSignal;
}

/** What {@link semanticChunk} accepts: `embedder` is required, everything else has a default. */
export type SemanticChunkInput = Partial<SemanticChunkOptions> & { embedder: Embedder };

/** Defaults of {@link semanticChunk} (the tokenizer defaults to `getTokenizer()`). */
export const SEMANTIC_CHUNK_DEFAULTS = {
  maxTokens: 1200,
  windowSize: 1,
  breakpoint: { type: 'percentile', value: 95 },
  minTokens: 0,
  windowsPerPass: 8192,
} as const satisfies Partial<SemanticChunkOptions>;

/** A sentence (or a fixed-size piece of an over-long one) with its token count and its region. */
interface Unit {
  start: number;
  end: number;
  tokens: number;
  /** Index of the region of the document's text the unit lies in (0 for a document without segments). */
  region: number;
}

function resolveOptions(options: SemanticChunkInput, caller: string): SemanticChunkOptions {
  const embedder = options?.embedder;
  if (!embedder || typeof embedder.doEmbed !== 'function') {
    throw new InvalidArgumentError(
      'embedder',
      `${caller}: pass options.embedder (an Embedder) to embed sentences.`,
    );
  }
  const maxTokens = options.maxTokens ?? SEMANTIC_CHUNK_DEFAULTS.maxTokens;
  if (!Number.isInteger(maxTokens) || maxTokens < 1) {
    throw new InvalidArgumentError(
      'maxTokens',
      `${caller}: maxTokens must be a positive integer number of tokens, got ${String(maxTokens)}.`,
    );
  }
  const windowSize = options.windowSize ?? SEMANTIC_CHUNK_DEFAULTS.windowSize;
  if (!Number.isInteger(windowSize) || windowSize < 1) {
    throw new InvalidArgumentError(
      'windowSize',
      `${caller}: windowSize must be a positive integer number of sentences, got ${String(windowSize)}.`,
    );
  }
  const minTokens = options.minTokens ?? SEMANTIC_CHUNK_DEFAULTS.minTokens;
  if (!Number.isInteger(minTokens) || minTokens < 0 || minTokens > maxTokens) {
    throw new InvalidArgumentError(
      'minTokens',
      `${caller}: minTokens must be an integer between 0 and maxTokens (${maxTokens}), got ${String(minTokens)}.`,
    );
  }
  const windowsPerPass = options.windowsPerPass ?? SEMANTIC_CHUNK_DEFAULTS.windowsPerPass;
  if (!Number.isInteger(windowsPerPass) || windowsPerPass < 1) {
    throw new InvalidArgumentError(
      'windowsPerPass',
      `${caller}: windowsPerPass must be a positive integer number of window texts, got ${String(windowsPerPass)}.`,
    );
  }
  const tokenizer = resolveTokenizer(options.tokenizer, caller);
  const breakpoint = options.breakpoint ?? SEMANTIC_CHUNK_DEFAULTS.breakpoint;
  const valid =
    breakpoint?.type === 'percentile'
      ? Number.isFinite(breakpoint.value) && breakpoint.value >= 0 && breakpoint.value <= 100
      : breakpoint?.type === 'threshold' && Number.isFinite(breakpoint.value);
  if (!valid) {
    throw new InvalidArgumentError(
      'breakpoint',
      `${caller}: breakpoint must be { type: 'percentile', value: 0..100 } or { type: 'threshold', value: <finite distance> }, ` +
        `got ${JSON.stringify(breakpoint)}.`,
    );
  }
  return {
    embedder,
    tokenizer,
    maxTokens,
    windowSize,
    breakpoint,
    minTokens,
    windowsPerPass,
    batchSize: options.batchSize,
    abortSignal: options.abortSignal,
  };
}

/**
 * Sentences of each region of `text` (offsets in `text`), with sentences longer than `maxTokens`
 * cut into fixed-size token pieces.
 */
function unitsOf(
  text: string,
  regions: readonly TextRegion[],
  tokenizer: Tokenizer,
  maxTokens: number,
  caller: string,
): Unit[] {
  const units: Unit[] = [];
  regions.forEach((r, region) => {
    const whole = r.start === 0 && r.end === text.length;
    for (const s of splitSentences(whole ? text : text.slice(r.start, r.end))) {
      const start = r.start + s.start;
      const tokens = tokenizer.count(s.text);
      if (tokens <= maxTokens) {
        units.push({ start, end: r.start + s.end, tokens, region });
        continue;
      }
      for (const piece of splitResolved(s.text, maxTokens, 0, tokenizer, caller)) {
        units.push({ start: start + piece.start, end: start + piece.end, tokens: piece.tokens, region });
      }
    }
  });
  return units;
}

/** The `p`-th percentile of `values` with linear interpolation between closest ranks. */
function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  const lowValue = sorted[low] as number;
  return lowValue + ((sorted[high] as number) - lowValue) * (rank - low);
}

/** The gap after unit `at`, and the window ranges `[from, to)` of units compared there. */
interface Gap {
  at: number;
  before: [number, number];
  after: [number, number];
}

/**
 * The gaps between units of one region, with the windows compared at each, clipped at the ends of
 * the region: a window never reaches into another segment. There is no gap between regions (the
 * chunk always breaks there).
 */
function windowRanges(units: readonly Unit[], windowSize: number): Gap[] {
  const gaps: Gap[] = [];
  let first = 0;
  while (first < units.length) {
    let end = first + 1;
    while (end < units.length && units[end]!.region === units[first]!.region) end++;
    for (let i = first; i + 1 < end; i++) {
      gaps.push({
        at: i,
        before: [Math.max(first, i + 1 - windowSize), i + 1],
        after: [i + 1, Math.min(end, i + 1 + windowSize)],
      });
    }
    first = end;
  }
  return gaps;
}

/**
 * Group units into chunks: break at the breakpoints, between regions (whatever `minTokens` says),
 * and before a chunk would exceed `maxTokens`.
 */
function groupUnits(
  text: string,
  units: readonly Unit[],
  isBreak: readonly boolean[],
  options: SemanticChunkOptions,
): (Omit<LocatedSpan, 'location'> & { region: number })[] {
  const { tokenizer, maxTokens, minTokens } = options;
  const out: (Omit<LocatedSpan, 'location'> & { region: number })[] = [];
  let first = 0;
  while (first < units.length) {
    // Extend the chunk [first, last] unit by unit. `estimate` adds up the parts (an upper bound in
    // practice); the exact count of the joined text is taken only when the estimate passes maxTokens.
    let last = first;
    let tokens = (units[first] as Unit).tokens;
    let exact = true;
    while (last + 1 < units.length) {
      const next = units[last + 1] as Unit;
      if (next.region !== (units[last] as Unit).region) break;
      if (isBreak[last]) {
        if (!exact && minTokens > 0) {
          tokens = tokenizer.count(text.slice((units[first] as Unit).start, (units[last] as Unit).end));
          exact = true;
        }
        if (tokens >= minTokens) break;
      }
      const gap = text.slice((units[last] as Unit).end, next.start);
      const estimate = tokens + (gap ? tokenizer.count(gap) : 0) + next.tokens;
      if (estimate <= maxTokens) {
        tokens = estimate;
        exact = false;
        last++;
        continue;
      }
      const joined = tokenizer.count(text.slice((units[first] as Unit).start, next.end));
      if (joined > maxTokens) break;
      tokens = joined;
      exact = true;
      last++;
    }
    const start = (units[first] as Unit).start;
    let end = (units[last] as Unit).end;
    if (!exact) tokens = tokenizer.count(text.slice(start, end));
    // Should the parts have under-estimated the whole, give back units until the chunk fits.
    while (tokens > maxTokens && last > first) {
      last--;
      end = (units[last] as Unit).end;
      tokens = tokenizer.count(text.slice(start, end));
    }
    out.push({ start, end, tokens, region: (units[first] as Unit).region });
    first = last + 1;
  }
  return out;
}

/**
 * Semantic chunking of many documents, in input order; the sentence windows of all documents are
 * embedded together (batched by `embedAll`). See {@link semanticChunk}.
 *
 * @throws InvalidArgumentError for missing `embedder`, invalid options or duplicate document ids.
 * @throws ModelOutputError when the embedder returns a different number of vectors than asked.
 */
export async function semanticChunkDocuments(
  docs: readonly Document[],
  options: SemanticChunkInput,
): Promise<Chunk[]> {
  return chunkAll(docs, options, 'semanticChunkDocuments');
}

/**
 * Split a document into semantic chunks (DA-RAG §3 chooses semantic over fixed-length chunking so that
 * each chunk is a coherent segment). The text is split into sentences ({@link splitSentences}); windows
 * of `windowSize` sentences on either side of every gap are embedded, and the chunk breaks where the
 * cosine distance between the two windows is above the breakpoint (95th percentile of the document's
 * distances by default). A chunk is also closed before it would exceed `maxTokens`, and a sentence
 * longer than `maxTokens` is cut into fixed-size token pieces. Chunks are in document order with ids
 * `${doc.id}#${order}`; `doc.text.slice(chunk.start, chunk.end) === chunk.text`, from the first
 * sentence's start to the last sentence's end (whitespace between chunks belongs to none). Empty
 * text gives no chunks, and the embedder is not called for text of one sentence.
 *
 * A document with `segments` is split into sentences segment by segment: a chunk always breaks at a
 * segment boundary (`minTokens` aside), the windows compared at a gap stay within its segment, and
 * each chunk's `location` is its segment's (text outside every segment: see `chunkDocument`).
 *
 * @throws InvalidArgumentError for a missing `embedder` or invalid options.
 * @throws ModelOutputError when the embedder returns a different number of vectors than asked.
 */
export async function semanticChunk(doc: Document, options: SemanticChunkInput): Promise<Chunk[]> {
  return chunkAll([doc], options, 'semanticChunk');
}

async function chunkAll(
  docs: readonly Document[],
  input: SemanticChunkInput,
  caller: string,
): Promise<Chunk[]> {
  const options = resolveOptions(input, caller);
  assertUniqueIds(docs, caller);
  const { tokenizer, maxTokens, windowSize, windowsPerPass } = options;
  const chunks: Chunk[] = [];
  // Documents are chunked in passes: each pass embeds the window texts of its documents (identical
  // texts once) and chunks them, so no more than about `windowsPerPass` embeddings are held at once.
  let pass: Plan[] = [];
  let table = stringTable();
  const finish = async (): Promise<void> => {
    const embeddings = await embedWindows(table.strings, options, caller);
    for (const plan of pass) chunks.push(...chunksOf(plan, embeddings, options));
    pass = [];
    table = stringTable();
  };
  for (const doc of docs) {
    throwIfAborted(options.abortSignal);
    const regions = textRegions(doc, caller);
    const units = unitsOf(doc.text, regions, tokenizer, maxTokens, caller);
    const windowText = ([from, to]: [number, number]): number =>
      table.ref(doc.text.slice((units[from] as Unit).start, (units[to - 1] as Unit).end));
    const gaps = windowRanges(units, windowSize).map((gap) => ({
      at: gap.at,
      before: windowText(gap.before),
      after: windowText(gap.after),
    }));
    pass.push({ doc, regions, units, gaps });
    if (table.strings.length >= windowsPerPass) await finish();
  }
  if (pass.length > 0) await finish();
  return chunks;
}

/** A document split into units, with the window texts compared at each gap (indices into its pass's texts). */
interface Plan {
  doc: Document;
  regions: TextRegion[];
  units: Unit[];
  gaps: { at: number; before: number; after: number }[];
}

/** The embeddings of one pass's window texts. */
async function embedWindows(
  values: string[],
  options: SemanticChunkOptions,
  caller: string,
): Promise<Float32Array[]> {
  if (values.length === 0) return [];
  const embeddings = await embedAll(options.embedder, values, {
    batchSize: options.batchSize,
    abortSignal: options.abortSignal,
  });
  if (embeddings.length !== values.length) {
    throw new ModelOutputError(
      'embed',
      `${embeddings.length} embeddings for ${values.length} values`,
      `${caller}: the embedder returned ${embeddings.length} embeddings for ${values.length} texts; ` +
        'check that its doEmbed returns one vector per value.',
    );
  }
  return embeddings;
}

/** A document's chunks: breaks where the distance between its gap windows is above the threshold. */
function chunksOf(
  { doc, regions, units, gaps }: Plan,
  embeddings: readonly Float32Array[],
  options: SemanticChunkOptions,
): Chunk[] {
  const distances = gaps.map(
    (gap) =>
      1 - cosineSimilarity(embeddings[gap.before] as Float32Array, embeddings[gap.after] as Float32Array),
  );
  const threshold =
    options.breakpoint.type === 'threshold'
      ? options.breakpoint.value
      : distances.length > 0
        ? percentile(distances, options.breakpoint.value)
        : Number.POSITIVE_INFINITY;
  const isBreak = new Array<boolean>(Math.max(0, units.length - 1)).fill(false);
  gaps.forEach((gap, g) => {
    isBreak[gap.at] = (distances[g] as number) > threshold;
  });
  const spans = groupUnits(doc.text, units, isBreak, options).map(({ region, ...span }): LocatedSpan => {
    const location = regions[region]?.location;
    return location ? { ...span, location } : span;
  });
  return toChunks(doc, spans);
}
