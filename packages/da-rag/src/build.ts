import {
  type BuildContext,
  type Chunk,
  type Document,
  InvalidArgumentError,
  isFittableEmbedder,
  ModelOutputError,
} from '@grag/core';
import { type BuildRuntime, indexProviders, requireDocuments, startBuild } from '@grag/core/kit';
import { keptDocuments } from './documents.js';
import type { DaRagOptions } from './options.js';
import {
  analyseChunks,
  chunkEmbedText,
  chunkStage,
  chunkTexts,
  keepExtraction,
  linkLayers,
  mergeGraph,
  statsOf,
} from './stages.js';
import type { ChunkExtraction, DaRagIndex, DaRagKept } from './types.js';
import { entityText, unit, withTitle } from './util.js';

/**
 * Build the DA-RAG index (§3): chunk, extract a graph per chunk, write a title and description per
 * chunk, embed chunks and entities, and link the three layers. The index keeps each chunk's
 * extraction and the documents' titles (`kept`), so that `update` calls the model for new chunks only.
 */
export async function buildDaRagIndex(
  docs: Document[],
  ctx: BuildContext,
  options: DaRagOptions,
): Promise<DaRagIndex> {
  requireDocuments('da-rag', docs);
  const { embedder } = ctx;
  const rt = startBuild(ctx);
  if (isFittableEmbedder(embedder)) {
    const docTexts = fitTexts(docs, options);
    await rt.stage('fit', () => embedder.fit(docTexts), { checkpoint: false });
  }

  // Semantic chunking embeds sentence windows: checkpointed with the other model stages.
  const chunks = await chunkStage(rt, docs, ctx, options, true);
  if (chunks.length === 0) {
    throw new InvalidArgumentError('docs', 'da-rag build: no document has any text to index.');
  }
  const titleOf = new Map(docs.map((d) => [d.id, d.title]));
  const texts = chunkTexts(chunks, titleOf, options);
  const { extractions, described } = await analyseChunks(rt, ctx, options, { chunks, texts, titleOf }, true);
  return await assembleDaRagIndex(rt, ctx, options, {
    caller: 'da-rag build',
    docs,
    chunks,
    texts,
    extractions: extractions.map((e, i) => keepExtraction(e, described[i]!.issues.length)),
    titles: described.map((d) => d.title.trim()),
    descriptions: described.map((d) => d.description.trim()),
  });
}

/** The texts a fittable embedder is fitted on: each document with its title line. */
export function fitTexts(docs: readonly Document[], options: DaRagOptions): string[] {
  return docs.map((d) => withTitle(d.title, d.text, options.includeTitle));
}

/** What {@link assembleDaRagIndex} makes an index of: the corpus, its chunks and the model's work on each. */
export interface DaRagAssembly {
  /** Starts error messages, e.g. `'da-rag build'`. */
  caller: string;
  docs: readonly Document[];
  chunks: Chunk[];
  /** Each chunk's text (title line + chunk text). */
  texts: string[];
  /** Each chunk's extraction, as kept. */
  extractions: ChunkExtraction[];
  /** Each chunk's title and description, trimmed. */
  titles: string[];
  descriptions: string[];
}

/**
 * The stages of a build after the model's work on each chunk: merge the KG, embed every chunk and
 * entity, link the layers (a build, and a full update that refits the embedder, run them alike).
 */
export async function assembleDaRagIndex(
  rt: BuildRuntime,
  ctx: BuildContext,
  options: DaRagOptions,
  input: DaRagAssembly,
): Promise<DaRagIndex> {
  const { docs, chunks, texts, titles, descriptions } = input;
  const kept: DaRagKept = {
    documents: keptDocuments(docs, chunks),
    extractions: input.extractions,
  };
  const kg = mergeGraph(chunks, texts, kept, options);
  const entities = [...kg.entities.values()];
  const relations = [...kg.relations.values()];

  const chunkEmbedTexts = texts.map((text, i) => chunkEmbedText(titles[i]!, descriptions[i]!, text));
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
        `${input.caller}: the embedder returned ${c.length + e.length} vectors for ${chunks.length + entities.length} texts; ` +
          'check that its doEmbed returns one vector per value.',
      );
    }
    // Unit length, so that relevance at query time is one dot product.
    return [c.map(unit), e.map(unit)] as const;
  });

  const layers = await linkLayers(rt, ctx, options, {
    chunks,
    entities,
    relations,
    entityVectors: entityVectors as Float32Array[],
  });
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
    entityIndex: layers.entityIndex,
    chunkEntities: layers.chunkEntities,
    chunkLayer: layers.chunkLayer,
    kgLayer: layers.kgLayer,
    simLayer: layers.simLayer,
    stats: statsOf({ documents: docs.length, chunks: chunks.length, kg, layers, kept, titles, descriptions }),
    kept,
    cache: {},
  };
}
