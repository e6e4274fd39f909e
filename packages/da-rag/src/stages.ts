/**
 * The stages of a DA-RAG index that `build` and `update` share: chunking and the per-chunk model
 * work (local: they run on the chunks they are given), and the merge of the KG and the layers
 * (over the whole index, from the per-chunk results the index keeps, without model calls).
 */
import {
  type BuildContext,
  type Chunk,
  type Document,
  type GraphExtraction,
  indexVectors,
  type TitleDescription,
  throwIfAborted,
} from '@grag/core';
import { buildKnnGraph, type KnowledgeGraph, KnowledgeGraphBuilder, knnEdges } from '@grag/core/graph';
import { type BuildRuntime, chunkDocuments, semanticChunkDocuments } from '@grag/core/kit';
import { type TrussGraph, trussGraphFromEdges } from '@grag/ktruss';
import { chunkLayerEdges, graphLinks, pairsToEdges } from './layers.js';
import type { DaRagOptions } from './options.js';
import type { ChunkExtraction, DaRagKept, DaRagStats } from './types.js';
import { withTitle } from './util.js';

/** Split `docs` into chunks (semantic chunking embeds sentence windows): the stage `'chunk'`. */
export function chunkStage(
  rt: BuildRuntime,
  docs: readonly Document[],
  ctx: BuildContext,
  options: DaRagOptions,
  checkpoint: boolean,
): Promise<Chunk[]> {
  return rt.stage(
    'chunk',
    () =>
      options.chunking === 'semantic'
        ? semanticChunkDocuments(docs, {
            embedder: ctx.embedder,
            tokenizer: ctx.tokenizer,
            maxTokens: options.chunkSize,
            breakpoint: { type: 'percentile', value: options.breakpointPercentile },
            abortSignal: ctx.signal,
          })
        : chunkDocuments(docs, {
            chunkSize: options.chunkSize,
            overlap: options.overlap,
            tokenizer: ctx.tokenizer,
          }),
    { checkpoint },
  );
}

/** Each chunk's text as extracted and shown: its document's title line, then the chunk text. */
export function chunkTexts(
  chunks: readonly Chunk[],
  titleOf: ReadonlyMap<string, string | undefined>,
  options: DaRagOptions,
): string[] {
  return chunks.map((c) => withTitle(titleOf.get(c.docId), c.text, options.includeTitle));
}

/** The model's work on each chunk: its graph extraction and its title and description. */
export interface ChunkAnalysis {
  extractions: GraphExtraction[];
  described: TitleDescription[];
}

/** Extract a graph from, and write a title and description for, each chunk: stages `'extract'` and `'describe'`. */
export async function analyseChunks(
  rt: BuildRuntime,
  ctx: BuildContext,
  options: DaRagOptions,
  input: {
    chunks: readonly Chunk[];
    texts: readonly string[];
    titleOf: ReadonlyMap<string, string | undefined>;
  },
  checkpoint: boolean,
): Promise<ChunkAnalysis> {
  const { chunks, texts, titleOf } = input;
  const overChunks = {
    label: (_text: string, i: number) => `chunk ${chunks[i]!.id}`,
    unit: 'chunks',
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
  };
  // Entity linking: each chunk's document title is its main subject (an extraction hint, and the
  // canonical entity that mentions of it elsewhere link to).
  const subjects = chunks.map((c) => titleOf.get(c.docId)?.trim() || undefined);
  const extractions = await rt.stage(
    'extract',
    () =>
      rt.map(
        texts,
        (text, i) =>
          ctx.tasks.extractGraph(text, {
            gleanings: options.gleanings,
            ...(options.entityLinking && subjects[i] ? { subject: subjects[i] } : {}),
            abortSignal: ctx.signal,
            ...(options.entityTypes ? { entityTypes: options.entityTypes } : {}),
          }),
        overChunks,
      ),
    { checkpoint },
  );
  const described = await rt.stage(
    'describe',
    () =>
      rt.map(texts, (text) => ctx.tasks.titleAndDescription(text, { abortSignal: ctx.signal }), overChunks),
    { checkpoint },
  );
  return { extractions, described };
}

/** What the index keeps of a chunk's extraction (plain records; parse issues counted). */
export function keepExtraction(extraction: GraphExtraction, describeIssues: number): ChunkExtraction {
  return {
    entities: extraction.entities.map((e) => ({
      name: e.name,
      type: e.type ?? '',
      description: e.description ?? '',
    })),
    relations: extraction.relations.map((r) => ({
      source: r.source,
      target: r.target,
      description: r.description ?? '',
      weight: r.weight ?? 1,
      ...(r.keywords ? { keywords: [...r.keywords] } : {}),
    })),
    issues: extraction.issues.length + describeIssues,
  };
}

/** The text a chunk is embedded by: its title and description, or its text when both are empty. */
export function chunkEmbedText(title: string, description: string, text: string): string {
  return [title, description].filter((s) => s !== '').join('\n') || text;
}

