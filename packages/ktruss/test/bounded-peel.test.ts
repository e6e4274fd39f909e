import { lcg32 } from '@grag/core/test';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { BoundedPeel } from '../src/bounded-peel.js';
import { edgeSupport, maximalKTruss, prepareTruss, trussGraphFromEdges } from '../src/index.js';
import { PeelState } from '../src/peel-state.js';
import { bruteKTruss, type Pair, pairKey, randomPairs } from './oracle.js';

/**
 * The size bound by its definition: remove each node of `order` in turn (query nodes kept) and take
 * the maximal k-truss of what is left (brute force); a step that would leave nothing or lose a query
 * node is undone (and, when it would leave nothing, ends the peel); stop once at most `bound` nodes
 * are alive.
 */
function definitionPeel(
  n: number,
  edges: readonly Pair[],
  k: number,
  order: readonly number[],
  keep: ReadonlySet<number>,
  bound: number,
): { edges: Set<string>; checks: number } {
  let live = bruteKTruss(n, edges, k);
  const nodesOf = (set: Set<string>) => new Set([...set].flatMap((key) => key.split(',').map(Number)));
  let checks = 0;
  for (const v of order) {
    const nodes = nodesOf(live);
    if (nodes.size <= bound) break;
    if (!nodes.has(v) || keep.has(v)) continue;
    checks++;
    const rest = edges.filter(([a, b]) => live.has(pairKey(a, b)) && a !== v && b !== v);
    const next = bruteKTruss(n, rest, k);
    const after = nodesOf(next);
    if ([...keep].some((q) => nodes.has(q) && !after.has(q))) continue;
    if (after.size === 0) break;
    live = next;
  }
  return { edges: live, checks };
}

describe('BoundedPeel', () => {
  test('each step leaves the maximal k-truss of what remains, undone steps leave the supports as they were (property)', () => {
    fc.assert(
      fc.property(
        fc.record({
          n: fc.integer({ min: 4, max: 24 }),
          p: fc.double({ min: 0.2, max: 0.9, noNaN: true }),
          seed: fc.nat(),
          k: fc.integer({ min: 3, max: 6 }),
          bound: fc.integer({ min: 1, max: 10 }),
          keeps: fc.integer({ min: 0, max: 2 }),
        }),
        ({ n, p, seed, k, bound, keeps }) => {
          const next = lcg32(seed >>> 0 || 7);
          const edges = randomPairs(n, p, next);
          const g = trussGraphFromEdges(n, edges);
          const prepared = prepareTruss(maximalKTruss(g, k));
          const order = Array.from({ length: n }, (_, i) => i).sort(() => next() - 0.5);
          const keep = order.slice(0, keeps).filter((v) => prepared.truss.nodes.includes(v));
          const state = new PeelState(prepared, keep);
          const { checks } = new BoundedPeel(state).peel(order, prepared.truss.nodes.length, bound);

          const want = definitionPeel(n, edges, k, order, new Set(keep), bound);
          const live: string[] = [];
          const mask = new Uint8Array(g.m);
          for (let e = 0; e < g.m; e++) {
            if (state.edgeAlive[e] !== 1) continue;
            live.push(pairKey(g.sources[e]!, g.targets[e]!));
            mask[e] = 1;
          }
          expect(new Set(live)).toEqual(want.edges);
          expect(checks).toBe(want.checks);
          // Supports of the live edges are their triangles among live edges, live degrees their live edges.
          const support = edgeSupport(g, mask);
          for (let e = 0; e < g.m; e++) if (mask[e] === 1) expect(state.support[e]).toBe(support[e]);
          for (let v = 0; v < n; v++) {
            let degree = 0;
            for (let e = 0; e < g.m; e++)
              if (mask[e] === 1 && (g.sources[e] === v || g.targets[e] === v)) degree++;
            expect(state.liveDegree[v]).toBe(degree);
            expect(state.nodeAlive[v]).toBe(degree > 0 ? 1 : 0);
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});
