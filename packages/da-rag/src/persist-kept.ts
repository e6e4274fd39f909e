/**
 * Saving and loading what updates reuse ({@link DaRagKept}): `update.json` (gzipped JSON; format 1's plain JSON still reads) with the documents
 * (ids, titles, the parts of their text no chunk holds and their segments, in corpus order) and each chunk's
 * extraction. Indexes saved before updates
 * existed have no such file and still load, without `kept`.
 */
import type { Chunk, DocumentSegment } from '@grag/core';
import {
  extractedEntitySchema,
  extractedRelationSchema,
  type IndexWriter,
  type OpenedIndex,
  type Schema,
  sha256Hex,
  shapeIssue,
  sourceLocationSchema,
  v,
} from '@grag/core/kit';
import { decodeJsonParts, jsonPartBytes, PART_CHARS, writeJsonParts } from './json-parts.js';
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
      entities: v.array(extractedEntitySchema),
      relations: v.array(extractedRelationSchema(v.nullable(v.number()))),
      issues: v.int({ min: 0 }),
    }),
  ),
});

/**
 * The files of `kept` as {@link saveKept} writes them ({@link KEPT_FILE} and its parts), by name:
 * rendered first so that the index can record their checksums ({@link keptChecksums}).
 */
export async function keptFiles(
  kept: DaRagKept,
  partChars: number = PART_CHARS,
): Promise<Map<string, Uint8Array>> {
  const stored: StoredKept = {
    documents: kept.documents,
    extractions: kept.extractions.map((e) => ({
      ...e,
      relations: e.relations.map((r) => ({ ...r, weight: Number.isFinite(r.weight) ? r.weight : null })),
    })),
  };
  const files = new Map<string, Uint8Array>();
  await writeJsonParts(
    {
      bytes: async (name, data) => {
        files.set(name, data);
      },
    },
    KEPT_FILE,
    { ...stored },
    partChars,
  );
  return files;
}

/** Write the files {@link keptFiles} rendered. */
export async function saveKept(out: IndexWriter, files: ReadonlyMap<string, Uint8Array>): Promise<void> {
  for (const [name, data] of files) await out.bytes(name, data);
}

/** SHA-256 (hex) of each file, as `[name, checksum]` pairs by name. */
export function keptChecksums(files: ReadonlyMap<string, Uint8Array>): [string, string][] {
  return [...files.keys()].sort().map((name) => [name, sha256Hex(files.get(name)!)]);
}

/**
 * The kept update data of an index whose chunks are `chunks`, or `undefined` when it was saved
 * before updates existed, as a function that returns the same object on every call.
 *
 * With `checksums` (what `chunks.json` records of the files at save), the files are only compared
 * with them now, and decoded and checked when the function is first called (an update or a save
 * needs them, retrieval does not; decoding them was about half of loading a 1M-token index):
 * damage to a file, or a file of another shape, is refused here as before, by its checksum.
 * Without (an index saved before they were recorded), the files are decoded and checked now.
 * @throws IndexFormatError when a file is missing, damaged or disagrees with the chunks.
 */
export async function loadKept(
  opened: OpenedIndex<unknown, unknown>,
  chunks: readonly Chunk[],
  checksums: readonly (readonly [string, string])[] | undefined,
): Promise<(() => DaRagKept) | undefined> {
  if (!opened.names.includes(KEPT_FILE)) return undefined;
  const bytes = await jsonPartBytes(opened, KEPT_FILE);
  let kept: DaRagKept | undefined;
  const decode = () => {
    kept ??= decodeKept(opened, chunks, bytes);
    return kept;
  };
  if (checksums === undefined) {
    decode();
    return decode;
  }
  const recorded = new Map(checksums);
  for (const [name, checksum] of keptChecksums(bytes)) {
    const want = recorded.get(name);
    if (want === undefined) throw opened.error(name, 'is not one of the update files chunks.json records');
    if (want !== checksum) {
      throw opened.error(name, 'does not match the SHA-256 chunks.json records for it (damaged or replaced)');
    }
    recorded.delete(name);
  }
  for (const name of recorded.keys()) throw opened.error(name, 'is missing');
  return decode;
}

function decodeKept(
  opened: OpenedIndex<unknown, unknown>,
  chunks: readonly Chunk[],
  bytes: ReadonlyMap<string, Uint8Array>,
): DaRagKept {
  const stored = decodeJsonParts(opened, KEPT_FILE, keptSchema, bytes);
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
