import { describe, expect, it } from 'vitest';
import { isStoredVectors, type StoredVectors } from '../src/index.js';
import { Bm25Index, FlatIndex, searchEntryPoints, searchEntryPointsAsync } from '../src/kit.js';
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
function stored(): StoredVectors & { asked: number[] } {
  const asked: number[] = [];
  return {
    kind: 'test',
    dimensions: 8,
    metric: 'cosine',
    size: TEXTS.length,
    exact: true,
    location: 'test://chunks',
    asked,
    async search(query, k) {
      asked.push(k);
      return flat.search(query, k);
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

  it('passes in-process vectors through, filter included, and refuses a filter on stored ones', async () => {
    const filter = (id: number) => id % 2 === 0;
    expect(
      await searchEntryPointsAsync({ mode: 'dense', query, queryVector, vectors: flat, k: 3, filter }),
    ).toEqual(searchEntryPoints({ mode: 'dense', query, queryVector, vectors: flat, k: 3, filter }));
    await expect(
      searchEntryPointsAsync({ mode: 'dense', query, queryVector, vectors: stored(), k: 3, filter }),
    ).rejects.toThrow(/a filter needs in-process vectors/);
    expect([isStoredVectors(flat), isStoredVectors(stored())]).toEqual([false, true]);
  });
});
