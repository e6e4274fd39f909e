import {
  type BuildContext,
  chunkDocuments,
  type Document,
  InvalidArgumentError,
  indexProviders,
  indexVectors,
  isFittableEmbedder,
  startBuild,
} from '@grag/core';
import { createDominanceModel, starGraphOf } from './dominance.js';
import { adjacencyOf, exactLabelIndex, graphFromExtractions, graphFromTriples, type SgGraph } from './kg.js';
import type { DominanceEmbedderChoice, ResolvedBuildOptions } from './options.js';
import { buildPathIndex } from './path-index.js';
import type { SgRagIndex } from './types.js';

function toMap(m: Record<string, string> | ReadonlyMap<string, string> | undefined): Map<string, string> {
  if (!m) return new Map();
  return m instanceof Map ? new Map(m) : new Map(Object.entries(m as Record<string, string>));
}

/**
 * Build an SG-RAG index (stages `chunk`, `extract`, `graph`, `fit`, `embed`, `vector-index`,
 * `dominance`, `paths`): the data graph from `options.triples`, or from one `extractGraph` call per
 * chunk of `docs`; node label embeddings in the context's vector index; the dominance embedder
 * (trained for `'gat'` and `'monotone'`); the path index.
 */
export async function buildSgRagIndex(
  docs: Document[],
  ctx: BuildContext,
  options: ResolvedBuildOptions,
): Promise<SgRagIndex> {
  const { index: opts, triples } = options;
  const stats: Record<string, number> = {};
  const rt = startBuild(ctx);
  let graph: SgGraph;
  if (triples) {
    graph = await rt.stage(
      'graph',
      () => {
        const r = graphFromTriples(triples, toMap(options.entityText), toMap(options.relationText));
        stats.skippedSelfLoops = r.skippedSelfLoops;
        return r.graph;
      },
      { checkpoint: false },
    );
  } else {
    if (docs.length === 0) {
      throw new InvalidArgumentError(
        'docs',
        'sg-rag build: the corpus is empty; pass documents or `options.triples`.',
      );
    }
    const chunks = await rt.stage(
      'chunk',
      () =>
        chunkDocuments(docs, { chunkSize: opts.chunkSize, overlap: opts.overlap, tokenizer: ctx.tokenizer }),
      { checkpoint: false },
    );
    // One extractGraph call per chunk; the extractions (plain data) are the checkpoint.
    const extractions = await rt.stage('extract', () =>
      rt.map(chunks, (chunk) => ctx.tasks.extractGraph(chunk.text, { abortSignal: ctx.signal }), {
        label: (chunk) => chunk.id,
        unit: 'chunks',
      }),
    );
    graph = await rt.stage(
      'graph',
      () => {
        const r = graphFromExtractions(chunks, extractions);
        stats.skippedExtractions = r.skipped;
        return r.graph;
      },
      { checkpoint: false },
    );
  }
  if (graph.edges.length === 0) {
    throw new InvalidArgumentError(
      triples ? 'triples' : 'docs',
      'sg-rag build: the knowledge graph has no edges; pass triples or documents with relations.',
    );
  }
  const adjacency = adjacencyOf(graph);
  const { embedder } = ctx;
  if (isFittableEmbedder(embedder)) {
    await rt.stage('fit', () => embedder.fit(graph.labels), { checkpoint: false });
  }
  const vectors = await rt.stage('embed', () =>
    rt.embed(graph.labels, { label: (label) => `entity label "${label}"` }),
  );
  const labelVectors = await rt.stage(
    'vector-index',
    () => indexVectors(ctx.vectorIndex, vectors, { dimensions: embedder.dimensions }),
    { checkpoint: false },
  );
  const dominance = await rt.stage(
    'dominance',
    () =>
      createDominanceModel(starGraphOf(graph), {
        ...opts,
        embedder: options.customEmbedder ?? (opts.dominanceEmbedder as DominanceEmbedderChoice),
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      }),
    { checkpoint: false },
  );
  const { paths, skippedMiddles } = await rt.stage(
    'paths',
    () => buildPathIndex({ graph, adjacency, ...opts, embedder: dominance.embedder, rows: dominance.rows }),
    { checkpoint: false },
  );
  const { correction } = dominance.rows;
  stats.dominanceLifted = correction.lifted;
  stats.dominanceSaturated = correction.saturated;
  if (dominance.training) {
    stats.dominanceTrainSeconds = dominance.training.seconds;
    stats.dominanceTrainPairs = dominance.training.pairs;
    stats.dominanceTrainEpochs = dominance.training.epochs;
    stats.dominanceTrainLoss = dominance.training.losses.at(-1) ?? 0;
  }
  Object.assign(stats, {
    nodes: graph.ids.length,
    edges: graph.edges.length,
    facts: graph.edges.reduce((s, e) => s + e.facts.length, 0),
    paths: paths.tree.size,
    skippedMiddles,
  });
  return {
    providers: indexProviders(ctx),
    options: opts,
    graph,
    adjacency,
    exactLabels: exactLabelIndex(graph),
    labelVectors,
    paths,
    stats,
  };
}
