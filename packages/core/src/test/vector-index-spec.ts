/**
 * A shared vitest spec suite for `VectorIndex` implementations, as graphology ships `specs(Graph)`:
 * every implementation runs the same checks against hand-computed examples and a brute-force oracle.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IndexFormatError, InvalidArgumentError } from '../contracts/errors.js';
import type { Metric, VectorHit, VectorIndex, VectorIndexFactory } from '../contracts/vector.js';
import { FlatIndex } from '../vector/flat.js';
import { randomVectors } from './random.js';

/** Options of {@link runVectorIndexSpec}. */
export interface VectorIndexSpecOptions {
  /**
   * Whether the implementation is exact: its results must then equal a brute-force oracle's
   * (ties by lower id). Approximate ones are held to `minRecall` instead.
   * @default true
   */
  exact?: boolean;
  /**
   * Minimum mean recall@10 against {@link FlatIndex} on seeded random data (2,000 vectors of 16
   * dimensions, 50 queries) for approximate implementations.
   * @default 0.9
   */
  minRecall?: number;
}

const METRICS: readonly Metric[] = ['cosine', 'ip', 'l2'];

/**
 * The hand-made example: four 2-d vectors and the query [2, 1]. Expected orders and scores are
 * computed by hand from the definitions (cosine similarity, inner product, minus squared L2).
 */
const EXAMPLE: ReadonlyArray<readonly [number, readonly number[]]> = [
  [1, [1, 0]],
  [2, [0, 3]],
  [3, [3, 3]],
  [4, [-1, 0]],
];
const EXAMPLE_QUERY = [2, 1];
const EXAMPLE_EXPECTED: Record<Metric, VectorHit[]> = {
  // q·v / (|q||v|): 9/(√5·√18) = 3/√10, 2/√5, 3/(√5·3) = 1/√5, −2/√5.
  cosine: [
    { id: 3, score: 3 / Math.sqrt(10) },
    { id: 1, score: 2 / Math.sqrt(5) },
    { id: 2, score: 1 / Math.sqrt(5) },
    { id: 4, score: -2 / Math.sqrt(5) },
  ],
  ip: [
    { id: 3, score: 9 },
    { id: 2, score: 3 },
    { id: 1, score: 2 },
    { id: 4, score: -2 },
  ],
  // −|q − v|²: (1,1) → −2, (−1,−2) → −5, (2,−2) → −8, (3,1) → −10.
  l2: [
    { id: 1, score: -2 },
    { id: 3, score: -5 },
    { id: 2, score: -8 },
    { id: 4, score: -10 },
  ],
};

function exampleIndex(factory: VectorIndexFactory, metric: Metric): VectorIndex {
  const index = factory.create({ dimensions: 2, metric });
  for (const [id, vector] of EXAMPLE) index.add(id, vector);
  return index;
}

function expectHits(actual: VectorHit[], expected: VectorHit[], digits = 5): void {
  expect(actual.map((h) => h.id)).toEqual(expected.map((h) => h.id));
  expected.forEach((hit, i) => {
    expect(actual[i]?.score).toBeCloseTo(hit.score, digits);
  });
}

function expectInvalidArgument(fn: () => unknown): void {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  expect(
    InvalidArgumentError.isInstance(thrown),
    `expected an InvalidArgumentError, got ${String(thrown)}`,
  ).toBe(true);
}

/** Brute-force oracle written from the definitions, independent of every implementation. */
function oracle(
  metric: Metric,
  vectors: ReadonlyArray<readonly [number, ArrayLike<number>]>,
  query: ArrayLike<number>,
  k: number,
  filter?: (id: number) => boolean,
): VectorHit[] {
  const score = (v: ArrayLike<number>): number => {
    let ab = 0;
    let aa = 0;
    let bb = 0;
    let l2 = 0;
    for (let i = 0; i < query.length; i++) {
      const a = v[i] as number;
      const b = query[i] as number;
      ab += a * b;
      aa += a * a;
      bb += b * b;
      l2 += (a - b) * (a - b);
    }
    if (metric === 'ip') return ab;
    if (metric === 'l2') return -l2;
    return aa === 0 || bb === 0 ? 0 : ab / Math.sqrt(aa * bb);
  };
  return vectors
    .filter(([id]) => !filter || filter(id))
    .map(([id, v]) => ({ id, score: score(v) }))
    .sort((a, b) => b.score - a.score || a.id - b.id)
    .slice(0, k);
}

/**
 * Register a vitest suite that checks `factory`'s indexes against the `VectorIndex` contract:
 * add/has/size, search order and scores for each metric on a hand-made example, `k` larger than the
 * size, filters, replacing an id, a save/load round trip, argument errors, and either exactness
 * against a brute-force oracle (`exact`) or recall@10 against {@link FlatIndex} (`minRecall`).
 *
 * @example
 * ```ts
 * import { flatIndexFactory } from '@grag/core';
 * import { runVectorIndexSpec } from '@grag/core/test';
 * runVectorIndexSpec('FlatIndex', flatIndexFactory);
 * ```
 */
