/**
 * The walk HeteroSearch runs (SparsePpr) gives core's personalizedPageRankCsr scores exactly, bit
 * for bit, on random weighted graphs with isolated nodes and zero-weight edges (dangling mass),
 * for both update rules, any number of iterations, and unequal seed weights.
 */
import { csrFromEdges, personalizedPageRankCsr } from '@grag/core/graph';
import { weylFmix32 } from '@grag/core/kit';
import { describe, expect, it } from 'vitest';
import { SparsePpr } from '../src/sparse-ppr.js';

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

describe('SparsePpr', () => {
  it('equals personalizedPageRankCsr exactly', () => {
    for (const seed of [1, 2, 3, 4]) {
      const csr = randomGraph(seed, 400, 900);
      const walker = new SparsePpr(csr);
      const random = weylFmix32(seed + 100);
      for (const iterations of [0, 1, 2, 5]) {
        for (const update of ['paper', 'lazy'] as const) {
          for (const teleport of [0.5, 0.15]) {
            const seeds = [...new Set(Array.from({ length: 12 }, () => Math.floor(random() * 400)))];
            // include an isolated seed and one of weight 0
            if (!seeds.includes(399)) seeds.push(399);
            const weights = seeds.map((_, k) => (k === 0 ? 0 : 1 / (k + 1)));
            const p = new Float64Array(400);
            seeds.forEach((s, k) => {
              p[s] = weights[k]!;
            });
            const expected = personalizedPageRankCsr(csr, p, { teleport, iterations, update });
            const got = walker.run(seeds, weights, { teleport, iterations, lazy: update === 'lazy' });
            expect(got).toEqual(expected);
            expect(Array.from(got).every((v, i) => Object.is(v, expected[i]))).toBe(true);
          }
        }
      }
    }
  });
});
