import { InvalidArgumentError } from '@grag/core';
import { mulberry32 } from '@grag/core/test';
import { describe, expect, it } from 'vitest';
import { kMeans, type MatchingNode, semanticMatching } from '../src/index.js';

describe('kMeans', () => {
  // Three tight groups in the plane, far apart.
  const points = [
    [0, 0],
    [0, 2],
    [2, 0],
    [100, 100],
    [102, 100],
    [100, 104],
    [-50, 80],
    [-52, 80],
  ];

  it('finds three well-separated groups with their means as centres and the hand-computed inertia', () => {
    const { labels, centroids, inertia } = kMeans(points, 3, { seed: 1 });
    expect(labels[0]).toBe(labels[1]);
    expect(labels[1]).toBe(labels[2]);
    expect(labels[3]).toBe(labels[4]);
    expect(labels[4]).toBe(labels[5]);
    expect(labels[6]).toBe(labels[7]);
    expect(new Set(labels).size).toBe(3);
    const close = (actual: ArrayLike<number>, expected: number[]) =>
      expected.forEach((x, j) => {
        expect(actual[j]).toBeCloseTo(x, 9);
      });
    close(centroids[labels[0]!]!, [2 / 3, 2 / 3]);
    close(centroids[labels[3]!]!, [302 / 3, 304 / 3]);
    close(centroids[labels[6]!]!, [-51, 80]);
    // Group 1 around (2/3, 2/3): 8/9 + 20/9 + 20/9 = 48/9.
    // Group 2 around (302/3, 304/3): 20/9 + 32/9 + 68/9 = 120/9. Group 3 around (−51, 80): 1 + 1 = 2.
    expect(inertia).toBeCloseTo(48 / 9 + 120 / 9 + 2, 9);
  });

  it('is deterministic under a seed and handles sparse high-dimensional vectors', () => {
    const sparse = points.map(([x, y]) => {
      const v = new Float32Array(64);
      v[3] = x!;
      v[40] = y!;
      return v;
    });
    const a = kMeans(sparse, 3, { seed: 7 });
    const b = kMeans(sparse, 3, { seed: 7 });
    expect([...a.labels]).toEqual([...b.labels]);
    const dense = kMeans(points, 3, { seed: 7 });
    expect(a.inertia).toBeCloseTo(dense.inertia, 6);
  });

  it('stops at a fixed point of Lloyd: each label is the nearest centre, each centre the mean of its points', () => {
    const rand = mulberry32(11);
    const data = Array.from({ length: 300 }, (_, i) => {
      const v = new Float64Array(16);
      v[i % 5] = 3 + rand(); // five loose groups with noise everywhere
      for (let j = 0; j < 16; j++) v[j]! += rand() - 0.5;
      return v;
    });
    const { labels, centroids, iterations } = kMeans(data, 7, { seed: 4, maxIterations: 500 });
    expect(iterations).toBeLessThan(500);
    const d2 = (a: ArrayLike<number>, b: ArrayLike<number>) => {
      let s = 0;
      for (let j = 0; j < 16; j++) s += (a[j]! - b[j]!) ** 2;
      return s;
    };
    data.forEach((p, i) => {
      const mine = d2(p, centroids[labels[i]!]!);
      for (const c of centroids) expect(mine).toBeLessThanOrEqual(d2(p, c) + 1e-9);
    });
    centroids.forEach((c, ci) => {
      const members = data.filter((_, i) => labels[i] === ci);
      expect(members.length).toBeGreaterThan(0);
      for (let j = 0; j < 16; j++) {
        expect(c[j]).toBeCloseTo(members.reduce((s, p) => s + p[j]!, 0) / members.length, 9);
      }
    });
  });

  it('assigns every point its nearest centre after each iteration, as plain Lloyd does (many centre groups)', () => {
    // Sparse points in 200 dimensions around 12 themes, k = 37 (four groups of bounds, the last partial).
    const rand = mulberry32(5);
    const data = Array.from({ length: 600 }, (_, i) => {
      const v = new Float64Array(200);
      const theme = (i * 7) % 12;
      for (let t = 0; t < 12; t++) v[(theme * 16 + Math.floor(rand() * 24)) % 200]! += rand();
      for (let t = 0; t < 4; t++) v[Math.floor(rand() * 200)]! += rand() / 2;
      return v;
    });
    const d2 = (a: ArrayLike<number>, b: ArrayLike<number>) => {
      let s = 0;
      for (let j = 0; j < 200; j++) s += (a[j]! - b[j]!) ** 2;
      return s;
    };
    let previous: Int32Array | undefined;
    for (let m = 1; m <= 12; m++) {
      const { labels, centroids, iterations } = kMeans(data, 37, { seed: 9, maxIterations: m });
      if (iterations < m) break;
      data.forEach((p, i) => {
        const mine = d2(p, centroids[labels[i]!]!);
        for (const c of centroids) expect(mine).toBeLessThanOrEqual(d2(p, c) + 1e-12);
      });
      if (previous) {
        // the centres of iteration m are the means of the labels of iteration m − 1
        const labelsBefore = previous;
        centroids.forEach((c, ci) => {
          const members = data.filter((_, i) => labelsBefore[i] === ci);
          if (members.length === 0) return;
          for (let j = 0; j < 200; j += 17) {
            expect(c[j]).toBeCloseTo(members.reduce((s, p) => s + p[j]!, 0) / members.length, 9);
          }
        });
      }
      previous = labels;
    }
  });

  it('copes with duplicate points and refuses k out of range', () => {
    const dup = [
      [0, 0],
      [0, 0],
      [0, 0],
      [10, 10],
    ];
    const { labels } = kMeans(dup, 2, { seed: 3 });
    expect(labels[0]).toBe(labels[1]);
    expect(labels[3]).not.toBe(labels[0]);
    expect(() => kMeans(dup, 5)).toThrow(InvalidArgumentError);
    expect(() => kMeans(dup, 0)).toThrow(InvalidArgumentError);
    expect(() => kMeans([[1, 2], [3]], 1)).toThrow(/dimensions/);
  });
});

