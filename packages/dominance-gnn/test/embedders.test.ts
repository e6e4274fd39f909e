import fc from 'fast-check';
import { beforeAll, describe, expect, test } from 'vitest';
import {
  createGatEmbedder,
  createMonotoneEmbedder,
  createTrainingFreeEmbedder,
  type DominanceEmbedder,
  loadDominanceEmbedder,
  starOf,
  subMultisetCount,
  toMultiset,
  trainGatEmbedder,
  trainMonotoneEmbedder,
  verifyDominance,
} from '../src/index.js';
import { filmGraph, randomGraph } from './fixtures.js';

const film = filmGraph();
const random = randomGraph(80, 200, 5, 1);

// One shared spec for every embedder: the contract and the dominance property.
const embedders: Record<string, () => DominanceEmbedder> = {};
beforeAll(async () => {
  const gat = await trainGatEmbedder(film, { epochs: 2 });
  const monotone = await trainMonotoneEmbedder(film, { epochs: 2 });
  embedders['training-free'] = () => createTrainingFreeEmbedder();
  embedders['training-free, 6 dimensions'] = () => createTrainingFreeEmbedder({ dimensions: 6, seed: 7 });
  embedders['monotone, untrained'] = () => createMonotoneEmbedder({ dimensions: 4 });
  embedders['monotone, trained'] = () => monotone.embedder;
  embedders['paper GAT, trained, closure-corrected'] = () => gat.embedder;
});

const names = [
  'training-free',
  'training-free, 6 dimensions',
  'monotone, untrained',
  'monotone, trained',
  'paper GAT, trained, closure-corrected',
];

describe.each(names)('%s embedder', (name) => {
  test('the verifier finds no violation on the hand-made film graph, checking every sub-star', () => {
    const report = verifyDominance(embedders[name]!(), film);
    expect(report.exhaustive).toBe(true);
    expect(report.stars).toBe(film.ids.length);
    const expectedPairs = film.ids.reduce(
      (n, _, i) => n + subMultisetCount(toMultiset(starOf(film, i).neighbours)) - 1,
      0,
    );
    expect(report.pairs).toBe(expectedPairs);
    expect(report.violations).toBe(0);
    expect(report.worstMargin).toBe(0);
  });

  test('the verifier finds no violation on a seeded random labelled graph', () => {
    const report = verifyDominance(embedders[name]!(), random);
    expect(report.pairs).toBeGreaterThan(1000);
    expect(report.violations).toBe(0);
  });

  test('an embedding depends on the neighbour multiset only, and has `dimensions` values', () => {
    const e = embedders[name]!();
    const a = e.embed('film', ['person', 'award', 'person', 'country']);
    const b = e.embed('film', ['country', 'person', 'person', 'award']);
    expect(a).toHaveLength(e.dimensions);
    expect(Array.from(a)).toEqual(Array.from(b));
  });

  test('survives a JSON round trip with identical embeddings', () => {
    const e = embedders[name]!();
    const back = loadDominanceEmbedder(JSON.parse(JSON.stringify(e.toJSON())));
    expect(back.kind).toBe(e.kind);
    for (let i = 0; i < random.ids.length; i += 7) {
      const s = starOf(random, i);
      expect(Array.from(back.embed(s.centre, s.neighbours))).toEqual(
        Array.from(e.embed(s.centre, s.neighbours)),
      );
    }
  });
});

describe('embedders monotone by construction', () => {
  const labels = fc.constantFrom('person', 'film', 'award', 'country', 'genre', 'city');
  const starAndSub = fc
    .tuple(labels, fc.array(fc.tuple(labels, fc.boolean()), { maxLength: 40 }))
    .map(([centre, picks]) => ({
      centre,
      star: picks.map(([l]) => l),
      sub: picks.filter(([, keep]) => keep).map(([l]) => l),
    }));

  test.each(['training-free', 'training-free, 6 dimensions', 'monotone, untrained', 'monotone, trained'])(
    '%s: o(sub-star) ≤ o(star) in every dimension for any star and sub-star (property)',
    (name) => {
      const e = embedders[name]!();
      expect(e.monotone).toBe(true);
      fc.assert(
        fc.property(starAndSub, ({ centre, star, sub }) => {
          const big = e.embed(centre, star);
          const small = e.embed(centre, sub);
          return small.every((v, k) => v <= big[k]!);
        }),
        { numRuns: 300 },
      );
    },
  );
});

