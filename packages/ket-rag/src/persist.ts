/**
 * Saving and loading a KET-RAG index through core's persistence envelope. Files: `units.json`
 * (chunks, sub-chunks, their texts, core chunks, KNN graph, stats), `chunks.vec` (dense and KNN
 * channels), `skeleton.json` + `entities.vec` (when there is a skeleton), `keywords.json` +
 * `keywords.vec` + `subchunks.f32` (keyword channel), `subchunks.vec` (entry search without the
 * keyword channel), and what updates reuse (see persist-kept.ts). BM25, the vocabulary and the other
 * search structures are rebuilt at load.
 */
import type { BuildContext, IndexStore } from '@grag/core';
import { type MethodIndexFormat, openMethodIndex, writeMethodIndex } from '@grag/core/kit';
import type { KeywordBipartite } from '@grag/keyword-bipartite';
import { derivedParts } from './build.js';
import { entryIndex, unitSeeds, vectorIndexOf } from './entry.js';
import { resolveKetRagOptionsFor } from './options.js';
import { loadKept, saveKept } from './persist-kept.js';
import {
  checkKeywords,
  checkSkeleton,
  checkUnits,
  keywordsSchema,
  skeletonSchema,
  unitsSchema,
} from './schemas.js';
import { assembleSkeleton } from './skeleton.js';
import type { KetRagIndex } from './types.js';

/** Write `index` to `target`, a directory or any store (atomically). */
export async function saveKetRag(
  format: MethodIndexFormat,
  index: KetRagIndex,
  target: string | IndexStore,
): Promise<void> {
  const { dimensions } = index.providers.embedder;
  await writeMethodIndex(
    target,
    {
      method: format.method,
      formatVersion: format.formatVersion,
      uses: format.uses,
      providers: index.providers,
      params: index.options,
      stats: { ...index.stats, variant: index.options.variant },
    },
    async (out) => {
      await out.json('units.json', {
        chunks: index.chunks,
        chunkTexts: index.chunkTexts,
        subChunks: index.subChunks,
        subChunkTexts: index.subChunkTexts,
        core: index.core,
        stats: index.stats,
        knn: index.knn ?? null,
        dimensions,
      });
      if (index.chunkVectors) await out.vectors('chunks.vec', index.chunkVectors);
      if (index.skeleton) {
        await out.json('skeleton.json', {
          entities: index.skeleton.entities,
          relationships: index.skeleton.relationships,
          aliases: index.skeleton.aliases,
          titleEntities: index.skeleton.titleEntities,
        });
        await out.vectors('entities.vec', index.skeleton.entityVectors);
      }
      if (index.keyword) {
        const { bipartite } = index.keyword;
        await out.json('keywords.json', {
          keywords: bipartite.keywords,
          keywordUnits: bipartite.keywordUnits.map((list) => Array.from(list)),
          sentences: bipartite.sentences.map((s) => [s.unit, s.start, s.end]),
          keywordSentences: bipartite.keywordSentences.map((list) => Array.from(list)),
        });
        await out.vectors('keywords.vec', index.keyword.keywordVectors);
        await out.float32Rows('subchunks.f32', index.keyword.subChunkVectors, dimensions);
      }
      if (!index.keyword && index.entry?.vectors) await out.vectors('subchunks.vec', index.entry.vectors);
      await saveKept(out, index);
    },
  );
}

/** Read an index written by {@link saveKetRag}; every file and the saved options are checked. */
export async function loadKetRag(
  format: MethodIndexFormat,
  target: string | IndexStore,
  ctx: BuildContext,
): Promise<KetRagIndex> {
  const opened = await openMethodIndex(target, ctx, {
    method: format.method,
    formatVersion: format.formatVersion,
    uses: format.uses,
    params: (saved) => resolveKetRagOptionsFor(`${format.method} load`, [saved]),
  });
  const { providers, params: options } = opened;
  const units = await opened.json('units.json', unitsSchema);
  opened.check('units.json', () => checkUnits(units));
  if (units.dimensions !== providers.embedder.dimensions) {
    throw opened.error(
      'units.json',
      `dimensions is ${units.dimensions}, but the embedder has ${providers.embedder.dimensions}`,
    );
  }
  const { subChunks, subChunkTexts } = units;
  const knn = units.knn ?? undefined;
  const index: KetRagIndex = {
    providers,
    options,
    chunks: units.chunks,
    chunkTexts: units.chunkTexts,
    subChunks,
    subChunkTexts,
    core: units.core,
    stats: units.stats,
    ...derivedParts({ options, chunks: units.chunks, subChunkTexts, knn }),
  };
  if (knn) index.knn = knn;
  if (options.textChannel === 'dense' || options.textChannel === 'knn') {
    index.chunkVectors = await opened.vectors('chunks.vec', units.chunks.length);
  }
  if (units.core.length > 0) {
    const { entities, relationships, aliases, titleEntities } = await opened.json(
      'skeleton.json',
      skeletonSchema,
    );
    opened.check('skeleton.json', () => checkSkeleton(entities, relationships, subChunks));
    const entityVectors = await opened.vectors('entities.vec', entities.length);
    index.skeleton = assembleSkeleton({
      options,
      parts: {
        entities,
        relationships,
        entityVectors,
        aliases: aliases ?? [],
        titleEntities: titleEntities ?? [],
      },
      subChunks,
      subChunkTexts,
    });
  }
  if (options.textChannel === 'keyword') {
    const k = await opened.json('keywords.json', keywordsSchema);
    opened.check('keywords.json', () => checkKeywords(k, subChunkTexts));
    const bipartite: KeywordBipartite = {
      units: subChunks.map((s) => s.id),
      keywords: k.keywords,
      keywordUnits: k.keywordUnits.map((list) => Int32Array.from(list)),
      sentences: k.sentences.map(([unit, start, end]) => ({
        unit,
        start,
        end,
        text: subChunkTexts[unit]!.slice(start, end),
      })),
      keywordSentences: k.keywordSentences.map((list) => Int32Array.from(list)),
    };
    const keywordVectors = await opened.vectors('keywords.vec', k.keywords.length);
    const subChunkVectors = await opened.float32Rows('subchunks.f32', subChunks.length);
    index.keyword = {
      bipartite,
      keywordVectors,
      subChunkVectors,
      subChunkTokens: Int32Array.from(subChunkTexts, (t) => providers.tokenizer.count(t)),
    };
    const entry = entryIndex(options, subChunkTexts, () => vectorIndexOf(providers, subChunkVectors));
    if (entry) index.entry = entry;
  } else if (options.textChannel === 'entry' || unitSeeds(options, index.skeleton !== undefined)) {
    const vectors =
      options.entryPoints !== 'lexical' ? await opened.vectors('subchunks.vec', subChunks.length) : undefined;
    const entry = entryIndex(options, subChunkTexts, vectors ? () => vectors : undefined);
    if (entry) index.entry = entry;
  }
  const kept = await loadKept(opened, index);
  if (kept) index.kept = kept;
  return index;
}
