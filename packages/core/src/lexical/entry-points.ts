/** Entry-point search over one set of texts: dense vectors, BM25, or both fused by rank. */
import {
  isStoredVectors,
  type StoredVectors,
  type VectorHit,
  type VectorIndex,
} from '../contracts/vector.js';
import { searchVectors } from '../vector-collections.js';
import type { Bm25Index } from './bm25.js';
import { reciprocalRankFusion } from './fusion.js';

/**
 * How a method finds its entry points (chunks, units, entities) for a query: `'dense'` by the
 * embedder's vectors, `'lexical'` by exact BM25, `'hybrid'` by both, fused with reciprocal rank
 * fusion.
 */
export type EntryPointMode = 'dense' | 'lexical' | 'hybrid';

/** The entry-point modes, for option checks. */
export const ENTRY_POINT_MODES: readonly EntryPointMode[] = ['dense', 'lexical', 'hybrid'];

/** What {@link searchEntryPoints} searches. */
export interface EntryPointQuery {
  mode: EntryPointMode;
  /** The query text (for BM25). */
  query: string;
  /** The query's embedding (for dense search); needed unless `mode` is `'lexical'`. */
  queryVector?: ArrayLike<number>;
  /** Dense index over the texts' embeddings; needed unless `mode` is `'lexical'`. */
  vectors?: VectorIndex;
  /** BM25 over the same texts, same ids; needed unless `mode` is `'dense'`. */
  lexical?: Bm25Index;
  /** Hits wanted. */
  k: number;
  /** Hits each list contributes to the fusion. @default max(k, 50) */
  fusionDepth?: number;
  /** Keep only ids for which this returns true. */
  filter?: (id: number) => boolean;
  /**
   * Search breadth of the dense search on an approximate index (HNSW's `ef`; at least the depth it
   * asks for is used); exact indexes ignore it. @default the index's own
   */
  ef?: number;
}

/**
 * The best `k` entry points for a query. Dense hits score by similarity, lexical hits by BM25,
 * hybrid hits by their fused reciprocal-rank score (only the order is comparable across modes).
 */
export function searchEntryPoints(q: EntryPointQuery): VectorHit[] {
  return entryPoints(q, () => {
    if (!q.vectors || !q.queryVector)
      throw new TypeError(`searchEntryPoints: mode '${q.mode}' needs vectors and a query vector.`);
    return q.vectors.search(q.queryVector, denseDepth(q), {
      ...(q.filter ? { filter: q.filter } : {}),
      ...(q.ef !== undefined ? { ef: q.ef } : {}),
    });
  });
}

/**
 * {@link searchEntryPoints} over vectors that may be stored outside the process
 * ({@link StoredVectors}, searched where they live); the same hits as an exact in-process index
 * when the collection is exact. A `filter` on stored vectors is sent as the ids it keeps (or
 * leaves out, whichever list is shorter; see `storedSearchFilter`).
 */
export async function searchEntryPointsAsync(
  q: Omit<EntryPointQuery, 'vectors'> & { vectors?: VectorIndex | StoredVectors },
): Promise<VectorHit[]> {
  const { vectors } = q;
  if (vectors === undefined || !isStoredVectors(vectors)) return searchEntryPoints({ ...q, vectors });
  const dense =
    q.mode === 'lexical'
      ? []
      : await (() => {
          if (!q.queryVector)
            throw new TypeError(`searchEntryPoints: mode '${q.mode}' needs a query vector.`);
          return searchVectors(vectors, q.queryVector, denseDepth(q), {
            ...(q.filter ? { filter: q.filter } : {}),
            ...(q.ef !== undefined ? { ef: q.ef } : {}),
          });
        })();
  return entryPoints(q, () => dense);
}

/** How many dense hits a query takes: `k` alone, else the fusion depth. */
function denseDepth(q: Pick<EntryPointQuery, 'mode' | 'k' | 'fusionDepth'>): number {
  return q.mode === 'dense' ? q.k : Math.max(q.k, q.fusionDepth ?? 50);
}

/** The entry points of `q` from its dense hits (`dense`, called only when the mode needs them) and its BM25. */
function entryPoints(q: Omit<EntryPointQuery, 'vectors'>, dense: () => VectorHit[]): VectorHit[] {
  const depth = Math.max(q.k, q.fusionDepth ?? 50);
  const lexical = () => {
    if (!q.lexical) throw new TypeError(`searchEntryPoints: mode '${q.mode}' needs a BM25 index.`);
    return q.lexical.search(
      q.query,
      q.mode === 'lexical' ? q.k : depth,
      q.filter ? { filter: q.filter } : {},
    );
  };
  if (q.mode === 'dense') return dense();
  if (q.mode === 'lexical') return lexical();
  return reciprocalRankFusion([dense(), lexical()]).slice(0, q.k);
}
