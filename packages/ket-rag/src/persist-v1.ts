/**
 * Loading a KET-RAG index of format version 1: `units.json` (chunks, sub-chunks, texts, core chunks,
 * KNN graph as JSON), `chunks.vec`, `skeleton.json` + `entities.vec`, `keywords.json` +
 * `keywords.vec` + `subchunks.f32`, `subchunks.vec`, and the update state (`update.json` with copies
 * of the vectors as `chunks.f32`, `subchunk-rows.f32`, `entities.f32`, `sentences.f32`). Version 2
 * (persist.ts) stores each vector collection once and the graphs as typed arrays.
 */
import { type OpenedIndex, v } from '@grag/core/kit';
import type { KeywordBipartite } from '@grag/keyword-bipartite';
import { assembleIndex } from './build.js';
import { entryIndex, keywordIndexOf, unitSeeds, vectorIndexOf } from './entry.js';
import type { KetRagOptions } from './options.js';
import { checkKeptCoverage, keptFields, keptStateOf, UPDATE_FILE } from './persist-kept.js';
import {
  checkKeywords,
  checkSkeleton,
  checkUnits,
  keywordsSchema,
  skeletonSchema,
  unitsSchema,
} from './schemas.js';
import { assembleSkeleton } from './skeleton.js';
import type { KetRagIndex, KetRagUpdateState } from './types.js';

// Format 1's update.json holds the kept fields of format 2 without the names of the vector rows.
const updateSchema = v.object(keptFields);

/**
 * Read an index of format version 1 (before vectors were stored once and graphs as typed arrays);
 * every file is checked. Still loads, so indexes built before keep working until rebuilt.
 */
export async function loadKetRagV1(opened: OpenedIndex<KetRagOptions, unknown>): Promise<KetRagIndex> {
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
  const index = assembleIndex(
    {
      providers,
      options,
      chunks: units.chunks,
      chunkTexts: units.chunkTexts,
      subChunks,
      subChunkTexts,
      core: units.core,
      stats: units.stats,
    },
    { knn, counts: undefined, graph: undefined },
  );
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
    index.keyword = keywordIndexOf(
      options,
      {
        bipartite,
        keywordVectors,
        subChunkVectors,
        subChunkTokens: Int32Array.from(subChunkTexts, (t) => providers.tokenizer.count(t)),
      },
      providers.embedder.dimensions,
    );
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

/** Read the update state of a loaded `index` from `opened`, or undefined when it was saved without. */
async function loadKept(
  opened: OpenedIndex<unknown, unknown>,
  index: KetRagIndex,
): Promise<KetRagUpdateState | undefined> {
  if (!opened.names.includes(UPDATE_FILE)) return undefined;
  const stored = await opened.json(UPDATE_FILE, updateSchema);
  opened.check(UPDATE_FILE, () => {
    checkKeptCoverage(stored, index);
  });
  const kept = keptStateOf(stored);
  const has = (file: string) => opened.names.includes(file);
  if (has('chunks.f32')) kept.chunkVectors = await opened.float32Rows('chunks.f32', index.chunks.length);
  if (index.keyword) kept.subChunkVectors = index.keyword.subChunkVectors;
  else if (has('subchunk-rows.f32')) {
    kept.subChunkVectors = await opened.float32Rows('subchunk-rows.f32', index.subChunks.length);
  }
  if (index.skeleton && has('entities.f32')) {
    kept.entityVectors = await opened.float32Rows('entities.f32', index.skeleton.entities.length);
  }
  if (index.keyword && has('sentences.f32')) {
    kept.sentenceVectors = await opened.float32Rows(
      'sentences.f32',
      index.keyword.bipartite.sentences.length,
    );
  }
  return kept;
}
