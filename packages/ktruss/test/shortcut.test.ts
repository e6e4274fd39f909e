import { lcg32 } from '@grag/core/test';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { maximalKTruss, prepareTruss, trussGraphFromEdges } from '../src/index.js';
import { liveLowBound, pinningOf } from '../src/phase-bound.js';
import { settleWithoutPhase } from '../src/shortcut.js';
import { clique, type Pair, randomPairs } from './oracle.js';
import { referencePeel, referencePrepare } from './reference-peel.js';

/** Seeded random graph on `n` nodes with edge probability `p`. */
function randomGraph(n: number, p: number, seed: number): { edges: Pair[]; next: () => number } {
  const next = lcg32(seed >>> 0 || 7);
  return { edges: randomPairs(n, p, next), next };
}

const instance = fc.record({
  n: fc.integer({ min: 5, max: 36 }),
  p: fc.double({ min: 0.15, max: 0.8, noNaN: true }),
  seed: fc.nat(),
  k: fc.integer({ min: 2, max: 5 }),
  high: fc.double({ min: 0.05, max: 0.6, noNaN: true }),
});

describe('liveLowBound', () => {
  test('never exceeds the nodes of relevance 0 that the QRScore phase leaves, with the relevant nodes kept (property)', () => {
    let positive = 0;
    fc.assert(
      fc.property(instance, ({ n, p, seed, k, high: share }) => {
        const { edges, next } = randomGraph(n, p, seed);
        const g = trussGraphFromEdges(n, edges);
        const truss = maximalKTruss(g, k);
        const component = truss.components[0];
        if (component === undefined) return;
        const high = Array.from(component.nodes).filter(() => next() < share);
        if (high.length === 0) high.push(component.nodes[0]!);
        // The oracle: the row-scanning Q-Peel with the relevant nodes as query nodes (never
        // removed) and every other node at relevance 0 (always below the mean), without a size
        // bound: its community is what the QRScore phase leaves of the component.
        const rel = new Float64Array(n);
        for (const v of high) rel[v] = 1;
        const inf = Number.POSITIVE_INFINITY;
        const left = referencePeel(referencePrepare(truss), rel, truss.components.length, inf, inf, high);
        const community = left.communities.find((c) => c.nodes.includes(high[0]!))!;
        const liveLow = community.nodes.length - high.length;
        const prepared = prepareTruss(truss);
        const bound = liveLowBound(prepared, pinningOf(prepared), component.nodes, component.edges, high);
        if (bound > 0) positive++;
        expect(bound).toBeLessThanOrEqual(liveLow);
      }),
      { numRuns: 700 },
    );
    expect(positive).toBeGreaterThan(50);
  });

  test('counts the pinned ear and what a lone relevant node needs, by hand', () => {
    // A relevant node 0 in a triangle {0, 1, 2} whose edges are in no other triangle: 1 and 2 pin
    // each other with 0 (removing either leaves an edge in no triangle), so both live.
    const g = trussGraphFromEdges(3, clique([0, 1, 2]));
    const prepared = prepareTruss(maximalKTruss(g, 3));
    const component = prepared.truss.components[0]!;
    expect(Array.from(pinningOf(prepared).selfPinned)).toEqual([1, 1, 1]);
    expect(liveLowBound(prepared, pinningOf(prepared), component.nodes, component.edges, [0])).toBe(2);
    // A 5-clique: every edge is in 3 triangles, so nothing is pinned; the relevant node 0 keeps at
    // least 3 − 1 = 2 live neighbours at k = 3.
    const five = prepareTruss(maximalKTruss(trussGraphFromEdges(5, clique([0, 1, 2, 3, 4])), 3));
    const c5 = five.truss.components[0]!;
    expect(Array.from(pinningOf(five).selfPinned)).toEqual([0, 0, 0, 0, 0]);
    expect(liveLowBound(five, pinningOf(five), c5.nodes, c5.edges, [0])).toBe(2);
  });
});

describe('settleWithoutPhase', () => {
  test('gives the full search its communities whenever it settles a component (property)', () => {
    let settled = 0;
    fc.assert(
      fc.property(
        instance,
        fc.integer({ min: 1, max: 6 }),
        fc.constantFrom(0, 1, 2),
        ({ n, p, seed, k, high: share }, maxNodes, levels) => {
          const { edges, next } = randomGraph(n, p, seed);
          const g = trussGraphFromEdges(n, edges);
          const truss = maximalKTruss(g, k);
          const component = truss.components[0];
          if (component === undefined) return;
          // Relevant nodes at one, two or many levels of relevance; the rest at 0.
          const rel = new Float64Array(n);
          for (const v of component.nodes) {
            if (next() < share)
              rel[v] = levels === 0 ? 0.5 : levels === 1 ? (next() < 0.5 ? 0.4 : 0.6) : 0.05 + next();
          }
          const query = Array.from(component.nodes).filter((v) => rel[v]! > 0);
          const keep = query.length > 0 ? [query[Math.floor(next() * query.length)]!] : [];
          const inf = Number.POSITIVE_INFINITY;
          const got = settleWithoutPhase(
            prepareTruss(truss),
            component,
            rel,
            (v) => keep.includes(v),
            maxNodes,
            keep.length === 0,
          );
          if (got === undefined) return;
          settled++;
          const want = referencePeel(referencePrepare(truss), rel, 1000, inf, maxNodes, keep);
          const inComponent = want.communities.filter((c) => component.nodes.includes(c.nodes[0]!));
          const order = (cs: typeof inComponent) =>
            cs
              .map((c) => c)
              .sort(
                (x, y) =>
                  y.qrScore - x.qrScore || y.nodes.length - x.nodes.length || x.nodes[0]! - y.nodes[0]!,
              );
          expect(order(got.communities)).toEqual(order(inComponent));
        },
      ),
      { numRuns: 1500 },
    );
    expect(settled).toBeGreaterThan(40);
  });
});
