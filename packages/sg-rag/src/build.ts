import {
  type BuildContext,
  type Chunk,
  type Document,
  type GraphExtraction,
  InvalidArgumentError,
  indexVectors,
  isFittableEmbedder,
  type VectorIndexFactory,
} from '@grag/core';
import { type BuildRuntime, chunkDocuments, indexProviders, startBuild } from '@grag/core/kit';
import { createDominanceModel, starGraphOf } from './dominance.js';
import { adjacencyOf, exactLabelIndex, graphFromExtractions, graphFromTriples, type SgGraph } from './kg.js';
import type { DominanceEmbedderChoice, ResolvedBuildOptions } from './options.js';
import { buildPathIndex } from './path-index.js';
import type { KeptChunk, SgRagIndex, SgRagUpdateState } from './types.js';

function toMap(m: Record<string, string> | ReadonlyMap<string, string> | undefined): Map<string, string> {
  if (!m) return new Map();
  return m instanceof Map ? new Map(m) : new Map(Object.entries(m as Record<string, string>));
}

/**
 * A chunk's extraction as the index keeps it, with the chunk's id, document and location (the parse
 * issues are the build's report, not kept).
 */
export function keptChunk(
  chunk: Pick<Chunk, 'id' | 'docId' | 'location'>,
  extraction: Pick<GraphExtraction, 'entities' | 'relations'>,
): KeptChunk {
  return {
    id: chunk.id,
    docId: chunk.docId,
    ...(chunk.location ? { location: chunk.location } : {}),
    extraction: { entities: extraction.entities, relations: extraction.relations },
  };
}

/**
 * Refuse a graph without edges (nothing to index), naming `caller` and the `input` it came from.
 * @throws InvalidArgumentError when `graph` has no edges.
 */
export function requireEdges(graph: SgGraph, caller: string, input: string): void {
  if (graph.edges.length === 0) {
    throw new InvalidArgumentError(
      input,
      `${caller}: the knowledge graph has no edges; pass triples or documents with relations.`,
    );
  }
}

/**
 * Build an SG-RAG index (stages `chunk`, `extract`, `graph`, `fit`, `embed`, `vector-index`,
 * `dominance`, `paths`): the data graph from `options.triples`, or from one `extractGraph` call per
 * chunk of `docs`; node label embeddings in the context's vector index; the dominance embedder
 * (trained for `'gat'` and `'monotone'`); the path index. An index built from documents keeps what
 * `update` reuses (`kept`): the document ids, each chunk's extraction and the label embeddings.
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
  let keptChunks: KeptChunk[] | undefined;
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
    keptChunks = chunks.map((chunk, i) => keptChunk(chunk, extractions[i]!));
  }
  requireEdges(graph, 'sg-rag build', triples ? 'triples' : 'docs');
  const kept: SgRagUpdateState | undefined = keptChunks && {
    documents: docs.map((d) => d.id),
    chunks: keptChunks,
    labelEmbeddings: [],
  };
  const { embedder } = ctx;
  if (isFittableEmbedder(embedder)) {
    await rt.stage('fit', () => embedder.fit(graph.labels), { checkpoint: false });
  }
  const vectors = await rt.stage('embed', () =>
    rt.embed(graph.labels, { label: (label) => `entity label "${label}"` }),
  );
  if (kept) kept.labelEmbeddings = vectors;
  const parts = await indexGraph(rt, graph, vectors, {
    vectorIndex: ctx.vectorIndex,
    dimensions: embedder.dimensions,
    options,
    signal: ctx.signal,
    stats,
  });
  return { providers: indexProviders(ctx), ...parts, ...(kept ? { kept } : {}) };
}

/** What {@link indexGraph} needs besides the graph and its label vectors. */
export interface IndexGraphSettings {
  vectorIndex: VectorIndexFactory;
  /** Dimensions of the label vectors. */
  dimensions: number;
  /** The resolved options (the dominance embedder: a name, or the object in `customEmbedder`). */
  options: Pick<ResolvedBuildOptions, 'index' | 'customEmbedder'>;
  signal: AbortSignal | undefined;
  /** Stats gathered so far; the graph's, the dominance model's and the path index's are added. */
  stats: Record<string, number>;
}

/**
 * The stages of an index that follow its data graph and label embeddings (`vector-index`,
 * `dominance`, `paths`), shared by build and update: the label vector index, the dominance
 * embedder (trained for `'gat'` and `'monotone'`) and the path index, with their stats.
 */
export async function indexGraph(
  rt: BuildRuntime,
  graph: SgGraph,
  vectors: readonly Float32Array[],
  settings: IndexGraphSettings,
): Promise<Omit<SgRagIndex, 'providers' | 'kept'>> {
  const { options, stats } = settings;
  const opts = options.index;
  const adjacency = adjacencyOf(graph);
  const labelVectors = await rt.stage(
    'vector-index',
    () => indexVectors(settings.vectorIndex, vectors, { dimensions: settings.dimensions }),
    { checkpoint: false },
  );
  const dominance = await rt.stage(
    'dominance',
    () =>
      createDominanceModel(starGraphOf(graph), {
        ...opts,
        embedder: options.customEmbedder ?? (opts.dominanceEmbedder as DominanceEmbedderChoice),
        ...(settings.signal ? { signal: settings.signal } : {}),
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
    options: opts,
    graph,
    adjacency,
    exactLabels: exactLabelIndex(graph),
    labelVectors,
    paths,
    stats,
  };
}
