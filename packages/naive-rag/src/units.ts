/** What both baselines share: retrieval units, ranking depth, packing, and the units file. */
import {
  type BuildContext,
  type Chunk,
  DEFAULT_BUDGET_TOKENS,
  type Document,
  InvalidArgumentError,
  type MethodTasks,
  type Retrieval,
  type RetrievedItem,
  type RetrieveOptions,
  type StoredVectors,
  type VectorIndex,
} from '@grag/core';
import {
  Bm25Index,
  type BuildRuntime,
  chunkItem,
  chunkSchema,
  type IndexProviders,
  type IndexWriter,
  indexProviders,
  type MethodIndexFormat,
  type MethodIndexHeader,
  type OpenedIndex,
  packContext,
  rankDepthFor,
  requireDocuments,
  startBuild,
  titledChunksBySettings,
  v,
} from '@grag/core/kit';

import type { Bm25RagOptions, ChunkingOptions, DenseRagOptions } from './options.js';

export interface BaseIndex<Options> {
  /** The providers retrieval needs (tokenizer; embedder for the dense baseline). */
  providers: IndexProviders;
  options: Options;
  /**
   * Ids of the indexed documents, in corpus order (also those that gave no chunk, e.g. blank ones),
   * so an update knows what it may remove.
   */
  documents: string[];
  chunks: Chunk[];
  /** The text each unit is searched and shown by (title line + chunk text). */
  texts: string[];
}

export interface DenseRagIndex extends BaseIndex<DenseRagOptions> {
  /**
   * The chunk vectors: an in-process index, or a collection searched where it is stored (an index
   * saved to a store that keeps vector collections, e.g. `postgresStore({ vectors: true })`).
   */
  vectors: VectorIndex | StoredVectors;
  /**
   * The embedding of each chunk, as the embedder returned it, so an update re-indexes kept chunks
   * without embedding them again. Absent in indexes saved before it was kept (those cannot be
   * updated, only rebuilt) and in indexes whose vectors are stored (an update reads them there).
   */
  embeddings?: Float32Array[];
  /** BM25 over `texts`, when `entryPoints` is not `'dense'`. */
  lexical?: Bm25Index;
}

export interface Bm25RagIndex extends BaseIndex<Bm25RagOptions> {
  bm25: Bm25Index;
}

/** BM25 over a dense index's texts when its entry points are not dense alone. */
export function lexicalFor(texts: string[], options: DenseRagOptions): { lexical?: Bm25Index } {
  return options.entryPoints === 'dense' ? {} : { lexical: new Bm25Index(texts) };
}

/** Units of retrieval from documents, with the text to search by. */
export function toUnits(
  docs: Document[],
  ctx: BuildContext,
  options: ChunkingOptions,
): { chunks: Chunk[]; texts: string[] } {
  requireDocuments('naive-rag', docs);
  return unitsOf(docs, ctx, options);
}

/** {@link toUnits} of any number of documents (an update may add none). */
export function unitsOf(
  docs: readonly Document[],
  ctx: Pick<BuildContext, 'tokenizer'>,
  options: ChunkingOptions,
): { chunks: Chunk[]; texts: string[] } {
  return titledChunksBySettings(docs, options, ctx.tokenizer);
}

export function retrievalFrom<O>(
  index: BaseIndex<O>,
  hits: { id: number; score: number }[],
  options: RetrieveOptions,
  trace: Record<string, unknown>,
): Retrieval {
  const items: RetrievedItem[] = hits.map(({ id, score }) =>
    chunkItem(index.chunks[id]!, index.texts[id]!, score),
  );
  const packed = packContext(items, options.budgetTokens ?? DEFAULT_BUDGET_TOKENS, {
    tokenizer: index.providers.tokenizer,
  });
  return {
    context: packed.context,
    items: packed.items,
    tokens: packed.tokens,
    trace: { ...trace, ranked: items.length, packed: packed.items.length, truncated: packed.truncated },
  };
}

/** How many units to rank: `topK` when given, else enough to fill the budget at the mean unit size. */
export function rankDepth<O>(index: BaseIndex<O>, options: RetrieveOptions): number {
  if (options.topK !== undefined) {
    if (!Number.isInteger(options.topK) || options.topK < 1) {
      throw new InvalidArgumentError(
        'topK',
        `naive-rag retrieve: topK must be a positive integer, got ${options.topK}.`,
      );
    }
    return Math.min(options.topK, index.chunks.length);
  }
  const meanTokens = index.chunks.reduce((n, c) => n + c.tokens, 0) / Math.max(1, index.chunks.length);
  const budget = options.budgetTokens ?? DEFAULT_BUDGET_TOKENS;
  return rankDepthFor(index.chunks.length, budget, meanTokens);
}

const unitsSchema = v.refine(
  v.object({
    chunks: v.array(chunkSchema),
    texts: v.array(v.string()),
    // Written since updates exist; older indexes name their documents through their chunks.
    documents: v.optional(v.array(v.string())),
  }),
  (u) => {
    if (u.texts.length !== u.chunks.length)
      return `has ${u.texts.length} texts for ${u.chunks.length} chunks`;
    if (u.documents === undefined) return undefined;
    const ids = new Set(u.documents);
    if (ids.size !== u.documents.length) return 'names a document twice in documents';
    const stray = u.chunks.find((c) => !ids.has(c.docId));
    return stray ? `has chunk ${JSON.stringify(stray.id)} of a document not in documents` : undefined;
  },
);

const UNITS_FILE = 'chunks.json';

/** The ids of the documents of `chunks`, in order of their first chunk. */
export const documentsOf = (chunks: readonly Chunk[]): string[] => [...new Set(chunks.map((c) => c.docId))];

export const saveUnits = <O>(index: BaseIndex<O>, out: IndexWriter) =>
  out.json(UNITS_FILE, { chunks: index.chunks, texts: index.texts, documents: index.documents });

/** The parts every baseline index has, read back from an opened index (its units file and manifest). */
export async function loadBaseIndex<P, S>(opened: OpenedIndex<P, S>): Promise<BaseIndex<P>> {
  const { chunks, texts, documents } = await opened.json(UNITS_FILE, unitsSchema);
  return {
    providers: opened.providers,
    options: opened.params,
    documents: documents ?? documentsOf(chunks),
    chunks,
    texts,
  };
}

/**
 * The start of a baseline build: a fresh build runtime, its `chunk` stage, and the parts every
 * baseline index has.
 */
export async function startBaselineBuild<O extends ChunkingOptions>(
  docs: Document[],
  ctx: BuildContext,
  options: O,
): Promise<{ rt: BuildRuntime; base: BaseIndex<O> }> {
  const rt = startBuild(ctx);
  const { chunks, texts } = await rt.stage('chunk', () => toUnits(docs, ctx, options));
  return {
    rt,
    base: { providers: indexProviders(ctx), options, documents: docs.map((d) => d.id), chunks, texts },
  };
}

/** The task contracts a baseline calls: none. */
export const BASELINE_TASKS: MethodTasks = { build: {}, retrieve: {} };

/** What a baseline's saved index records about it: its format, providers, options, counts and (no) tasks. */
export const headerOf = <O extends object>(
  format: MethodIndexFormat,
  index: BaseIndex<O>,
): MethodIndexHeader<O> => ({
  ...format,
  tasks: BASELINE_TASKS.build,
  providers: index.providers,
  params: index.options,
  stats: { documents: new Set(index.chunks.map((c) => c.docId)).size, chunks: index.chunks.length },
});