export function runVectorIndexSpec(
  name: string,
  factory: VectorIndexFactory,
  options: VectorIndexSpecOptions = {},
): void {
  const exact = options.exact ?? true;
  const minRecall = options.minRecall ?? 0.9;

  describe(`${name} (VectorIndex spec)`, () => {
    let dir = '';
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'grag-vector-spec-'));
    });
    afterAll(async () => {
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    contractTests(factory);
    persistenceTests(factory, () => dir);
    accuracyTests(factory, exact, minRecall);
  });
}

/** The contract on hand-made examples: size and ids, search order and scores, filters, errors. */
function contractTests(factory: VectorIndexFactory): void {
  it('reports its kind, dimensions and metric, with cosine as the default metric', () => {
    const index = factory.create({ dimensions: 3, metric: 'l2' });
    expect(index.kind).toBe(factory.kind);
    expect(index.dimensions).toBe(3);
    expect(index.metric).toBe('l2');
    expect(factory.create({ dimensions: 5 }).metric).toBe('cosine');
  });

  it('counts added vectors and knows which ids it holds', () => {
    const index = factory.create({ dimensions: 3 });
    expect(index.size).toBe(0);
    index.add(0, [1, 0, 0]);
    index.add(7, [0, 1, 0]);
    index.add(42, [0, 0, 1]);
    expect(index.size).toBe(3);
    expect([0, 7, 42].map((id) => index.has(id))).toEqual([true, true, true]);
    expect([1, 8, 41].map((id) => index.has(id))).toEqual([false, false, false]);
  });

  it('returns nothing from an empty index or for k = 0', () => {
    expect(factory.create({ dimensions: 2 }).search([1, 0], 5)).toEqual([]);
    expect(exampleIndex(factory, 'l2').search(EXAMPLE_QUERY, 0)).toEqual([]);
  });

  for (const metric of METRICS) {
    it(`orders hits best first with ${metric} scores computed by hand`, () => {
      const index = exampleIndex(factory, metric);
      expectHits(index.search(EXAMPLE_QUERY, 4), EXAMPLE_EXPECTED[metric]);
      expectHits(index.search(EXAMPLE_QUERY, 2), EXAMPLE_EXPECTED[metric].slice(0, 2));
    });
  }

  it('returns every vector when k exceeds the size', () => {
    const index = exampleIndex(factory, 'cosine');
    expectHits(index.search(EXAMPLE_QUERY, 50), EXAMPLE_EXPECTED.cosine);
  });

  it('keeps only the ids the filter accepts', () => {
    const index = exampleIndex(factory, 'l2');
    const even = (id: number) => id % 2 === 0;
    expectHits(
      index.search(EXAMPLE_QUERY, 4, { filter: even }),
      EXAMPLE_EXPECTED.l2.filter((h) => even(h.id)),
    );
    expectHits(index.search(EXAMPLE_QUERY, 1, { filter: even }), [{ id: 2, score: -8 }]);
    expect(index.search(EXAMPLE_QUERY, 4, { filter: () => false })).toEqual([]);
  });

  it('replaces the vector of an id that is added again', () => {
    const index = exampleIndex(factory, 'l2');
    index.add(4, [2, 1.5]);
    expect(index.size).toBe(4);
    // |(2,1) − (2,1.5)|² = 0.25, so id 4 now comes first and its old vector is gone.
    expectHits(index.search(EXAMPLE_QUERY, 4), [
      { id: 4, score: -0.25 },
      { id: 1, score: -2 },
      { id: 3, score: -5 },
      { id: 2, score: -8 },
    ]);
  });

  it('rejects vectors and queries of the wrong dimension', () => {
    const index = exampleIndex(factory, 'cosine');
    expectInvalidArgument(() => index.add(9, [1, 2, 3]));
    expectInvalidArgument(() => index.add(9, [1]));
    expectInvalidArgument(() => index.search([1, 2, 3], 2));
    expect(index.size).toBe(4);
    expect(index.has(9)).toBe(false);
  });

  it('rejects negative or non-integer ids, non-finite components and a bad k', () => {
    const index = factory.create({ dimensions: 2 });
    expectInvalidArgument(() => index.add(-1, [1, 0]));
    expectInvalidArgument(() => index.add(1.5, [1, 0]));
    expectInvalidArgument(() => index.add(Number.NaN, [1, 0]));
    expectInvalidArgument(() => index.add(3, [Number.NaN, 0]));
    expectInvalidArgument(() => index.add(3, [Number.POSITIVE_INFINITY, 0]));
    expect(index.size).toBe(0);
    index.add(3, [1, 0]);
    expectInvalidArgument(() => index.search([0, Number.NaN], 1));
    expectInvalidArgument(() => index.search([1, 0], -1));
    expectInvalidArgument(() => index.search([1, 0], 1.5));
  });
}

