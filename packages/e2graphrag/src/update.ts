/**
 * E2GraphRAG's incremental update: new documents are chunked, their entities extracted and their
 * chunks summarized into the tree along the paths of the change; removed documents leave every
 * structure. Kept chunks and unchanged summaries cost no model call and no embedding. With `full`,
 * the tree is regrouped from scratch (and a fittable embedder fitted again), as a fresh build does.
 */
import type { BuildContext, IndexChange, IndexUpdate, UpdateOptions } from '@grag/core';
import {
  type BuildRuntime,
  changedTitleRecord,
  entitiesStage,
  entityIndexUpdatable,
  fullUpdateFit,
  prepareUpdate,
  startBuild,
} from '@grag/core/kit';
import {
  leavesFromChunks,
  type SummaryLevelRunner,
  type SummaryTree,
  summaryCount,
} from '@grag/summary-tree';
import {
  chunkDocuments,
  graphStage,
  indexStats,
  queryViews,
  titlesToWrite,
  vectorIndexStage,
} from './build.js';
import { regroupSummaryTree } from './tree-regroup.js';
import { updateSummaryTree } from './tree-update.js';
import type { E2GraphRagIndex, E2GraphRagKept } from './types.js';
import { updateStages } from './update-stages.js';

/**
 * Change the corpus of `index` (see `Method.update`): the kept documents' chunks, extractions,
 * summaries and embeddings are reused; the added documents are chunked, extracted, summarized and
 * embedded; summaries whose children changed are asked for again. The entity graph, the vector
 * index and the BM25 view are rebuilt from kept and new data without model calls.
 *
 * With `options.full` the result is the index a fresh build of the changed corpus makes: the tree
 * is regrouped over every chunk as a build groups it (see `regroupSummaryTree`: only summaries
 * whose exact request the index has not answered are asked for), and a fittable embedder is
 * fitted again on the new node texts, which are then all embedded again. That refits the
 * context's embedder, which `index` shares when it was loaded with the same context.
 *
 * @throws StateError for an index saved before updates existed (rebuild it once).
 * @throws InvalidArgumentError for a bad change (see core's `planIndexChange`) or another embedder.
 */