describe('semanticMatching', () => {
  it('joins H to the S and A nodes of the same community and the same cluster (hand-made example)', () => {
    // Nine nodes → K = ⌈√9⌉ = 3 clusters: near (0,0), near (10,0), near (0,10).
    const nodes: MatchingNode[] = [
      { id: 'S1', type: 'S', community: 0, vector: [0, 0] },
      { id: 'A1', type: 'A', community: 0, vector: [0.1, 0] },
      { id: 'H1', type: 'H', community: 0, vector: [0, 0.1] },
      { id: 'S2', type: 'S', community: 1, vector: [0.1, 0.1] }, // same cluster as H1, other community
      { id: 'S3', type: 'S', community: 0, vector: [10, 0] }, // same community as H1, other cluster
      { id: 'H2', type: 'H', community: 1, vector: [10, 0.1] },
      { id: 'A2', type: 'A', community: 1, vector: [10.1, 0] },
      { id: 'S4', type: 'S', community: 1, vector: [0, 10] },
      { id: 'H3', type: 'H', community: 1, vector: [0.1, 10] },
    ];
    const { edges, k, clusters } = semanticMatching(nodes, { seed: 2 });
    expect(k).toBe(3);
    expect(clusters.get('S1')).toBe(clusters.get('H1'));
    expect(new Set(edges.map(([a, b]) => `${a}-${b}`))).toEqual(
      new Set(['S1-H1', 'A1-H1', 'A2-H2', 'S4-H3']),
    );
  });

  it('never joins two H nodes or two members, and refuses other node types', () => {
    const nodes: MatchingNode[] = [
      { id: 'H1', type: 'H', community: 'c', vector: [0, 0] },
      { id: 'H2', type: 'H', community: 'c', vector: [0, 0] },
      { id: 'S1', type: 'S', community: 'c', vector: [0, 0] },
      { id: 'S2', type: 'S', community: 'c', vector: [0, 0] },
    ];
    const { edges } = semanticMatching(nodes, { k: 1 });
    expect(edges.sort()).toEqual([
      ['S1', 'H1'],
      ['S1', 'H2'],
      ['S2', 'H1'],
      ['S2', 'H2'],
    ]);
    expect(() =>
      semanticMatching([{ id: 'N1', type: 'N' as 'S', community: 0, vector: [0] }], { k: 1 }),
    ).toThrow(/only S, A and H/);
  });
});
