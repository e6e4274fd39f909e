import { describe, expect, it } from 'vitest';
import { mulberry32, type Random, randomInt, shuffleInPlace, weylFmix32 } from '../src/kit.js';
import { mulberry32 as testMulberry32 } from '../src/test/index.js';

/** The next `n` outputs of `rand` as the 32-bit integers they were divided from. */
function words(rand: Random, n: number): number[] {
  return Array.from({ length: n }, () => rand() * 4294967296);
}

/** The `n`-th output (1-based) of `rand`, as a 32-bit integer. */
function nth(rand: Random, n: number): number {
  let x = 0;
  for (let i = 0; i < n; i++) x = rand();
  return x * 4294967296;
}

/*
 * Reference outputs recorded from the generators grag had before they moved here: the five copies
 * of mulberry32 (core's test helpers, dominance-gnn, keyword-bipartite, eval, the server's explorer)
 * and @grag/heterograph's own generator. A change to any stream fails these tests.
 */
const MULBERRY32: Record<number, { first: number[]; at10000: number }> = {
  0: { first: [1144304738, 1416247, 958946056, 627933444, 2007157716, 2340967985], at10000: 225184738 },
  1: { first: [2693262067, 11749833, 2265367787, 4213581821, 4159151403, 1207330352], at10000: 3236803683 },
  42: { first: [2581720956, 1925393290, 3661312704, 2876485805, 750819978, 2261697747], at10000: 2826165761 },
  2025: {
    first: [1827426074, 2636858733, 885439033, 748743982, 2924757911, 4007213915],
    at10000: 3202148217,
  },
  4294967295: {
    first: [3850105811, 813802916, 3073704848, 4054706436, 3630262831, 2315588663],
    at10000: 4155737244,
  },
};

const WEYL_FMIX32: Record<number, { first: number[]; at10000: number }> = {
  0: { first: [2462723854, 1020716019, 454327756, 1275600319, 1215922603, 3678440605], at10000: 83820360 },
  1: { first: [2527132011, 314344336, 2535364964, 2041432039, 1495043544, 3445983177], at10000: 1879600635 },
  42: { first: [939911724, 3948730756, 321366731, 3317318717, 527392959, 2701967985], at10000: 153794074 },
  2025: {
    first: [580722120, 2922035545, 1554608932, 1072654981, 2693570699, 811368963],
    at10000: 2407306095,
  },
  4294967295: {
    first: [920564995, 4230986166, 697614773, 1778835764, 280495159, 1500331647],
    at10000: 4054455569,
  },
};

describe.each([
  ['mulberry32', mulberry32, MULBERRY32],
  ['weylFmix32', weylFmix32, WEYL_FMIX32],
] as const)('%s', (_name, make, reference) => {
  it.each(Object.entries(reference))('draws the recorded stream for seed %s', (seed, { first, at10000 }) => {
    expect(words(make(Number(seed)), first.length)).toEqual(first);
    expect(nth(make(Number(seed)), 10_000)).toBe(at10000);
  });

  it('keeps only the low 32 bits of the seed', () => {
    expect(words(make(-1), 8)).toEqual(words(make(0xffffffff), 8));
    expect(words(make(2 ** 32 + 42), 8)).toEqual(words(make(42), 8));
  });

  it('gives floats in [0, 1) whose mean and spread are those of a uniform draw', () => {
    const rand = make(7);
    let sum = 0;
    let sumSq = 0;
    let outside = 0;
    const n = 100_000;
    for (let i = 0; i < n; i++) {
      const x = rand();
      if (!(x >= 0 && x < 1)) outside++;
      sum += x;
      sumSq += x * x;
    }
    expect(outside).toBe(0);
    expect(sum / n).toBeCloseTo(0.5, 2);
    expect(sumSq / n - (sum / n) ** 2).toBeCloseTo(1 / 12, 2);
  });
});

describe('mulberry32', () => {
  it('matches its documented first value for seed 42', () => {
    expect(mulberry32(42)()).toBe(0.6011037519201636);
  });

  it('is the generator @grag/core/test re-exports', () => {
    expect(testMulberry32).toBe(mulberry32);
  });

  it('gives two generators of one seed the same stream, independently', () => {
    const a = mulberry32(9);
    const b = mulberry32(9);
    a();
    expect(words(b, 4)).toEqual(words(mulberry32(9), 4));
  });
});

describe('randomInt', () => {
  it('stays in [0, n) even for a draw just below 1', () => {
    expect(randomInt(() => 1 - 2 ** -53, 5)).toBe(4);
    expect(randomInt(() => 0, 5)).toBe(0);
  });

  it('reaches every integer of the range', () => {
    const rand = mulberry32(3);
    const seen = new Set<number>();
    for (let i = 0; i < 1000; i++) seen.add(randomInt(rand, 6));
    expect([...seen].sort()).toEqual([0, 1, 2, 3, 4, 5]);
  });
});

describe('shuffleInPlace', () => {
  it('permutes in place and returns the same array', () => {
    const values = Array.from({ length: 50 }, (_, i) => i);
    const out = shuffleInPlace(values, mulberry32(1));
    expect(out).toBe(values);
    expect([...out].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(out).not.toEqual(Array.from({ length: 50 }, (_, i) => i));
  });

  it('shuffles typed arrays too', () => {
    const values = Int32Array.from({ length: 20 }, (_, i) => i);
    shuffleInPlace(values, weylFmix32(1));
    expect([...values].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it('draws the recorded permutation (the one keyword-bipartite seededShuffle(10, 7) gave)', () => {
    const order = Array.from({ length: 10 }, (_, i) => i);
    expect(shuffleInPlace(order, mulberry32(7))).toEqual([6, 5, 8, 1, 2, 3, 4, 7, 9, 0]);
  });
});
