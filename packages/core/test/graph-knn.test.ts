import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../src/contracts/errors.js';
import type { Metric } from '../src/contracts/vector.js';
import { buildKnnGraph, KNN_DEFAULTS, knnEdges, knnGraphToGraphology, pageRank } from '../src/graph/index.js';
import { mulberry32 } from '../src/test/random.js';

/** Seeded PRNG, so random inputs are identical across runs. */
const rng = mulberry32;

/** Brute-force oracle: score every other vector directly from the definition and sort fully. */
function oracle(
  vectors: number[][],
  k: number,
  metric: Metric,
): { neighbors: number[][]; scores: number[][] } {
  const score = (a: number[], b: number[]): number => {
    if (metric === 'l2') return -a.reduce((s, x, c) => s + (x - b[c]!) ** 2, 0);
    const dot = a.reduce((s, x, c) => s + x * b[c]!, 0);
    if (metric === 'ip') return dot;
    const na = Math.hypot(...a);
    const nb = Math.hypot(...b);
    return na === 0 || nb === 0 ? 0 : dot / (na * nb);
  };
  const neighbors: number[][] = [];
  const scores: number[][] = [];
  vectors.forEach((v, i) => {
    const ranked = vectors
      .map((w, j) => ({ j, s: score(v, w) }))
      .filter((x) => x.j !== i)
      .sort((x, y) => y.s - x.s || x.j - y.j)
      .slice(0, k);
    neighbors.push(ranked.map((x) => x.j));
    scores.push(ranked.map((x) => x.s));
  });
  return { neighbors, scores };
}

