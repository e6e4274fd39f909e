/** Entry-point search over the sub-chunks, and the vector indexes the method builds. */
import { indexVectors, type SearchableVectors, type VectorHit, type VectorIndex } from '@grag/core';
import { Bm25Index, type IndexProviders, searchEntryPointsAsync } from '@grag/core/kit';
import { unitColumns } from '@grag/keyword-bipartite';
import type { KetRagOptions } from './options.js';
import type { KetRagEntryIndex, KetRagIndex, KetRagKeywordIndex } from './types.js';

/** A vector index of `vectors` (ids = positions) by the providers' factory. */
export function vectorIndexOf(providers: IndexProviders, vectors: readonly ArrayLike<number>[]): VectorIndex {
  return indexVectors(providers.vectorIndex, vectors, { dimensions: providers.embedder.dimensions });
}

/** Whether the graph channel seeds from entry sub-chunks (and so needs the entry search over them). */
export function unitSeeds(o: KetRagOptions, hasSkeleton: boolean): boolean {
  return hasSkeleton && o.entityLinking && o.entitySeeds !== 'query';
}

/** BM25 (`lexical`, or built) and, when given, the dense index over the sub-chunks, as `entryPoints` needs. */
export function entryIndex(
  o: KetRagOptions,
  subChunkTexts: readonly string[],
  vectors?: () => SearchableVectors,
  lexical?: Bm25Index,
): KetRagEntryIndex | undefined {
  const entry: KetRagEntryIndex = {};
  if (o.entryPoints !== 'dense') entry.lexical = lexical ?? new Bm25Index(subChunkTexts);
  if (vectors && o.entryPoints !== 'lexical') entry.vectors = vectors();
  return entry.lexical || entry.vectors ? entry : undefined;
}

/** The best `k` entry sub-chunks for a query, by the index's `entryPoints` mode. */
export function searchSubChunks(
  index: KetRagIndex,
  query: string,
  q: Float32Array,
  k: number,
): Promise<VectorHit[]> {
  return searchEntryPointsAsync({
    mode: index.options.entryPoints,
    query,
    queryVector: q,
    ...(index.entry?.vectors ? { vectors: index.entry.vectors } : {}),
    ...(index.entry?.lexical ? { lexical: index.entry.lexical } : {}),
    k,
  });
}

/**
 * The keyword channel's index from its parts; with `hybrid` entry points (which score every
 * sub-chunk by cosine per query), the sub-chunk vectors by dimension as well (`unitColumns`).
 */
export function keywordIndexOf(
  o: KetRagOptions,
  parts: Omit<KetRagKeywordIndex, 'subChunkColumns'>,
  dimensions: number,
): KetRagKeywordIndex {
  return o.entryPoints === 'hybrid'
    ? { ...parts, subChunkColumns: unitColumns(parts.subChunkVectors, dimensions) }
    : parts;
}
