import type { PGlite } from '@electric-sql/pglite';
import { IndexFormatError, InvalidArgumentError, type Metric, StateError } from '@grag/core';
import { FlatIndex } from '@grag/core/kit';
import { randomVectors } from '@grag/core/test';
import { describe, expect, it } from 'vitest';
import { pgVectorIndexFactory, postgresStore } from '../src/index.js';
import { freshIndex, makePglite, usePglite } from './pglite.js';

let db: PGlite;
usePglite(true, (fresh) => {
  db = fresh;
});

const collection = (index = freshIndex('vec'), name = 'chunks') =>
  pgVectorIndexFactory({ db, index, collection: name });

// Four 2-d vectors and the query [2, 1]; scores by hand from the definitions.
const EXAMPLE: [number, number[]][] = [
  [1, [1, 0]],
  [2, [0, 3]],
  [3, [3, 3]],
  [4, [-1, 0]],
];
const EXPECTED: Record<Metric, [number, number][]> = {
  // cosine: 2/√5, 1/√5, 9/(√18·√5) = 3/√10, −2/√5
  cosine: [
    [3, 3 / Math.sqrt(10)],
    [1, 2 / Math.sqrt(5)],
    [2, 1 / Math.sqrt(5)],
    [4, -2 / Math.sqrt(5)],
  ],
  // inner product: 2, 3, 9, −2
  ip: [
    [3, 9],
    [2, 3],
    [1, 2],
    [4, -2],
  ],
  // minus squared L2: (1²+1²), (2²+2²), (1²+2²), (3²+1²)
  l2: [
    [1, -2],
    [3, -5],
    [2, -8],
    [4, -10],
  ],
};