describe('buildKnnGraph', () => {
  it('defaults to cosine and directed edges', () => {
    expect(KNN_DEFAULTS).toEqual({ metric: 'cosine', symmetric: false });
  });

  it('finds the hand-computed neighbours of points on a line under l2', () => {
    // x = 0, 1, 3, 7. Squared distances: 0–1: 1, 0–3: 9, 0–7: 49, 1–3: 4, 1–7: 36, 3–7: 16.
    const knn = buildKnnGraph([[0], [1], [3], [7]], { k: 2, metric: 'l2' });
    expect(knn.neighbors.map((r) => [...r])).toEqual([
      [1, 2],
      [0, 2],
      [1, 0],
      [2, 1],
    ]);
    expect(knn.scores.map((r) => [...r])).toEqual([
      [-1, -9],
      [-1, -4],
      [-4, -9],
      [-16, -36],
    ]);
    expect(knn.symmetric).toBe(false);
  });

  it('symmetrizes into the union of both directions, best first', () => {
    // Directed pairs from above: 0→1, 0→2, 1→0, 1→2, 2→1, 2→0, 3→2, 3→1.
    // Union: {0,1} −1, {0,2} −9, {1,2} −4, {2,3} −16, {1,3} −36.
    const knn = buildKnnGraph([[0], [1], [3], [7]], { k: 2, metric: 'l2', symmetric: true });
    expect(knn.neighbors.map((r) => [...r])).toEqual([
      [1, 2],
      [0, 2, 3],
      [1, 0, 3],
      [2, 1],
    ]);
    expect(knn.scores.map((r) => [...r])).toEqual([
      [-1, -9],
      [-1, -4, -36],
      [-4, -9, -16],
      [-16, -36],
    ]);
    expect(knnEdges(knn)).toEqual([
      { source: 0, target: 1, score: -1 },
      { source: 0, target: 2, score: -9 },
      { source: 1, target: 2, score: -4 },
      { source: 1, target: 3, score: -36 },
      { source: 2, target: 3, score: -16 },
    ]);
  });

  it('breaks ties by lower index whatever the block size', () => {
    // v1 and v2 are equal; v0 is orthogonal to both (cosine 0) and opposite to v3 (cosine −1).
    const vectors = [
      [1, 0],
      [0, 1],
      [0, 1],
      [-1, 0],
    ];
    for (const blockSize of [1, 2, 3, 64]) {
      const knn = buildKnnGraph(vectors, { k: 2, blockSize });
      expect(knn.neighbors.map((r) => [...r])).toEqual([
        [1, 2],
        [2, 0],
        [1, 0],
        [1, 2],
      ]);
      expect(buildKnnGraph(vectors, { k: 1, blockSize }).neighbors.map((r) => [...r])).toEqual([
        [1],
        [2],
        [1],
        [1],
      ]);
    }
  });

  it('gives a zero vector cosine similarity 0 to everything', () => {
    const knn = buildKnnGraph(
      [
        [0, 0],
        [1, 0],
        [-1, 0],
      ],
      { k: 2 },
    );
    // From 1: to 0 → 0, to 2 → −1. From 0: both 0, tie → lower index first.
    expect([...knn.neighbors[1]!]).toEqual([0, 2]);
    expect([...knn.scores[1]!]).toEqual([0, -1]);
    expect([...knn.scores[0]!]).toEqual([0, 0]);
  });

  it('scores inner product without normalizing', () => {
    // (1,1)·(2,0) = 2, (1,1)·(4,4) = 8, (2,0)·(4,4) = 8; for vector 2 the tie 8 = 8 goes to index 0.
    const knn = buildKnnGraph(
      [
        [1, 1],
        [2, 0],
        [4, 4],
      ],
      { k: 1, metric: 'ip' },
    );
    expect(knn.neighbors.map((r) => [...r])).toEqual([[2], [2], [0]]);
    expect(knn.scores.map((r) => [...r])).toEqual([[8], [8], [8]]);
  });

  it('matches a brute-force oracle on seeded random vectors for every metric', () => {
    const random = rng(7);
    const vectors = Array.from({ length: 120 }, () => Array.from({ length: 12 }, () => random() * 2 - 1));
    const floats = vectors.map((v) => Float32Array.from(v));
    const asFloat = floats.map((v) => [...v]);
    for (const metric of ['cosine', 'ip', 'l2'] as const) {
      const expected = oracle(asFloat, 7, metric);
      for (const blockSize of [5, 1024]) {
        const knn = buildKnnGraph(floats, { k: 7, metric, blockSize });
        expect(knn.neighbors.map((r) => [...r])).toEqual(expected.neighbors);
        knn.scores.forEach((row, i) => {
          row.forEach((s, r) => {
            expect(s).toBeCloseTo(expected.scores[i]![r]!, 10);
          });
        });
      }
    }
  });

  it('returns every other vector when k is at least n − 1', () => {
    const knn = buildKnnGraph([[1], [2], [4]], { k: 10, metric: 'l2' });
    expect(knn.neighbors.map((r) => [...r])).toEqual([
      [1, 2],
      [0, 2],
      [1, 0],
    ]);
    expect(buildKnnGraph([[1]], { k: 3 }).neighbors.map((r) => [...r])).toEqual([[]]);
    expect(buildKnnGraph([], { k: 3 }).neighbors).toEqual([]);
  });

  it('rejects a bad k, mismatched dimensions, non-finite values and bad ids', () => {
    expect(() => buildKnnGraph([[1]], { k: 0 })).toThrow(InvalidArgumentError);
    expect(() => buildKnnGraph([[1, 2], [1]], { k: 1 })).toThrow(/vector 1 has 1 dimensions/);
    expect(() => buildKnnGraph([[1, Number.NaN]], { k: 1 })).toThrow(/finite/);
    expect(() => buildKnnGraph([[1], [2]], { k: 1, ids: ['a', 'a'] })).toThrow(/distinct/);
  });
});

describe('knnGraphToGraphology', () => {
  it('builds a directed graph keyed by ids, with the score as edge weight', () => {
    const knn = buildKnnGraph([[0], [1], [3], [7]], { k: 2, metric: 'l2', ids: ['w', 'x', 'y', 'z'] });
    const graph = knnGraphToGraphology(knn);
    expect(graph.type).toBe('directed');
    expect(graph.order).toBe(4);
    expect(graph.size).toBe(8);
    expect(graph.getEdgeAttribute(graph.edge('z', 'y')!, 'weight')).toBe(-16);
    expect(graph.hasEdge('y', 'z')).toBe(false);
  });

  it('builds an undirected graph for a symmetric KNN graph, usable by unweighted PageRank', () => {
    const knn = buildKnnGraph([[0], [1], [3], [7]], { k: 2, metric: 'l2', symmetric: true });
    const graph = knnGraphToGraphology(knn, { scoreAttribute: 'sim' });
    expect(graph.type).toBe('undirected');
    expect(graph.size).toBe(5);
    expect(graph.getEdgeAttribute(graph.edge('3', '1')!, 'sim')).toBe(-36);
    // Degrees 2, 3, 3, 2: the degree-3 nodes rank above the degree-2 ones.
    const ranks = pageRank(graph, { weighted: false });
    expect(ranks.get('1')!).toBeGreaterThan(ranks.get('0')!);
    expect(ranks.get('2')!).toBeGreaterThan(ranks.get('3')!);
  });
});
