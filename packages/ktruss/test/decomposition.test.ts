import { InvalidArgumentError } from '@grag/core';
import { lcg32 } from '@grag/core/test';
import fc from 'fast-check';
import { DirectedGraph, MultiUndirectedGraph, UndirectedGraph } from 'graphology';
import { describe, expect, test } from 'vitest';
import {
  assignTrussness,
  edgeSupport,
  edgeTriangles,
  edgeTrianglesWithin,
  kTruss,
  maximalKTruss,
  nodeTrussness,
  toTrussGraph,
  trussDecomposition,
  trussGraphFromEdges,
} from '../src/index.js';
import {
  adjacency,
  bruteKTruss,
  bruteTrussness,
  clique,
  isConnected,
  type Pair,
  pairKey,
  trianglesOn,
} from './oracle.js';

/** A random simple graph: n nodes, each pair an edge with probability p (fast-check arbitrary). */
const randomGraph = fc
  .record({
    n: fc.integer({ min: 1, max: 14 }),
    p: fc.double({ min: 0.1, max: 0.9, noNaN: true }),
    seed: fc.nat(),
  })
  .map(({ n, p, seed }) => {
    const next = lcg32(seed >>> 0 || 1);
    const edges: Pair[] = [];
    for (let a = 0; a < n; a++)
      for (let b = a + 1; b < n; b++) if (next() < p) edges.push(next() < 0.5 ? [a, b] : [b, a]);
    // shuffle so edge ids are not in pair order
    for (let i = edges.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [edges[i], edges[j]] = [edges[j]!, edges[i]!];
    }
    return { n, edges };
  });

describe('trussGraphFromEdges', () => {
  test('sorts every row and keeps edge ids in list order', () => {
    const g = trussGraphFromEdges(4, [
      [3, 0],
      [1, 0],
      [2, 3],
      [0, 2],
    ]);
    expect(Array.from(g.neighbors.subarray(g.offsets[0]!, g.offsets[1]!))).toEqual([1, 2, 3]);
    expect(Array.from(g.edgeIds.subarray(g.offsets[0]!, g.offsets[1]!))).toEqual([1, 3, 0]);
    expect([Array.from(g.sources), Array.from(g.targets)]).toEqual([
      [0, 0, 2, 0],
      [3, 1, 3, 2],
    ]);
  });

  test('reads a flat typed array of pairs like a list of pairs', () => {
    const flat = trussGraphFromEdges(3, Uint32Array.from([0, 1, 1, 2, 2, 0]));
    const pairs = trussGraphFromEdges(3, [
      [0, 1],
      [1, 2],
      [2, 0],
    ]);
    expect(flat.neighbors).toEqual(pairs.neighbors);
    expect(flat.edgeIds).toEqual(pairs.edgeIds);
  });

  test('rejects self-loops, parallel edges and endpoints out of range with InvalidArgumentError', () => {
    expect(() => trussGraphFromEdges(3, [[1, 1]])).toThrow(/self-loop on node 1/);
    expect(() =>
      trussGraphFromEdges(3, [
        [0, 1],
        [1, 0],
      ]),
    ).toThrow(/edges 0 and 1 both join nodes 0 and 1 \(a multigraph\)/);
    expect(() => trussGraphFromEdges(2, [[0, 2]])).toThrow(/endpoints must be integers in \[0, 2\)/);
    try {
      trussGraphFromEdges(3, [[1, 1]]);
    } catch (error) {
      expect(InvalidArgumentError.isInstance(error)).toBe(true);
      expect((error as InvalidArgumentError).argument).toBe('edges');
    }
  });
});

describe('toTrussGraph', () => {
  test('rejects a directed graph, naming what to do', () => {
    const g = new DirectedGraph();
    g.mergeEdge('a', 'b');
    expect(() => toTrussGraph(g)).toThrow(/directed.*needs an undirected graph/);
    expect(() => trussDecomposition(g)).toThrow(InvalidArgumentError);
  });

  test('rejects a multigraph with parallel edges', () => {
    const g = new MultiUndirectedGraph();
    g.mergeEdgeWithKey('e1', 'a', 'b');
    g.mergeEdgeWithKey('e2', 'b', 'a');
    expect(() => toTrussGraph(g)).toThrow(/edges "e1" and "e2" both join "a" and "b" \(a multigraph\)/);
  });

  test('rejects self-loops', () => {
    const g = new UndirectedGraph();
    g.mergeEdge('a', 'a');
    expect(() => toTrussGraph(g)).toThrow(/1 self-loop/);
  });
});

