/**
 * What rendering a community's members reads of the index, made once per index and kept in its
 * cache: each entity's text and chunk positions, each relation's text, each chunk's location key;
 * and the provenance of chunks given by position, equal to core's `provenanceOf` of those chunks.
 */
import type { Provenance, SourceLocation } from '@grag/core';
import { locationKey } from '@grag/core/kit';
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
  /** `locationKey` of each chunk's location (`undefined` without one). */
  locationKeys: (string | undefined)[];
  /** Scratch counts per chunk, all 0 between uses. */
  chunkCounts: Uint32Array;
}

/** The {@link MemberTables} of `index` (made on first call, kept in its cache). */
export function memberTables(index: DaRagIndex): MemberTables {
  if (index.cache.members === undefined) {
    const chunkIndex = index.chunkLayer.index;
    index.cache.members = {
      entityTexts: index.entities.map((e) => entityText(e.name, e.descriptions)),
      entityChunks: index.entities.map((e) => Uint32Array.from(e.chunkIds, (id) => chunkIndex.get(id)!)),
      relationTexts: new Array(index.relations.length),
      locationKeys: index.chunks.map((c) => (c.location ? locationKey(c.location) : undefined)),
      chunkCounts: new Uint32Array(index.chunks.length),
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
  const seen = new Set<number>();
  const chunkIds: string[] = [];
  const docIds = new Set<string>();
  const keys = new Set<string>();
  const locations: SourceLocation[] = [];
  for (const i of positions) {
    const chunk = index.chunks[i]!;
    if (!seen.has(i)) {
      seen.add(i);
      chunkIds.push(chunk.id);
    }
    docIds.add(chunk.docId);
    const key = tables.locationKeys[i];
    if (key === undefined || keys.has(key)) continue;
    keys.add(key);
    locations.push(chunk.location!);
  }
  const source = { chunkIds, docIds: [...docIds] };
  return locations.length > 0 ? { ...source, locations } : source;
}
