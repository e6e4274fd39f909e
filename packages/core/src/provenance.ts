/**
 * Provenance of retrieved items: the chunks, documents and source-file places an item comes from,
 * built the same way by every method, and the label a citation shows for it.
 */

import type { Chunk, Provenance, RetrievedItem, SourceLocation } from './contracts/types.js';
import { formatLocation } from './loader.js';

/** What {@link provenanceOf} reads of a chunk (sub-chunks, summary-tree leaves and kept records have it too). */
export type ChunkRef = Pick<Chunk, 'id' | 'docId' | 'location'>;

/** A key that is equal for equal locations, whatever the order of their fields. */
export function locationKey(location: SourceLocation): string {
  return JSON.stringify([
    location.path,
    location.page ?? null,
    location.section ?? null,
    location.row ?? null,
    location.record ?? null,
  ]);
}

/** The distinct locations of `locations`, in first-seen order; `undefined` entries are skipped. */
export function uniqueLocations(locations: Iterable<SourceLocation | undefined>): SourceLocation[] {
  const seen = new Set<string>();
  const out: SourceLocation[] = [];
  for (const location of locations) {
    if (!location) continue;
    const key = locationKey(location);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(location);
  }
  return out;
}

/** `{ chunkIds, docIds }` with `locations` when there is at least one (else the field is left out). */
export function withLocations(
  source: Pick<Provenance, 'chunkIds' | 'docIds'>,
  locations: Iterable<SourceLocation | undefined>,
): Provenance {
  const unique = uniqueLocations(locations);
  return unique.length > 0 ? { ...source, locations: unique } : { ...source };
}

/**
 * The provenance of an item made from `chunks`: their distinct ids and documents, and their distinct
 * locations, each in first-seen order. `locations` is left out when no chunk has one (documents
 * loaded without segments, indexes saved before chunks kept their location).
 *
 * @example
 * provenanceOf([{ id: 'report.pdf#4', docId: 'report.pdf', location: { path: 'report.pdf', page: 3 } }])
 * // → { chunkIds: ['report.pdf#4'], docIds: ['report.pdf'], locations: [{ path: 'report.pdf', page: 3 }] }
 */
export function provenanceOf(chunks: Iterable<ChunkRef>): Provenance {
  const chunkIds = new Set<string>();
  const docIds = new Set<string>();
  const locations: (SourceLocation | undefined)[] = [];
  for (const chunk of chunks) {
    chunkIds.add(chunk.id);
    docIds.add(chunk.docId);
    locations.push(chunk.location);
  }
  return withLocations({ chunkIds: [...chunkIds], docIds: [...docIds] }, locations);
}

/** Several provenances as one: distinct chunk ids, documents and locations, in first-seen order. */
export function mergeProvenance(sources: Iterable<Provenance>): Provenance {
  const chunkIds = new Set<string>();
  const docIds = new Set<string>();
  const locations: SourceLocation[] = [];
  for (const source of sources) {
    for (const id of source.chunkIds) chunkIds.add(id);
    for (const id of source.docIds) docIds.add(id);
    if (source.locations) locations.push(...source.locations);
  }
  return withLocations({ chunkIds: [...chunkIds], docIds: [...docIds] }, locations);
}

/**
 * The label a citation shows for an item's source: its locations as {@link formatLocation} writes
 * them (`report.pdf p. 3; report.pdf p. 5`), else its document ids (`a, b`), else `''`. With `max`,
 * at most that many are written, then `(+N more)`.
 */
export function sourceLabel(
  source: Pick<Provenance, 'docIds' | 'locations'>,
  max = Number.POSITIVE_INFINITY,
): string {
  const located = (source.locations?.length ?? 0) > 0;
  const parts = located ? source.locations!.map(formatLocation) : source.docIds;
  const shown = parts.slice(0, Math.max(1, max));
  const more = parts.length - shown.length;
  return shown.join(located ? '; ' : ', ') + (more > 0 ? ` (+${more} more)` : '');
}

/** What one citation of an answer points at: the cited item's documents and places, and their label. */
export interface CitedSource {
  /** The cited item's id, as the answer cites it (`[id]`). */
  id: string;
  /** The documents of the item (empty for an id that is no retrieved item). */
  docIds: string[];
  /** The places in the source files (pages, sections, rows), when known. */
  locations?: SourceLocation[];
  /** {@link sourceLabel} of the item's source, e.g. `report.pdf p. 3`; `''` when nothing is known. */
  label: string;
}

/**
 * The source of each cited id among `items` (in citation order): its documents, locations and
 * label, so that an answer's citations can be shown as `[id] report.pdf p. 3`.
 */
export function citedSources(citations: readonly string[], items: readonly RetrievedItem[]): CitedSource[] {
  const byId = new Map<string, RetrievedItem>();
  for (const item of items) if (!byId.has(item.id)) byId.set(item.id, item);
  return citations.map((id) => {
    const source = byId.get(id)?.source;
    if (!source) return { id, docIds: [], label: '' };
    const cited: CitedSource = { id, docIds: [...source.docIds], label: sourceLabel(source) };
    if (source.locations?.length) cited.locations = [...source.locations];
    return cited;
  });
}