describe('edgeSupport', () => {
  test('counts the triangles of every edge (property against a brute-force count)', () => {
    fc.assert(
      fc.property(randomGraph, ({ n, edges }) => {
        const support = edgeSupport(trussGraphFromEdges(n, edges));
        const adj = adjacency(n, edges);
        expect(Array.from(support)).toEqual(edges.map(([a, b]) => trianglesOn(adj, a, b)));
      }),
      { numRuns: 150 },
    );
  });

  test('counts only triangles of unmasked edges', () => {
    // K4 on 0..3; mask out edge {0, 1}: only triangle {1, 2, 3} and {0, 2, 3} remain.
    const edges = clique([0, 1, 2, 3]);
    const g = trussGraphFromEdges(4, edges);
    const mask = edges.map(([a, b]) => (a === 0 && b === 1 ? 0 : 1));
    expect(Array.from(edgeSupport(g, mask))).toEqual([0, 1, 1, 1, 1, 2]);
  });
});

describe('edgeTriangles', () => {
  /** Each edge's triangles as `[x, {s, x}, {t, x}]` from the brute-force adjacency, x ascending. */
  const bruteTriangles = (n: number, edges: readonly Pair[], keep: (e: number) => boolean) => {
    const kept = edges.filter((_, e) => keep(e));
    const adj = adjacency(n, kept);
    const id = new Map(edges.map(([a, b], e) => [pairKey(a, b), e]));
    return edges.map(([a, b], e) => {
      if (!keep(e)) return [];
      const [s, t] = a < b ? [a, b] : [b, a];
      return [...adj[s]!]
        .filter((x) => x !== t && adj[t]!.has(x))
        .sort((x, y) => x - y)
        .map((x) => [x, id.get(pairKey(s, x))!, id.get(pairKey(t, x))!]);
    });
  };
  const listed = (t: ReturnType<typeof edgeTriangles>, m: number) =>
    Array.from({ length: m }, (_, e) =>
      Array.from({ length: t.offsets[e + 1]! - t.offsets[e]! }, (_, j) => {
        const i = t.offsets[e]! + j;
        return [t.entries[3 * i]!, t.entries[3 * i + 1]!, t.entries[3 * i + 2]!];
      }),
    );

  test('lists every triangle on each of its edges, by third node, with the two other edges (property)', () => {
    fc.assert(
      fc.property(randomGraph, fc.nat(), ({ n, edges }, seed) => {
        const g = trussGraphFromEdges(n, edges);
        expect(listed(edgeTriangles(g), edges.length)).toEqual(bruteTriangles(n, edges, () => true));
        const mask = edges.map((_, e) => ((seed >> (e % 30)) & 1 ? 1 : 0) | (e % 3 === 0 ? 1 : 0));
        const masked = edgeTriangles(g, mask, edgeSupport(g, mask));
        expect(listed(masked, edges.length)).toEqual(bruteTriangles(n, edges, (e) => mask[e] === 1));
      }),
      { numRuns: 150 },
    );
  });

  test('edgeTrianglesWithin filters a listing to a subgraph: the brute-force triangles of the flagged edges (property)', () => {
    fc.assert(
      fc.property(randomGraph, fc.nat(), fc.nat(), ({ n, edges }, a, b) => {
        const g = trussGraphFromEdges(n, edges);
        // A subgraph, then a subgraph of it: the second listing from the first.
        const outer = edges.map((_, e) => ((a >> (e % 30)) & 1) | (e % 3 === 0 ? 1 : 0));
        const inner = outer.map((o, e) => o & (((b >> (e % 29)) & 1) | (e % 2)));
        const { support, triangles } = edgeTrianglesWithin(edgeTriangles(g, outer), inner);
        const expected = bruteTriangles(n, edges, (e) => inner[e] === 1);
        expect(listed(triangles, edges.length)).toEqual(expected);
        expect(Array.from(support)).toEqual(expected.map((t) => t.length));
      }),
      { numRuns: 150 },
    );
  });

  test('sorts long lists too: edge {0, 1} in 40 triangles, listed out of order', () => {
    // Nodes 2..21 join 0 and 1 only; nodes 22..41 join 0, 1 and 50 more nodes each, so they rank
    // above 0 and 1 and their triangles on {0, 1} are found before those of 2..21.
    const edges: Pair[] = [[0, 1]];
    for (let x = 2; x < 42; x++) edges.push([0, x], [1, x]);
    for (let x = 22; x < 42; x++) for (let y = 42; y < 92; y++) edges.push([x, y]);
    const t = edgeTriangles(trussGraphFromEdges(92, edges));
    expect(listed(t, edges.length)).toEqual(bruteTriangles(92, edges, () => true));
  });
});

