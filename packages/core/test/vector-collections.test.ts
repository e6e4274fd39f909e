import { describe, expect, it } from 'vitest';
import { StateError, type StoredVectors } from '../src/index.js';
import {
  FlatIndex,
  type IndexWriter,
  keptVectorRows,
  readVectorCollection,
  searchVectors,
  writeVectorCollection,
} from '../src/kit.js';
import { randomVectors } from '../src/test/index.js';

const vectors = randomVectors(10, 6, 2);
const flat = new FlatIndex({ dimensions: 6 });
vectors.forEach((v, i) => {
  flat.add(i, v);
});

/** `flat` as a stored collection. */
const stored: StoredVectors = {
  kind: 'test',
  dimensions: 6,
  metric: 'cosine',
  size: vectors.length,
  exact: true,
  location: 'test://points',
  async search(query, k, options) {
    const { ids, exclude } = options ?? {};
    return flat.search(query, k, {
      filter: (id) => (!ids || ids.includes(id)) && !(exclude ?? []).includes(id),
    });
  },
  async all() {
    return vectors.map((v) => Float32Array.from(v));
  },
};

/** A writer that records the collections it is given (or keeps none). */
function writer(collections: boolean) {
  const written: { name: string; rows: number; exact: boolean }[] = [];
  const out = {
    location: 'test://index',
    ...(collections
      ? {
          vectorCollection: async (
            name: string,
            rows: readonly ArrayLike<number>[],
            o: { exact: boolean },
          ) => {
            written.push({ name, rows: rows.length, exact: o.exact });
          },
        }
      : {}),
  } as unknown as IndexWriter;
  return { out, written };
}

describe('vector collections of a method', () => {
  it('writes in-process vectors with their rows, or stored ones read back, as an exact collection', async () => {
    const a = writer(true);
    expect(await writeVectorCollection(a.out, 'm', 'points', flat, vectors)).toBe(true);
    expect(await writeVectorCollection(a.out, 'm', 'again', stored, undefined)).toBe(true);
    expect(a.written).toEqual([
      { name: 'points', rows: 10, exact: true },
      { name: 'again', rows: 10, exact: true },
    ]);
    // Without rows an in-process index cannot be a collection: the caller writes its artifacts.
    expect(await writeVectorCollection(a.out, 'm', 'none', flat, undefined)).toBe(false);
  });

  it('writes nothing to a store without collections, and refuses stored vectors there', async () => {
    const b = writer(false);
    expect(await writeVectorCollection(b.out, 'm', 'points', flat, vectors)).toBe(false);
    const error = await writeVectorCollection(b.out, 'm', 'points', stored, undefined).catch(
      (e: unknown) => e,
    );
    expect(StateError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /^m save: the vectors of this index are stored in test:\/\/points/,
    );
  });

  it('searches in the process or where stored with the same hits, a filter included', async () => {
    const q = randomVectors(1, 6, 5)[0]!;
    const filter = (id: number) => id % 3 !== 0;
    expect(await searchVectors(stored, q, 4)).toEqual(flat.search(q, 4));
    expect(await searchVectors(stored, q, 4, { filter })).toEqual(flat.search(q, 4, { filter }));
    expect(await searchVectors(flat, q, 4, { filter })).toEqual(flat.search(q, 4, { filter }));
  });

  it('gives an update the kept rows, else the stored ones, else none', async () => {
    const kept = [new Float32Array(6)];
    expect(await keptVectorRows(stored, kept)).toBe(kept);
    expect((await keptVectorRows(stored, undefined))?.length).toBe(10);
    expect(await keptVectorRows(flat, undefined)).toBeUndefined();
  });

  it('reads a collection only when the index has it', async () => {
    const opened = { collections: ['points'], vectorCollection: async () => stored };
    expect(await readVectorCollection(opened, 'points', 10)).toBe(stored);
    expect(await readVectorCollection(opened, 'other', 10)).toBeUndefined();
  });
});
