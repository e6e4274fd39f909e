import { InvalidArgumentError } from '@grag/core';
import { lcg32 } from '@grag/core/test';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { TrussIndex, trussGraphFromEdges } from '../src/index.js';
import {
  adjacency,
  bruteKTruss,
  clique,
  isConnectedKTruss,
  type Pair,
  pairKey,
  randomPairs,
} from './oracle.js';

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

/** The k-truss edges among `nodes` (brute force), and the part of it that holds `q`. */
function queryPart(n: number, edges: readonly Pair[], nodes: Set<number>, k: number, q: number) {
  const inside = edges.filter(([a, b]) => nodes.has(a) && nodes.has(b));
  const truss = bruteKTruss(n, inside, k);
  const trussEdges = inside.filter(([a, b]) => truss.has(pairKey(a, b)));
  if (!trussEdges.some(([a, b]) => a === q || b === q)) return { nodes: new Set<number>(), edges: [] };
  const part = new Set(hops(n, trussEdges, q).keys());
  return { nodes: part, edges: trussEdges.filter(([a]) => part.has(a)) };
}

/**
 * The local search's community by its definition: peel the query node's k-truss component one node
 * at a time in peel order (ascending relevance, then farther first, then fewer neighbours at most as
 * far, then lower index), recomputing the k-truss from scratch, undoing a removal that loses the
 * query node, keeping its part, until at most `bound` nodes are left; then QRScore sweeps.
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
  let current = queryPart(n, trussEdges, new Set(dist.keys()), k, q);
  for (const v of order) {
    if (current.nodes.size <= bound) break;
    if (!current.nodes.has(v)) continue;
    const without = new Set(current.nodes);
    without.delete(v);
    const next = queryPart(n, trussEdges, without, k, q);
    if (next.nodes.size > 0) current = next;
  }
  // Then Q-Peel's QRScore sweeps: in peel order, remove a node below the mean when the rest, with
  // every edge it had, is still a connected k-truss; until a sweep removes nothing.
  for (let changed = true; changed; ) {
    changed = false;
    for (const v of order) {
      if (!current.nodes.has(v)) continue;
      const mean = [...current.nodes].reduce((s, w) => s + rel[w]!, 0) / current.nodes.size;
      if (!(rel[v]! < mean)) break;
      const rest = [...current.nodes].filter((w) => w !== v);
      const edges = current.edges.filter(([a, b]) => a !== v && b !== v);
      if (!isConnectedKTruss(rest, edges, k)) continue;
      current = { nodes: new Set(rest), edges };
      changed = true;
    }
  }
  return {
    nodes: [...current.nodes].sort((a, b) => a - b),
    edges: current.edges.map(([a, b]) => pairKey(a, b)).sort(),
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
