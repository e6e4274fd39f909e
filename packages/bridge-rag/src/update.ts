/**
 * bridge-rag's update: the added documents are chunked, read and embedded; the kept chunks keep
 * their entities and embeddings; the linked graph, BM25 and the vector index are built again over
 * the kept and new chunks (no model call). Without a fittable embedder the result is the index a
 * fresh build of the changed corpus gives.
 */
import {
  type BuildContext,
  type Document,
  type IndexChange,
  type IndexUpdate,
  indexVectors,
  type UpdateOptions,
} from '@grag/core';
import {
  changedTitleRecord,
  chunkBySettings,
  entitiesStage,
  entityIndexUpdatable,
  fullUpdateFit,
  keptChunkPositions,
  prepareUpdate,
  startBuild,
  updateEmbeddings,
} from '@grag/core/kit';
import { chunkInputs, chunkTexts, graphStage, graphStats, queryViews } from './build.js';
import type { BridgeRagIndex, BridgeRagStats } from './types.js';

/** Update `index` with `change` (see the README's Updates). */
export async function updateBridgeRag(
  index: BridgeRagIndex,
  change: IndexChange,
  baseCtx: BuildContext,
  options: UpdateOptions,
  name: string,
): Promise<IndexUpdate<BridgeRagIndex>> {
  const update = await prepareUpdate(
    name,
    change,
    baseCtx,
    options,
    entityIndexUpdatable(index, {
      lacks: "each chunk's entities and embedding",
      cost: 'reading and embedding every chunk again',
    }),
  );
  const { ctx, plan, kept: state } = update;
  const rt = startBuild(ctx);
  const o = index.options;
  const { kept: keptAt, dropped } = keptChunkPositions(plan, index.chunks);
  const titles = changedTitleRecord(state.titles, plan);
  for (const doc of plan.add) if (typeof doc.title !== 'string') delete titles[doc.id];
  const titleMap = new Map<string, string | undefined>(Object.entries(titles));
  const fresh: Document[] = plan.add.filter((d) => d.text.trim() !== '');
  const newChunks =
    fresh.length === 0
      ? []
      : await rt.stage('chunk', () => chunkBySettings(fresh, o, ctx.tokenizer), { checkpoint: false });
  const newTexts = chunkTexts(newChunks, titleMap, o.includeTitle);
  const extractedNew = await entitiesStage(rt, index.extractor, chunkInputs(newChunks, newTexts), {
    checkpoint: false,
  });
  const chunks = [...keptAt.map((i) => index.chunks[i]!), ...newChunks];
  const texts = [...keptAt.map((i) => index.texts[i]!), ...newTexts];
  const extracted = [...keptAt.map((i) => state.extracted[i]!), ...extractedNew];
  const { graph, homes, textMentions } = await graphStage(rt, extracted, chunks, texts, titleMap);
  // A full update refits a fittable embedder on the changed corpus and embeds every chunk again.
  const fit = await fullUpdateFit(rt, ctx, options, index.providers.embedder, () => texts);
  const { refit } = fit;
  const { embeddings, embedded } = await updateEmbeddings(rt, fit, {
    texts,
    added: newTexts,
    kept: keptAt.map((i) => state.embeddings[i]!),
  });
  const providers = fit.providers(index.providers);
  const vectors = await rt.stage(
    'vector-index',
    () => indexVectors(providers.vectorIndex, embeddings, { dimensions: providers.embedder.dimensions }),
    { checkpoint: false },
  );
  const documents = new Set(chunks.map((c) => c.docId)).size;
  const stats: BridgeRagStats = {
    documents,
    skippedDocuments: plan.documents.length - documents,
    chunks: chunks.length,
    ...graphStats(graph, homes, textMentions),
  };
  return {
    index: {
      ...index,
      providers,
      chunks,
      texts,
      vectors,
      graph,
      homes,
      stats,
      kept: { documents: plan.documents, titles, extracted, embeddings },
      ...queryViews({ texts, graph, homes }),
    },
    report: update.report({
      chunks: { removed: dropped.length, added: newChunks.length, total: chunks.length },
      embedded: new Set(embedded).size,
      local: ['chunk', 'entities', ...(refit ? [] : ['embed'])],
      global: [
        {
          stage: 'graph',
          reason:
            'entity linking folds names across the whole corpus: the graph is built again from the kept and new extractions (no model call)',
        },
        ...fit.stages('the changed corpus', 'every chunk'),
        {
          stage: 'vector-index',
          reason: 'vector ids are chunk positions: the index is built again from the kept and new embeddings',
        },
        { stage: 'bm25', reason: 'BM25 is built again over the kept and new chunk texts' },
      ],
      trace: fit.note('new chunks'),
    }),
  };
}
