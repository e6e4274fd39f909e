import {
  assertKnownOptions,
  embedAll,
  indexProviders,
  indexVectors,
  isFittableEmbedder,
  type Method,
  openMethodIndex,
  RETRIEVE_OPTION_KEYS,
  resolveCheckedOptions,
  searchEntryPoints,
  startBuild,
  writeMethodIndex,
} from '@grag/core';

import { DENSE_RAG_DEFAULTS, DENSE_RAG_OPTION_KEYS, DENSE_RULES, type DenseRagOptions } from './options.js';
import {
  type DenseRagIndex,
  lexicalFor,
  loadUnits,
  rankDepth,
  retrievalFrom,
  saveUnits,
  statsOf,
  toUnits,
} from './units.js';

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
    async save(index, target) {
      await writeMethodIndex(
        target,
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
    async load(target, ctx) {
      const opened = await openMethodIndex(target, ctx, {
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

/** The dense baseline with default settings. */
export const denseRag = createDenseRag();
