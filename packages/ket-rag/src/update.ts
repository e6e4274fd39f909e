/**
 * Incremental updates of a KET-RAG index: the added documents are chunked, split, embedded and (when
 * core) extracted; the kept chunks reuse what the index holds (their embeddings, extractions,
 * summaries, sentence and entity vectors), and the global stages (KNN graph, PageRank ranking,
 * entity merge, keyword graph, vector indexes, BM25) are recomputed from kept and new data without
 * model calls. With `full`, the core chunks are selected again as a build does (see `updateKetRag`).
 */
import type { BuildContext, IndexChange, IndexUpdate, UpdateOptions, UpdateReport } from '@grag/core';
import { changedChunks, fullUpdateFit, prepareUpdate, startBuild } from '@grag/core/kit';
import { chunkCorpus, indexChunks } from './build.js';
import { withCollectedRows } from './persist-vectors.js';
import type { KetRagReuse } from './reuse.js';
import type { KetRagIndex, KetRagUpdateState } from './types.js';

/** `rows[i]` keyed by `ids[i]` for the positions `keep` accepts. */
function byId<T>(ids: readonly string[], rows: readonly T[] | undefined, keep: (i: number) => boolean) {
  const out = new Map<string, T>();
  if (!rows) return out;
  ids.forEach((id, i) => {
    if (keep(i)) out.set(id, rows[i]!);
  });
  return out;
}

/**
 * The reuse of `index` for the kept chunks (`keptChunks`): nothing of a dropped document. `full`
 * selects the core set again (see {@link KetRagReuse.full}).
 */
function reuseOf(
  index: KetRagIndex,
  kept: KetRagUpdateState,
  keptChunks: ReadonlySet<string>,
  full: boolean,
): KetRagReuse {
  const keptSub = (i: number) => keptChunks.has(index.subChunks[i]!.chunkId);
  const sentenceVectors = new Map<string, Float32Array[]>();
  const { sentenceVectors: rows } = kept;
  if (index.keyword && rows) {
    index.keyword.bipartite.sentences.forEach((s, i) => {
      if (!keptSub(s.unit)) return;
      const id = index.subChunks[s.unit]!.id;
      const list = sentenceVectors.get(id);
      if (list) list.push(rows[i]!);
      else sentenceVectors.set(id, [rows[i]!]);
    });
  }
  const entityVectors = new Map<string, Float32Array>();
  if (index.skeleton && kept.entityVectors) {
    index.skeleton.entities.forEach((e, i) => {
      entityVectors.set(e.description ? `${e.name}: ${e.description}` : e.name, kept.entityVectors![i]!);
    });
  }
  const chunkIds = index.chunks.map((c) => c.id);
  return {
    keptChunks,
    keptCore: new Set(index.core.filter((id) => keptChunks.has(id))),
    full,
    chunkVectors: byId(chunkIds, kept.chunkVectors, (i) => keptChunks.has(chunkIds[i]!)),
    subChunkVectors: byId(
      index.subChunks.map((s) => s.id),
      kept.subChunkVectors,
      keptSub,
    ),
    sentenceVectors,
    extractions: new Map([...kept.extractions].filter(([id]) => keptChunks.has(id))),
    summaries: kept.summaries,
    entityVectors,
    tally: { embedded: 0, extracted: 0, summarized: 0 },
  };
}

/** What the variant of `index` needs kept that `kept` lacks (an index saved mid-format). */
function missingParts(index: KetRagIndex, kept: KetRagUpdateState): string[] {
  const missing: string[] = [];
  if (index.chunkVectors && !kept.chunkVectors) missing.push('chunk embeddings');
  if (index.skeleton && !kept.entityVectors) missing.push('entity embeddings');
  if (index.keyword && !kept.sentenceVectors) missing.push('sentence embeddings');
  if (index.entry?.vectors && !kept.subChunkVectors) missing.push('sub-chunk embeddings');
  return missing;
}

/**
 * Stages recomputed over the whole index, with why, for the variant of `next`; `full` when the core
 * set was selected again (`UpdateOptions.full`).
 */
