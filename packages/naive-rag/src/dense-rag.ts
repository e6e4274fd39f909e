import {
  type BuildContext,
  embedAll,
  type IndexUpdate,
  indexVectors,
  isFittableEmbedder,
  isStoredVectors,
  type Method,
  StateError,
  type UpdateOptions,
} from '@grag/core';
import {
  assertKnownOptions,
  defineMethod,
  flatIndexFactory,
  fullUpdateFit,
  type MethodIndexFormat,
  openMethodIndex,
  prepareUpdate,
  RETRIEVE_OPTION_KEYS,
  resolveCheckedOptions,
  searchEntryPointsAsync,
  startBuild,
  updateEmbeddings,
  writeMethodIndex,
} from '@grag/core/kit';

import { DENSE_RAG_DEFAULTS, DENSE_RAG_OPTION_KEYS, DENSE_RULES, type DenseRagOptions } from './options.js';
import {
  BASELINE_TASKS,
  type DenseRagIndex,
  headerOf,
  lexicalFor,
  loadBaseIndex,
  rankDepth,
  retrievalFrom,
  saveUnits,
  startBaselineBuild,
} from './units.js';
import { changeUnits, reportOf } from './update.js';

/** The artifact that keeps each chunk's embedding, so updates never embed a kept chunk again. */
const EMBEDDINGS_FILE = 'embeddings.f32';
/** The vector collection of the chunk embeddings, in a store that keeps collections. */
const CHUNK_COLLECTION = 'chunks';

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
  return defineMethod({
    name,
    description: 'baseline: dense top-k chunks (Text-RAG / NaiveRAG)',
    formatVersion: 1,
    uses: ['embedder', 'vectorIndex'],
    tasks: BASELINE_TASKS,
    optionKeys: { build: DENSE_RAG_OPTION_KEYS, retrieve: RETRIEVE_OPTION_KEYS },
    passageRanking: { kinds: ['chunk'] },
    resolve: (caller, options) =>
      resolveCheckedOptions(
        caller,
        { defaults: DENSE_RAG_DEFAULTS, rules: DENSE_RULES },
        settings.defaults,
        options,
      ),
    async build(docs, ctx, opts) {
      const { rt, base } = await startBaselineBuild(docs, ctx, opts);
      const { texts } = base;
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
      return { ...base, vectors, embeddings, ...lexicalFor(texts, opts) };
    },
    update: (index, change, baseCtx, options) => updateDense(name, index, change, baseCtx, options),
    async retrieve(index, query, options) {
      assertKnownOptions(`${name} retrieve`, options, RETRIEVE_OPTION_KEYS);
      const started = performance.now();
      const mode = index.options.entryPoints;
      const [queryVector] =
        mode === 'lexical'
          ? []
          : await embedAll(index.providers.embedder, [query], { abortSignal: options.signal });
      const depth = rankDepth(index, options);
      const hits = await searchEntryPointsAsync({
        mode,
        query,
        k: depth,
        vectors: index.vectors,
        ...(index.options.entryEf > 0 ? { ef: index.options.entryEf } : {}),
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
    save: saveDense,
    load: loadDense,
  });
}

/** The dense baseline with default settings. */
export const denseRag = createDenseRag();

type DenseMethod = Method<DenseRagIndex, DenseRagOptions>;

/**
 * Update a dense index: kept chunks keep their embeddings (a full update refits a fittable embedder
 * and embeds every chunk again), new chunks are embedded, the vector index is built again.
 */
async function updateDense(
  name: string,
  index: DenseRagIndex,
  change: Parameters<NonNullable<DenseMethod['update']>>[1],
  baseCtx: BuildContext,
  options: UpdateOptions,
): Promise<IndexUpdate<DenseRagIndex>> {
  const update = await prepareUpdate(name, change, baseCtx, options, {
    kept: async () =>
      index.embeddings ?? (isStoredVectors(index.vectors) ? await index.vectors.all() : undefined),
    refusal: { lacks: 'chunk embeddings', cost: 'embedding every chunk again' },
    documents: () => index.documents,
    embedder: index.providers.embedder,
  });
  const { ctx, kept: stored } = update;
  const rt = startBuild(ctx);
  const units = await changeUnits(update, index, rt);
  // A full update refits a fittable embedder on the changed corpus, as a build fits it, and
  // embeds every chunk again with the new fit; otherwise the kept embeddings stay valid.
  const fit = await fullUpdateFit(rt, ctx, options, index.providers.embedder, () => units.texts);
  const { refit } = fit;
  const { embeddings, embedded } = await updateEmbeddings(rt, fit, {
    texts: units.texts,
    added: units.added.texts,
    kept: units.kept.map((i) => stored[i]!),
  });
  const providers = fit.providers(index.providers);
  const vectors = await rt.stage(
    'vector-index',
    () =>
      indexVectors(providers.vectorIndex, embeddings, {
        dimensions: providers.embedder.dimensions,
      }),
    { checkpoint: false },
  );
  const lexical = index.lexical?.update({ remove: units.dropped, add: units.added.texts });
  return {
    index: {
      ...index,
      providers,
      documents: units.plan.documents,
      chunks: units.chunks,
      texts: units.texts,
      vectors,
      embeddings,
      ...(lexical ? { lexical } : {}),
    },
    report: reportOf(units, {
      embedded: new Set(embedded).size,
      local: ['chunk', 'embed', ...(lexical ? ['bm25'] : [])],
      global: [
        ...fit.stages('the changed corpus', 'every chunk'),
        {
          stage: 'vector-index',
          reason: refit
            ? 'vector ids are chunk positions: the index is built again from the new embeddings'
            : 'vector ids are chunk positions and a VectorIndex has no delete, so the index is rebuilt from the stored embeddings of the kept chunks (none is embedded again)',
        },
      ],
      trace: fit.note('new chunks'),
    }),
  };
}

/** Save a dense index: its units, and its vectors as the store's collection or as files. */
async function saveDense(
  index: DenseRagIndex,
  target: Parameters<DenseMethod['save']>[1],
  format: MethodIndexFormat,
): Promise<void> {
  await writeMethodIndex(target, headerOf(format, index), async (out) => {
    await saveUnits(index, out);
    const { vectors } = index;
    if (out.vectorCollection) {
      // The store searches the vectors in place: they are the collection, kept once.
      const rows = index.embeddings ?? (isStoredVectors(vectors) ? await vectors.all() : undefined);
      if (rows) {
        const exact = isStoredVectors(vectors) ? vectors.exact : vectors.kind === flatIndexFactory.kind;
        await out.vectorCollection(CHUNK_COLLECTION, rows, { metric: vectors.metric, exact });
        return;
      }
    }
    if (isStoredVectors(vectors)) {
      throw new StateError(
        `${format.method} save: the vectors of this index are stored in ${vectors.location} and ${out.location} keeps no vector collections; save it to a store that does, or rebuild it.`,
      );
    }
    await out.vectors('vectors.bin', vectors);
    if (index.embeddings) {
      await out.float32Rows(EMBEDDINGS_FILE, index.embeddings, index.providers.embedder.dimensions);
    }
  });
}

/** Load a dense index (one saved before updates existed loads without its embeddings). */
async function loadDense(
  target: Parameters<DenseMethod['load']>[0],
  ctx: BuildContext,
  format: MethodIndexFormat,
): Promise<DenseRagIndex> {
  const opened = await openMethodIndex(target, ctx, {
    ...format,
    // Indexes written before `entryPoints` existed were dense: the default fills it in.
    params: (saved) =>
      resolveCheckedOptions(
        `${format.method} load`,
        { defaults: DENSE_RAG_DEFAULTS, rules: DENSE_RULES },
        saved,
      ),
  });
  const base = await loadBaseIndex(opened);
  const { chunks, texts, options } = base;
  const vectors = opened.collections.includes(CHUNK_COLLECTION)
    ? await opened.vectorCollection(CHUNK_COLLECTION, chunks.length)
    : await opened.vectors('vectors.bin', chunks.length);
  // Indexes saved before updates existed have no embeddings: they load, but only rebuild.
  const embeddings = opened.names.includes(EMBEDDINGS_FILE)
    ? await opened.float32Rows(EMBEDDINGS_FILE, chunks.length)
    : undefined;
  return {
    ...base,
    vectors,
    ...(embeddings ? { embeddings } : {}),
    ...lexicalFor(texts, options),
  };
}
