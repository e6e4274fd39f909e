import { lcg32 } from '@grag/core/test';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  averagePairwiseSimilarity,
  density,
  inducedEdgeCount,
  subgraphDiameter,
  subgraphMeasures,
  trussGraphFromEdges,
} from '../src/index.js';

// 0 - 1 - 2 - 3 - 4 (a path) plus the chord 1 - 3, and node 5 on its own.
const g = trussGraphFromEdges(6, [
  [0, 1],
  [1, 2],
  [2, 3],
  [3, 4],
  [1, 3],
]);

describe('subgraph measures (DA-RAG appendix B.3)', () => {
  test('density is the share of possible edges present', () => {
    expect(density(4, 6)).toBe(1);
    expect(density(4, 3)).toBe(0.5);
    expect(density(1, 0)).toBe(0);
    expect(() => density(-1, 0)).toThrow(/non-negative integers/);
  });

  test('counts the induced edges of a node set', () => {
    expect(inducedEdgeCount(g, [1, 2, 3])).toBe(3);
    expect(inducedEdgeCount(g, [0, 4])).toBe(0);
  });

  test('measures the diameter with shortest paths in the global graph, ignoring unreachable pairs', () => {
    // 0 and 4 are not adjacent in the set, but 3 apart in the graph (0-1-3-4).
    expect(subgraphDiameter(g, [0, 4])).toBe(3);
    expect(subgraphDiameter(g, [0, 2, 4])).toBe(3);
    expect(subgraphDiameter(g, [0, 5])).toBe(0);
    expect(subgraphDiameter(g, [2])).toBe(0);
    expect(() => subgraphDiameter(g, [9])).toThrow(/9 is not a node index/);
  });

  test('averages the cosine similarity over node pairs', () => {
    // pairs: (a,b) = 0, (a,c) = 1, (b,c) = 0 → 1/3
    expect(
      averagePairwiseSimilarity([
        [1, 0],
        [0, 2],
        [3, 0],
      ]),
    ).toBeCloseTo(1 / 3, 12);
    expect(averagePairwiseSimilarity([[1, 0]])).toBeNaN();
  });

  test('subgraphMeasures puts the four together', () => {
    const vectors = [
      [1, 0],
      [1, 1],
      [0, 1],
      [1, 1],
      [1, 0],
      [0, 1],
    ];
    const relevance = [1, 0.5, 0, 0.5, 1, 0];
    const m = subgraphMeasures(g, [1, 2, 3], { relevance, vector: (v) => vectors[v]! });
    expect(m.nodes).toBe(3);
    expect(m.edges).toBe(3);
    expect(m.density).toBe(1);
    expect(m.diameter).toBe(1);
    expect(m.qrScore).toBeCloseTo(1 / 3, 12);
    // cos([1,1],[0,1]) = cos([0,1],[1,1]) = √½, cos([1,1],[1,1]) = 1
    expect(m.pairwiseSimilarity).toBeCloseTo((2 * Math.SQRT1_2 + 1) / 3, 12);
    // A retrieved subgraph with its own edge count (a star of 2 edges on 3 nodes).
    expect(
      subgraphMeasures(g, [1, 2, 3], { relevance, vector: (v) => vectors[v]!, edges: 2 }).density,
    ).toBeCloseTo(2 / 3, 12);
  });
});

describe('measures against brute force', () => {
  /** Diameter by one breadth-first search per node of the set (the definition). */
  function bruteDiameter(n: number, edges: [number, number][], set: number[]): number {
    const adj = Array.from({ length: n }, () => [] as number[]);
    for (const [a, b] of edges) {
      adj[a]!.push(b);
      adj[b]!.push(a);
    }
    let best = 0;
    for (const s of set) {
      const dist = new Map([[s, 0]]);
      const queue = [s];
      for (let i = 0; i < queue.length; i++) {
        for (const w of adj[queue[i]!]!) {
          if (!dist.has(w)) {
            dist.set(w, dist.get(queue[i]!)! + 1);
            queue.push(w);
          }
        }
      }
      for (const t of set) if (dist.has(t)) best = Math.max(best, dist.get(t)!);
    }
    return best;
  }

  test('the bit-parallel diameter equals one search per node, over several batches of sources', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 600 }), fc.nat(), (size, seed) => {
        const next = lcg32(seed >>> 0 || 5);
        const n = 700;
        const seen = new Set<string>();
        const edges: [number, number][] = [];
        // a sparse graph with long paths and several components
        for (let v = 1; v < n; v++) {
          if (next() < 0.9) {
            const u = Math.max(0, v - 1 - Math.floor(next() * 3));
            if (!seen.has(`${u},${v}`)) {
              seen.add(`${u},${v}`);
              edges.push([u, v]);
            }
          }
        }
        const set = [...new Set(Array.from({ length: size }, () => Math.floor(next() * n)))];
        const g = trussGraphFromEdges(n, edges);
        expect(subgraphDiameter(g, set)).toBe(bruteDiameter(n, edges, set));
      }),
      { numRuns: 15 },
    );
  });

  test('the pairwise similarity equals the mean over all pairs', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.integer({ min: -5, max: 5 }), { minLength: 4, maxLength: 4 }), {
          minLength: 2,
          maxLength: 30,
        }),
        (vectors) => {
          let sum = 0;
          let pairs = 0;
          for (let i = 0; i < vectors.length; i++) {
            for (let j = i + 1; j < vectors.length; j++) {
              const a = vectors[i]!;
              const b = vectors[j]!;
              const na = Math.hypot(...a);
              const nb = Math.hypot(...b);
              sum += na === 0 || nb === 0 ? 0 : a.reduce((x, v, c) => x + v * b[c]!, 0) / (na * nb);
              pairs++;
            }
          }
          expect(averagePairwiseSimilarity(vectors)).toBeCloseTo(sum / pairs, 9);
        },
      ),
      { numRuns: 100 },
    );
  });
});
