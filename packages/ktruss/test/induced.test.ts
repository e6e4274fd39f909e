import { InvalidArgumentError } from '@grag/core';
import { lcg32 } from '@grag/core/test';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  type Community,
  edgeTriangles,
  edgeTrianglesWithin,
  inducedSubgraph,
  inducedTriangles,
  TrussIndex,
  trussDecomposition,
  trussGraphFromEdges,
} from '../src/index.js';
import { bruteTrussness, clique, type Pair, pairKey, randomPairs } from './oracle.js';

/** A random graph and a random node subset of it (ascending). */
const graphAndNodes = fc
  .record({
    n: fc.integer({ min: 1, max: 16 }),
    p: fc.double({ min: 0.2, max: 0.95, noNaN: true }),
    keep: fc.double({ min: 0.3, max: 1, noNaN: true }),
    seed: fc.nat(),
  })
  .map(({ n, p, keep, seed }) => {
    const next = lcg32(seed >>> 0 || 3);
    const edges = randomPairs(n, p, next);
    const nodes = Array.from({ length: n }, (_, v) => v).filter(() => next() < keep);
    return { n, edges, nodes, next };
  });

describe('inducedSubgraph', () => {
  test('every edge between the nodes, ends in the graph’s order, mapped back to the graph (property)', () => {
    fc.assert(
      fc.property(graphAndNodes, ({ n, edges, nodes }) => {
        const g = trussGraphFromEdges(n, edges);
        const sub = inducedSubgraph(g, nodes);
        const inSet = new Set(nodes);
        const expected = edges
          .filter(([a, b]) => inSet.has(a) && inSet.has(b))
          .map(([a, b]) => pairKey(a, b));
        const got = Array.from({ length: sub.graph.m }, (_, j) =>
          pairKey(nodes[sub.graph.sources[j]!]!, nodes[sub.graph.targets[j]!]!),
        );
        expect(new Set(got)).toEqual(new Set(expected));
        expect(got).toHaveLength(expected.length);
        for (let j = 0; j < sub.graph.m; j++) {
          const e = sub.edges[j]!;
          expect([g.sources[e], g.targets[e]]).toEqual([
            nodes[sub.graph.sources[j]!],
            nodes[sub.graph.targets[j]!],
          ]);
        }
        expect(Array.from(sub.nodes)).toEqual(nodes);
        expect(sub.graph.nodeIds).toEqual(nodes.map((v) => g.nodeIds[v]));
        // The same graph trussGraphFromEdges makes of its edge list: rows, edge ids, ends, keys.
        const pairs = Array.from(
          { length: sub.graph.m },
          (_, j): Pair => [sub.graph.sources[j]!, sub.graph.targets[j]!],
        );
        const rebuilt = trussGraphFromEdges(nodes.length, pairs, { ids: sub.graph.nodeIds });
        for (const key of ['offsets', 'neighbors', 'edgeIds', 'sources', 'targets'] as const) {
          expect(Array.from(sub.graph[key])).toEqual(Array.from(rebuilt[key]));
        }
        expect([...sub.graph.index]).toEqual([...rebuilt.index]);
      }),
      { numRuns: 200 },
    );
  });

  test('nodes {1, 2, 3} of a 4-clique with a tail: the triangle among them', () => {
    const g = trussGraphFromEdges(5, [...clique([0, 1, 2, 3]), [3, 4]]);
    const sub = inducedSubgraph(g, [1, 2, 3]);
    expect([Array.from(sub.graph.sources), Array.from(sub.graph.targets)]).toEqual([
      [0, 0, 1],
      [1, 2, 2],
    ]);
    expect(trussDecomposition(sub.graph).maxTrussness).toBe(3);
  });

  test('refuses nodes out of order, repeated or outside the graph, naming them', () => {
    const g = trussGraphFromEdges(4, clique([0, 1, 2, 3]));
    for (const nodes of [[2, 1], [1, 1], [0, 4], [-1, 2], [0.5]]) {
      expect(() => inducedSubgraph(g, nodes)).toThrow(InvalidArgumentError);
    }
    expect(() => inducedSubgraph(g, [0, 4])).toThrow(/got 4 at position 1/);
  });
});

