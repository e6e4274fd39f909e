/**
 * Incremental updates of a NodeRAG index: the added documents are chunked and only model inputs the
 * index never answered are sent (decompositions of new chunks, attributes whose material changed,
 * community elements whose content changed, embeddings of new texts). Importance and communities
 * are kept where the change does not reach (see `local.ts`); with `full` they are chosen again over
 * the whole graph, as a build of the changed corpus chooses them. The graph, semantic matching,
 * HNSW and BM25 are recomputed from the kept and new answers (no model call). */
import type { BuildContext, IndexChange, IndexUpdate, UpdateOptions, UpdateReport } from '@grag/core';
import { changedChunks, fullUpdateFit, keptWithVectorRows, prepareUpdate, startBuild } from '@grag/core/kit';
import { indexNodeRag } from './build.js';
import type { NodeRagKept, NodeRagMemo } from './kept.js';
import type { NodeRagIndex } from './types.js';
import { textUnits } from './units.js';

/** Why each stage recomputed over the whole index is, whatever the update. */
const ALWAYS_GLOBAL: UpdateReport['global'] = [
  {
    stage: 'graph',
    reason:
      'semantic-unit keys are positions in the corpus and entity linking folds names across all documents, so the decomposition graph (S, N, R) is laid again from the kept and new decompositions (no model call)',
  },
  {
    stage: 'semantic-matching',
    reason: 'k-means over the embeddings of every S, A and H node (kept embeddings, no embedding again)',
  },
  {
    stage: 'hnsw',
    reason:
      'vector ids are positions and the base layer becomes graph edges, so the HNSW index is rebuilt from the kept and new embeddings and its base layer laid again',
  },
  { stage: 'bm25', reason: 'BM25 ids are vector positions: rebuilt over the texts of the embedded nodes' },
];

/** Why importance and communities were recomputed over the whole graph (a `full` update, or an older index). */
const whyGlobal = (because: string): UpdateReport['global'] => [
  {
    stage: 'attributes',
    reason: `${because}: important entities were selected again over the whole graph (k-core and betweenness); an entity keeps its attribute when the material summarized is unchanged, and only entities whose material changed (or that became important) are summarized again`,
  },
  {
    stage: 'communities',
    reason: `${because}: Leiden ran over the whole graph; a community whose content is unchanged keeps its high-level element and overview, and only communities whose content changed are described again`,
  },
];

/** What a local update did in place of the whole-graph G2 and G3 choices. */
const LOCAL_STAGES = ['chunk', 'decompose', 'attributes', 'communities', 'embed'];

/** A memo of the answers `kept` holds, with `index`'s node texts for its embeddings. */
function memoOf(
  index: NodeRagIndex,
  kept: NodeRagKept & { embeddings: Float32Array[] },
  keptChunks: ReadonlySet<number>,
): NodeRagMemo {
  const decompositions = new Map<string, NodeRagKept['decompositions'][number]>();
  index.chunks.forEach((chunk, c) => {
    if (keptChunks.has(c))
      decompositions.set(index.graph.node(`T:${chunk.id}`).text, kept.decompositions[c]!);
  });
  const vectors = new Map<string, Float32Array>();
  index.vectorKeys.forEach((key, i) => {
    vectors.set(index.graph.node(key).text, kept.embeddings[i]!);
  });
  return {
    decompositions,
    attributes: new Map(kept.attributes),
    elements: new Map(kept.elements),
    vectors,
  };
}

/**
 * Change the corpus of `index` (see `Method.update`); `index` is left as it was. Models are called
 * only for inputs the index never answered; the rest is recomputed from kept answers, so with a
 * deterministic model and an unfitted embedder the result is the index a build of the changed
 * corpus makes.
 *
 * @throws StateError when `index` was saved before NodeRAG kept what updates reuse.
 * @throws InvalidArgumentError for a bad change (see `planIndexChange`) or another embedder.
 */
export async function updateNodeRag(
  name: string,
  index: NodeRagIndex,
  change: IndexChange,
  baseCtx: BuildContext,
  options: UpdateOptions = {},
): Promise<IndexUpdate<NodeRagIndex>> {
  const { ctx, kept, plan, report } = await prepareUpdate(name, change, baseCtx, options, {
    kept: () => keptWithVectorRows(index.vectors, index.kept, 'embeddings'),
    refusal: {
      lacks: 'what updates reuse (decompositions, summaries and embeddings)',
      cost: 'calling the models on every chunk again',
    },
    documents: (k) => k.documents.map((d) => d.id),
    embedder: index.providers.embedder,
  });
  const o = index.options;
  const rt = startBuild(ctx);
  const units = await changedChunks(rt, plan, index.chunks, (docs) => textUnits(docs, ctx, o));
  const { kept: keptPositions, added } = units;
  const texts = [
    ...keptPositions.map((c) => index.graph.node(`T:${index.chunks[c]!.id}`).text),
    ...added.texts,
  ];
  // A full update refits a fittable embedder on the changed corpus's chunks, as a build fits it:
  // every node is then embedded again with the new fit (no kept embedding is reused).
  const fit = await fullUpdateFit(rt, ctx, options, index.providers.embedder, () => texts);
  const memo = memoOf(index, kept, new Set(keptPositions));
  if (fit.refit) memo.vectors.clear();
  const { important, communities } = kept;
  const local = !options.full && important !== undefined && communities !== undefined;
  const { index: next, calls } = await indexNodeRag({
    rt,
    ctx,
    o,
    providers: fit.providers(index.providers),
    documents: [
      ...kept.documents.filter((d) => !plan.drop.has(d.id)),
      ...plan.add.map((d) => ({ id: d.id, ...(d.title !== undefined ? { title: d.title } : {}) })),
    ],
    chunks: units.chunks,
    texts,
    memo,
    ...(local ? { previous: { graph: index.graph, important, communities } } : {}),
  });
  const nextKept = next.kept!;
  return {
    index: next,
    report: report({
      chunks: units.counts(next.chunks.length),
      embedded: calls.embedded,
      local: local ? LOCAL_STAGES : ['chunk', 'decompose', 'embed'],
      global: [
        ...fit.stages("the changed corpus's chunks", 'every node'),
        ...(local
          ? ALWAYS_GLOBAL
          : [
              ALWAYS_GLOBAL[0]!,
              ...whyGlobal(options.full ? 'full update' : 'the index was saved before updates were local'),
              ...ALWAYS_GLOBAL.slice(1),
            ]),
      ],
      trace: {
        calls,
        reused: {
          decompositions: next.chunks.length - calls.decomposed,
          attributes: nextKept.attributes.length - calls.summarized,
          elements: nextKept.elements.length - calls.described,
          embeddings: new Set(next.vectorKeys.map((key) => next.graph.node(key).text)).size - calls.embedded,
        },
        ...fit.note('new texts'),
      },
    }),
  };
}
