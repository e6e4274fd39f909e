import {
  assertKnownOptions,
  Bm25Index,
  type BuildContext,
  type Chunk,
  chunkCorpus,
  chunkSchema,
  DEFAULT_BUDGET_TOKENS,
  type Document,
  type EntryPointMode,
  embedAll,
  type IndexProviders,
  type IndexWriter,
  InvalidArgumentError,
  indexProviders,
  indexVectors,
  isFittableEmbedder,
  type Method,
  type OpenedIndex,
  type OptionRule,
  openMethodIndex,
  opt,
  optionKeys,
  packContext,
  RETRIEVE_OPTION_KEYS,
  type Retrieval,
  type RetrievedItem,
  type RetrieveOptions,
  resolveCheckedOptions,
  searchEntryPoints,
  startBuild,
  type VectorIndex,
  v,
  withTitle,
  writeMethodIndex,
} from '@grag/core';
import { BM25_DEFAULTS, ENTRY_POINT_MODES } from '@grag/core/internal';

/** How documents become retrieval units. */
export interface ChunkingOptions {
  /**
   * `'fixed'`: token windows of `chunkSize` with `overlap`; `'document'`: one unit per document
   * (a corpus of passages, as in the multi-hop QA benchmarks). @default 'fixed'
   */
  chunking: 'fixed' | 'document';
  /** Tokens per chunk. @default 1200 (KET-RAG §6, GraphRAG) */
  chunkSize: number;
  /** Tokens shared by consecutive chunks. @default 100 */
  overlap: number;
  /** Write the document title as the first line of each unit's text. @default true */
  includeTitle: boolean;
}

export const CHUNKING_DEFAULTS: ChunkingOptions = {
  chunking: 'fixed',
  chunkSize: 1200,
  overlap: 100,
  includeTitle: true,
};

export interface DenseRagOptions extends ChunkingOptions {
  /**
   * How chunks are found: `'dense'` by the embedder alone (the papers' Text-RAG baseline), or
   * `'hybrid'`, dense and BM25 fused by reciprocal rank fusion, or `'lexical'` (BM25 alone).
   * @default 'dense'
   */
  entryPoints: EntryPointMode;
}

/** Defaults of {@link createDenseRag}. */
export const DENSE_RAG_DEFAULTS: DenseRagOptions = { ...CHUNKING_DEFAULTS, entryPoints: 'dense' };
export interface Bm25RagOptions extends ChunkingOptions {
  k1: number;
  b: number;
}

const CHUNKING_RULES: { readonly [K in keyof ChunkingOptions]: OptionRule } = {
  chunking: opt.oneOf('fixed', 'document'),
  chunkSize: opt.positiveInt,
  overlap: opt.nonNegativeInt,
  includeTitle: opt.boolean,
};
const DENSE_RULES = { ...CHUNKING_RULES, entryPoints: opt.oneOf(...ENTRY_POINT_MODES) };
const BM25_RULES = { ...CHUNKING_RULES, k1: opt.nonNegative, b: opt.fraction };

/** Every build option key of {@link createDenseRag}; others are refused. */
const DENSE_RAG_OPTION_KEYS: readonly string[] = optionKeys<DenseRagOptions>(DENSE_RAG_DEFAULTS);
/** Every build option key of {@link createBm25Rag}; others are refused. */
const BM25_RAG_OPTION_KEYS: readonly string[] = optionKeys<Bm25RagOptions>({
  ...CHUNKING_DEFAULTS,
  ...BM25_DEFAULTS,
});

interface BaseIndex<Options> {
  /** The providers retrieval needs (tokenizer; embedder for the dense baseline). */
  providers: IndexProviders;
  options: Options;
  chunks: Chunk[];
  /** The text each unit is searched and shown by (title line + chunk text). */
  texts: string[];
}

export interface DenseRagIndex extends BaseIndex<DenseRagOptions> {
  vectors: VectorIndex;
  /** BM25 over `texts`, when `entryPoints` is not `'dense'`. */
  lexical?: Bm25Index;
}

export interface Bm25RagIndex extends BaseIndex<Bm25RagOptions> {
  bm25: Bm25Index;
}

/** BM25 over a dense index's texts when its entry points are not dense alone. */
function lexicalFor(texts: string[], options: DenseRagOptions): { lexical?: Bm25Index } {
  return options.entryPoints === 'dense' ? {} : { lexical: new Bm25Index(texts) };
}

