/**
 * Saving and loading what updates reuse ({@link KetRagUpdateState}): `update.json` (documents,
 * titles, each core chunk's extraction, the model's summaries) and the raw vectors behind the
 * vector indexes (`chunks.f32`, `subchunk-rows.f32`, `entities.f32`, `sentences.f32`). Indexes
 * saved before updates existed have none of these and still load (without update state).
 */
import { type IndexWriter, type OpenedIndex, shapeIssue, v } from '@grag/core/kit';
import type { KetRagIndex, KetRagUpdateState } from './types.js';

/** The name of the file that marks an index saved with update state. */
export const UPDATE_FILE = 'update.json';

const extractionSchema = v.object({
  entities: v.array(v.object({ name: v.string(), type: v.string(), description: v.string() })),
  relations: v.array(
    v.object({
      source: v.string(),
      target: v.string(),
      description: v.string(),
      weight: v.number(),
      keywords: v.optional(v.array(v.string())),
    }),
  ),
  issues: v.int({ min: 0 }),
});

const updateSchema = v.object({
  documents: v.array(v.string()),
  titles: v.array(v.tuple(v.string(), v.string())),
  extractions: v.array(v.tuple(v.string(), extractionSchema)),
  summaries: v.array(v.tuple(v.string(), v.string())),
});

/** Write `index.kept` (nothing for an index without it). */
export async function saveKept(out: IndexWriter, index: KetRagIndex): Promise<void> {
  const { kept } = index;
  if (!kept) return;
  const { dimensions } = index.providers.embedder;
  await out.json(UPDATE_FILE, {
    documents: kept.documents,
    titles: kept.titles,
    extractions: [...kept.extractions],
    summaries: [...kept.summaries],
  });
  if (kept.chunkVectors) await out.float32Rows('chunks.f32', kept.chunkVectors, dimensions);
  // The keyword channel already writes its sub-chunk vectors (subchunks.f32).
  if (kept.subChunkVectors && !index.keyword) {
    await out.float32Rows('subchunk-rows.f32', kept.subChunkVectors, dimensions);
  }
  if (kept.entityVectors) await out.float32Rows('entities.f32', kept.entityVectors, dimensions);
  if (kept.sentenceVectors) await out.float32Rows('sentences.f32', kept.sentenceVectors, dimensions);
}

/** Read the update state of a loaded `index` from `opened`, or undefined when it was saved without. */
export async function loadKept(
  opened: OpenedIndex<unknown, unknown>,
  index: KetRagIndex,
): Promise<KetRagUpdateState | undefined> {
  if (!opened.names.includes(UPDATE_FILE)) return undefined;
  const stored = await opened.json(UPDATE_FILE, updateSchema);
  opened.check(UPDATE_FILE, () => {
    const chunkIds = new Set(index.chunks.map((c) => c.id));
    stored.extractions.forEach(([id], i) => {
      if (!chunkIds.has(id)) shapeIssue(`extractions[${i}]`, `names ${JSON.stringify(id)}, not a chunk`);
    });
    const held = new Set(stored.documents);
    for (const c of index.chunks) {
      if (!held.has(c.docId)) shapeIssue('documents', `lacks ${JSON.stringify(c.docId)}, a chunk's document`);
    }
  });
  const kept: KetRagUpdateState = {
    documents: stored.documents,
    titles: stored.titles,
    extractions: new Map(stored.extractions),
    summaries: new Map(stored.summaries),
  };
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