describe('training-free embedder', () => {
  test('is x(centre) + Σ x(neighbour) with seeded vectors of multiples of 2^-16 in [0, 1)', () => {
    const e = createTrainingFreeEmbedder({ dimensions: 3, seed: 1 });
    const x = (l: string) => e.labelVector(l);
    for (const l of ['a', 'b']) {
      for (const v of x(l)) {
        expect(v).toBeGreaterThanOrEqual(0);
        expect(v).toBeLessThan(1);
        expect(Number.isInteger(v * 65536)).toBe(true);
      }
    }
    const o = e.embed('a', ['b', 'b', 'a']);
    for (let k = 0; k < 3; k++) expect(o[k]).toBe(Math.fround(2 * x('a')[k]! + 2 * x('b')[k]!));
    expect(Array.from(createTrainingFreeEmbedder({ dimensions: 3, seed: 1 }).labelVector('a'))).toEqual(
      Array.from(x('a')),
    );
    expect(Array.from(createTrainingFreeEmbedder({ dimensions: 3, seed: 2 }).labelVector('a'))).not.toEqual(
      Array.from(x('a')),
    );
  });

  test('embedGraph rows are the stars’ embeddings, with no correction', () => {
    const e = createTrainingFreeEmbedder();
    const rows = e.embedGraph(film);
    expect(rows.correction.method).toBe('none');
    const alice = starOf(film, film.index.get('alice')!);
    expect(Array.from(rows.getById('alice')!)).toEqual(Array.from(e.embed(alice.centre, alice.neighbours)));
  });
});

describe('the paper GAT without correction', () => {
  test('violates dominance, and the verifier reports the worst violations with their true margins', () => {
    const gat = createGatEmbedder({ seed: 4 });
    const report = verifyDominance(gat, random, { correction: 'none', maxExamples: 3 });
    expect(report.correction.method).toBe('none');
    expect(report.violations).toBeGreaterThan(0);
    expect(report.examples).toHaveLength(3);
    expect(report.worstMargin).toBe(report.examples[0]!.margin);
    for (const ex of report.examples) {
      const star = starOf(random, random.index.get(ex.node)!);
      const excess =
        gat.embed(ex.centre, ex.neighbours)[ex.dimension]! -
        gat.embed(star.centre, star.neighbours)[ex.dimension]!;
      expect(excess).toBeCloseTo(ex.margin, 6);
    }
    const margins = report.examples.map((e) => e.margin);
    expect(margins).toEqual([...margins].sort((a, b) => b - a));
  });

  test('closure lifts the violating stars, and saturates stars above closureLimit', () => {
    const gat = createGatEmbedder({ seed: 4 });
    const raw = verifyDominance(gat, random, { correction: 'none' });
    const closed = gat.embedGraph(random);
    expect(closed.correction.lifted).toBe(raw.violatingStars);
    expect(verifyDominance(gat, random, { embeddings: closed }).violations).toBe(0);
    const limited = gat.embedGraph(random, { closureLimit: 8 });
    const big = random.ids
      .map((_, i) => i)
      .filter((i) => subMultisetCount(toMultiset(starOf(random, i).neighbours)) > 8);
    expect(big.length).toBeGreaterThan(0);
    expect(limited.correction.saturated).toBe(big.length);
    for (const i of big) expect(Array.from(limited.get(i))).toEqual(new Array(gat.dimensions).fill(1));
    expect(verifyDominance(gat, random, { embeddings: limited }).violations).toBe(0);
  });
});

describe('verifyDominance', () => {
  test('samples the stars above exhaustiveLimit and says so', () => {
    const e = createTrainingFreeEmbedder();
    const sizes = film.ids.map((_, i) => subMultisetCount(toMultiset(starOf(film, i).neighbours)));
    const report = verifyDominance(e, film, { exhaustiveLimit: 4, samples: 10 });
    const sampled = sizes.filter((n) => n > 4).length;
    expect(sampled).toBeGreaterThan(0);
    expect(report.exhaustive).toBe(false);
    expect(report.sampledStars).toBe(sampled);
    expect(report.exhaustiveStars).toBe(film.ids.length - sampled);
    expect(report.pairs).toBe(sizes.filter((n) => n <= 4).reduce((a, n) => a + n - 1, 0) + sampled * 10);
  });

  test('rejects embeddings of another graph', () => {
    const e = createTrainingFreeEmbedder();
    expect(() => verifyDominance(e, film, { embeddings: e.embedGraph(random) })).toThrow(/rows/);
  });
});

describe('loadDominanceEmbedder', () => {
  test('rejects other formats and versions, and custom features that are not passed again', () => {
    expect(() => loadDominanceEmbedder({ format: 'x' })).toThrow(/not a serialized/);
    expect(() => loadDominanceEmbedder({ ...createTrainingFreeEmbedder().toJSON(), version: 2 })).toThrow(
      /version 2/,
    );
    const features = (l: string) => Array.from({ length: 4 }, (_, i) => (l.length + i) / 10);
    const custom = createMonotoneEmbedder({ featureDimensions: 4, labelFeatures: features });
    expect(() => loadDominanceEmbedder(custom.toJSON())).toThrow(/custom label features/);
    const back = loadDominanceEmbedder(custom.toJSON(), { labelFeatures: features });
    expect(Array.from(back.embed('ab', ['c']))).toEqual(Array.from(custom.embed('ab', ['c'])));
  });

  test('label features of the wrong length are an error naming the label', () => {
    const e = createGatEmbedder({ featureDimensions: 4, labelFeatures: () => [1, 2] });
    expect(() => e.embed('film', [])).toThrow(/labelFeatures\("film"\) has 2 values/);
  });
});