describe('trussDecomposition', () => {
  test('gives every edge of a clique of 5 trussness 5', () => {
    const { trussness, maxTrussness } = trussDecomposition(trussGraphFromEdges(5, clique([0, 1, 2, 3, 4])));
    expect(Array.from(trussness)).toEqual(new Array(10).fill(5));
    expect(maxTrussness).toBe(5);
  });

  test('gives two 4-cliques trussness 4 and the bridge between them trussness 2', () => {
    const edges = [...clique([0, 1, 2, 3]), [3, 4] as Pair, ...clique([4, 5, 6, 7])];
    const { trussness } = trussDecomposition(trussGraphFromEdges(8, edges));
    expect(Array.from(trussness)).toEqual([4, 4, 4, 4, 4, 4, 2, 4, 4, 4, 4, 4, 4]);
  });

  test('gives a triangle-free graph trussness 2 everywhere and an empty graph nothing', () => {
    const cycle: Pair[] = [
      [0, 1],
      [1, 2],
      [2, 3],
      [3, 4],
      [4, 0],
    ];
    expect(Array.from(trussDecomposition(trussGraphFromEdges(5, cycle)).trussness)).toEqual([2, 2, 2, 2, 2]);
    expect(trussDecomposition(trussGraphFromEdges(3, [])).maxTrussness).toBe(0);
  });

  test('matches the brute-force trussness on random graphs', () => {
    fc.assert(
      fc.property(randomGraph, ({ n, edges }) => {
        const { trussness } = trussDecomposition(trussGraphFromEdges(n, edges));
        const expected = bruteTrussness(n, edges);
        expect(Array.from(trussness)).toEqual(edges.map(([a, b]) => expected.get(pairKey(a, b))));
      }),
      { numRuns: 150 },
    );
  });

  test('every edge of each k-truss is in at least k − 2 triangles inside it, and no removed edge could be kept', () => {
    fc.assert(
      fc.property(randomGraph, ({ n, edges }) => {
        const { trussness, maxTrussness } = trussDecomposition(trussGraphFromEdges(n, edges));
        for (let k = 3; k <= maxTrussness + 1; k++) {
          const inside = edges.filter((_, e) => trussness[e]! >= k);
          const adj = adjacency(n, inside);
          for (const [a, b] of inside) expect(trianglesOn(adj, a, b)).toBeGreaterThanOrEqual(k - 2);
          // Maximality: adding back any single removed edge leaves it in fewer than k − 2 triangles.
          for (const [a, b] of edges.filter((_, e) => trussness[e]! < k)) {
            expect(trianglesOn(adj, a, b)).toBeLessThan(k - 2);
          }
        }
      }),
      { numRuns: 150 },
    );
  });

  test('matches the brute-force trussness on graphs with a hub of much higher degree', () => {
    // A hub joined to most nodes makes rows of very different lengths (the binary-search path).
    fc.assert(
      fc.property(fc.integer({ min: 20, max: 45 }), fc.nat(), (n, seed) => {
        const next = lcg32(seed >>> 0 || 3);
        const edges: Pair[] = [];
        for (let v = 1; v < n; v++) if (next() < 0.9) edges.push([0, v]);
        for (let a = 1; a < n; a++) for (let b = a + 1; b < n; b++) if (next() < 3 / n) edges.push([a, b]);
        const { trussness } = trussDecomposition(trussGraphFromEdges(n, edges));
        const expected = bruteTrussness(n, edges);
        expect(Array.from(trussness)).toEqual(edges.map(([a, b]) => expected.get(pairKey(a, b))));
      }),
      { numRuns: 40 },
    );
  });

  test('peels a larger random graph consistently with the definition', () => {
    // 300 nodes, ~4,500 edges, planted dense groups: checks the bins on many support levels.
    const next = lcg32(12345);
    const edges: Pair[] = [];
    for (let a = 0; a < 300; a++) {
      for (let b = a + 1; b < 300; b++) {
        const p = Math.floor(a / 30) === Math.floor(b / 30) ? 0.35 + (a % 30) / 60 : 0.05;
        if (next() < p) edges.push([a, b]);
      }
    }
    const { trussness, maxTrussness } = trussDecomposition(trussGraphFromEdges(300, edges));
    for (const k of [3, Math.ceil(maxTrussness / 2), maxTrussness, maxTrussness + 1]) {
      const expected = bruteKTruss(300, edges, k);
      const actual = new Set(edges.filter((_, e) => trussness[e]! >= k).map(([a, b]) => pairKey(a, b)));
      expect(actual).toEqual(expected);
    }
  });

  test('writes trussness onto a graphology graph with assignTrussness', () => {
    const g = new UndirectedGraph();
    for (const [a, b] of clique([0, 1, 2, 3])) g.mergeEdgeWithKey(`e${a}${b}`, String(a), String(b));
    g.mergeEdgeWithKey('tail', '3', '4');
    assignTrussness(g, { nodeAttribute: 'truss' });
    expect(g.getEdgeAttribute('e01', 'trussness')).toBe(4);
    expect(g.getEdgeAttribute('tail', 'trussness')).toBe(2);
    expect(g.getNodeAttribute('4', 'truss')).toBe(2);
    expect(g.getNodeAttribute('3', 'truss')).toBe(4);
    expect(Array.from(nodeTrussness(trussDecomposition(g)))).toEqual([4, 4, 4, 4, 2]);
  });
});

