import { describe, expect, it } from 'vitest';
import { isStoredVectors, type StoredVectors, storedSearchFilter, storedVectorRows } from '../src/index.js';
import {
  Bm25Index,
  FlatIndex,
  searchEntryPoints,
  searchEntryPointsAsync,
  searchVectors,
} from '../src/kit.js';
import { randomVectors } from '../src/test/index.js';

const TEXTS = [
  'the shipyard built ferries',
  'Anton Kessler founded the shipyard',
  'the lighthouse hired a keeper',
  'ferries cross the strait daily',
  'a keeper of the Dunmore lighthouse',
  'Kessler visited Varnholm',
];
const vectors = randomVectors(TEXTS.length, 8, 3);
const flat = new FlatIndex({ dimensions: 8 });
vectors.forEach((v, i) => {
  flat.add(i, v);
});
const lexical = new Bm25Index(TEXTS);

/** `flat` as a collection stored elsewhere, recording the searches it is asked for. */
function stored(): StoredVectors & { asked: number[]; breadths: (number | undefined)[] } {
  const asked: number[] = [];
  const breadths: (number | undefined)[] = [];
  return {
    kind: 'test',
    dimensions: 8,
    metric: 'cosine',
    size: TEXTS.length,
    exact: true,
    location: 'test://chunks',
    asked,
    breadths,
    async search(query, k, options) {
      asked.push(k);
      breadths.push(options?.ef);
      const { ids, exclude } = options ?? {};
      const filter =
        ids || exclude
          ? (id: number) => (!ids || ids.includes(id)) && !(exclude ?? []).includes(id)
          : undefined;
      return flat.search(query, k, filter ? { filter } : {});
    },
    async all() {
      return vectors;
    },
  };
}

describe('searchEntryPointsAsync', () => {
  const query = 'Kessler shipyard ferries';
  const queryVector = randomVectors(1, 8, 9)[0]!;

  it('gives the hits of searchEntryPoints over in-process vectors, for every mode, from stored ones', async () => {
    for (const mode of ['dense', 'lexical', 'hybrid'] as const) {
      const want = searchEntryPoints({
        mode,
        query,
        queryVector,
        vectors: flat,
        lexical,
        k: 4,
        fusionDepth: 6,
      });
      const collection = stored();
      const got = await searchEntryPointsAsync({
        mode,
        query,
        queryVector,
        vectors: collection,
        lexical,
        k: 4,
        fusionDepth: 6,
      });
      expect([mode, got]).toEqual([mode, want]);
      // Dense search asks for k alone, hybrid for the fusion depth, lexical for nothing.
      expect([mode, collection.asked]).toEqual([mode, { dense: [4], lexical: [], hybrid: [6] }[mode]]);
    }
  });

  it('passes in-process vectors through, filter included, and sends a filter to stored ones as ids', async () => {
    for (const filter of [(id: number) => id % 2 === 0, (id: number) => id !== 1, (id: number) => id < 2]) {
      for (const mode of ['dense', 'hybrid'] as const) {
        const want = searchEntryPoints({ mode, query, queryVector, vectors: flat, lexical, k: 3, filter });
        expect(
          await searchEntryPointsAsync({ mode, query, queryVector, vectors: flat, lexical, k: 3, filter }),
        ).toEqual(want);
        expect(
          await searchEntryPointsAsync({
            mode,
            query,
            queryVector,
            vectors: stored(),
            lexical,
            k: 3,
            filter,
          }),
        ).toEqual(want);
      }
    }
    expect([isStoredVectors(flat), isStoredVectors(stored())]).toEqual([false, true]);
  });

  it('sends the search breadth (ef) to stored vectors, with or without a filter', async () => {
    for (const filter of [undefined, (id: number) => id < 4]) {
      const collection = stored();
      const base = { mode: 'dense' as const, query, queryVector, vectors: collection, lexical, k: 3 };
      const want = searchEntryPoints({ ...base, vectors: flat, ...(filter ? { filter } : {}) });
      expect(await searchEntryPointsAsync({ ...base, ef: 300, ...(filter ? { filter } : {}) })).toEqual(want);
      expect(await searchEntryPointsAsync({ ...base, ...(filter ? { filter } : {}) })).toEqual(want);
      expect(
        await searchVectors(collection, queryVector, 2, { ef: 50, ...(filter ? { filter } : {}) }),
      ).toEqual(flat.search(queryVector, 2, filter ? { filter } : {}));
      expect(collection.breadths).toEqual([300, undefined, 50]);
    }
  });

  it('sends a filter as the shorter list of ids, and reads rows through get or all', async () => {
    expect(storedSearchFilter(6, (id) => id !== 1)).toEqual({ exclude: [1] });
    expect(storedSearchFilter(6, (id) => id < 2)).toEqual({ ids: [0, 1] });
    expect(await storedVectorRows(stored(), [3, 0])).toEqual([vectors[3], vectors[0]]);
    const withGet = {
      ...stored(),
      get: async (ids: readonly number[]) => ids.map(() => new Float32Array(8)),
    };
    expect(await storedVectorRows(withGet, [3])).toEqual([new Float32Array(8)]);
  });
});