/** A save/load round trip per metric, and a file that is not an index. `dir()` is a scratch directory. */
function persistenceTests(factory: VectorIndexFactory, dir: () => string): void {
  for (const metric of METRICS) {
    it(`answers the same searches after a save/load round trip (${metric})`, async () => {
      const vectors = randomVectors(300, 8, 11);
      const index = factory.create({ dimensions: 8, metric });
      for (const [i, v] of vectors.entries()) index.add(3 * i + 1, v);
      const queries = randomVectors(10, 8, 12);
      const before = queries.map((q) => index.search(q, 10));
      const path = join(dir(), `round-trip-${metric}.idx`);
      await index.save(path);
      const loaded = await factory.load(path);
      expect(loaded.kind).toBe(factory.kind);
      expect(loaded.metric).toBe(metric);
      expect(loaded.dimensions).toBe(8);
      expect(loaded.size).toBe(300);
      expect(loaded.has(1) && loaded.has(3 * 299 + 1)).toBe(true);
      expect(loaded.has(2)).toBe(false);
      queries.forEach((q, i) => {
        expectHits(loaded.search(q, 10), before[i] ?? [], 6);
      });
      // The loaded index keeps working: a new vector is found by its own query.
      const fresh = [9, -8, 7, -6, 5, -4, 3, -2]; // far outside [-1, 1): its own best hit under every metric
      loaded.add(5000, fresh);
      expect(loaded.size).toBe(301);
      expect(loaded.search(fresh, 1)[0]?.id).toBe(5000);
    });
  }

  it('refuses to load a file that is not one of its indexes', async () => {
    const path = join(dir(), 'garbage.idx');
    await writeFile(path, 'this is not a vector index, just some text long enough to have a header');
    const error = await factory.load(path).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(IndexFormatError.isInstance(error), `expected an IndexFormatError, got ${String(error)}`).toBe(
      true,
    );
    const missing = await factory.load(join(dir(), 'missing.idx')).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(IndexFormatError.isInstance(missing), `expected an IndexFormatError, got ${String(missing)}`).toBe(
      true,
    );
  });
}

/** Exactness against a brute-force oracle, or recall@10 against {@link FlatIndex}. */
function accuracyTests(factory: VectorIndexFactory, exact: boolean, minRecall: number): void {
  if (exact) {
    it('breaks score ties by the lower id', () => {
      const index = factory.create({ dimensions: 2, metric: 'ip' });
      for (const id of [9, 2, 5]) index.add(id, [1, 1]);
      index.add(1, [0, 1]);
      expect(index.search([1, 0], 4).map((h) => h.id)).toEqual([2, 5, 9, 1]);
    });

    for (const metric of METRICS) {
      it(`equals a brute-force oracle on seeded random data (${metric})`, () => {
        const vectors = randomVectors(500, 12, 21).map((v, i) => [7 * i, v] as const);
        const index = factory.create({ dimensions: 12, metric });
        for (const [id, v] of vectors) index.add(id, v);
        const filter = (id: number) => id % 3 !== 0;
        for (const q of randomVectors(20, 12, 22)) {
          expectHits(index.search(q, 10), oracle(metric, vectors, q, 10));
          expectHits(index.search(q, 7, { filter }), oracle(metric, vectors, q, 7, filter));
        }
      });
    }
  } else {
    for (const metric of METRICS) {
      it(`reaches recall@10 of at least ${minRecall} against FlatIndex on seeded random data (${metric})`, () => {
        const vectors = randomVectors(2000, 16, 31);
        const index = factory.create({ dimensions: 16, metric, capacity: 2000 });
        const truth = new FlatIndex({ dimensions: 16, metric });
        vectors.forEach((v, i) => {
          index.add(i, v);
          truth.add(i, v);
        });
        let found = 0;
        let total = 0;
        for (const q of randomVectors(50, 16, 32)) {
          const expected = new Set(truth.search(q, 10).map((h) => h.id));
          const hits = index.search(q, 10);
          // Every hit's score must be the true score of that id, whatever the recall.
          for (const hit of hits) {
            expect(hit.score).toBeCloseTo(
              oracle(metric, [[hit.id, vectors[hit.id] as Float32Array]], q, 1)[0]?.score ?? NaN,
              4,
            );
            if (expected.has(hit.id)) found++;
          }
          total += expected.size;
        }
        expect(found / total).toBeGreaterThanOrEqual(minRecall);
      });
    }
  }
}
