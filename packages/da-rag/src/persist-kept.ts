/**
 * Saving and loading what updates reuse ({@link DaRagKept}): `update.json` (gzipped JSON; format 1's plain JSON still reads) with the documents
 * (ids, titles, the parts of their text no chunk holds and their segments, in corpus order) and each chunk's
 * extraction. Indexes saved before updates
 * existed have no such file and still load, without `kept`.
 */
import type { Chunk, DocumentSegment } from '@grag/core';
import {
  type IndexWriter,
  type OpenedIndex,
  type Schema,
  shapeIssue,
  sourceLocationSchema,
  v,
} from '@grag/core/kit';
import { PART_CHARS, readJsonParts, writeJsonParts } from './json-parts.js';
import type { DaRagKept } from './types.js';

/** The artifact that keeps what an update reuses. */
export const KEPT_FILE = 'update.json';

interface StoredKept {
  /**
   * `gaps`: the parts of the text no chunk holds (absent in indexes saved before they were kept);
   * `segments`: those of a document loaded with them.
   */
  documents: { id: string; title?: string; gaps?: [number, string][]; segments?: DocumentSegment[] }[];
  extractions: {
    entities: { name: string; type: string; description: string }[];
    relations: {
      source: string;
      target: string;
      description: string;
      /** `null` for a weight JSON cannot hold (the merge skips the relation as before). */
      weight: number | null;
      keywords?: string[];
    }[];
    issues: number;
  }[];
}

const keptSchema: Schema<StoredKept> = v.object({
  documents: v.array(
    v.object({
      id: v.string(),
      title: v.optional(v.string()),
      gaps: v.optional(v.array(v.tuple(v.int({ min: 0 }), v.string()))),
      segments: v.optional(
        v.array(
          v.object({ start: v.int({ min: 0 }), end: v.int({ min: 0 }), location: sourceLocationSchema }),
        ),
      ),
    }),
  ),
  extractions: v.array(
    v.object({
      entities: v.array(v.object({ name: v.string(), type: v.string(), description: v.string() })),
      relations: v.array(
        v.object({
          source: v.string(),
          target: v.string(),
          description: v.string(),
          weight: v.nullable(v.number()),
          keywords: v.optional(v.array(v.string())),
        }),
      ),
      issues: v.int({ min: 0 }),
    }),
  ),
});

/** Write `kept` as {@link KEPT_FILE}. */
export async function saveKept(
  out: IndexWriter,
  kept: DaRagKept,
  partChars: number = PART_CHARS,
): Promise<void> {
  const stored: StoredKept = {
    documents: kept.documents,
    extractions: kept.extractions.map((e) => ({
      ...e,
      relations: e.relations.map((r) => ({ ...r, weight: Number.isFinite(r.weight) ? r.weight : null })),
    })),
  };
  await writeJsonParts(out, KEPT_FILE, { ...stored }, partChars);
}

/**
 * Read the kept update data of an index whose chunks are `chunks`, or `undefined` when it was
 * saved before updates existed. @throws IndexFormatError when the file disagrees with the chunks.
 */
export async function loadKept(
  opened: OpenedIndex<unknown, unknown>,
  chunks: readonly Chunk[],
): Promise<DaRagKept | undefined> {
  if (!opened.names.includes(KEPT_FILE)) return undefined;
  const stored = await readJsonParts(opened, KEPT_FILE, keptSchema);
  opened.check(KEPT_FILE, () => {
    if (stored.extractions.length !== chunks.length) {
      shapeIssue('extractions', `has ${stored.extractions.length} entries for ${chunks.length} chunks`);
    }
    const ids = new Set<string>();
    stored.documents.forEach((d, i) => {
      if (ids.has(d.id)) shapeIssue(`documents[${i}].id`, `repeats ${JSON.stringify(d.id)}`);
      ids.add(d.id);
    });
    chunks.forEach((c, i) => {
      if (!ids.has(c.docId)) {
        shapeIssue('documents', `lacks ${JSON.stringify(c.docId)}, the document of chunks[${i}]`);
      }
    });
  });
  return {
    documents: stored.documents.map((d) => ({
      id: d.id,
      ...(d.title !== undefined ? { title: d.title } : {}),
      ...(d.gaps !== undefined ? { gaps: d.gaps } : {}),
      ...(d.segments !== undefined ? { segments: d.segments } : {}),
    })),
    extractions: stored.extractions.map((e) => ({
      ...e,
      relations: e.relations.map((r) => ({ ...r, weight: r.weight ?? Number.NaN })),
    })),
  };
}
