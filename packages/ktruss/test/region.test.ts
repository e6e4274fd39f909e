import { InvalidArgumentError } from '@grag/core';
import { lcg32 } from '@grag/core/test';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  type Community,
  maximalKTruss,
  prepareTruss,
  QPEEL_DEFAULTS,
  qPeel,
  TrussIndex,
  trussGraphFromEdges,
} from '../src/index.js';
import { regionNodes, regionQPeel } from '../src/region.js';
import { clique, type Pair, randomPairs } from './oracle.js';

/** Edge pairs of `index`'s graph for edge ids `edges`. */
const pairs = (index: TrussIndex, edges: ArrayLike<number>): Pair[] =>
  Array.from(edges, (e) => [index.graph.sources[e]!, index.graph.targets[e]!] as Pair);

/** The maximal k-truss of `index`'s graph, prepared (what `regionQPeel` reads the region from). */
const preparedAt = (index: TrussIndex, k: number) =>
  prepareTruss(maximalKTruss(index.graph, k, { trussness: index.decomposition.trussness }));

describe('regionNodes: breadth first from the query nodes over edges of trussness at least k', () => {
  // A K4 {0,1,2,3} (trussness 4), a triangle {3,4,5} (3), and a pendant edge 5-6 (2).
  const edges: Pair[] = [...clique([0, 1, 2, 3]), [3, 4], [3, 5], [4, 5], [5, 6]];
  const index = new TrussIndex(trussGraphFromEdges(7, edges));
  const rel = [0.9, 0.1, 0.5, 0.3, 0.8, 0.2, 1.0];

  test.each([
    // k, size, region (by hand)
    [3, 3, [0, 2, 3]], // the query node, then its most relevant neighbours (2: 0.5, 3: 0.3)
    [3, 10, [0, 1, 2, 3, 4, 5]], // 4 and 5 at distance 2 through 3; 5-6 has trussness 2
    [4, 10, [0, 1, 2, 3]], // 3-4 and 3-5 have trussness 3 < 4
    [2, 10, [0, 1, 2, 3, 4, 5, 6]],
    [3, 1, [0]],
  ])('k %i, size %i: %j', (k, size, expected) => {
    const region = regionNodes(index.graph, index.decomposition.trussness, k, [0], size, rel);
    expect(Array.from(region)).toEqual(expected);
  });

  test('every query node is in the region, even past the size', () => {
    const region = regionNodes(index.graph, index.decomposition.trussness, 3, [6, 1], 1, rel);
    expect(Array.from(region)).toEqual([1, 6]);
  });
});

