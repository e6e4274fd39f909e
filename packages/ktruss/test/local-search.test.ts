import { InvalidArgumentError } from '@grag/core';
import { lcg32 } from '@grag/core/test';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { qPeel, TrussIndex, trussGraphFromEdges } from '../src/index.js';
import { adjacency, bruteKTruss, clique, type Pair, pairKey, randomPairs } from './oracle.js';

/** Nodes reached from `from` over `edges`, with their hop distance. */
function hops(n: number, edges: readonly Pair[], from: number): Map<number, number> {
  const adj = adjacency(n, edges);
  const dist = new Map([[from, 0]]);
  const queue = [from];
  for (let i = 0; i < queue.length; i++) {
    for (const w of adj[queue[i]!]!) {
      if (dist.has(w)) continue;
      dist.set(w, dist.get(queue[i]!)! + 1);
      queue.push(w);
    }
  }
  return dist;
}

/** The k-truss among `nodes` (brute force): its edges and the nodes with one. */
function trussAmong(n: number, edges: readonly Pair[], nodes: ReadonlySet<number>, k: number) {
  const inside = edges.filter(([a, b]) => nodes.has(a) && nodes.has(b));
  const truss = bruteKTruss(n, inside, k);
  const trussEdges = inside.filter(([a, b]) => truss.has(pairKey(a, b)));
  return { nodes: new Set(trussEdges.flat()), edges: trussEdges };
}

/**
 * The local search's community by its definition: peel the query node's k-truss component one node
 * at a time in peel order (ascending relevance, then farther first, then fewer neighbours at most as
 * far, then lower index), recomputing the k-truss from scratch, undoing a removal that loses the
 * query node, until at most `bound` nodes (of every part) are left; then the query node's part.
 */
function oracle(
  n: number,
  edges: readonly Pair[],
  k: number,
  rel: readonly number[],
  q: number,
  bound: number,
) {
  const truss = bruteKTruss(n, edges, k);
  const trussEdges = edges.filter(([a, b]) => truss.has(pairKey(a, b)));
  if (!trussEdges.some(([a, b]) => a === q || b === q)) return null;
  const dist = hops(n, trussEdges, q);
  const adj = adjacency(n, trussEdges);
  const close = new Map([...dist].map(([v, d]) => [v, [...adj[v]!].filter((w) => dist.get(w)! <= d).length]));
  const order = [...dist.keys()]
    .filter((v) => v !== q)
    .sort(
      (a, b) => rel[a]! - rel[b]! || dist.get(b)! - dist.get(a)! || close.get(a)! - close.get(b)! || a - b,
    );
  let current = trussAmong(n, trussEdges, new Set(dist.keys()), k);
  for (const v of order) {
    if (current.nodes.size <= bound) break;
    if (!current.nodes.has(v)) continue;
    const without = new Set(current.nodes);
    without.delete(v);
    const next = trussAmong(n, trussEdges, without, k);
    if (next.nodes.has(q)) current = next;
  }
  const part = new Set(hops(n, current.edges, q).keys());
  return {
    nodes: [...part].sort((a, b) => a - b),
    edges: current.edges
      .filter(([a]) => part.has(a))
      .map(([a, b]) => pairKey(a, b))
      .sort(),
  };
}

