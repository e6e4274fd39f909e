/** The baselines' options: chunking, the dense and BM25 settings, their defaults, keys and rules. */
import {
  BM25_DEFAULTS,
  ENTRY_POINT_MODES,
  type EntryPointMode,
  type OptionRule,
  opt,
  optionKeys,
} from '@grag/core/kit';

/** How documents become retrieval units. */
export interface ChunkingOptions {
  /**
   * `'fixed'`: token windows of `chunkSize` with `overlap`; `'document'`: one unit per document
   * (a corpus of passages, as in the multi-hop QA benchmarks; one per segment of a document loaded
   * with several, see core's `documentUnits`). Neither crosses a segment boundary. @default 'fixed'
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
  /**
   * Search breadth of the dense search on an approximate vector index (HNSW's `ef`; at least the
   * depth asked is used), as bridge-rag's `entryEf`; exact indexes ignore it. 0: the index's own
   * (hnswlib's rule, `max(efSearch, depth)`, which at the default budget's depth of about 90 chunks
   * finds the planted fact for 65% of the scale benchmark's questions at 48,685 chunks, 97.5% with
   * an exact search). @default 1024 (measured; see the README's Performance)
   */
  entryEf: number;
}

/** Defaults of {@link createDenseRag}. */
export const DENSE_RAG_DEFAULTS: DenseRagOptions = {
  ...CHUNKING_DEFAULTS,
  entryPoints: 'dense',
  entryEf: 1024,
};
export interface Bm25RagOptions extends ChunkingOptions {
  k1: number;
  b: number;
}

export const CHUNKING_RULES: { readonly [K in keyof ChunkingOptions]: OptionRule } = {
  chunking: opt.oneOf('fixed', 'document'),
  chunkSize: opt.positiveInt,
  overlap: opt.nonNegativeInt,
  includeTitle: opt.boolean,
};
export const DENSE_RULES = {
  ...CHUNKING_RULES,
  entryPoints: opt.oneOf(...ENTRY_POINT_MODES),
  entryEf: opt.nonNegativeInt,
};
export const BM25_RULES = { ...CHUNKING_RULES, k1: opt.nonNegative, b: opt.fraction };

/** Every build option key of {@link createDenseRag}; others are refused. */
export const DENSE_RAG_OPTION_KEYS: readonly string[] = optionKeys<DenseRagOptions>(DENSE_RAG_DEFAULTS);
/** Every build option key of {@link createBm25Rag}; others are refused. */
export const BM25_RAG_OPTION_KEYS: readonly string[] = optionKeys<Bm25RagOptions>({
  ...CHUNKING_DEFAULTS,
  ...BM25_DEFAULTS,
});
