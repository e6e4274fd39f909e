/** The `vectorPrecision` option every store takes (see `IndexStore.vectorPrecision`). */

import { IndexFormatError, InvalidArgumentError } from '../contracts/errors.js';
import {
  type IndexStore,
  isVectorPrecision,
  type StoredIndex,
  VECTOR_PRECISIONS,
  type VectorPrecision,
} from '../contracts/store.js';

/**
 * `{ vectorPrecision }` for a store's object, `{}` when `value` is undefined (the precision of the
 * version a write replaces). @throws InvalidArgumentError naming `owner` for any other value.
 */
export function vectorPrecisionOption(
  owner: string,
  value: unknown,
): { readonly vectorPrecision?: VectorPrecision } {
  if (value === undefined) return {};
  if (isVectorPrecision(value)) return { vectorPrecision: value };
  throw new InvalidArgumentError(
    'vectorPrecision',
    `${owner}: vectorPrecision is ${JSON.stringify(value)}; use one of ${VECTOR_PRECISIONS.map((p) => `'${p}'`).join(', ')}.`,
  );
}

/**
 * The vector precision of the version a write to `store` replaces (what its manifest records), so
 * that a store given none keeps it; `'float32'` for a new index or one that cannot be read.
 */
export async function replacedPrecision(store: IndexStore): Promise<VectorPrecision> {
  if ((await store.target()) !== 'index') return 'float32';
  let snapshot: StoredIndex;
  try {
    snapshot = await store.open();
  } catch (error) {
    if (IndexFormatError.isInstance(error)) return 'float32';
    throw error;
  }
  try {
    return snapshot.manifest.vectorPrecision ?? 'float32';
  } finally {
    await snapshot.release();
  }
}