/** Units of retrieval from documents, with the text to search by. */
export function toUnits(
  docs: Document[],
  ctx: BuildContext,
  options: ChunkingOptions,
): { chunks: Chunk[]; texts: string[] } {
  if (docs.length === 0) {
    throw new InvalidArgumentError(
      'docs',
      'naive-rag build: the corpus is empty; pass at least one document.',
    );
  }
  const titles = new Map(docs.map((d) => [d.id, d.title]));
  const chunks = chunkCorpus(docs, {
    chunking: options.chunking,
    chunkSize: options.chunkSize,
    overlap: options.overlap,
    tokenizer: ctx.tokenizer,
  });
  const texts = chunks.map((chunk) => withTitle(chunk.text, titles.get(chunk.docId), options.includeTitle));
  return { chunks, texts };
}

function retrievalFrom<O>(
  index: BaseIndex<O>,
  hits: { id: number; score: number }[],
  options: RetrieveOptions,
  trace: Record<string, unknown>,
): Retrieval {
  const items: RetrievedItem[] = hits.map(({ id, score }) => {
    const chunk = index.chunks[id]!;
    return {
      id: chunk.id,
      kind: 'chunk',
      text: index.texts[id]!,
      score,
      source: { chunkIds: [chunk.id], docIds: [chunk.docId] },
    };
  });
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
function rankDepth<O>(index: BaseIndex<O>, options: RetrieveOptions): number {
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
  return Math.min(index.chunks.length, Math.ceil((budget / Math.max(1, meanTokens)) * 1.5) + 5);
}

const unitsSchema = v.refine(v.object({ chunks: v.array(chunkSchema), texts: v.array(v.string()) }), (u) =>
  u.texts.length === u.chunks.length
    ? undefined
    : `has ${u.texts.length} texts for ${u.chunks.length} chunks`,
);

const UNITS_FILE = 'chunks.json';

const saveUnits = <O>(index: BaseIndex<O>, out: IndexWriter) =>
  out.json(UNITS_FILE, { chunks: index.chunks, texts: index.texts });

const loadUnits = <P, S>(opened: OpenedIndex<P, S>) => opened.json(UNITS_FILE, unitsSchema);

const statsOf = <O>(index: BaseIndex<O>) => ({
  documents: new Set(index.chunks.map((c) => c.docId)).size,
  chunks: index.chunks.length,
});

/** Settings of {@link createDenseRag}. */
export interface DenseRagSettings {
  /** Method name used in manifests and the CLI. @default 'naive-dense' */
  name?: string;
  defaults?: Partial<DenseRagOptions>;
}

/**
 * Text-RAG / NaiveRAG baseline: embed chunks, return the top-k by similarity to the query
 * embedding, packed into the budget.
 */
export function createDenseRag(settings: DenseRagSettings = {}): Method<DenseRagIndex, DenseRagOptions> {
  const name = settings.name ?? 'naive-dense';
  const formatVersion = 1;
  const uses = ['embedder', 'vectorIndex'] as const;
  return {
    name,
    description: 'baseline: dense top-k chunks (Text-RAG / NaiveRAG)',
    capabilities: { uses },
    formatVersion,
    optionKeys: { build: DENSE_RAG_OPTION_KEYS, retrieve: RETRIEVE_OPTION_KEYS },
    passageRanking: { kinds: ['chunk'] },
    async build(docs, ctx, options = {}) {
      const opts = resolveCheckedOptions(
        `${name} build`,
        { defaults: DENSE_RAG_DEFAULTS, rules: DENSE_RULES },
        settings.defaults,
        options,
      );
      const rt = startBuild(ctx);
      const { chunks, texts } = await rt.stage('chunk', () => toUnits(docs, ctx, opts));
      const { embedder } = ctx;
      if (isFittableEmbedder(embedder)) {
        await rt.stage('fit', () => embedder.fit(texts), { checkpoint: false });
      }
      const embeddings = await rt.stage('embed', () => rt.embed(texts));
      const vectors = await rt.stage(
        'vector-index',
        () => indexVectors(ctx.vectorIndex, embeddings, { dimensions: embedder.dimensions }),
        { checkpoint: false },
      );
      return {
        providers: indexProviders(ctx),
        options: opts,
        chunks,
        texts,
        vectors,
        ...lexicalFor(texts, opts),
      };
    },
    async retrieve(index, query, options = {}) {
      assertKnownOptions(`${name} retrieve`, options, RETRIEVE_OPTION_KEYS);
      const started = performance.now();
      const mode = index.options.entryPoints;
      const [queryVector] =
        mode === 'lexical'
          ? []
          : await embedAll(index.providers.embedder, [query], { abortSignal: options.signal });
      const depth = rankDepth(index, options);
      const hits = searchEntryPoints({
        mode,
        query,
        k: depth,
        vectors: index.vectors,
        ...(queryVector ? { queryVector } : {}),
        ...(index.lexical ? { lexical: index.lexical } : {}),
      });
      return retrievalFrom(index, hits, options, {
        method: name,
        entryPoints: mode,
        depth,
        ms: performance.now() - started,
      });
    },
    async save(index, dir) {
      await writeMethodIndex(
        dir,
        {
          method: name,
          formatVersion,
          uses,
          providers: index.providers,
          params: index.options,
          stats: statsOf(index),
        },
        async (out) => {
          await saveUnits(index, out);
          await out.vectors('vectors.bin', index.vectors);
        },
      );
    },
    async load(dir, ctx) {
      const opened = await openMethodIndex(dir, ctx, {
        method: name,
        formatVersion,
        uses,
        // Indexes written before `entryPoints` existed were dense: the default fills it in.
        params: (saved) =>
          resolveCheckedOptions(`${name} load`, { defaults: DENSE_RAG_DEFAULTS, rules: DENSE_RULES }, saved),
      });
      const { chunks, texts } = await loadUnits(opened);
      const vectors = await opened.vectors('vectors.bin', chunks.length);
      const options = opened.params;
      return { providers: opened.providers, options, chunks, texts, vectors, ...lexicalFor(texts, options) };
    },
  };
}

/** Settings of {@link createBm25Rag}. */
export interface Bm25RagSettings {
  /** Method name used in manifests and the CLI. @default 'bm25' */
  name?: string;
  defaults?: Partial<Bm25RagOptions>;
}

/** BM25 baseline: the top-k chunks by Okapi BM25, packed into the budget. No embedder is used. */
export function createBm25Rag(settings: Bm25RagSettings = {}): Method<Bm25RagIndex, Bm25RagOptions> {
  const name = settings.name ?? 'bm25';
  const formatVersion = 1;
  const uses = [] as const;
  const defaults: Bm25RagOptions = { ...CHUNKING_DEFAULTS, ...BM25_DEFAULTS };
  const bm25Of = (texts: string[], opts: Bm25RagOptions) => new Bm25Index(texts, { k1: opts.k1, b: opts.b });
  return {
    name,
    description: 'baseline: BM25 top-k chunks',
    capabilities: { uses },
    formatVersion,
    optionKeys: { build: BM25_RAG_OPTION_KEYS, retrieve: RETRIEVE_OPTION_KEYS },
    passageRanking: { kinds: ['chunk'] },
    async build(docs, ctx, options = {}) {
      const opts = resolveCheckedOptions(
        `${name} build`,
        { defaults, rules: BM25_RULES },
        settings.defaults,
        options,
      );
      const rt = startBuild(ctx);
      const { chunks, texts } = await rt.stage('chunk', () => toUnits(docs, ctx, opts));
      const bm25 = await rt.stage('bm25', () => bm25Of(texts, opts), { checkpoint: false });
      return { providers: indexProviders(ctx), options: opts, chunks, texts, bm25 };
    },
    async retrieve(index, query, options = {}) {
      assertKnownOptions(`${name} retrieve`, options, RETRIEVE_OPTION_KEYS);
      const started = performance.now();
      const depth = rankDepth(index, options);
      const hits = index.bm25.search(query, depth);
      return retrievalFrom(index, hits, options, { method: name, depth, ms: performance.now() - started });
    },
    async save(index, dir) {
      await writeMethodIndex(
        dir,
        {
          method: name,
          formatVersion,
          uses,
          providers: index.providers,
          params: index.options,
          stats: statsOf(index),
        },
        (out) => saveUnits(index, out),
      );
    },
    async load(dir, ctx) {
      const opened = await openMethodIndex(dir, ctx, {
        method: name,
        formatVersion,
        uses,
        params: (saved) => resolveCheckedOptions(`${name} load`, { defaults, rules: BM25_RULES }, saved),
      });
      const { chunks, texts } = await loadUnits(opened);
      return {
        providers: opened.providers,
        options: opened.params,
        chunks,
        texts,
        bm25: bm25Of(texts, opened.params),
      };
    },
  };
}

/** The dense baseline with default settings. */
export const denseRag = createDenseRag();
/** The BM25 baseline with default settings. */
export const bm25Rag = createBm25Rag();
