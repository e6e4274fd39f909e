/**
 * E2GraphRAG's index construction (§3.1): chunks; the summary tree and the entities side by side;
 * the entity graph (linked across the corpus with `entityLinking`); every tree node embedded.
 */
import {
  AbortError,
  type BuildContext,
  type Chunk,
  type Document,
  isFittableEmbedder,
  type VectorIndex,
  type VectorIndexFactory,
} from '@grag/core';
import {
  type ChunkEntityGraph,
  type EntityExtractor,
  type EntityGraph,
  type EntityVocabulary,
  entityVocabulary,
  homeChunks,
} from '@grag/core/graph';
import {
  Bm25Index,
  type BuildRuntime,
  chunkBySettings,
  entityGraphStage,
  indexProviders,
  nonBlankChunks,
  startBuild,
  titleRecord,
} from '@grag/core/kit';
import {
  buildSummaryTree,
  indexSummaryTree,
  leavesFromChunks,
  type SummaryLevelRunner,
  type SummaryTree,
  summaryCount,
} from '@grag/summary-tree';
import type { E2GraphRagOptions } from './options.js';
import type { E2GraphRagIndex, E2GraphRagKept, E2GraphRagStats } from './types.js';

/** The non-blank documents `docs` chunked as the index's options say (a build's and an update's chunks). */
export function chunkDocuments(docs: readonly Document[], ctx: BuildContext, o: E2GraphRagOptions): Chunk[] {
  return chunkBySettings(docs, o, ctx.tokenizer);
}

/**
 * The `graph` stage of a build or an update: the leaves' extracted entities linked into one entity
 * graph (across the corpus with `entityLinking`), titled by `titles` (document id → title).
 */
export function graphStage(
  rt: BuildRuntime,
  extracted: readonly string[][][],
  leaves: readonly { id: string; docId?: string; text: string }[],
  titles: ReadonlyMap<string, string | undefined>,
  o: E2GraphRagOptions,
): Promise<ChunkEntityGraph> {
  const chunks = leaves.map((l) => ({ docId: l.docId ?? l.id, text: l.text }));
  return entityGraphStage(rt, extracted, chunks, titles, o.entityLinking);
}

/** The `vector-index` stage of a build or an update: the tree nodes' `embeddings` indexed. */
export function vectorIndexStage(
  rt: BuildRuntime,
  tree: SummaryTree,
  embeddings: readonly ArrayLike<number>[],
  providers: { embedder: { dimensions: number }; vectorIndex: VectorIndexFactory },
): Promise<VectorIndex> {
  return rt.stage(
    'vector-index',
    () =>
      indexSummaryTree(tree, embeddings, providers.vectorIndex, {
        dimensions: providers.embedder.dimensions,
      }),
    { checkpoint: false },
  );
}

/** Titles to write on first chunks: those the document text does not already start with. */
export function titlesToWrite(docs: readonly Document[]): Map<string, string | undefined> {
  const titles = new Map<string, string | undefined>();
  for (const doc of docs) {
    const title = doc.title?.trim();
    const firstLine = /^\s*#*\s*(.*)/.exec(doc.text)?.[1]?.trim();
    if (title && firstLine !== title) titles.set(doc.id, title);
  }
  return titles;
}

/** BM25 over the tree node texts: the index's, or built once (on the first query that needs it, or at save). */
export function lexicalOf(index: Pick<E2GraphRagIndex, 'lexical' | 'tree'>): Bm25Index {
  index.lexical ??= new Bm25Index(index.tree.nodes.map((n) => n.text));
  return index.lexical;
}

/** What queries read besides the stored data: built with the index, rebuilt on load (BM25 read when saved). */
export interface QueryViews {
  lexical?: Bm25Index;
  vocabulary?: EntityVocabulary;
  home?: Map<number, number>;
}

/**
 * BM25 over the tree node texts when the index's entry points need it; the vocabulary and the home
 * chunks when the index is linked.
 */
export function queryViews(input: {
  tree: SummaryTree;
  graph: EntityGraph;
  homes: readonly (string | undefined)[];
  options: Pick<E2GraphRagOptions, 'entryPoints'>;
  /** The BM25 index saved with the index, when it was. */
  lexical?: Bm25Index;
}): QueryViews {
  const { tree, graph, homes } = input;
  const views: QueryViews = {};
  if (input.lexical) views.lexical = input.lexical;
  else if (input.options.entryPoints !== 'dense') views.lexical = lexicalOf({ tree });
  if (homes.length > 0) {
    views.vocabulary = entityVocabulary(graph.entities);
    views.home = homeChunks(graph, homes);
  }
  return views;
}

