/**
 * The asynchronous vector-index contract that a database-backed collection implements. Core's
 * `VectorIndex` is synchronous (`add`, `has`, `search` return values), which no network client
 * can provide; these types are proposed for `@grag/core` (see the README's "Deviations / limits").
 */
import type { Metric, VectorHit } from '@grag/core';

export type { VectorHit };

/** Options of {@link AsyncVectorIndex.search}. */
export interface AsyncVectorSearchOptions {
  /**
   * Keep only these ids (a list rather than core's `filter` callback, so the database can apply
   * it).
   */
  ids?: readonly number[];
  /** HNSW search breadth (`hnsw.ef_search` for pgvector). */
  ef?: number;
}

/** A vector index whose vectors live outside the process: core's `VectorIndex`, asynchronous. */
export interface AsyncVectorIndex {
  /** Implementation name, e.g. `'pgvector'`. */
  readonly kind: string;
  readonly dimensions: number;
  readonly metric: Metric;
  /** Number of vectors stored. */
  size(): Promise<number>;
  /** Add (or replace) the vector of `id`. */
  add(id: number, vector: ArrayLike<number>): Promise<void>;
  /** Add (or replace) many vectors at once. */
  addMany(entries: Iterable<readonly [number, ArrayLike<number>]>): Promise<void>;
  /** Whether `id` has a vector. */
  has(id: number): Promise<boolean>;
  /** Remove the vectors of `ids`. */
  remove(ids: readonly number[]): Promise<void>;
  /** The `k` nearest ids to `query`, best first. */
  search(query: ArrayLike<number>, k: number, options?: AsyncVectorSearchOptions): Promise<VectorHit[]>;
}
