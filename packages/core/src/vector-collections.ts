/**
 * A method's vectors kept as a collection of its store (`postgresStore({ vectors: true })`) and
 * searched there, or in the process as a {@link VectorIndex}: the save, load, search and update
 * steps every method takes the same way (see `IndexWriter.vectorCollection`).
 */
import { StateError } from './contracts/errors.js';
import {
  isStoredVectors,
  type SearchableVectors,
  type StoredVectors,
  storedSearchFilter,
  type VectorHit,
  type VectorSearchOptions,
} from './contracts/vector.js';
import type { IndexWriter, OpenedIndex } from './method-index.js';

/**
 * Store `vectors` (ids = positions) as collection `name` when `out` keeps collections: `rows` are
 * its vectors (when absent, a stored collection gives them); searched exactly when the index is
 * exact (`flat`, or an exact collection). Resolves to whether it was stored so: when not, the
 * caller writes its artifacts as before.
 * @throws StateError when `vectors` are stored elsewhere and `out` keeps no collections (`owner`
 * names the method's save in the message).
 */
export async function writeVectorCollection(
  out: IndexWriter,
  owner: string,
  name: string,
  vectors: SearchableVectors,
  rows: readonly ArrayLike<number>[] | undefined,
): Promise<boolean> {
  const stored = isStoredVectors(vectors);
  if (out.vectorCollection) {
    const kept = rows ?? (stored ? await vectors.all() : undefined);
    if (kept) {
      const exact = stored ? vectors.exact : vectors.kind === 'flat';
      await out.vectorCollection(name, kept, { metric: vectors.metric, exact });
      return true;
    }
  }
  if (stored) {
    throw new StateError(
      `${owner} save: the vectors of this index are stored in ${vectors.location} and ${out.location} keeps no vector collections; save it to a store that does, or rebuild it.`,
    );
  }
  return false;
}

/** Collection `name` of `opened` (checked to hold `count` vectors), or `undefined` when it has none of that name. */
export async function readVectorCollection(
  opened: Pick<OpenedIndex<unknown, unknown>, 'collections' | 'vectorCollection'>,
  name: string,
  count: number,
): Promise<StoredVectors | undefined> {
  return opened.collections.includes(name) ? opened.vectorCollection(name, count) : undefined;
}

/**
 * The `k` nearest ids to `query` in `vectors`, in the process or where they are stored (a `filter`
 * is sent as ids, see `storedSearchFilter`; `ef` as the stored search's breadth).
 */
export async function searchVectors(
  vectors: SearchableVectors,
  query: ArrayLike<number>,
  k: number,
  options: VectorSearchOptions = {},
): Promise<VectorHit[]> {
  if (!isStoredVectors(vectors)) return vectors.search(query, k, options);
  return vectors.search(query, k, {
    ...(options.filter ? storedSearchFilter(vectors.size, options.filter) : {}),
    ...(options.ef !== undefined ? { ef: options.ef } : {}),
  });
}

/**
 * Every vector of an index for an update: the rows it keeps, else those of its stored collection;
 * `undefined` when it has neither (an index that cannot be updated, only rebuilt).
 */
export async function keptVectorRows(
  vectors: SearchableVectors | undefined,
  rows: Float32Array[] | undefined,
): Promise<Float32Array[] | undefined> {
  if (rows) return rows;
  return vectors && isStoredVectors(vectors) ? vectors.all() : undefined;
}

/**
 * An index's kept state for an update with its vector rows in `field` filled in by
 * {@link keptVectorRows} (an index whose vectors are a stored collection keeps no rows beside it:
 * they are read there). `undefined` when there is no kept state or no rows: an index saved before
 * it kept them, which `prepareUpdate` refuses.
 *
 * @example
 * ```ts
 * await prepareUpdate(name, change, ctx, options, {
 *   kept: () => keptWithVectorRows(index.vectors, index.kept, 'embeddings'),
 *   ...
 * });
 * ```
 */
export async function keptWithVectorRows<
  Kept extends { [K in Field]?: Float32Array[] },
  Field extends string,
>(
  vectors: SearchableVectors | undefined,
  kept: Kept | undefined,
  field: Field,
): Promise<(Kept & { [K in Field]: Float32Array[] }) | undefined> {
  if (!kept) return undefined;
  const rows = await keptVectorRows(vectors, kept[field]);
  return rows ? { ...kept, [field]: rows } : undefined;
}