/** What {@link buildE2GraphRagIndex} builds from. */
export interface E2GraphRagBuildInput {
  docs: readonly Document[];
  ctx: BuildContext;
  /** Resolved and checked options. */
  options: E2GraphRagOptions;
  /**
   * The entity extractor, asked for once the corpus is chunked (so an empty corpus is refused
   * first, whatever the context holds).
   */
  extractor: () => EntityExtractor;
}

/** Build an E2GraphRAG index, in stages of a fresh build runtime (see the README). */
export async function buildE2GraphRagIndex(input: E2GraphRagBuildInput): Promise<E2GraphRagIndex> {
  const { docs, ctx, options: o } = input;
  const rt = startBuild(ctx);
  const { chunks, skipped } = await rt.stage('chunk', () =>
    nonBlankChunks('e2graphrag', docs, o, ctx.tokenizer),
  );
  const extractor = input.extractor();
  const leaves = leavesFromChunks(chunks, { titles: o.includeTitle ? titlesToWrite(docs) : undefined });
  // The paper runs the (CPU) entity extraction and the (GPU) summaries side by side (§3.1).
  // Both start in this tick, entities first, so the stages are numbered the same on every run.
  const entities = rt.stage('entities', () =>
    rt.map(
      leaves,
      async (leaf, i) => {
        // Yield to the event loop now and then, so the summaries progress meanwhile.
        if (i % 16 === 0) await new Promise<void>((resolve) => setImmediate(resolve));
        return extractor.extract(leaf.text);
      },
      { label: (leaf) => leaf.id, unit: 'chunks', concurrency: 1, issues: () => undefined },
    ),
  );
  // Each level of the tree is one checkpointed 'summarize' stage: a resumed build gets the
  // finished levels back without asking for them again.
  const runLevel: SummaryLevelRunner = (groups, summarize) =>
    rt.stage('summarize', () =>
      rt.map(groups, summarize, {
        label: (g) => `${g.id} (chunks ${leaves[g.firstLeaf]!.id} to ${leaves[g.lastLeaf]!.id})`,
        unit: 'summaries',
        concurrency: o.concurrency,
      }),
    );
  const summaries = buildSummaryTree(leaves, ctx.tasks, {
    groupSize: o.groupSize,
    stopRatio: o.stopRatio,
    summaryMaxTokens: o.summaryMaxTokens,
    runLevel,
    signal: ctx.signal,
  });
  // Both settle before the build goes on or fails, so no stage keeps running (and writing its
  // checkpoint) after the build has returned.
  const [treeResult, entitiesResult] = await Promise.allSettled([summaries, entities]);
  const failures = [treeResult, entitiesResult].flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
  if (failures.length > 0) throw failures.find((e) => !AbortError.isInstance(e)) ?? failures[0];
  const tree = (treeResult as PromiseFulfilledResult<SummaryTree>).value;
  const extracted = (entitiesResult as PromiseFulfilledResult<string[][][]>).value;
  const titles = new Map(docs.map((d) => [d.id, d.title]));
  const { graph, homes, textMentions } = await graphStage(rt, extracted, leaves, titles, o);
  const texts = tree.nodes.map((n) => n.text);
  const { embedder } = ctx;
  if (isFittableEmbedder(embedder)) {
    await rt.stage('fit', () => embedder.fit(texts), { checkpoint: false });
  }
  const embeddings = await rt.stage('embed', () => rt.embed(texts, { label: (_, i) => tree.nodes[i]!.id }));
  const vectors = await vectorIndexStage(rt, tree, embeddings, ctx);
  const stats = indexStats({
    documents: docs.length - skipped,
    skippedDocuments: skipped,
    chunks: chunks.length,
    tree,
    graph,
    textMentions: o.entityLinking ? textMentions : undefined,
  });
  const kept: E2GraphRagKept = {
    documents: docs.map((d) => d.id),
    titles: titleRecord(docs),
    extracted,
    embeddings,
  };
  return {
    providers: indexProviders(ctx),
    options: o,
    tree,
    vectors,
    graph,
    extractor,
    stats,
    homes,
    ...queryViews({ tree, graph, homes, options: o }),
    kept,
  };
}

/** The stats of an index (build or update): counts of documents and chunks, and of its tree and graph. */
export function indexStats(parts: {
  documents: number;
  skippedDocuments: number;
  chunks: number;
  tree: SummaryTree;
  graph: EntityGraph;
  /** Mentions found in text by entity linking; `undefined` without linking. */
  textMentions: number | undefined;
}): E2GraphRagStats {
  const stats: E2GraphRagStats = {
    documents: parts.documents,
    skippedDocuments: parts.skippedDocuments,
    chunks: parts.chunks,
    summaries: summaryCount(parts.tree),
    levels: parts.tree.levels.map((l) => l.length),
    entities: parts.graph.entities.length,
    edges: parts.graph.edgeCount,
  };
  if (parts.textMentions !== undefined) stats.textMentions = parts.textMentions;
  return stats;
}
