/**
 * personalizedPageRankCsr's active-set mode (the walk HeteroSearch runs) gives the full pass's
 * scores exactly, bit for bit, on random graphs with isolated nodes and zero-weight edges (dangling
 * mass), for both update rules, weighted or not, any number of iterations, an early stop, and
 * unequal seed weights; a reused transition gives the same scores too.
 */
import { describe, expect, it } from 'vitest';
import { csrFromEdges, personalizedPageRankCsr, pprTransition } from '../src/graph/index.js';
import { weylFmix32 } from '../src/random.js';

function randomGraph(seed: number, n: number, m: number) {
  const random = weylFmix32(seed);
  const edges: [number, number, number][] = [];
  const seen = new Set<number>();
  while (edges.length < m) {
    const a = Math.floor(random() * (n - 5)); // the last 5 nodes stay isolated
    const b = Math.floor(random() * (n - 5));
    if (a === b || seen.has(Math.min(a, b) * n + Math.max(a, b))) continue;
    seen.add(Math.min(a, b) * n + Math.max(a, b));
    // a tenth of the edges weigh 0 (as HNSW-only edges without semantic edges); others 1-3 or a fraction
    const r = random();
    edges.push([a, b, r < 0.1 ? 0 : r < 0.7 ? 1 + Math.floor(random() * 3) : random()]);
  }
  return csrFromEdges(n, edges, { directed: false });
}

function sameBits(got: Float64Array, expected: Float64Array): boolean {
  return got.length === expected.length && Array.from(got).every((v, i) => Object.is(v, expected[i]));
}

describe('personalizedPageRankCsr with activeSet', () => {
  it('equals the full pass exactly', () => {
    for (const seed of [1, 2, 3, 4]) {
      const csr = randomGraph(seed, 400, 900);
      const transitions = { true: pprTransition(csr, true), false: pprTransition(csr, false) };
      const random = weylFmix32(seed + 100);
      for (const iterations of [0, 1, 2, 5]) {
        for (const update of ['paper', 'lazy'] as const) {
          for (const teleport of [0.5, 0.15]) {
            for (const weighted of [true, false]) {
              const seeds = [...new Set(Array.from({ length: 12 }, () => Math.floor(random() * 400)))];
              // include an isolated seed and one of weight 0
              if (!seeds.includes(399)) seeds.push(399);
              const p = new Float64Array(400);
              seeds.forEach((s, k) => {
                p[s] = k === 0 ? 0 : 1 / (k + 1);
              });
              const options = { teleport, iterations, update, weighted };
              const expected = personalizedPageRankCsr(csr, p, options);
              const active = personalizedPageRankCsr(csr, p, { ...options, activeSet: true });
              const reused = personalizedPageRankCsr(csr, p, {
                ...options,
                activeSet: true,
                transition: transitions[`${weighted}`],
              });
              expect(active).toEqual(expected);
              expect(sameBits(active, expected)).toBe(true);
              expect(sameBits(reused, expected)).toBe(true);
            }
          }
        }
      }
    }
  });

  it('stops early at the same iteration as the full pass', () => {
    const csr = randomGraph(7, 300, 700);
    const p = new Float64Array(300);
    p[3] = 1;
    p[42] = 2;
    const options = { iterations: 60, tolerance: 1e-9 };
    const expected = personalizedPageRankCsr(csr, p, options);
    expect(sameBits(personalizedPageRankCsr(csr, p, { ...options, activeSet: true }), expected)).toBe(true);
  });

  it('refuses a transition made for another CSR or weighting', () => {
    const csr = randomGraph(1, 50, 80);
    const p = new Float64Array(50);
    p[0] = 1;
    expect(() =>
      personalizedPageRankCsr(csr, p, { transition: pprTransition(randomGraph(2, 50, 80)) }),
    ).toThrow(/another CSR or weighting/);
    expect(() => personalizedPageRankCsr(csr, p, { transition: pprTransition(csr, false) })).toThrow(
      /another CSR or weighting/,
    );
  });
});