describe('pgVectorIndexFactory on PGlite with pgvector', () => {
  for (const metric of ['cosine', 'ip', 'l2'] as const) {
    it(`ranks and scores the hand-computed example by ${metric} in the database`, async () => {
      const vectors = await collection().create({ dimensions: 2, metric });
      await vectors.addMany(EXAMPLE);
      const hits = await vectors.search([2, 1], 4);
      expect(hits.map((h) => h.id)).toEqual(EXPECTED[metric].map(([id]) => id));
      for (const [i, hit] of hits.entries()) expect(hit.score).toBeCloseTo(EXPECTED[metric][i]![1], 5);
      expect((await vectors.search([2, 1], 2)).map((h) => h.id)).toEqual(
        EXPECTED[metric].slice(0, 2).map(([id]) => id),
      );
    });
  }

  it('finds what an exact index finds on seeded random data, with the same scores', async () => {
    const data = randomVectors(400, 8, 7);
    const queries = randomVectors(20, 8, 8);
    const index = freshIndex('vec');
    const vectors = await collection(index).create({ dimensions: 8, metric: 'cosine' });
    await vectors.addMany(data.map((v, id) => [id, v] as const));
    expect(await vectors.size()).toBe(400);
    // The search's plan goes through the HNSW index, so this checks the approximate search.
    const plan = await db.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN SELECT id FROM grag_${index}.vec_chunks ORDER BY embedding <=> $1::vector LIMIT 10`,
      [`[${Array.from(queries[0]!).join(',')}]`],
    );
    expect(plan.rows.map((row) => row['QUERY PLAN']).join('\n')).toContain(
      'Index Scan using vec_chunks_hnsw',
    );
    const flat = new FlatIndex({ dimensions: 8, metric: 'cosine' });
    for (const [id, v] of data.entries()) flat.add(id, v);
    let found = 0;
    for (const query of queries) {
      const exact = flat.search(query, 10);
      const hits = await vectors.search(query, 10, { ef: 100 });
      expect(hits).toHaveLength(10);
      const exactIds = new Set(exact.map((h) => h.id));
      found += hits.filter((h) => exactIds.has(h.id)).length;
      for (const hit of hits) {
        expect(hit.score).toBeCloseTo(
          flat.search(query, 400, { filter: (id) => id === hit.id })[0]!.score,
          5,
        );
      }
    }
    expect(found / (10 * queries.length)).toBeGreaterThanOrEqual(0.95);
  });

  it('keeps only the given ids when asked, as an exact filter would', async () => {
    const data = randomVectors(100, 4, 3);
    const vectors = await collection().create({ dimensions: 4, metric: 'l2' });
    await vectors.addMany(data.map((v, id) => [id, v] as const));
    const allowed = [3, 17, 42, 64, 99];
    const flat = new FlatIndex({ dimensions: 4, metric: 'l2' });
    for (const [id, v] of data.entries()) flat.add(id, v);
    const expected = flat.search(data[0]!, 3, { filter: (id) => allowed.includes(id) });
    const hits = await vectors.search(data[0]!, 3, { ids: allowed });
    expect(hits.map((h) => h.id)).toEqual(expected.map((h) => h.id));
    expect(await vectors.search(data[0]!, 3, { ids: [] })).toEqual([]);
  });

  it('adds, replaces, tells and removes vectors', async () => {
    const vectors = await collection().create({ dimensions: 2, metric: 'ip' });
    await vectors.add(5, [1, 0]);
    await vectors.add(6, [0, 1]);
    expect(await vectors.has(5)).toBe(true);
    expect(await vectors.has(7)).toBe(false);
    await vectors.add(5, [0, 2]); // replaced: now the best for [0, 1]
    expect(await vectors.size()).toBe(2);
    expect(await vectors.search([0, 1], 1)).toEqual([{ id: 5, score: 2 }]);
    await vectors.remove([5, 99]);
    expect(await vectors.size()).toBe(1);
    expect(await vectors.search([0, 1], 5)).toEqual([{ id: 6, score: 1 }]);
  });

  it('opens an existing collection with its dimensions and metric, and refuses a missing one', async () => {
    const index = freshIndex('vec');
    const created = await collection(index).create({ dimensions: 3, metric: 'l2' });
    await created.add(1, [1, 2, 3]);
    const opened = await collection(index).open();
    expect([opened.dimensions, opened.metric, await opened.size()]).toEqual([3, 'l2', 1]);
    const missing = await collection(index, 'other')
      .open()
      .catch((e: unknown) => e);
    expect(IndexFormatError.isInstance(missing), String(missing)).toBe(true);
    expect((missing as Error).message).toBe(
      `pglite#${index}/other: there is no vector collection 'other' in index '${index}'; create it first (factory.create({ dimensions })).`,
    );
  });

  it('drops a collection, after which opening it is refused; dropping a missing one does nothing', async () => {
    const index = freshIndex('vec');
    await collection(index).create({ dimensions: 2 });
    await collection(index).drop();
    await expect(collection(index).open()).rejects.toSatisfy(IndexFormatError.isInstance);
    await collection(index).drop();
    await collection(freshIndex('never')).drop();
  });

  it('refuses vectors of the wrong dimension and bad arguments before any query', async () => {
    const vectors = await collection().create({ dimensions: 3 });
    await expect(vectors.add(1, [1, 2])).rejects.toSatisfy(InvalidArgumentError.isInstance);
    await expect(vectors.search([1, 2], 1)).rejects.toThrow(/has 2 dimensions but the index has 3/);
    await expect(vectors.search([1, 2, 3], -1)).rejects.toSatisfy(InvalidArgumentError.isInstance);
    await expect(vectors.search([1, 2, 3], 1, { ef: 0 })).rejects.toThrow(/ef must be an integer/);
    await expect(collection().create({ dimensions: 0 })).rejects.toThrow(/dimensions must be an integer/);
    expect(() => collection(freshIndex(), 'Bad-Name')).toThrow(/not a valid name/);
  });

  it('shares the index schema with the store without making it foreign', async () => {
    const index = freshIndex('both');
    const store = postgresStore({ db, index });
    await collection(index).create({ dimensions: 2 });
    expect(await store.target()).toBe('empty');
    await store.writeVersion({ method: 'm', formatVersion: 1, params: {}, providers: {} }, async (out) => {
      await out.write('a.json', new TextEncoder().encode('{}'));
    });
    expect(await store.target()).toBe('index');
    expect(await (await collection(index).open()).size()).toBe(0);
  });
});

describe('pgVectorIndexFactory without pgvector', () => {
  it('refuses with the one pgvector line', async () => {
    const bare = await makePglite(false);
    try {
      const error = await pgVectorIndexFactory({ db: bare, index: 'docs', collection: 'chunks' })
        .create({ dimensions: 2 })
        .catch((e: unknown) => e);
      expect(StateError.isInstance(error), String(error)).toBe(true);
      expect((error as Error).message).toMatch(
        /^pgvector is not installed in pglite; install it \(CREATE EXTENSION vector.*\) or use the directory store\.$/,
      );
    } finally {
      await bare.close();
    }
  });
});