describe('TrussIndex.qPeel with a search region', () => {
  test('a region smaller than the component: the community of the query node within it (hand-computed)', () => {
    // Two K4s sharing node 0: one 4-truss component of 7 nodes.
    const index = new TrussIndex(trussGraphFromEdges(7, [...clique([0, 1, 2, 3]), ...clique([0, 4, 5, 6])]));
    const rel = [1, 0.9, 0.9, 0.9, 0.95, 0.95, 0.95];
    // Whole component: no node can go (each removal breaks a K4), QRScore (1 + 2.7 + 2.85) / 7.
    const whole = index.qPeel(4, rel, { keep: [0] }).communities[0]!;
    expect(Array.from(whole.nodes)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(whole.qrScore).toBeCloseTo(6.55 / 7, 12);
    // Region of 4: node 0 and its three most relevant neighbours, the second K4.
    const local = index.qPeel(4, rel, { keep: [0], region: 4 }).communities[0]!;
    expect(Array.from(local.nodes)).toEqual([0, 4, 5, 6]);
    expect(local.keys).toEqual(['0', '4', '5', '6']);
    expect(local.qrScore).toBeCloseTo(3.85 / 4, 12);
    expect(pairs(index, local.edges).sort()).toEqual(clique([0, 4, 5, 6]).sort());
  });

  test('a region that holds the whole component finds what Q-Peel on the component finds (random graphs)', () => {
    fc.assert(
      fc.property(
        fc.record({
          n: fc.integer({ min: 3, max: 14 }),
          p: fc.double({ min: 0.3, max: 0.95, noNaN: true }),
          seed: fc.nat(),
          k: fc.integer({ min: 2, max: 5 }),
          bound: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
        }),
        ({ n, p, seed, k, bound }) => {
          const next = lcg32(seed >>> 0 || 7);
          const index = new TrussIndex(trussGraphFromEdges(n, randomPairs(n, p, next)));
          const rel = Array.from({ length: n }, () => Math.round(next() * 10) / 10);
          const keep = [Math.floor(next() * n)];
          const options = { keep, ...(bound === undefined ? {} : { maxNodes: bound }) };
          const shown = (cs: readonly Community[]) =>
            cs.map((c) => [Array.from(c.nodes), c.keys, pairs(index, c.edges), c.qrScore]);
          const whole = shown(index.qPeel(k, rel, options).communities);
          // The region's own search, on a region of exactly the component's size.
          const { trussness } = index.decomposition;
          const reach = regionNodes(index.graph, trussness, k, keep, n, rel).length;
          const local = regionQPeel(preparedAt(index, k), trussness, Float64Array.from(rel), reach, {
            ...QPEEL_DEFAULTS,
            ...options,
          });
          expect(local).not.toBeNull();
          expect(shown(local!.communities)).toEqual(whole);
          // Through TrussIndex: a region larger than the component searches the component itself.
          expect(shown(index.qPeel(k, rel, { ...options, region: n }).communities)).toEqual(whole);
          if (reach < n) {
            expect(
              regionQPeel(preparedAt(index, k), trussness, Float64Array.from(rel), reach + 1, {
                ...QPEEL_DEFAULTS,
                ...options,
              }),
            ).toBeNull();
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  test('a region smaller than the component: Q-Peel on the subgraph of its edges of trussness ≥ k (random graphs)', () => {
    fc.assert(
      fc.property(
        fc.record({
          n: fc.integer({ min: 4, max: 24 }),
          p: fc.double({ min: 0.3, max: 0.9, noNaN: true }),
          seed: fc.nat(),
          k: fc.integer({ min: 3, max: 5 }),
          size: fc.integer({ min: 2, max: 12 }),
          bound: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
        }),
        ({ n, p, seed, k, size, bound }) => {
          const next = lcg32(seed >>> 0 || 7);
          const index = new TrussIndex(trussGraphFromEdges(n, randomPairs(n, p, next)));
          const rel = Array.from({ length: n }, () => (next() < 0.4 ? 0 : Math.round(next() * 10) / 10));
          const keep = [Math.floor(next() * n)];
          const options = { keep, ...(bound === undefined ? {} : { maxNodes: bound }) };
          const { trussness } = index.decomposition;
          const region = regionNodes(index.graph, trussness, k, keep, size, rel);
          if (region.length < size) return;
          // The oracle: the region's subgraph made from its edge list, searched by plain qPeel
          // (its own decomposition and triangle listing).
          const local = new Map(Array.from(region, (v, i) => [v, i]));
          const subEdges: Pair[] = [];
          const subToGlobal: Pair[] = [];
          for (let e = 0; e < index.graph.m; e++) {
            const [s, t] = [index.graph.sources[e]!, index.graph.targets[e]!];
            if (trussness[e]! < k || !local.has(s) || !local.has(t)) continue;
            subEdges.push([local.get(s)!, local.get(t)!]);
            subToGlobal.push([s, t]);
          }
          const expected = qPeel(
            trussGraphFromEdges(region.length, subEdges),
            k,
            Array.from(region, (v) => rel[v]!),
            { ...options, keep: [local.get(keep[0]!)!] },
          ).communities.map((c) => [
            Array.from(c.nodes, (v) => region[v]!),
            Array.from(c.edges, (e) => subToGlobal[e]!).sort(),
            c.qrScore,
          ]);
          const found = index.qPeel(k, rel, { ...options, region: size }).communities;
          expect(found.map((c) => [Array.from(c.nodes), pairs(index, c.edges).sort(), c.qrScore])).toEqual(
            expected,
          );
        },
      ),
      { numRuns: 400 },
    );
  });

  test('without query nodes the region has no effect', () => {
    const index = new TrussIndex(trussGraphFromEdges(7, [...clique([0, 1, 2, 3]), ...clique([0, 4, 5, 6])]));
    const rel = [1, 0.9, 0.9, 0.9, 0.95, 0.95, 0.95];
    expect(index.qPeel(4, rel, { region: 2 })).toEqual(index.qPeel(4, rel));
  });

  test.each([0, 1.5, -3, Number.NaN])('region %p is refused with a clear error', (region) => {
    const index = new TrussIndex(trussGraphFromEdges(3, clique([0, 1, 2])));
    expect(() => index.qPeel(3, [1, 1, 1], { keep: [0], region })).toThrow(InvalidArgumentError);
    expect(() => index.qPeel(3, [1, 1, 1], { keep: [0], region })).toThrow(
      /region must be a positive integer/,
    );
  });

  test('a query node outside the graph is refused, naming it', () => {
    const index = new TrussIndex(trussGraphFromEdges(3, clique([0, 1, 2])));
    expect(() => index.qPeel(3, [1, 1, 1], { keep: [5], region: 2 })).toThrow(
      /query node 5 is not a node index/,
    );
  });
});
