/**
 * Incremental updates of an SG-RAG index built from documents: only the added documents' chunks
 * are extracted and only labels the index has no embedding for are embedded; the data graph is
 * merged again from the kept and new extractions, and the stages that follow it (label vector
 * index, dominance embeddings, R*-tree path index) are recomputed from that without model calls.
 */
import {
  type BuildContext,
  type IndexChange,
  type IndexUpdate,
  StateError,
  type UpdateOptions,
  type UpdateReport,
} from '@grag/core';
import { chunkDocuments, fullUpdateFit, keptWithVectorRows, prepareUpdate, startBuild } from '@grag/core/kit';
import { indexGraph, keptChunk, requireEdges } from './build.js';
import { graphFromExtractions, type SgGraph } from './kg.js';
import type { SgRagIndexOptions } from './options.js';
import type { KeptChunk, SgRagIndex } from './types.js';

/** Stages an update recomputes over the whole index, and why (`report.global`). */
function globalStages(options: SgRagIndexOptions): UpdateReport['global'] {
  const choice = options.dominanceEmbedder;
  const dominance =
    choice === 'training-free'
      ? "a node's training-free dominance embedding adds the seeded vectors of its star's nodes, which are keyed by node number: nodes are numbered again and neighbourhoods change, so every node's is recomputed (no training, no model calls)"
      : choice === 'custom'
        ? "the index's own dominance embedder embeds every node's star again: nodes are numbered again and neighbourhoods change (no model calls)"
        : `the ${choice} dominance embedder is trained on the whole data graph (seeded), so it is trained again on the changed graph, as a build would train it (no model calls)`;
  return [
    {
      stage: 'graph',
      reason:
        'the data graph is merged again from the kept and the new per-chunk extractions (no model calls): entities and relations that only removed documents supported go, the others lose what removed documents said, and nodes and edges are numbered as a fresh build numbers them',
    },
    {
      stage: 'vector-index',
      reason:
        'label vector ids are node numbers, which shift when nodes come and go, and a VectorIndex has no delete: it is rebuilt from the kept and the new label embeddings (none is embedded again)',
    },
    { stage: 'dominance', reason: dominance },
    {
      stage: 'paths',
      reason:
        "every path's key concatenates its nodes' dominance embeddings, which were recomputed, and the R*-tree is bulk loaded (SG-RAG Eq. 4): the path index is built again from the changed graph",
    },
  ];
}

/** What `index` keeps for updates; an index built from triples is refused (it has no documents). */
function updateState(caller: string, index: SgRagIndex): SgRagIndex['kept'] {
  if (!index.kept && index.graph.edges.every((e) => e.chunkIds.length === 0)) {
    throw new StateError(
      `${caller}: this index was built from triples, not documents, so it holds no documents to add or remove; build it again with the changed triples.`,
    );
  }
  return index.kept;
}

/**
 * Change the corpus of `index` (see `Method.update`): the kept chunks' extractions and the kept
 * labels' embeddings are reused, the added documents are chunked and extracted and their new labels
 * embedded; the graph, the label vector index, the dominance embeddings and the path index are
 * recomputed without model calls, so the new index equals a fresh build of the changed corpus.
 * `index` is left as it was.
 *
 * @throws StateError when `index` was built from triples or saved before updates existed.
 * @throws InvalidArgumentError when the change is refused (see `planIndexChange`), the context's
 *   embedder is not the index's, or the changed corpus yields a graph without edges.
 */
export async function updateSgRagIndex(
  index: SgRagIndex,
  change: IndexChange,
  baseCtx: BuildContext,
  options: UpdateOptions,
  name: string,
): Promise<IndexUpdate<SgRagIndex>> {
  const { ctx, caller, kept, plan, report } = await prepareUpdate(name, change, baseCtx, options, {
    kept: (caller) => keptWithVectorRows(index.labelVectors, updateState(caller, index), 'labelEmbeddings'),
    refusal: {
      lacks: "each chunk's extraction and label embeddings",
      cost: 'extracting every chunk again',
    },
    documents: (k) => k.documents,
    embedder: index.providers.embedder,
  });
  const opts = index.options;
  const rt = startBuild(ctx);
  const added = await rt.stage(
    'chunk',
    () =>
      chunkDocuments(plan.add, {
        chunkSize: opts.chunkSize,
        overlap: opts.overlap,
        tokenizer: ctx.tokenizer,
      }),
    { checkpoint: false },
  );
  const extractions = await rt.stage(
    'extract',
    () =>
      rt.map(added, (chunk) => ctx.tasks.extractGraph(chunk.text, { abortSignal: ctx.signal }), {
        label: (chunk) => chunk.id,
        unit: 'chunks',
      }),
    { checkpoint: false },
  );
  const keptChunks = kept.chunks.filter((c) => !plan.drop.has(c.docId));
  const chunks: KeptChunk[] = [...keptChunks, ...added.map((chunk, i) => keptChunk(chunk, extractions[i]!))];
  const stats: Record<string, number> = {};
  const graph: SgGraph = await rt.stage(
    'graph',
    () => {
      const r = graphFromExtractions(
        chunks,
        chunks.map((c) => c.extraction),
      );
      stats.skippedExtractions = r.skipped;
      return r.graph;
    },
    { checkpoint: false },
  );
  requireEdges(graph, caller, 'change');
  // A full update refits a fittable embedder on the changed graph's labels, as a build fits it,
  // and embeds every label again with the new fit.
  const fit = await fullUpdateFit(rt, ctx, options, index.providers.embedder, () => graph.labels);
  const providers = fit.providers(index.providers);
  // Label → embedding of every label the index holds; only labels new to it are embedded.
  const known = new Map<string, Float32Array>();
  if (!fit.refit) {
    index.graph.labels.forEach((label, i) => {
      if (!known.has(label)) known.set(label, kept.labelEmbeddings[i]!);
    });
  }
  const fresh = [...new Set(graph.labels.filter((label) => !known.has(label)))];
  if (fresh.length > 0) {
    const vectors = await rt.stage(
      'embed',
      () => rt.embed(fresh, { label: (label) => `entity label "${label}"` }),
      { checkpoint: false },
    );
    fresh.forEach((label, i) => {
      known.set(label, vectors[i]!);
    });
  }
  const labelEmbeddings = graph.labels.map((label) => known.get(label)!);
  const parts = await indexGraph(rt, graph, labelEmbeddings, {
    vectorIndex: providers.vectorIndex,
    dimensions: providers.embedder.dimensions,
    options: {
      index: opts,
      customEmbedder: opts.dominanceEmbedder === 'custom' ? index.paths.embedder : undefined,
    },
    signal: ctx.signal,
    stats,
  });
  const freshSet = new Set(fresh);
  return {
    index: {
      providers,
      ...parts,
      kept: { documents: plan.documents, chunks, labelEmbeddings },
    },
    report: report({
      chunks: { removed: kept.chunks.length - keptChunks.length, added: added.length, total: chunks.length },
      embedded: fresh.length,
      local: ['chunk', 'extract', 'embed'],
      global: [...fit.stages("the changed graph's labels", 'every label'), ...globalStages(opts)],
      trace: {
        extracted: added.length,
        reusedExtractions: keptChunks.length,
        reusedLabelEmbeddings: graph.labels.filter((label) => !freshSet.has(label)).length,
        nodes: { before: index.graph.ids.length, after: graph.ids.length },
        edges: { before: index.graph.edges.length, after: graph.edges.length },
        paths: { before: index.paths.tree.size, after: parts.paths.tree.size },
        ...fit.note('new labels'),
      },
    }),
  };
}