export async function updateE2GraphRag(
  index: E2GraphRagIndex,
  change: IndexChange,
  baseCtx: BuildContext,
  options: UpdateOptions,
  name: string,
): Promise<IndexUpdate<E2GraphRagIndex>> {
  const { ctx, kept, plan, report } = await prepareUpdate(
    name,
    change,
    baseCtx,
    options,
    entityIndexUpdatable(index, {
      lacks: "each chunk's entities and each tree node's embedding",
      cost: 'summarizing and embedding everything again',
    }),
  );
  const o = index.options;
  const rt = startBuild(ctx);
  const nonBlank = plan.add.filter((d) => d.text.trim() !== '');
  const chunks = await rt.stage('chunk', () => chunkDocuments(nonBlank, ctx, o), { checkpoint: false });
  const added = leavesFromChunks(chunks, { titles: o.includeTitle ? titlesToWrite(plan.add) : undefined });
  const old = index.tree;
  const docOf = (leaf: number) => old.nodes[leaf]!.docId ?? old.nodes[leaf]!.id;
  const keep = (leaf: number) => !plan.drop.has(docOf(leaf));
  const keptLeaves = old.levels[0]!.filter(keep);
  const extractedNew = await entitiesStage(rt, index.extractor, added, { checkpoint: false });
  const runLevel: SummaryLevelRunner = (groups, summarize) =>
    rt.stage(
      'summarize',
      () =>
        rt.map(groups, summarize, {
          label: (g) => `${g.id} (leaves ${g.firstLeaf} to ${g.lastLeaf})`,
          unit: 'summaries',
          concurrency: o.concurrency,
        }),
      { checkpoint: false },
    );
  const full = options.full === true;
  const changed = await (full ? regroupSummaryTree : updateSummaryTree)(old, {
    keep,
    added,
    summarizer: ctx.tasks,
    summaryMaxTokens: o.summaryMaxTokens,
    runLevel,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
  const { tree } = changed;
  const extracted = [...keptLeaves.map((i) => kept.extracted[i]!), ...extractedNew];
  const documents = plan.documents;
  const titles = changedTitleRecord(kept.titles, plan);
  const leaves = tree.levels[0]!.map((i) => tree.nodes[i]!);
  const titleOf = new Map(documents.map((id) => [id, titles[id]]));
  const { graph, homes, textMentions } = await graphStage(rt, extracted, leaves, titleOf, o);
  // A full update fits a fittable embedder again on the changed tree's node texts, as a build
  // does, so every node is embedded again with the new fit; otherwise the kept embeddings stay valid.
  const fit = await fullUpdateFit(rt, ctx, options, index.providers.embedder, () =>
    tree.nodes.map((n) => n.text),
  );
  const refit = fit.refit !== undefined;
  const { embeddings, embedded } = await embedTree(rt, {
    refit,
    old,
    kept,
    tree,
    origin: changed.origin,
  });
  // The refitted embedder is the one the new index's vectors (and its saved state) belong to.
  const providers = fit.providers(index.providers);
  const vectors = await vectorIndexStage(rt, tree, embeddings, providers);
  const withChunks = new Set(leaves.map((l) => l.docId ?? l.id));
  const stats = indexStats({
    documents: documents.filter((id) => withChunks.has(id)).length,
    skippedDocuments: documents.filter((id) => !withChunks.has(id)).length,
    chunks: leaves.length,
    tree,
    graph,
    textMentions: o.entityLinking ? textMentions : undefined,
  });
  const views = queryViews({ tree, graph, homes, options: o });
  const { lexical: _lexical, vocabulary: _vocabulary, home: _home, ...base } = index;
  return {
    index: {
      ...base,
      providers,
      tree,
      vectors,
      graph,
      stats,
      homes,
      ...views,
      kept: { documents, titles, extracted, embeddings },
    },
    report: report({
      chunks: {
        removed: old.levels[0]!.length - keptLeaves.length,
        added: added.length,
        total: leaves.length,
      },
      embedded,
      ...updateStages({
        full,
        refit,
        entityLinking: o.entityLinking,
        bm25: !!views.lexical,
      }),
      trace: {
        summaries: {
          asked: changed.summarized,
          kept: changed.origin.filter((x, i) => x >= 0 && tree.nodes[i]!.level > 0).length,
          dropped: changed.droppedSummaries,
          total: summaryCount(tree),
        },
        tree: full
          ? 'regrouped from scratch over every chunk, as a build groups them (full); summaries whose exact inputs the index had already summarized were reused'
          : 'changed along the paths of the change: groups that lost a chunk or gained one are summarized again with their ancestors; a rebuild (or an update with full) regroups every chunk',
        ...fit.note('new nodes'),
      },
    }),
  };
}

/**
 * The embedding of every node of the changed tree: with `refit` (the embedder was fitted again on
 * every node text), every node embedded again; otherwise a kept node (`origin` ≥ 0) keeps its embedding,
 * a node whose text some old node had reuses that one, and only new texts are embedded.
 */
async function embedTree(
  rt: BuildRuntime,
  input: {
    refit: boolean;
    old: SummaryTree;
    kept: E2GraphRagKept & { embeddings: Float32Array[] };
    tree: SummaryTree;
    origin: readonly number[];
  },
): Promise<{ embeddings: Float32Array[]; embedded: number }> {
  const { refit, old, kept, tree, origin } = input;
  let embeddings: Float32Array[];
  let embedded: number;
  if (refit) {
    const texts = tree.nodes.map((n) => n.text);
    embeddings = await rt.stage('embed', () => rt.embed(texts), { checkpoint: false });
    embedded = texts.length;
  } else {
    // Embeddings are kept per node; a node whose text some old node had reuses that embedding.
    const byText = new Map<string, Float32Array>();
    old.nodes.forEach((n, i) => {
      byText.set(n.text, kept.embeddings[i]!);
    });
    const missing = [
      ...new Set(tree.nodes.filter((n, i) => origin[i]! < 0 && !byText.has(n.text)).map((n) => n.text)),
    ];
    const fresh =
      missing.length > 0 ? await rt.stage('embed', () => rt.embed(missing), { checkpoint: false }) : [];
    missing.forEach((text, i) => {
      byText.set(text, fresh[i]!);
    });
    embeddings = tree.nodes.map((n, i) =>
      origin[i]! >= 0 ? kept.embeddings[origin[i]!]! : byText.get(n.text)!,
    );
    embedded = missing.length;
  }
  return { embeddings, embedded };
}