describe('maximalKTruss', () => {
  test('splits two cliques joined by a bridge into two components', () => {
    const edges = [...clique([0, 1, 2, 3]), [3, 4] as Pair, ...clique([4, 5, 6, 7, 8])];
    const g = trussGraphFromEdges(9, edges);
    const t3 = maximalKTruss(g, 3);
    expect(t3.components.map((c) => Array.from(c.nodes))).toEqual([
      [4, 5, 6, 7, 8],
      [0, 1, 2, 3],
    ]);
    expect(t3.edges).not.toContain(6); // the bridge
    expect(maximalKTruss(g, 5).components.map((c) => Array.from(c.nodes))).toEqual([[4, 5, 6, 7, 8]]);
    // The 2-truss is everything: one component.
    expect(maximalKTruss(g, 2).components).toHaveLength(1);
  });

  test('is empty when no edge reaches k', () => {
    const t = maximalKTruss(trussGraphFromEdges(5, clique([0, 1, 2, 3, 4])), 6);
    expect([t.nodes.length, t.edges.length, t.components.length]).toEqual([0, 0, 0]);
  });

  test('components partition the k-truss into connected parts (property)', () => {
    fc.assert(
      fc.property(randomGraph, fc.integer({ min: 2, max: 6 }), ({ n, edges }, k) => {
        const t = maximalKTruss(trussGraphFromEdges(n, edges), k);
        const expected = bruteKTruss(n, edges, k);
        expect(new Set(Array.from(t.edges, (e) => pairKey(...edges[e]!)))).toEqual(expected);
        const seen = new Set<number>();
        for (const c of t.components) {
          const cEdges = Array.from(c.edges, (e) => edges[e]!);
          expect(isConnected(Array.from(c.nodes), cEdges)).toBe(true);
          for (const v of c.nodes) {
            expect(seen.has(v)).toBe(false);
            seen.add(v);
          }
        }
        expect(seen.size).toBe(t.nodes.length);
      }),
      { numRuns: 100 },
    );
  });

  test('rejects k below 2 and a trussness array of another graph', () => {
    const g = trussGraphFromEdges(3, clique([0, 1, 2]));
    expect(() => maximalKTruss(g, 1)).toThrow(/k must be an integer of at least 2/);
    expect(() => maximalKTruss(g, 3.5)).toThrow(InvalidArgumentError);
    expect(() => maximalKTruss(g, 3, { trussness: [3] })).toThrow(
      /trussness has 1 entries but the graph has 3 edges/,
    );
  });
});

describe('kTruss (graphology)', () => {
  test('returns the k-truss as a new graph with keys and attributes', () => {
    const g = new UndirectedGraph();
    for (const [a, b] of clique([0, 1, 2, 3]))
      g.mergeEdgeWithKey(`e${a}${b}`, `n${a}`, `n${b}`, { w: a + b });
    g.mergeEdgeWithKey('bridge', 'n3', 'n4');
    g.setNodeAttribute('n0', 'label', 'zero');
    const t = kTruss(g, 4);
    expect(t.nodes().sort()).toEqual(['n0', 'n1', 'n2', 'n3']);
    expect(t.edges().sort()).toEqual(['e01', 'e02', 'e03', 'e12', 'e13', 'e23']);
    expect(t.getEdgeAttribute('e23', 'w')).toBe(5);
    expect(t.getNodeAttribute('n0', 'label')).toBe('zero');
    expect(g.order).toBe(5); // the input is untouched
  });
});