describe('inducedTriangles', () => {
  test('equals the listing of the subgraph itself (property)', () => {
    fc.assert(
      fc.property(graphAndNodes, ({ n, edges, nodes }) => {
        const g = trussGraphFromEdges(n, edges);
        const sub = inducedSubgraph(g, nodes);
        const filtered = inducedTriangles(edgeTriangles(g), g, sub);
        const listed = edgeTriangles(sub.graph);
        expect(Array.from(filtered.offsets)).toEqual(Array.from(listed.offsets));
        expect(Array.from(filtered.entries)).toEqual(Array.from(listed.entries));
      }),
      { numRuns: 200 },
    );
  });

  test('edgeTrianglesWithin returns a listing as it is when every triangle is kept (the 3-truss)', () => {
    const g = trussGraphFromEdges(6, [...clique([0, 1, 2, 3]), [3, 4], [4, 5]]);
    const listing = edgeTriangles(g);
    const mask = Array.from({ length: g.m }, (_, e) =>
      listing.offsets[e + 1]! > listing.offsets[e]! ? 1 : 0,
    );
    const within = edgeTrianglesWithin(listing, mask);
    expect(within.triangles).toBe(listing);
    expect(Array.from(within.support)).toEqual([2, 2, 2, 2, 2, 2, 0, 0]);
    // One edge of a triangle left out: copied and filtered.
    mask[0] = 0;
    expect(edgeTrianglesWithin(listing, mask).triangles).not.toBe(listing);
  });

  test('refuses a listing of another graph', () => {
    const g = trussGraphFromEdges(4, clique([0, 1, 2, 3]));
    const other = trussGraphFromEdges(3, clique([0, 1, 2]));
    expect(() => inducedTriangles(edgeTriangles(other), g, inducedSubgraph(g, [0, 1]))).toThrow(
      /covers 3 edges but the graph has 6/,
    );
  });
});

describe('from a listing of the triangles', () => {
  test('trussDecomposition gives the brute-force trussness and the same supports (property)', () => {
    fc.assert(
      fc.property(graphAndNodes, ({ n, edges }) => {
        const g = trussGraphFromEdges(n, edges);
        const fromList = trussDecomposition(g, { triangles: edgeTriangles(g) });
        const plain = trussDecomposition(g);
        const brute = bruteTrussness(n, edges);
        expect(Array.from(fromList.trussness)).toEqual(edges.map(([a, b]) => brute.get(pairKey(a, b))));
        expect(Array.from(fromList.support)).toEqual(Array.from(plain.support));
        expect(fromList.maxTrussness).toBe(plain.maxTrussness);
      }),
      { numRuns: 200 },
    );
  });

  test('a TrussIndex of an induced subgraph given its triangles searches as one without them (property)', () => {
    fc.assert(
      fc.property(
        graphAndNodes,
        fc.integer({ min: 2, max: 6 }),
        fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
        ({ n, edges, nodes, next }, k, bound) => {
          const g = trussGraphFromEdges(n, edges);
          const sub = inducedSubgraph(g, nodes);
          const given = new TrussIndex(sub.graph, { triangles: inducedTriangles(edgeTriangles(g), g, sub) });
          const plain = new TrussIndex(sub.graph);
          expect(Array.from(given.decomposition.trussness)).toEqual(
            Array.from(plain.decomposition.trussness),
          );
          const rel = Array.from({ length: nodes.length }, () => Math.round(next() * 10) / 10);
          const keep = nodes.length > 0 ? [Math.floor(next() * nodes.length)] : [];
          const shown = (cs: readonly Community[]) =>
            cs.map((c) => [Array.from(c.nodes), Array.from(c.edges), c.qrScore, c.initialQrScore]);
          // Two k in increasing order: the second is prepared from the first's triangles.
          for (const kk of [k, k + 1]) {
            for (const options of [{}, { keep, ...(bound === undefined ? {} : { maxNodes: bound }) }]) {
              const a = given.qPeel(kk, rel, options);
              const b = plain.qPeel(kk, rel, options);
              expect(shown(a.communities)).toEqual(shown(b.communities));
              expect(a.checks).toBe(b.checks);
            }
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  test('TrussIndex takes a decomposition alone as before, and refuses one of another graph', () => {
    const g = trussGraphFromEdges(4, clique([0, 1, 2, 3]));
    const decomposition = trussDecomposition(g);
    expect(new TrussIndex(g, decomposition).decomposition).toBe(decomposition);
    expect(new TrussIndex(g, { decomposition }).maxTrussness).toBe(4);
    const other = trussGraphFromEdges(3, clique([0, 1, 2]) as Pair[]);
    expect(() => new TrussIndex(g, trussDecomposition(other))).toThrow(
      /decomposition covers 3 edges but the graph has 6/,
    );
    expect(() => new TrussIndex(g, { triangles: edgeTriangles(other) })).toThrow(/triangles covers 3 edges/);
  });
});