/**
 * Merge the chunks' extractions into one KG, in chunk order; with entity linking, the documents'
 * titles are the canonical entities (linking spans the corpus, so the KG is merged as a whole).
 */
export function mergeGraph(
  chunks: readonly Chunk[],
  texts: readonly string[],
  kept: DaRagKept,
  options: DaRagOptions,
): KnowledgeGraph {
  const titles = new Map(kept.documents.map((d) => [d.id, d.title]));
  const builder = new KnowledgeGraphBuilder(options.entityLinking ? { entityLinking: { titles } } : {});
  kept.extractions.forEach((extraction, i) => {
    const source = { chunkId: chunks[i]!.id, docId: chunks[i]!.docId };
    builder.addExtraction(extraction, options.entityLinking ? { ...source, text: texts[i]! } : source);
  });
  return builder.build();
}

/** Similarity layer edges: each entity linked to its `k` most similar entities (undirected union). */
async function similarityEdges(
  vectors: readonly Float32Array[],
  ctx: BuildContext,
  options: DaRagOptions,
): Promise<Uint32Array> {
  const n = vectors.length;
  const k = options.similarityK;
  if (n < 2) return new Uint32Array(0);
  const keys = new Set<number>();
  if (options.similarityKnn === 'exact') {
    for (const edge of knnEdges(buildKnnGraph(vectors, { k, metric: 'cosine', symmetric: true }))) {
      keys.add(edge.source < edge.target ? edge.source * n + edge.target : edge.target * n + edge.source);
    }
    return pairsToEdges(keys, n);
  }
  const index = indexVectors(ctx.vectorIndex, vectors);
  for (let i = 0; i < n; i++) {
    if (i % 1024 === 0) throwIfAborted(ctx.signal);
    for (const hit of index.search(vectors[i]!, k, { filter: (id) => id !== i })) {
      if (hit.id !== i) keys.add(i < hit.id ? i * n + hit.id : hit.id * n + i);
    }
  }
  return pairsToEdges(keys, n);
}

/** The three layers and the inter-layer links of a DA-RAG index. */
export interface DaRagLayers {
  chunkLayer: TrussGraph;
  kgLayer: TrussGraph;
  simLayer: TrussGraph | null;
  entityIndex: Map<string, number>;
  chunkEntities: Uint32Array[];
  hubEntities: number;
}

/**
 * Link the layers (stage `'layers'`) and, with `similarityLayer`, find the Similarity layer's
 * neighbours among `entityVectors` (stage `'similarity'`). No model calls.
 */
export async function linkLayers(
  rt: BuildRuntime,
  ctx: BuildContext,
  options: DaRagOptions,
  graph: {
    chunks: readonly Chunk[];
    entities: readonly { id: string; chunkIds: readonly string[] }[];
    relations: readonly { source: string; target: string }[];
    entityVectors: readonly Float32Array[];
  },
): Promise<DaRagLayers> {
  const { chunks, entities, relations } = graph;
  const layers = await rt.stage(
    'layers',
    () => {
      const links = graphLinks({ chunkIds: chunks.map((c) => c.id), entities, relations });
      const chunkEdges = chunkLayerEdges({
        chunkCount: chunks.length,
        relations: links.relationPairs,
        entityChunks: links.entityChunks,
        maxLinkEntityChunks: options.maxLinkEntityChunks,
      });
      return {
        chunkLayer: trussGraphFromEdges(chunks.length, chunkEdges.edges, { ids: chunks.map((c) => c.id) }),
        kgLayer: trussGraphFromEdges(entities.length, links.kgEdges, { ids: entities.map((e) => e.id) }),
        entityIndex: links.entityIndex,
        chunkEntities: links.chunkEntities,
        hubEntities: chunkEdges.hubEntities,
      };
    },
    { checkpoint: false },
  );
  const simLayer: TrussGraph | null = options.similarityLayer
    ? await rt.stage(
        'similarity',
        async () =>
          trussGraphFromEdges(entities.length, await similarityEdges(graph.entityVectors, ctx, options), {
            ids: entities.map((e) => e.id),
          }),
        { checkpoint: false },
      )
    : null;
  return { ...layers, simLayer };
}

/** The counts of an index recorded in its manifest. */
export function statsOf(input: {
  documents: number;
  chunks: number;
  kg: KnowledgeGraph;
  layers: DaRagLayers;
  kept: DaRagKept;
  titles: readonly string[];
  descriptions: readonly string[];
}): DaRagStats {
  const { kg, layers } = input;
  return {
    documents: input.documents,
    chunks: input.chunks,
    entities: kg.entities.size,
    relations: kg.relations.size,
    chunkLayerEdges: layers.chunkLayer.m,
    similarityLayerEdges: layers.simLayer?.m ?? 0,
    hubEntities: layers.hubEntities,
    skippedRecords: kg.skipped.length,
    parseIssues: input.kept.extractions.reduce((n, e) => n + e.issues, 0),
    undescribedChunks: input.titles.filter((t, i) => t === '' && input.descriptions[i] === '').length,
  };
}
