/**
 * Vector index factories for tests of a method's searches: what a search was asked, or an index
 * that answers as an approximate index may (see `interceptedIndexFactory`).
 */
import type { VectorIndex, VectorIndexFactory, VectorSearchOptions } from '../contracts/vector.js';
import { flatIndexFactory } from '../vector/flat.js';

/**
 * The indexes of `factory` (the exact flat one by default) with their `search` replaced by what
 * `intercept` makes of it (it is given the index's own search), under `kind`. Not exact: a method
 * searching them behaves as with an approximate index.
 */
export function interceptedIndexFactory(
  intercept: (search: VectorIndex['search']) => VectorIndex['search'],
  factory: VectorIndexFactory = flatIndexFactory,
  kind: string = factory.kind,
): VectorIndexFactory {
  const wrap = (index: VectorIndex): VectorIndex => {
    const search = intercept(index.search.bind(index));
    return new Proxy(index, {
      get: (target, key, receiver) => (key === 'search' ? search : Reflect.get(target, key, receiver)),
    });
  };
  return {
    kind,
    create: (options) => wrap(factory.create(options)),
    load: async (path) => wrap(await factory.load(path)),
  };
}

/** A flat index factory that records the options of every search its indexes are asked, in `calls`. */
export function recordingIndexFactory(calls: VectorSearchOptions[]): VectorIndexFactory {
  return interceptedIndexFactory((search) => (query, k, options = {}) => {
    calls.push(options);
    return search(query, k, options);
  });
}
