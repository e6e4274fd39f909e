/**
 * The kept chunks of the update state as format 3 stores them: `update.json` holds the strings once
 * each (documents, chunk ids, and every entity and relation field and keyword) and the chunks'
 * locations, and `update.bin` the records as typed arrays of positions in that table (each chunk's
 * entities and relations as CSR lists, relation weights as float64, NaN where JSON had none).
 */
import type { ExtractedRelation, SourceLocation } from '@grag/core';
import {
  type OpenedIndex,
  packLists,
  type Schema,
  type StoredArray,
  shapeIssue,
  sourceLocationSchema,
  unpackLists,
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
  const strings: string[] = [];
  const at = new Map<string, number>();
  const ref = (s: string) => {
    let i = at.get(s);
    if (i === undefined) {
      i = strings.length;
      at.set(s, i);
      strings.push(s);
    }
    return i;
  };
  const docAt = new Map(documents.map((d, i) => [d, i]));
  const entities = chunks.flatMap((c) => c.extraction.entities);
  const relations = chunks.flatMap((c) => c.extraction.relations);
  const entityLists = packLists(chunks.map((c) => c.extraction.entities.map(() => 0)));
  const relationLists = packLists(chunks.map((c) => c.extraction.relations.map(() => 0)));
  const keywords = packLists(relations.map((r) => (r.keywords ?? []).map(ref)));
  return {
    json: {
      documents,
      chunkIds: chunks.map((c) => c.id),
      strings,
      locations: chunks.map((c) => c.location ?? null),
    },
    arrays: {
      chunkDocs: Int32Array.from(chunks, (c) => docAt.get(c.docId) ?? -1),
      entityOffsets: entityLists.offsets,
      entityName: Int32Array.from(entities, (e) => ref(e.name)),
      entityType: Int32Array.from(entities, (e) => ref(e.type)),
      entityDescription: Int32Array.from(entities, (e) => ref(e.description)),
      relationOffsets: relationLists.offsets,
      relationSource: Int32Array.from(relations, (r) => ref(r.source)),
      relationTarget: Int32Array.from(relations, (r) => ref(r.target)),
      relationDescription: Int32Array.from(relations, (r) => ref(r.description)),
      relationWeight: Float64Array.from(relations, (r) => r.weight),
      relationHasKeywords: Uint8Array.from(relations, (r) => (r.keywords ? 1 : 0)),
      keywordOffsets: keywords.offsets,
      keywords: keywords.targets,
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
  const where = opened.locate(file);
  const n = json.chunkIds.length;
  const s = json.strings;
  const int32 = (name: string, length: number, bound: number): Int32Array => {
    const a = arrays.get(name);
    if (!(a instanceof Int32Array) || a.length !== length || a.some((x) => x < 0 || x >= bound)) {
      throw opened.error(file, `lacks ${name}, ${length} positions below ${bound}`);
    }
    return a;
  };
  if (json.locations.length !== n) {
    throw opened.error('update.json', `has ${json.locations.length} locations for ${n} chunks`);
  }
  const docs = int32('chunkDocs', n, json.documents.length);
  const offsets = (name: string): Int32Array => {
    const a = arrays.get(name);
    if (
      !(a instanceof Int32Array) ||
      a.length !== n + 1 ||
      a[0] !== 0 ||
      a.some((x, i) => i > 0 && x < a[i - 1]!)
    ) {
      throw opened.error(file, `lacks ${name}, ${n + 1} non-decreasing offsets from 0`);
    }
    return a;
  };
  const eOff = offsets('entityOffsets');
  const rOff = offsets('relationOffsets');
  const entityCount = eOff[n]!;
  const relationCount = rOff[n]!;
  const [name, type, description] = ['entityName', 'entityType', 'entityDescription'].map((k) =>
    int32(k, entityCount, s.length),
  );
  const [source, target, relDescription] = ['relationSource', 'relationTarget', 'relationDescription'].map(
    (k) => int32(k, relationCount, s.length),
  );
  const weight = arrays.get('relationWeight');
  const hasKeywords = arrays.get('relationHasKeywords');
  if (!(weight instanceof Float64Array) || weight.length !== relationCount) {
    throw opened.error(file, `lacks relationWeight, one float64 per relation (${relationCount})`);
  }
  if (!(hasKeywords instanceof Uint8Array) || hasKeywords.length !== relationCount) {
    throw opened.error(file, `lacks relationHasKeywords, one byte per relation (${relationCount})`);
  }
  const keywords = unpackLists(
    { offsets: arrays.get('keywordOffsets'), targets: arrays.get('keywords') },
    { lists: relationCount, bound: s.length },
    where,
    'keywords',
  );
  return json.chunkIds.map((id, c): KeptChunk => {
    const location = json.locations[c];
    const entities = [];
    for (let e = eOff[c]!; e < eOff[c + 1]!; e++) {
      entities.push({ name: s[name![e]!]!, type: s[type![e]!]!, description: s[description![e]!]! });
    }
    const relations: ExtractedRelation[] = [];
    for (let r = rOff[c]!; r < rOff[c + 1]!; r++) {
      relations.push({
        source: s[source![r]!]!,
        target: s[target![r]!]!,
        description: s[relDescription![r]!]!,
        weight: weight[r]!,
        ...(hasKeywords[r] === 1 ? { keywords: Array.from(keywords[r]!, (k) => s[k]!) } : {}),
      });
    }
    return {
      id,
      docId: json.documents[docs[c]!]!,
      ...(location ? { location } : {}),
      extraction: { entities, relations },
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
