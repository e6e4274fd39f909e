import { lcg32 } from '@grag/core/test';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { componentLabels, componentQPeel } from '../src/component-peel.js';
import {
  maximalKTruss,
  peelTruss,
  prepareTruss,
  type QPeelResult,
  TrussIndex,
  trussDecomposition,
  trussGraphFromEdges,
} from '../src/index.js';
import type { Pair } from './oracle.js';

/**
 * A graph of clusters (dense inside, sizes drawn from 4 to `largest`) joined by a few random edges
 * (mostly outside every k-truss), with relevance drawn from a few values so that ties, zeros and
 * negative values are common, and query nodes drawn anywhere.
 */
const instance = fc.record({
  clusters: fc.integer({ min: 2, max: 9 }),
  largest: fc.integer({ min: 4, max: 16 }),
  p: fc.double({ min: 0.35, max: 0.95, noNaN: true }),
  bridges: fc.integer({ min: 0, max: 12 }),
  seed: fc.nat(),
  k: fc.integer({ min: 3, max: 6 }),
  queries: fc.integer({ min: 1, max: 3 }),
  maxNodes: fc.constantFrom(Number.POSITIVE_INFINITY, 3, 5, 8),
  top: fc.integer({ min: 1, max: 3 }),
  shortcut: fc.boolean(),
});

function build(spec: typeof instance extends fc.Arbitrary<infer T> ? T : never) {
  const next = lcg32(spec.seed >>> 0 || 11);
  const edges: Pair[] = [];
  let n = 0;
  for (let c = 0; c < spec.clusters; c++) {
    const size = 4 + Math.floor(next() * (spec.largest - 3));
    for (let a = n; a < n + size; a++)
      for (let b = a + 1; b < n + size; b++) if (next() < spec.p) edges.push([a, b]);
    n += size;
  }
  const seen = new Set(edges.map(([a, b]) => `${a},${b}`));
  for (let i = 0; i < spec.bridges; i++) {
    const a = Math.floor(next() * n);
    const b = Math.floor(next() * n);
    const [x, y] = a < b ? [a, b] : [b, a];
    if (x !== y && !seen.has(`${x},${y}`)) {
      seen.add(`${x},${y}`);
      edges.push([x, y]);
    }
  }
  const values = [-0.2, 0, 0, 0.1, 0.3, 0.3, 0.7, 1];
  const rel = Float64Array.from({ length: n }, () => values[Math.floor(next() * values.length)]!);
  const keep = Array.from({ length: spec.queries }, () => Math.floor(next() * n));
  return { g: trussGraphFromEdges(n, edges), rel, keep };
}

/** What a search found: communities with nodes, keys and edges as plain arrays, and the counts. */
const plain = (r: QPeelResult) => ({
  ...r,
  communities: r.communities.map((c) => ({ ...c, nodes: Array.from(c.nodes), edges: Array.from(c.edges) })),
});

describe('componentQPeel', () => {
  test('equals Q-Peel on the whole prepared k-truss (property)', () => {
    let local = 0;
    fc.assert(
      fc.property(instance, (spec) => {
        const { g, rel, keep } = build(spec);
        const { trussness } = trussDecomposition(g);
        const truss = maximalKTruss(g, spec.k, { trussness });
        const options = {
          top: spec.top,
          maxSweeps: Number.POSITIVE_INFINITY,
          maxNodes: spec.maxNodes,
          keep,
          shortcut: spec.shortcut,
        };
        const found = componentQPeel(truss, componentLabels(truss), trussness, rel, options, g.n);
        const whole = peelTruss(
          prepareTruss(truss),
          rel,
          spec.top,
          Number.POSITIVE_INFINITY,
          spec.maxNodes,
          keep,
          spec.shortcut,
        );
        expect(found).not.toBeNull();
        expect(plain(found!)).toEqual(plain(whole));
        if (found!.communities.length > 0 && truss.components.length > 1) local++;
      }),
      { numRuns: 400 },
    );
    // Searches with a community in a graph of several components: the case this is for.
    expect(local).toBeGreaterThan(100);
  });

  test('declines when the components of the query nodes hold more nodes than the limit', () => {
    // Two triangles apart: a query node in one, limit below its three nodes.
    const g = trussGraphFromEdges(6, [
      [0, 1],
      [0, 2],
      [1, 2],
      [3, 4],
      [3, 5],
      [4, 5],
    ]);
    const { trussness } = trussDecomposition(g);
    const truss = maximalKTruss(g, 3, { trussness });
    const options = {
      top: 1,
      maxSweeps: Number.POSITIVE_INFINITY,
      maxNodes: Number.POSITIVE_INFINITY,
      keep: [4],
      shortcut: true,
    };
    const rel = new Float64Array(6).fill(0.5);
    expect(componentQPeel(truss, componentLabels(truss), trussness, rel, options, 2)).toBeNull();
    const found = componentQPeel(truss, componentLabels(truss), trussness, rel, options, 3)!;
    expect(Array.from(found.communities[0]!.nodes)).toEqual([3, 4, 5]);
    expect(found.components).toBe(2);
  });
});

describe('TrussIndex.qPeel with query nodes', () => {
  test('a fresh index (small components prepared alone) and one whose k-truss is prepared search alike (property)', () => {
    fc.assert(
      fc.property(instance, (spec) => {
        const { g, rel, keep } = build(spec);
        const options = { top: spec.top, maxNodes: spec.maxNodes, keep, shortcut: spec.shortcut };
        const fresh = new TrussIndex(g).qPeel(spec.k, rel, options);
        const warm = new TrussIndex(g);
        // A search without query nodes prepares the whole k-truss.
        warm.qPeel(spec.k, rel);
        expect(plain(fresh)).toEqual(plain(warm.qPeel(spec.k, rel, options)));
      }),
      { numRuns: 300 },
    );
  });
});
