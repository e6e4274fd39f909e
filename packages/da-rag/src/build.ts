import {
  type BuildContext,
  buildKnnGraph,
  type Chunk,
  chunkDocuments,
  type Document,
  InvalidArgumentError,
  indexProviders,
  indexVectors,
  isFittableEmbedder,
  KnowledgeGraphBuilder,
  ModelOutputError,
  semanticChunkDocuments,
  startBuild,
  throwIfAborted,
} from '@grag/core';
import { knnEdges } from '@grag/core/internal';
import { type TrussGraph, trussGraphFromEdges } from '@grag/ktruss';
import { chunkLayerEdges, graphLinks, pairsToEdges } from './layers.js';
import type { DaRagOptions } from './options.js';
import type { DaRagIndex, DaRagStats } from './types.js';
import { entityText, unit, withTitle } from './util.js';

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

/**
 * Build the DA-RAG index (§3): chunk, extract a graph per chunk, write a title and description per
 * chunk, embed chunks and entities, and link the three layers.
 */
export async function buildDaRagIndex(
  docs: Document[],
  ctx: BuildContext,
  options: DaRagOptions,
): Promise<DaRagIndex> {
  if (docs.length === 0) {
    throw new InvalidArgumentError('docs', 'da-rag build: the corpus is empty; pass at least one document.');
  }
  const { tokenizer, embedder, tasks } = ctx;
  const rt = startBuild(ctx);
  const docTexts = docs.map((d) => withTitle(d.title, d.text, options.includeTitle));
  if (isFittableEmbedder(embedder)) {
    await rt.stage('fit', () => embedder.fit(docTexts), { checkpoint: false });
  }

  // Semantic chunking embeds sentence windows: checkpointed with the other model stages.
  const chunks: Chunk[] = await rt.stage('chunk', () =>
    options.chunking === 'semantic'
      ? semanticChunkDocuments(docs, {
          embedder,
          tokenizer,
          maxTokens: options.chunkSize,
          breakpoint: { type: 'percentile', value: options.breakpointPercentile },
          abortSignal: ctx.signal,
        })
      : chunkDocuments(docs, { chunkSize: options.chunkSize, overlap: options.overlap, tokenizer }),
  );
  if (chunks.length === 0) {
    throw new InvalidArgumentError('docs', 'da-rag build: no document has any text to index.');
  }
  const titleOf = new Map(docs.map((d) => [d.id, d.title]));
  const texts = chunks.map((c) => withTitle(titleOf.get(c.docId), c.text, options.includeTitle));
  const overChunks = {
    label: (_text: string, i: number) => `chunk ${chunks[i]!.id}`,
    unit: 'chunks',
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
  };

  // Entity linking: each chunk's document title is its main subject (an extraction hint, and the
  // canonical entity that mentions of it elsewhere link to).
  const subjects = chunks.map((c) => titleOf.get(c.docId)?.trim() || undefined);
  let parseIssues = 0;
  const extractions = await rt.stage('extract', () =>
    rt.map(
      texts,
      (text, i) =>
        tasks.extractGraph(text, {
          gleanings: options.gleanings,
          ...(options.entityLinking && subjects[i] ? { subject: subjects[i] } : {}),
          abortSignal: ctx.signal,
          ...(options.entityTypes ? { entityTypes: options.entityTypes } : {}),
        }),
      overChunks,
    ),
  );
  const described = await rt.stage('describe', () =>
    rt.map(texts, (text) => tasks.titleAndDescription(text, { abortSignal: ctx.signal }), overChunks),
  );
  const builder = new KnowledgeGraphBuilder(
    options.entityLinking ? { entityLinking: { titles: titleOf } } : {},
  );
  extractions.forEach((extraction, i) => {
    parseIssues += extraction.issues.length;
    const source = { chunkId: chunks[i]!.id, docId: chunks[i]!.docId };
    builder.addExtraction(extraction, options.entityLinking ? { ...source, text: texts[i]! } : source);
  });
  const kg = builder.build();
  const entities = [...kg.entities.values()];
  const relations = [...kg.relations.values()];

  let undescribedChunks = 0;
  const titles = described.map((d) => d.title.trim());
  const descriptions = described.map((d) => d.description.trim());
  const chunkEmbedTexts = described.map((d, i) => {
    parseIssues += d.issues.length;
    const text = [titles[i], descriptions[i]].filter((s) => s !== '').join('\n');
    if (text !== '') return text;
    undescribedChunks++;
    return texts[i]!;
  });
  const [chunkVectors, entityVectors] = await rt.stage('embed', async () => {
    const c = await rt.embed(chunkEmbedTexts, { label: (_text, i) => `chunk ${chunks[i]!.id}` });
    const e = await rt.embed(
      entities.map((entity) => entityText(entity.name, entity.descriptions)),
      { label: (_text, i) => `entity ${entities[i]!.name}` },
    );
    if (c.length !== chunks.length || e.length !== entities.length) {
      throw new ModelOutputError(
        'embed',
        `${c.length + e.length} embeddings`,
        `da-rag build: the embedder returned ${c.length + e.length} vectors for ${chunks.length + entities.length} texts; ` +
          'check that its doEmbed returns one vector per value.',
      );
    }
    // Unit length, so that relevance at query time is one dot product.
    return [c.map(unit), e.map(unit)] as const;
  });

  const { chunkLayer, kgLayer, entityIndex, chunkEntities, hubEntities } = await rt.stage(
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
          trussGraphFromEdges(entities.length, await similarityEdges(entityVectors, ctx, options), {
            ids: entities.map((e) => e.id),
          }),
        { checkpoint: false },
      )
    : null;

  const stats: DaRagStats = {
    documents: docs.length,
    chunks: chunks.length,
    entities: entities.length,
    relations: relations.length,
    chunkLayerEdges: chunkLayer.m,
    similarityLayerEdges: simLayer?.m ?? 0,
    hubEntities,
    skippedRecords: kg.skipped.length,
    parseIssues,
    undescribedChunks,
  };
  return {
    providers: indexProviders(ctx),
    options,
    chunks,
    texts,
    titles,
    descriptions,
    chunkVectors: chunkVectors as Float32Array[],
    entities,
    relations,
    entityVectors: entityVectors as Float32Array[],
    entityIndex,
    chunkEntities,
    chunkLayer,
    kgLayer,
    simLayer,
    stats,
    cache: {},
  };
}
