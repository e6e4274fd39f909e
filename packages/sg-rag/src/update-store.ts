/**
 * The kept chunks of the update state as format 3 stores them: `update.json` holds the strings once
 * each (documents, chunk ids, and every entity and relation field and keyword) and the chunks'
 * locations, and `update.bin` the records as typed arrays of positions in that table (each chunk's
 * entities and relations as CSR lists, relation weights as float64, NaN where JSON had none).
 */
import type { SourceLocation } from '@grag/core';
import {
  type OpenedIndex,
  packExtractions,
  type Schema,
  type StoredArray,
  shapeIssue,
  sourceLocationSchema,
  stringTable,
  unpackExtractions,
  v,
} from '@grag/core/kit';
import type { KeptChunk } from './types.js';

/** `update.json` of format 3. */
export interface StoredUpdate {
  documents: string[];
  chunkIds: string[];
  strings: string[];
  /** Each chunk's location, or null. */
  locations: (SourceLocation | null)[];
}

export const storedUpdateSchema: Schema<StoredUpdate> = v.object({
  documents: v.array(v.string()),
  chunkIds: v.array(v.string()),
  strings: v.array(v.string()),
  locations: v.array(v.nullable(sourceLocationSchema)),
});

/** The kept chunks of `documents` as format 3 stores them. */
export function storedUpdate(
  documents: string[],
  chunks: readonly KeptChunk[],
): { json: StoredUpdate; arrays: Record<string, StoredArray> } {
  const { strings, ref } = stringTable();
  const docAt = new Map(documents.map((d, i) => [d, i]));
  return {
    json: {
      documents,
      chunkIds: chunks.map((c) => c.id),
      strings,
      locations: chunks.map((c) => c.location ?? null),
    },
    arrays: {
      chunkDocs: Int32Array.from(chunks, (c) => docAt.get(c.docId) ?? -1),
      ...packExtractions(
        chunks.map((c) => c.extraction),
        ref,
      ),
    },
  };
}

/** The kept chunks of a format-3 update state (`file` names `update.bin`, for errors). */
export function keptChunksOf(
  opened: OpenedIndex<unknown, unknown>,
  file: string,
  json: StoredUpdate,
  arrays: Map<string, StoredArray>,
): KeptChunk[] {
  const n = json.chunkIds.length;
  if (json.locations.length !== n) {
    throw opened.error('update.json', `has ${json.locations.length} locations for ${n} chunks`);
  }
  const docs = arrays.get('chunkDocs');
  const bound = json.documents.length;
  if (!(docs instanceof Int32Array) || docs.length !== n || docs.some((x) => x < 0 || x >= bound)) {
    throw opened.error(file, `lacks chunkDocs, ${n} positions below ${bound}`);
  }
  const graphs = unpackExtractions(arrays, n, json.strings, opened.locate(file));
  return json.chunkIds.map((id, c): KeptChunk => {
    const location = json.locations[c];
    return {
      id,
      docId: json.documents[docs[c]!]!,
      ...(location ? { location } : {}),
      extraction: graphs[c]!,
    };
  });
}

/** Chunk ids and document ids are distinct (what format 2's checks said of its chunks). */
export function checkStoredUpdate(json: StoredUpdate): void {
  if (new Set(json.documents).size !== json.documents.length) shapeIssue('documents', 'repeat an id');
  const ids = new Set<string>();
  json.chunkIds.forEach((id, i) => {
    if (ids.has(id)) shapeIssue(`chunkIds[${i}]`, `repeats the chunk id ${JSON.stringify(id)}`);
    ids.add(id);
  });
}
