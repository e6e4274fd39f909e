/**
 * What rendering a community's members reads of the index, made once per index and kept in its
 * cache: each entity's text and chunk positions, each relation's text, each chunk's location key;
 * and the provenance of chunks given by position, equal to core's `provenanceOf` of those chunks.
 */
import type { Provenance, SourceLocation } from '@grag/core';
import { locationKey, stringTable } from '@grag/core/kit';
import type { DaRagIndex } from './types.js';
import { entityText } from './util.js';

/** Per-index tables of {@link memberTables}. */
export interface MemberTables {
  /** `entityText(name, descriptions)` of each entity (the same string object on every use). */
  entityTexts: string[];
  /** The chunk positions of each entity's `chunkIds`, in their order. */
  entityChunks: Uint32Array[];
  /** The text of relation `e` written from its smaller entity to its larger, made on first use. */
  relationTexts: (string | undefined)[];
  /** Scratch counts per chunk, all 0 between uses. */
  chunkCounts: Uint32Array;
  /** Each chunk's document, as a position in `docIds`. */
  chunkDocs: Uint32Array;
  /** The distinct document ids of the chunks. */
  docIds: string[];
  /** Each chunk's location key, as a position among the distinct keys (-1 without a location). */
  chunkKeys: Int32Array;
  /** Marks of {@link chunkProvenance}: per chunk, per document and per location key. */
  marks: { chunks: Uint32Array; docs: Uint32Array; keys: Uint32Array; stamp: number };
}

/** The {@link MemberTables} of `index` (made on first call, kept in its cache). */
export function memberTables(index: DaRagIndex): MemberTables {
  if (index.cache.members === undefined) {
    const chunkIndex = index.chunkLayer.index;
    const docs = stringTable();
    const keys = stringTable();
    const chunkDocs = Uint32Array.from(index.chunks, (c) => docs.ref(c.docId));
    const chunkKeys = Int32Array.from(index.chunks, (c) =>
      c.location ? keys.ref(locationKey(c.location)) : -1,
    );
    index.cache.members = {
      entityTexts: index.entities.map((e) => entityText(e.name, e.descriptions)),
      entityChunks: index.entities.map((e) => Uint32Array.from(e.chunkIds, (id) => chunkIndex.get(id)!)),
      relationTexts: new Array(index.relations.length),
      chunkCounts: new Uint32Array(index.chunks.length),
      chunkDocs,
      docIds: docs.strings,
      chunkKeys,
      marks: {
        chunks: new Uint32Array(index.chunks.length),
        docs: new Uint32Array(docs.strings.length),
        keys: new Uint32Array(keys.strings.length),
        stamp: 0,
      },
    };
  }
  return index.cache.members;
}

/** The text of KG relation `e` between entities `a` and `b`, as a community writes it. */
export function relationText(
  index: DaRagIndex,
  tables: MemberTables,
  e: number,
  a: number,
  b: number,
): string {
  const make = () =>
    entityText(`${index.entities[a]!.name} — ${index.entities[b]!.name}`, index.relations[e]!.descriptions);
  // Kept for one orientation (a < b, how a layer's edges list their ends).
  if (a > b) return make();
  tables.relationTexts[e] ??= make();
  return tables.relationTexts[e]!;
}

/**
 * The provenance of the chunks at `positions`: their distinct ids and documents and their distinct
 * locations, in first-seen order, `locations` left out when none has one (core `provenanceOf` of
 * those chunks, with each location's key made once per index).
 */
export function chunkProvenance(
  index: DaRagIndex,
  tables: MemberTables,
  positions: Iterable<number>,
): Provenance {
  const { marks, chunkDocs, chunkKeys } = tables;
  // A new mark for this call (the marks start over long before the stamp would wrap).
  if (marks.stamp >= 0xffffffff) {
    marks.chunks.fill(0);
    marks.docs.fill(0);
    marks.keys.fill(0);
    marks.stamp = 0;
  }
  const stamp = ++marks.stamp;
  const chunkIds: string[] = [];
  const docIds: string[] = [];
  const locations: SourceLocation[] = [];
  for (const i of positions) {
    const chunk = index.chunks[i]!;
    if (marks.chunks[i] !== stamp) {
      marks.chunks[i] = stamp;
      chunkIds.push(chunk.id);
    }
    const d = chunkDocs[i]!;
    if (marks.docs[d] !== stamp) {
      marks.docs[d] = stamp;
      docIds.push(tables.docIds[d]!);
    }
    const k = chunkKeys[i]!;
    if (k < 0 || marks.keys[k] === stamp) continue;
    marks.keys[k] = stamp;
    locations.push(chunk.location!);
  }
  const source = { chunkIds, docIds };
  return locations.length > 0 ? { ...source, locations } : source;
}