function globalStages(next: KetRagIndex, full: boolean): UpdateReport['global'] {
  const o = next.options;
  const out: UpdateReport['global'] = [];
  if (next.knn) {
    out.push({
      stage: 'knn',
      reason:
        'lexical edges weigh keywords by their document frequency and every chunk keeps its k best neighbours, so the KNN graph is rebuilt from the kept chunk embeddings and keywords (no embedding again)',
    });
  }
  const order =
    o.coreSelection === 'pagerank' ? 'PageRank over the updated KNN graph ranks' : 'the seeded sample orders';
  if (o.beta > 0 && o.beta < 1 && full) {
    out.push({
      stage: 'core',
      reason: `full: the core chunks are selected again over the whole updated corpus as a build does (${order} the chunks, the best ⌊n·β⌋ are core); core chunks the index holds no extraction for (new ones and kept ones that became core) are extracted, and the extractions of chunks no longer core are dropped`,
    });
  } else if (o.beta > 0 && o.beta < 1) {
    out.push({
      stage: 'core',
      reason: `${order} the chunks; kept core chunks stay core and new chunks fill the budget ⌊n·β⌋ best first (choosing other kept chunks would extract unchanged text again), so the core set can differ from a fresh build's`,
    });
  }
  if (next.skeleton) {
    out.push({
      stage: 'skeleton',
      reason:
        'entities and relationships are merged by name across chunks: the graph, its text units, entity BM25 and vocabulary are rebuilt from the kept and new extractions (only description lists not summarized before are summarized, only entity texts not embedded before are embedded)',
    });
  }
  if (next.keyword) {
    out.push({
      stage: 'keywords',
      reason:
        'keyword and sentence positions span the corpus and a keyword vector is the mean over all its sentences: the bipartite graph and keyword vectors are rebuilt from the kept and new sentence embeddings',
    });
  }
  out.push({
    stage: 'vector-index',
    reason:
      'vector ids are positions and a VectorIndex has no delete, so the vector indexes are rebuilt from the kept and new embeddings',
  });
  if (next.entry?.lexical || next.skeleton?.lexical) {
    out.push({ stage: 'bm25', reason: 'BM25 ids are positions: rebuilt over the kept and new texts' });
  }
  return out;
}

/**
 * Change the corpus of `index` (see `Method.update`): models are called for the added documents'
 * chunks alone (embeddings, extraction of the new core chunks, summaries of description lists they
 * change); kept units reuse the index's results. With `options.full` and 0 < β < 1 the core set is
 * selected again over the whole corpus, so the result equals a fresh build on the changed corpus;
 * the models are then also called for kept chunks that become core (extraction) and for what their
 * extractions change (summaries, entity texts).
 *
 * @throws StateError when `index` was saved before KET-RAG kept what updates reuse.
 * @throws InvalidArgumentError for a bad change (see `planIndexChange`) or another embedder.
 */
export async function updateKetRag(
  name: string,
  index: KetRagIndex,
  change: IndexChange,
  baseCtx: BuildContext,
  options: UpdateOptions = {},
): Promise<IndexUpdate<KetRagIndex>> {
  // Vectors kept as the store's collections are read from them (the update state holds the rest).
  const state = index.kept && (await withCollectedRows(index, index.kept));
  const missing = state ? missingParts(index, state) : [];
  const { ctx, kept, plan, report } = await prepareUpdate(name, change, baseCtx, options, {
    kept: () => (missing.length > 0 ? undefined : state),
    refusal: {
      lacks: `what updates reuse (${missing.length > 0 ? missing.join(', ') : 'extractions, summaries and embeddings'})`,
      cost: 'calling the models on every chunk again',
    },
    documents: (k) => k.documents,
    embedder: index.providers.embedder,
  });
  const o = index.options;
  const rt = startBuild(ctx);
  const units = await changedChunks(rt, plan, index.chunks, (docs) => chunkCorpus(docs, index.providers, o));
  const { kept: keptPositions, added } = units;
  const keptChunks = new Set(keptPositions.map((i) => index.chunks[i]!.id));
  const full = options.full === true;
  const chunkTexts = [...keptPositions.map((i) => index.chunkTexts[i]!), ...added.texts];
  // A full update refits a fittable embedder on the changed corpus's chunks, as a build fits it:
  // every vector is then embedded again with the new fit (no kept vector is reused).
  const fit = await fullUpdateFit(rt, ctx, options, index.providers.embedder, () => chunkTexts);
  const providers = fit.providers({ ...index.providers, tasks: ctx.tasks });
  const reuse = reuseOf(index, kept, keptChunks, full);
  if (fit.refit) {
    reuse.chunkVectors = new Map();
    reuse.subChunkVectors = new Map();
    reuse.sentenceVectors = new Map();
    reuse.entityVectors = new Map();
  }
  const next = await indexChunks({
    rt,
    ctx,
    providers,
    options: o,
    chunks: units.chunks,
    chunkTexts,
    documents: plan.documents,
    titles: [
      ...kept.titles.filter(([id]) => !plan.drop.has(id)),
      ...plan.add.flatMap((d) => (d.title ? [[d.id, d.title] as [string, string]] : [])),
    ],
    reuse,
  });
  const keptCore = next.core.filter((id) => reuse.keptCore.has(id));
  const newCore = next.core.length - keptCore.length;
  const { tally } = reuse;
  const local = ['chunk', 'split'];
  if (next.kept?.chunkVectors) local.push('embed-chunks');
  if (next.skeleton) local.push('extract', 'summarize', 'embed-entities');
  if (next.kept?.subChunkVectors) local.push('embed-subchunks');
  if (next.keyword) local.push('embed-sentences');
  return {
    index: next,
    report: report({
      chunks: units.counts(next.chunks.length),
      embedded: tally.embedded,
      local,
      global: [
        ...fit.stages("the changed corpus's chunks", 'every chunk, sub-chunk, sentence and entity text'),
        ...globalStages(next, full),
      ],
      trace: {
        core: {
          kept: keptCore.length,
          added: newCore,
          dropped: reuse.keptCore.size - keptCore.length,
          total: next.core.length,
        },
        extracted: tally.extracted,
        summarized: tally.summarized,
        ...fit.note('new texts'),
      },
    }),
  };
}
