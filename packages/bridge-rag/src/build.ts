/**
 * bridge-rag's index construction: chunks (title line first); then, with no model call, the
 * entities of every sentence (the context's text analyzer) linked across the corpus into one
 * passage–entity graph; BM25 and the embeddings of every chunk.
 */
import { type BuildContext, type Chunk, type Document, indexVectors, isFittableEmbedder } from '@grag/core';
import {
  type ChunkEntityGraph,
  type EntityExtractor,
  type EntityGraph,
  entityVocabulary,
  homeChunks,
} from '@grag/core/graph';
import {
  Bm25Index,
  type BuildRuntime,
  entitiesStage,
  entityGraphStage,
  indexProviders,
  nonBlankChunks,
  startBuild,
  titleRecord,
  withTitle,
} from '@grag/core/kit';
import type { BridgeRagOptions } from './options.js';
import type { BridgeRagIndex, BridgeRagStats } from './types.js';

/**
 * What each chunk is searched and shown by: a document's first chunk starts with the document's
 * title (unless its text already does), the others are their text.
 */
export function chunkTexts(
  chunks: readonly Chunk[],
  titles: ReadonlyMap<string, string | undefined>,
  includeTitle: boolean,
): string[] {
  return chunks.map((c) =>
    c.order === 0 ? withTitle(c.text, titles.get(c.docId)?.trim(), includeTitle) : c.text,
  );
}

/** The views queries read beside the stored data: built with the index, again on load (BM25 read when saved). */
export function queryViews(input: {
  texts: readonly string[];
  graph: EntityGraph;
  homes: readonly (string | undefined)[];
  /** The BM25 index saved with the index, when it was. */
  lexical?: Bm25Index;
}): Pick<BridgeRagIndex, 'lexical' | 'vocabulary' | 'home'> {
  return {
    lexical: input.lexical ?? new Bm25Index(input.texts),
    vocabulary: entityVocabulary(input.graph.entities),
    home: homeChunks(input.graph, input.homes),
  };
}

/**
 * The `graph` stage of a build or an update: the chunks' extractions linked across the corpus into
 * one passage–entity graph (no model call).
 */
export function graphStage(
  rt: BuildRuntime,
  extracted: readonly string[][][],
  chunks: readonly Chunk[],
  texts: readonly string[],
  titles: ReadonlyMap<string, string | undefined>,
): Promise<ChunkEntityGraph> {
  const linked = chunks.map((c, i) => ({ docId: c.docId, text: texts[i]! }));
  return entityGraphStage(rt, extracted, linked, titles, true);
}

/** Each chunk's id and searched text, for the `entities` stage. */
export function chunkInputs(
  chunks: readonly Chunk[],
  texts: readonly string[],
): { id: string; text: string }[] {
  return chunks.map((c, i) => ({ id: c.id, text: texts[i]! }));
}

/** The graph's part of an index's stats. */
export function graphStats(
  graph: EntityGraph,
  homes: readonly (string | undefined)[],
  textMentions: number,
): Pick<BridgeRagStats, 'entities' | 'edges' | 'titleEntities' | 'textMentions'> {
  return {
    entities: graph.entities.length,
    edges: graph.edgeCount,
    titleEntities: new Set(homes.filter((h) => h !== undefined)).size,
    textMentions,
  };
}

/** What {@link buildBridgeRagIndex} builds from. */
export interface BridgeRagBuildInput {
  name: string;
  docs: readonly Document[];
  ctx: BuildContext;
  /** Resolved and checked options. */
  options: BridgeRagOptions;
  /** The entity extractor, asked for once the corpus is chunked (an empty corpus is refused first). */
  extractor: () => EntityExtractor;
}

/** Build a bridge-rag index, in stages of a fresh build runtime: chunk, entities, graph, fit, embed, vector-index. */
export async function buildBridgeRagIndex(input: BridgeRagBuildInput): Promise<BridgeRagIndex> {
  const { name, docs, ctx, options: o } = input;
  const rt = startBuild(ctx);
  const { chunks, skipped } = await rt.stage('chunk', () => nonBlankChunks(name, docs, o, ctx.tokenizer));
  const extractor = input.extractor();
  const titleMap = new Map(docs.map((d) => [d.id, d.title]));
  const texts = chunkTexts(chunks, titleMap, o.includeTitle);
  const extracted = await entitiesStage(rt, extractor, chunkInputs(chunks, texts));
  const { graph, homes, textMentions } = await graphStage(rt, extracted, chunks, texts, titleMap);
  const { embedder } = ctx;
  if (isFittableEmbedder(embedder)) await rt.stage('fit', () => embedder.fit(texts), { checkpoint: false });
  const embeddings = await rt.stage('embed', () => rt.embed(texts, { label: (_, i) => chunks[i]!.id }));
  const vectors = await rt.stage(
    'vector-index',
    () => indexVectors(ctx.vectorIndex, embeddings, { dimensions: embedder.dimensions }),
    { checkpoint: false },
  );
  const stats: BridgeRagStats = {
    documents: docs.length - skipped,
    skippedDocuments: skipped,
    chunks: chunks.length,
    ...graphStats(graph, homes, textMentions),
  };
  return {
    providers: indexProviders(ctx),
    options: o,
    chunks,
    texts,
    vectors,
    graph,
    extractor,
    homes,
    stats,
    kept: { documents: docs.map((d) => d.id), titles: titleRecord(docs), extracted, embeddings },
    ...queryViews({ texts, graph, homes }),
  };
}