describe('TrussIndex.localSearch', () => {
  test('ties in relevance: the nodes closest to the query node are peeled last (hand-computed)', () => {
    // Node 0 (the query) in a K4 {0,1,2,3}; node 3 also in a K4 {3,4,5,6}: one 4-truss component.
    // Relevance 0 everywhere but the query node's: the far K4's nodes 4, 5, 6 go first; then 1 and 2
    // cannot go (0 would lose its K4), and 3 neither.
    const edges: Pair[] = [...clique([0, 1, 2, 3]), ...clique([3, 4, 5, 6])];
    const index = new TrussIndex(trussGraphFromEdges(7, edges));
    const rel = [1, 0, 0, 0, 0, 0, 0];
    const { community, componentNodes } = index.localSearch(4, rel, 0, 4);
    expect(componentNodes).toBe(7);
    expect(Array.from(community!.nodes)).toEqual([0, 1, 2, 3]);
    expect(community!.qrScore).toBeCloseTo(0.25, 12);
    expect(community!.initialQrScore).toBeCloseTo(1 / 7, 12);
    expect(community!.removed).toBe(3);
    // Query node 6 in the other K4: the same by symmetry.
    expect(Array.from(index.localSearch(4, rel, 6, 4).community!.nodes)).toEqual([3, 4, 5, 6]);
    // A relevant node in the far K4 is peeled after the zeros: 5 goes first (farthest, then lower
    // index), which breaks the far K4, and the query node's K4 is within the bound.
    const some = [1, 0, 0, 0, 0.5, 0, 0];
    expect(Array.from(index.localSearch(4, some, 0, 4).community!.nodes)).toEqual([0, 1, 2, 3]);
    // A bound the component meets (or none, Infinity): the component.
    expect(Array.from(index.localSearch(4, rel, 0, 7).community!.nodes)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(index.localSearch(4, rel, 0, Infinity).community!.nodes).toHaveLength(7);
    // A bound below any 4-truss (at least 4 nodes): peeled as far as it goes.
    expect(Array.from(index.localSearch(4, rel, 0, 1).community!.nodes)).toEqual([0, 1, 2, 3]);
  });

  test("the bound counts every part of the component, as Q-Peel's does (hand-computed, and Q-Peel agrees)", () => {
    // Query 0 in a K4 {0,1,2,3}; a triangle {5,6,7} of relevant nodes; node 4 (relevance 0) joins
    // them through triangle {3,4,5}: one 3-truss component of 8 nodes. Bound 6: removing 4 deletes
    // {3,5} too and leaves two parts of 4 + 3 = 7 nodes; removing 1 (the least relevant) leaves the
    // triangle {0,2,3} and 6 nodes in all. Counting the query node's part alone would have stopped
    // at the K4.
    const edges: Pair[] = [...clique([0, 1, 2, 3]), ...clique([5, 6, 7]), ...clique([3, 4, 5])];
    const g = trussGraphFromEdges(8, edges);
    const rel = [1, 0.2, 0.6, 0.7, 0, 0.9, 0.9, 0.9];
    const { community } = new TrussIndex(g).localSearch(3, rel, 0, 6);
    expect(Array.from(community!.nodes)).toEqual([0, 2, 3]);
    expect(community!.removed).toBe(5);
    // Q-Peel's QRScore phase removes node 1 (below the mean, the rest a connected 3-truss) and
    // nothing else; its bound then removes 4 and stops at 6 nodes: the same community.
    expect(Array.from(qPeel(g, 3, rel, { keep: [0], maxNodes: 6 }).communities[0]!.nodes)).toEqual([0, 2, 3]);
  });

  test('a query node in no k-truss: no community', () => {
    const index = new TrussIndex(trussGraphFromEdges(5, [...clique([0, 1, 2]), [2, 3], [3, 4]]));
    expect(index.localSearch(3, [1, 1, 1, 1, 1], 4, 10).community).toBeNull();
    expect(index.localSearch(4, [1, 1, 1, 1, 1], 0, 10).community).toBeNull();
  });

  test('the community is the one the definition gives (random graphs, many ties)', () => {
    fc.assert(
      fc.property(
        fc.record({
          n: fc.integer({ min: 3, max: 16 }),
          p: fc.double({ min: 0.3, max: 0.95, noNaN: true }),
          seed: fc.nat(),
          k: fc.integer({ min: 2, max: 6 }),
          bound: fc.option(fc.integer({ min: 1, max: 9 }), { nil: Number.POSITIVE_INFINITY }),
          zeros: fc.double({ min: 0, max: 1, noNaN: true }),
        }),
        ({ n, p, seed, k, bound, zeros }) => {
          const next = lcg32(seed >>> 0 || 7);
          const edges = randomPairs(n, p, next);
          const index = new TrussIndex(trussGraphFromEdges(n, edges));
          const rel = Array.from({ length: n }, () => (next() < zeros ? 0 : Math.round(next() * 4) / 4));
          const q = Math.floor(next() * n);
          const expected = oracle(n, edges, k, rel, q, bound);
          const { community } = index.localSearch(k, rel, q, bound);
          if (expected === null) {
            expect(community).toBeNull();
            return;
          }
          expect(Array.from(community!.nodes)).toEqual(expected.nodes);
          const g = index.graph;
          expect(Array.from(community!.edges, (e) => pairKey(g.sources[e]!, g.targets[e]!)).sort()).toEqual(
            expected.edges,
          );
          const mean = expected.nodes.reduce((s, v) => s + rel[v]!, 0) / expected.nodes.length;
          expect(community!.qrScore).toBeCloseTo(mean, 12);
        },
      ),
      { numRuns: 400 },
    );
  });

  test('bad input: one clear error naming it', () => {
    const index = new TrussIndex(trussGraphFromEdges(3, clique([0, 1, 2])));
    expect(() => index.localSearch(3, [1, 1, 1], 3, 5)).toThrow(InvalidArgumentError);
    expect(() => index.localSearch(3, [1, 1, 1], 0, 0)).toThrow(/maxNodes/);
    expect(() => index.localSearch(3, [1, 1], 0, 5)).toThrow(/relevance/);
    expect(() => index.localSearch(1, [1, 1, 1], 0, 5)).toThrow(InvalidArgumentError);
  });
});

describe('TrussIndex.componentSize', () => {
  test('the nodes of the k-truss component, counted up to a limit (hand-computed)', () => {
    // K4 {0,1,2,3} and K4 {3,4,5,6} share node 3; a triangle {6,7,8} hangs on node 6; 9-10 is a lone edge.
    const edges: Pair[] = [...clique([0, 1, 2, 3]), ...clique([3, 4, 5, 6]), ...clique([6, 7, 8]), [9, 10]];
    const index = new TrussIndex(trussGraphFromEdges(11, edges));
    expect(index.componentSize(4, 0)).toBe(7);
    expect(index.componentSize(3, 0)).toBe(9);
    expect(index.componentSize(4, 7)).toBe(0);
    expect(index.componentSize(3, 9)).toBe(0);
    expect(index.componentSize(2, 9)).toBe(2);
    expect(index.componentSize(3, 0, 4)).toBe(5);
    expect(index.componentSize(3, 0, 9)).toBe(9);
    expect(index.componentSize(3, 0, 0)).toBe(1);
    expect(() => index.componentSize(3, 11)).toThrow(InvalidArgumentError);
  });

  test('agrees with the component of the brute-force k-truss (random graphs)', () => {
    fc.assert(
      fc.property(
        fc.record({
          n: fc.integer({ min: 2, max: 14 }),
          p: fc.double({ min: 0.2, max: 0.9, noNaN: true }),
          seed: fc.nat(),
          k: fc.integer({ min: 2, max: 6 }),
          limit: fc.integer({ min: 0, max: 15 }),
        }),
        ({ n, p, seed, k, limit }) => {
          const next = lcg32(seed >>> 0 || 3);
          const edges = randomPairs(n, p, next);
          const index = new TrussIndex(trussGraphFromEdges(n, edges));
          const truss = bruteKTruss(n, edges, k);
          const trussEdges = edges.filter(([a, b]) => truss.has(pairKey(a, b)));
          for (let v = 0; v < n; v++) {
            const size = trussEdges.some(([a, b]) => a === v || b === v) ? hops(n, trussEdges, v).size : 0;
            expect(index.componentSize(k, v)).toBe(size);
            expect(index.componentSize(k, v, limit)).toBe(Math.min(size, limit + 1));
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
