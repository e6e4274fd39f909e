/**
 * kMeans against a plain k-means written out here: dense distances, k-means++ seeding drawing the
 * same random stream, and Lloyd assigning every point to every centre each iteration. The index's
 * shortcuts (sparse points, posting lists in the seeding, its first assignment taken from the
 * seeding, Yinyang bounds, eight centres per pass) must give the very same labels and centres.
 */
import { randomInt, weylFmix32 } from '@grag/core/kit';
import { mulberry32 } from '@grag/core/test';
import { describe, expect, it } from 'vitest';
import { kMeans, type MatchingNode, semanticMatching, semanticMatchingOffThread } from '../src/index.js';

/** ‖p‖² + ‖c‖² − 2·p·c over every dimension, clamped at 0. */
function dense2(p: Float64Array, c: Float64Array): number {
  let pp = 0;
  let cc = 0;
  let dot = 0;
  for (let j = 0; j < p.length; j++) {
    pp += p[j]! * p[j]!;
    cc += c[j]! * c[j]!;
    dot += p[j]! * c[j]!;
  }
  return Math.max(pp + cc - 2 * dot, 0);
}

function nearestCentre(p: Float64Array, centres: readonly Float64Array[]): number {
  let best = 0;
  let bestDist = Number.POSITIVE_INFINITY;
  centres.forEach((c, ci) => {
    const dist = dense2(p, c);
    if (dist < bestDist) {
      best = ci;
      bestDist = dist;
    }
  });
  return best;
}

/** Plain k-means++ and Lloyd (no cluster may empty in the data given). */
function plainKMeans(data: readonly Float64Array[], k: number, seed: number, maxIterations: number) {
  const rand = weylFmix32(seed);
  const n = data.length;
  const centres = [Float64Array.from(data[randomInt(rand, n)]!)];
  const nearest = data.map((p) => dense2(p, centres[0]!));
  while (centres.length < k) {
    const total = nearest.reduce((a, b) => a + b, 0);
    let chosen = n - 1;
    let pick = rand() * total;
    for (let i = 0; i < n; i++) {
      pick -= nearest[i]!;
      if (pick < 0) {
        chosen = i;
        break;
      }
    }
    const c = Float64Array.from(data[chosen]!);
    centres.push(c);
    data.forEach((p, i) => {
      nearest[i] = Math.min(nearest[i]!, dense2(p, c));
    });
  }
  let labels = data.map((p) => nearestCentre(p, centres));
  let iterations = 0;
  while (iterations < maxIterations) {
    iterations++;
    const sums = centres.map((c) => new Float64Array(c.length));
    const counts = new Array<number>(k).fill(0);
    data.forEach((p, i) => {
      counts[labels[i]!]!++;
      for (let j = 0; j < p.length; j++) if (p[j] !== 0) sums[labels[i]!]![j]! += p[j]!;
    });
    if (counts.some((count) => count === 0)) throw new Error('a cluster emptied: pick other data');
    const moved = sums.map((sum, ci) => {
      const inv = 1 / counts[ci]!;
      for (let j = 0; j < sum.length; j++) sum[j]! *= inv;
      return sum.some((x, j) => x !== centres[ci]![j]);
    });
    centres.splice(0, k, ...sums);
    if (!moved.includes(true)) break;
    const next = data.map((p) => nearestCentre(p, centres));
    const changed = next.some((label, i) => label !== labels[i]);
    labels = next;
    if (!changed) break;
  }
  return { labels, centres, iterations };
}

/** Sparse points around themes, in `d` dimensions. */
function themed(n: number, d: number, themes: number, seed: number): Float64Array[] {
  const rand = mulberry32(seed);
  return Array.from({ length: n }, (_, i) => {
    const v = new Float64Array(d);
    const theme = (i * 7) % themes;
    for (let t = 0; t < 10; t++) v[(theme * 13 + Math.floor(rand() * 20)) % d]! += rand();
    for (let t = 0; t < 3; t++) v[Math.floor(rand() * d)]! += rand() / 2;
    return v;
  });
}

describe('kMeans against a plain k-means', () => {
  for (const [n, d, k, seed] of [
    [400, 150, 23, 3],
    [600, 200, 37, 9],
    [300, 64, 8, 21],
  ] as const) {
    it(`gives the same labels, centres and iterations (n ${n}, k ${k}, seed ${seed})`, () => {
      const data = themed(n, d, 12, seed);
      for (const maxIterations of [0, 1, 3, 25]) {
        const want = plainKMeans(data, k, seed, maxIterations);
        const got = kMeans(data, k, { seed, maxIterations });
        expect([...got.labels]).toEqual(want.labels);
        expect(got.iterations).toBe(want.iterations);
        got.centroids.forEach((c, ci) => {
          expect([...c]).toEqual([...want.centres[ci]!]);
        });
      }
    });
  }
});

describe('semanticMatchingOffThread', () => {
  it('finds what semanticMatching finds, its k-means run on a worker thread', async () => {
    const data = themed(500, 120, 9, 4);
    const nodes: MatchingNode[] = data.map((vector, i) => ({
      id: `${i % 25 === 0 ? 'H' : 'S'}:${i}`,
      type: i % 25 === 0 ? 'H' : 'S',
      community: i % 3,
      vector,
    }));
    const want = semanticMatching(nodes, { seed: 8 });
    const got = await semanticMatchingOffThread(nodes, { seed: 8 });
    expect(got.k).toBe(want.k);
    expect(got.clusters).toEqual(want.clusters);
    expect(got.edges).toEqual(want.edges);
    expect(got.edges.length).toBeGreaterThan(0);
    expect(() => semanticMatchingOffThread([{ ...nodes[0]!, type: 'N' as 'S' }])).toThrow(/only S, A and H/);
  });
});
