import { InvalidArgumentError } from '@grag/core';
import { lcg32 } from '@grag/core/test';
import fc from 'fast-check';
import { UndirectedGraph } from 'graphology';
import { describe, expect, test } from 'vitest';
import {
  compareCommunities,
  maximalKTruss,
  type PreparedTruss,
  peelTruss,
  prepareTruss,
  qPeel,
  qrScore,
  queryRelevance,
  TrussIndex,
  trussGraphFromEdges,
} from '../src/index.js';
import { byAscendingRelevance } from '../src/peel.js';
import { bruteKTruss, clique, isConnectedKTruss, type Pair, pairKey, randomPairs } from './oracle.js';
import { referencePeel, referencePrepare } from './reference-peel.js';

const randomInstance = fc
  .record({
    n: fc.integer({ min: 3, max: 13 }),
    p: fc.double({ min: 0.3, max: 0.95, noNaN: true }),
    seed: fc.nat(),
    k: fc.integer({ min: 2, max: 5 }),
  })
  .map(({ n, p, seed, k }) => {
    const next = lcg32(seed >>> 0 || 7);
    const edges = randomPairs(n, p, next);
    // relevance on a coarse grid so ties happen too
    const relevance = Array.from({ length: n }, () => Math.round(next() * 10) / 10);
    return { n, edges, relevance, k };
  });

/** Components of the brute-force k-truss, as node lists. */
function bruteComponents(n: number, edges: readonly Pair[], k: number): { nodes: number[]; edges: Pair[] }[] {
  const truss = bruteKTruss(n, edges, k);
  const kept = edges.filter(([a, b]) => truss.has(pairKey(a, b)));
  const nodes = [...new Set(kept.flat())];
  const out: { nodes: number[]; edges: Pair[] }[] = [];
  const done = new Set<number>();
  for (const start of nodes) {
    if (done.has(start)) continue;
    const members = new Set([start]);
    const stack = [start];
    while (stack.length > 0) {
      const u = stack.pop()!;
      for (const [a, b] of kept) {
        const w = a === u ? b : b === u ? a : -1;
        if (w >= 0 && !members.has(w)) {
          members.add(w);
          stack.push(w);
        }
      }
    }
    for (const v of members) done.add(v);
    out.push({ nodes: [...members], edges: kept.filter(([a]) => members.has(a)) });
  }
  return out;
}

const mean = (nodes: readonly number[], rel: readonly number[]) =>
  nodes.reduce((s, v) => s + rel[v]!, 0) / nodes.length;

describe('queryRelevance and qrScore', () => {
  test('QRScore is the mean cosine similarity of the nodes to the query (Eq. 1)', () => {
    const rel = queryRelevance(
      [1, 0],
      [
        [2, 0],
        [0, 3],
        [1, 1],
        [0, 0],
      ],
    );
    expect(rel[0]).toBe(1);
    expect(rel[1]).toBe(0);
    expect(rel[2]).toBeCloseTo(Math.SQRT1_2, 12);
    expect(rel[3]).toBe(0);
    expect(qrScore([0, 1, 2], rel)).toBeCloseTo((1 + 0 + Math.SQRT1_2) / 3, 12);
    expect(qrScore([], rel)).toBeNaN();
    expect(() => queryRelevance([1, 0], [[1, 0, 0]])).toThrow(/vector 0 has 3 dimensions, the query 2/);
  });
});

describe('compareCommunities', () => {
  test('ranks by QRScore, then size, then lowest node (hand-made communities)', () => {
    const c = (qrScore: number, ...nodes: number[]) => ({ qrScore, nodes: Uint32Array.from(nodes) });
    const ranked = [c(0.5, 4, 5, 6), c(0.7, 9, 10, 11), c(0.5, 1, 2, 3), c(0.5, 7, 8, 9, 12)].sort(
      compareCommunities,
    );
    expect(ranked.map((x) => [x.qrScore, x.nodes[0]])).toEqual([
      [0.7, 9],
      [0.5, 7],
      [0.5, 1],
      [0.5, 4],
    ]);
  });
});

describe('qPeel', () => {
  test('peels the least relevant node off a 5-clique when a 4-truss remains', () => {
    const g = trussGraphFromEdges(5, clique([0, 1, 2, 3, 4]));
    const rel = [0.1, 0.9, 0.8, 0.9, 0.7];
    const at4 = qPeel(g, 4, rel).communities[0]!;
    expect(Array.from(at4.nodes)).toEqual([1, 2, 3, 4]);
    expect(at4.qrScore).toBeCloseTo(0.825, 12);
    expect(at4.initialQrScore).toBeCloseTo(0.68, 12);
    expect(at4.removed).toBe(1);
    // 4 nodes are the fewest a 4-truss has: the 0.7 node stays. At k = 5 nothing can go.
    expect(Array.from(qPeel(g, 5, rel).communities[0]!.nodes)).toEqual([0, 1, 2, 3, 4]);
    // At k = 3 the 0.7 node goes as well (a triangle is a 3-truss); the 0.8 one stays (3 nodes at least).
    expect(Array.from(qPeel(g, 3, rel).communities[0]!.nodes)).toEqual([1, 2, 3]);
  });

  test('keeps a node whose removal would disconnect the community', () => {
    // Two 5-cliques sharing node 4. Without node 4 each clique is still a 4-truss, but apart.
    const edges = [...clique([0, 1, 2, 3, 4]), ...clique([4, 5, 6, 7, 8])];
    const g = trussGraphFromEdges(9, edges);
    const rel = [0.5, 0.5, 0.5, 0.5, 0, 0.5, 0.5, 0.5, 0.5];
    const [best] = qPeel(g, 4, rel).communities;
    expect(Array.from(best!.nodes)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
  });

  test('returns the best component of two cliques joined by a bridge, and the others with top', () => {
    const edges = [...clique([0, 1, 2, 3]), [3, 4] as Pair, ...clique([4, 5, 6, 7])];
    const g = trussGraphFromEdges(8, edges);
    const rel = [0.2, 0.2, 0.2, 0.2, 0.6, 0.7, 0.6, 0.6];
    const result = qPeel(g, 4, rel, { top: 5 });
    expect(result.components).toBe(2);
    expect(result.communities.map((c) => Array.from(c.nodes))).toEqual([
      [4, 5, 6, 7],
      [0, 1, 2, 3],
    ]);
    expect(qPeel(g, 4, rel).communities).toHaveLength(1);
  });

  test('returns no community when the k-truss is empty', () => {
    const g = trussGraphFromEdges(4, [
      [0, 1],
      [1, 2],
      [2, 3],
    ]);
    const result = qPeel(g, 3, [1, 1, 1, 1]);
    expect(result.communities).toEqual([]);
    expect(result.components).toBe(0);
  });

  test('works on graphology graphs with relevance given per node key', () => {
    const graph = new UndirectedGraph();
    for (const [a, b] of clique([0, 1, 2, 3])) graph.mergeEdge(`n${a}`, `n${b}`);
    const rel: Record<string, number> = { n0: 0, n1: 1, n2: 1, n3: 1 };
    const [best] = qPeel(graph, 3, (key) => rel[key]!).communities;
    expect(best!.keys).toEqual(['n1', 'n2', 'n3']);
  });

  test('rejects relevance of the wrong length or with a non-finite value, and k below 2', () => {
    const g = trussGraphFromEdges(3, clique([0, 1, 2]));
    expect(() => qPeel(g, 3, [1, 1])).toThrow(/relevance has 2 entries but the graph has 3 nodes/);
    expect(() => qPeel(g, 3, [1, Number.NaN, 1])).toThrow(/relevance of node "1" is NaN/);
    expect(() => qPeel(g, 0, [1, 1, 1])).toThrow(InvalidArgumentError);
  });

  test('returns connected k-trusses whose QRScore is at least their starting component’s, where no further removal is valid (property)', () => {
    fc.assert(
      fc.property(randomInstance, ({ n, edges, relevance, k }) => {
        const g = trussGraphFromEdges(n, edges);
        const result = qPeel(g, k, relevance, { top: n });
        const components = bruteComponents(n, edges, k);
        expect(result.communities).toHaveLength(components.length);
        const trussEdges = components.flatMap((c) => c.edges);
        let previous = Number.POSITIVE_INFINITY;
        for (const community of result.communities) {
          const nodes = Array.from(community.nodes);
          // A connected k-truss, with every k-truss edge among its nodes.
          expect(isConnectedKTruss(nodes, trussEdges, k)).toBe(true);
          const inside = new Set(nodes);
          const expectedEdges = trussEdges
            .filter(([a, b]) => inside.has(a) && inside.has(b))
            .map(([a, b]) => pairKey(a, b));
          expect(new Set(Array.from(community.edges, (e) => pairKey(...edges[e]!)))).toEqual(
            new Set(expectedEdges),
          );
          // Peeled from exactly one component, and at least as relevant as it.
          const origin = components.find((c) => c.nodes.includes(nodes[0]!))!;
          expect(nodes.every((v) => origin.nodes.includes(v))).toBe(true);
          expect(community.initialQrScore).toBeCloseTo(mean(origin.nodes, relevance), 12);
          expect(community.qrScore).toBeCloseTo(mean(nodes, relevance), 12);
          expect(community.qrScore).toBeGreaterThanOrEqual(community.initialQrScore - 1e-12);
          // Stopping rule: no single node below the mean can go while leaving a connected k-truss.
          for (const v of nodes) {
            if (!(relevance[v]! < community.qrScore - 1e-12)) continue;
            const rest = nodes.filter((w) => w !== v);
            const restEdges = trussEdges.filter(([a, b]) => a !== v && b !== v);
            expect(isConnectedKTruss(rest, restEdges, k)).toBe(false);
          }
          expect(community.qrScore).toBeLessThanOrEqual(previous + 1e-12);
          previous = community.qrScore;
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('qPeel with a size bound (maxNodes)', () => {
  test('peels a 6-clique of equally relevant nodes down to 4, a 3-truss (Q-Peel alone keeps all 6)', () => {
    const g = trussGraphFromEdges(6, clique([0, 1, 2, 3, 4, 5]));
    const flat = [0.5, 0.5, 0.5, 0.5, 0.5, 0.5];
    expect(qPeel(g, 3, flat).communities[0]!.nodes.length).toBe(6);
    // Least relevant first, ties by index: 0 and 1 go.
    expect(Array.from(qPeel(g, 3, flat, { maxNodes: 4 }).communities[0]!.nodes)).toEqual([2, 3, 4, 5]);
    // Below the mean Q-Peel already goes down to the 3 most relevant; the bound changes nothing then.
    const graded = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4];
    expect(Array.from(qPeel(g, 3, graded, { maxNodes: 4 }).communities[0]!.nodes)).toEqual([0, 1, 2]);
  });

  test('undoes a removal that would leave nothing: a triangle stays whole under maxNodes 1', () => {
    const g = trussGraphFromEdges(3, clique([0, 1, 2]));
    const [best] = qPeel(g, 3, [0.1, 0.2, 0.3], { maxNodes: 1 }).communities;
    expect(Array.from(best!.nodes)).toEqual([0, 1, 2]);
  });

  test('with query nodes, searches only their components and never peels them', () => {
    // Two 4-cliques joined by a bridge edge: {0..3} and {4..7}; node 4 is the query vertex.
    const g = trussGraphFromEdges(8, [...clique([0, 1, 2, 3]), ...clique([4, 5, 6, 7]), [3, 4]]);
    const relevance = [0.9, 0.9, 0.9, 0.9, 0.1, 0.5, 0.5, 0.5];
    expect(Array.from(qPeel(g, 3, relevance).communities[0]!.nodes)).toEqual([0, 1, 2, 3]);
    const [withQuery] = qPeel(g, 3, relevance, { keep: [4], maxNodes: 3 }).communities;
    expect(withQuery!.nodes).toContain(4);
    expect(withQuery!.nodes.length).toBe(3);
  });

  test('returns connected k-trusses over their own edges, within the bound whenever one remains (property)', () => {
    fc.assert(
      fc.property(randomInstance, fc.integer({ min: 1, max: 8 }), ({ n, edges, relevance, k }, maxNodes) => {
        const g = trussGraphFromEdges(n, edges);
        const keep = relevance.length > 0 ? [0] : [];
        const result = qPeel(g, k, relevance, { top: n, maxNodes });
        for (const community of qPeel(g, k, relevance, { top: n, maxNodes, keep }).communities) {
          expect(community.nodes).toContain(0);
          expect(
            isConnectedKTruss(
              Array.from(community.nodes),
              Array.from(community.edges, (e) => edges[e]!),
              k,
            ),
          ).toBe(true);
        }
        const components = bruteComponents(n, edges, k);
        const trussEdges = new Set(components.flatMap((c) => c.edges).map(([a, b]) => pairKey(a, b)));
        for (const community of result.communities) {
          const nodes = Array.from(community.nodes);
          const own = Array.from(community.edges, (e) => edges[e]!);
          expect(own.every(([a, b]) => trussEdges.has(pairKey(a, b)))).toBe(true);
          expect(isConnectedKTruss(nodes, own, k)).toBe(true);
          const origin = components.find((c) => c.nodes.includes(nodes[0]!))!;
          expect(nodes.every((v) => origin.nodes.includes(v))).toBe(true);
          // Over the bound only when the last peeling step would have emptied the component.
          if (nodes.length > maxNodes) expect(nodes.length).toBeLessThanOrEqual(origin.nodes.length);
        }
        expect(() => qPeel(g, k, relevance, { maxNodes: 0 })).toThrow(InvalidArgumentError);
      }),
      { numRuns: 200 },
    );
  });
});

describe('TrussIndex', () => {
  test('gives the same communities as qPeel for every k and query, reusing its cached trusses', () => {
    fc.assert(
      fc.property(
        randomInstance,
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 13, maxLength: 13 }),
        ({ n, edges, relevance, k }, other) => {
          const g = trussGraphFromEdges(n, edges);
          const index = new TrussIndex(g);
          for (const rel of [relevance, other.slice(0, n), relevance]) {
            const a = index.qPeel(k, rel, { top: 3 });
            const b = qPeel(g, k, rel, { top: 3 });
            expect(a.communities.map((c) => [Array.from(c.nodes), Array.from(c.edges), c.qrScore])).toEqual(
              b.communities.map((c) => [Array.from(c.nodes), Array.from(c.edges), c.qrScore]),
            );
          }
          expect(index.truss(k)).toBe(index.truss(k));
        },
      ),
      { numRuns: 60 },
    );
  });

  test('a k-truss prepared from a smaller k searched before gives what qPeel gives (property)', () => {
    fc.assert(
      fc.property(randomInstance, fc.integer({ min: 1, max: 8 }), ({ n, edges, relevance, k }, maxNodes) => {
        const g = trussGraphFromEdges(n, edges);
        const index = new TrussIndex(g);
        // k - 1 and then 2 first: the truss at k is filtered from the one at k - 1 (or from 2's).
        for (const j of [Math.max(2, k - 1), 2]) index.qPeel(j, relevance);
        for (const options of [{ top: 3 }, { maxNodes, keep: [0] }]) {
          const a = index.qPeel(k, relevance, options);
          const b = qPeel(g, k, relevance, options);
          expect([
            a.components,
            a.checks,
            a.communities.map((c) => [Array.from(c.nodes), Array.from(c.edges), c.qrScore]),
          ]).toEqual([
            b.components,
            b.checks,
            b.communities.map((c) => [Array.from(c.nodes), Array.from(c.edges), c.qrScore]),
          ]);
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe('peelTruss', () => {
  /** Sparser and larger graphs than `randomInstance`, many nodes of relevance 0 (as with lexical relevance). */
  const peelInstance = fc
    .record({
      n: fc.integer({ min: 4, max: 40 }),
      p: fc.double({ min: 0.1, max: 0.7, noNaN: true }),
      zeros: fc.double({ min: 0, max: 0.95, noNaN: true }),
      seed: fc.nat(),
      k: fc.integer({ min: 2, max: 6 }),
      maxNodes: fc.oneof(fc.constant(Number.POSITIVE_INFINITY), fc.integer({ min: 1, max: 12 })),
      maxSweeps: fc.oneof(fc.constant(Number.POSITIVE_INFINITY), fc.integer({ min: 1, max: 3 })),
      keeps: fc.integer({ min: 0, max: 2 }),
      top: fc.integer({ min: 1, max: 3 }),
    })
    .map(({ n, p, zeros, seed, ...rest }) => {
      const next = lcg32(seed >>> 0 || 7);
      const edges = randomPairs(n, p, next);
      const relevance = Array.from({ length: n }, () => (next() < zeros ? 0 : Math.round(next() * 20) / 20));
      const keep = Array.from({ length: rest.keeps }, () => Math.floor(next() * n));
      return { n, edges, relevance, keep, ...rest };
    });

  test('gives exactly the results of the row-scanning peel it replaced: communities, components and checks (property)', () => {
    fc.assert(
      fc.property(peelInstance, ({ n, edges, relevance, keep, k, maxNodes, maxSweeps, top }) => {
        const g = trussGraphFromEdges(n, edges);
        const truss = maximalKTruss(g, k);
        const rel = Float64Array.from(relevance);
        const got = peelTruss(prepareTruss(truss), rel, top, maxSweeps, maxNodes, keep, false);
        const want = referencePeel(referencePrepare(truss), rel, top, maxSweeps, maxNodes, keep);
        expect(got).toEqual(want);
      }),
      { numRuns: 600 },
    );
  });

  /**
   * Instances where the size bound's shortcut applies often: a dense core of relevant nodes (T0)
   * inside a larger graph of nodes of relevance 0, query vertices among the relevant nodes.
   */
  const shortcutInstance = fc
    .record({
      core: fc.integer({ min: 3, max: 14 }),
      rest: fc.integer({ min: 0, max: 30 }),
      pCore: fc.double({ min: 0.5, max: 1, noNaN: true }),
      p: fc.double({ min: 0.1, max: 0.6, noNaN: true }),
      seed: fc.nat(),
      k: fc.integer({ min: 2, max: 5 }),
      maxNodes: fc.integer({ min: 1, max: 8 }),
      keeps: fc.integer({ min: 0, max: 2 }),
      top: fc.integer({ min: 1, max: 2 }),
    })
    .map(({ core, rest, pCore, p, seed, ...other }) => {
      const next = lcg32(seed >>> 0 || 7);
      const n = core + rest;
      // Relevant nodes at random positions, so that nodes of relevance 0 come before and after them.
      const ids = Array.from({ length: n }, (_, i) => i).sort(() => next() - 0.5);
      const relevant = new Set(ids.slice(0, core));
      const edges: Pair[] = [];
      for (let a = 0; a < n; a++) {
        for (let b = a + 1; b < n; b++) {
          if (next() < (relevant.has(a) && relevant.has(b) ? pCore : p)) edges.push([a, b]);
        }
      }
      const relevance = Array.from({ length: n }, (_, v) =>
        relevant.has(v) ? Math.max(0.05, Math.round(next() * 20) / 20) : 0,
      );
      const keep = ids.slice(0, other.keeps);
      return { n, edges, relevance, keep, ...other };
    });

  test("settles a component from the k-truss of its relevant nodes exactly when that gives the full search's communities (property)", () => {
    let settled = 0;
    let runs = 0;
    fc.assert(
      fc.property(shortcutInstance, ({ n, edges, relevance, keep, k, maxNodes, top }) => {
        const g = trussGraphFromEdges(n, edges);
        const truss = maximalKTruss(g, k);
        const rel = Float64Array.from(relevance);
        const inf = Number.POSITIVE_INFINITY;
        const got = peelTruss(prepareTruss(truss), rel, top, inf, maxNodes, keep);
        const full = peelTruss(prepareTruss(truss), rel, top, inf, maxNodes, keep, false);
        const want = referencePeel(referencePrepare(truss), rel, top, inf, maxNodes, keep);
        expect(full).toEqual(want);
        expect(got.communities).toEqual(want.communities);
        expect(got.components).toBe(want.components);
        runs++;
        if ((got.shortcuts ?? 0) > 0 || (got.pruned ?? 0) > 0) {
          settled++;
          // No more removal tests: those of the nodes of relevance 0 in the size bound (and, when the
          // QRScore phase is settled too, its own) are not run.
          expect(got.checks).toBeLessThanOrEqual(want.checks);
        } else expect(got.checks).toBe(want.checks);
      }),
      { numRuns: 800 },
    );
    // The instances do exercise the shortcut (about one in twelve with this seedless generator).
    expect(settled).toBeGreaterThan(runs / 40);
  });

  test("one prepared truss searched with one relevance around several query vertices in turn gives the full search's communities each time (T0 and the live bound reused; property)", () => {
    fc.assert(
      fc.property(shortcutInstance, ({ n, edges, relevance, k, maxNodes, top }) => {
        const truss = maximalKTruss(trussGraphFromEdges(n, edges), k);
        const rel = Float64Array.from(relevance);
        const inf = Number.POSITIVE_INFINITY;
        const prepared = prepareTruss(truss);
        const relevant = relevance.flatMap((r, v) => (r > 0 ? [v] : []));
        for (const keep of [...relevant.slice(0, 4).map((v) => [v]), [], relevant.slice(0, 1)]) {
          const want = referencePeel(referencePrepare(truss), rel, top, inf, maxNodes, keep);
          expect(peelTruss(prepared, rel, top, inf, maxNodes, keep).communities).toEqual(want.communities);
        }
      }),
      { numRuns: 300 },
    );
  });

  /** Several disjoint groups (so several components), relevance on a coarse grid with negatives and ties. */
  const groupsInstance = fc
    .record({
      sizes: fc.array(fc.integer({ min: 2, max: 7 }), { minLength: 2, maxLength: 6 }),
      p: fc.double({ min: 0.5, max: 1, noNaN: true }),
      seed: fc.nat(),
      k: fc.integer({ min: 2, max: 4 }),
      maxNodes: fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }),
      top: fc.integer({ min: 1, max: 3 }),
      keeps: fc.integer({ min: 0, max: 2 }),
    })
    .map(({ sizes, p, seed, ...other }) => {
      const next = lcg32(seed >>> 0 || 11);
      const edges: Pair[] = [];
      let n = 0;
      for (const size of sizes) {
        for (let a = n; a < n + size; a++)
          for (let b = a + 1; b < n + size; b++) if (next() < p) edges.push([a, b]);
        n += size;
      }
      const relevance = Array.from({ length: n }, () => Math.round((next() - 0.2) * 5) / 4);
      const keep = Array.from({ length: other.keeps }, () => Math.floor(next() * n));
      return { n, edges, relevance, keep, ...other };
    });

  test('leaves out the components whose bound is below the best communities found, with the same communities (property)', () => {
    let pruned = 0;
    let runs = 0;
    fc.assert(
      fc.property(groupsInstance, ({ n, edges, relevance, keep, k, maxNodes, top }) => {
        const truss = maximalKTruss(trussGraphFromEdges(n, edges), k);
        const rel = Float64Array.from(relevance);
        const bound = maxNodes ?? Number.POSITIVE_INFINITY;
        const inf = Number.POSITIVE_INFINITY;
        const got = peelTruss(prepareTruss(truss), rel, top, inf, bound, keep);
        const want = referencePeel(referencePrepare(truss), rel, top, inf, bound, keep);
        expect(got.communities).toEqual(want.communities);
        expect(got.components).toBe(want.components);
        expect(got.checks).toBeLessThanOrEqual(want.checks);
        runs++;
        if ((got.pruned ?? 0) > 0) pruned++;
        else if ((got.shortcuts ?? 0) === 0) expect(got.checks).toBe(want.checks);
      }),
      { numRuns: 600 },
    );
    expect(pruned).toBeGreaterThan(runs / 10);
  });

  test('prunes by the mean of the k most relevant nodes: two triangles, the weaker not searched', () => {
    // Triangle {0, 1, 2} of relevance 0.9 and triangle {3, 4, 5} whose best 3 average 0.5.
    const g = trussGraphFromEdges(6, [...clique([0, 1, 2]), ...clique([3, 4, 5])]);
    const rel = [0.9, 0.9, 0.9, 0.6, 0.5, 0.4];
    const result = qPeel(g, 3, rel);
    expect(result.pruned).toBe(1);
    expect(result.checks).toBe(0);
    expect(Array.from(result.communities[0]!.nodes)).toEqual([0, 1, 2]);
    // A top-2 search needs both; without the shortcut nothing is pruned.
    expect(qPeel(g, 3, rel, { top: 2 }).pruned).toBeUndefined();
    expect(qPeel(g, 3, rel, { shortcut: false }).pruned).toBeUndefined();
  });

  test('the shortcut is taken on a planted example: a relevant 4-clique with a fan and an ear of irrelevant nodes', () => {
    // Relevant 4-clique {0, 1, 2, 3}; a fan of irrelevant nodes 4..9 around node 3 (a path 4-…-9,
    // each joined to 3, and 9 joined to 0); an ear of irrelevant nodes 10, 11 on node 0 (a triangle
    // whose edges are in no other). The 3-truss is one component of 12 nodes.
    const edges: Pair[] = [...clique([0, 1, 2, 3])];
    for (let x = 4; x <= 9; x++) edges.push([3, x]);
    for (let x = 4; x < 9; x++) edges.push([x, x + 1]);
    edges.push([0, 9], [0, 10], [0, 11], [10, 11]);
    const g = trussGraphFromEdges(12, edges);
    const rel = Float64Array.from([0.5, 0.5, 0.5, 0.5, 0, 0, 0, 0, 0, 0, 0, 0]);
    const truss = maximalKTruss(g, 3);
    const inf = Number.POSITIVE_INFINITY;
    const got = peelTruss(prepareTruss(truss), rel, 1, inf, 2, [0]);
    const want = referencePeel(referencePrepare(truss), rel, 1, inf, 2, [0]);
    expect(got.shortcuts).toBe(1);
    expect(got.communities).toEqual(want.communities);
    // By hand: the QRScore phase removes the fan (each of its triangles' far edges is in two), not
    // the ear (10 and 11 each leave the other's edge to 0 in no triangle); 6 nodes stay, mean 1/3,
    // below every relevant node. The bound removes the ear, then node 1 (0 is the query), leaving the
    // triangle {0, 2, 3}; removing 2 or 3 would cut off 0 and is undone.
    expect(Array.from(got.communities[0]!.nodes)).toEqual([0, 2, 3]);
    expect(got.communities[0]!.qrScore).toBe(0.5);
    expect(got.communities[0]!.removed).toBe(9);
  });

  test('TrussIndex gives the same results when it starts from a kept QRScore phase: one relevance, several query vertices (property)', () => {
    fc.assert(
      fc.property(
        peelInstance,
        fc.array(fc.integer({ min: 0, max: 39 }), { minLength: 1, maxLength: 4 }),
        ({ n, edges, relevance, k, maxNodes, maxSweeps, top }, seeds) => {
          const g = trussGraphFromEdges(n, edges);
          const index = new TrussIndex(g);
          const prepared = referencePrepare(maximalKTruss(g, k));
          const rel = Float64Array.from(relevance);
          // The same relevance around each query vertex in turn, then with none, then again.
          for (const keep of [...seeds.map((v) => [v % n]), [], [seeds[0]! % n]]) {
            const want = referencePeel(prepared, rel, top, maxSweeps, maxNodes, keep);
            const got = index.qPeel(k, rel, { top, maxSweeps, maxNodes, keep, shortcut: false });
            expect(got).toEqual(want);
            const shortcut = index.qPeel(k, rel, { top, maxSweeps, maxNodes, keep });
            expect(shortcut.communities).toEqual(want.communities);
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  test('makes the triangle lists of a prepared truss that lacks them', () => {
    const g = trussGraphFromEdges(5, [...clique([0, 1, 2, 3]), [3, 4]]);
    const { triangles, ...rest } = prepareTruss(maximalKTruss(g, 3));
    const bare: PreparedTruss = rest;
    const rel = Float64Array.from([0.9, 0.8, 0.1, 0.7, 0]);
    expect(peelTruss(bare, rel, 1, Number.POSITIVE_INFINITY)).toEqual(
      peelTruss({ ...bare, triangles }, rel, 1, Number.POSITIVE_INFINITY),
    );
    expect(bare.triangles?.offsets).toEqual(triangles?.offsets);
  });
});

describe('byAscendingRelevance', () => {
  test('is the nodes sorted by ascending relevance, ties by index (seeded: zeros, negative zero, ties, negatives)', () => {
    let seed = 5;
    const pick = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const values = [0, -0, 0, 0, 0.5, 0.25, -0.25, 1, 0.5, 1e-9, -1];
    for (let trial = 0; trial < 300; trial++) {
      const n = 1 + pick(60);
      const rel = Float64Array.from({ length: n }, () => values[pick(values.length)]!);
      const nodes = Uint32Array.from(Array.from({ length: n }, (_, i) => i).filter(() => pick(3) > 0));
      const sorted = Array.from(nodes).sort((a, b) => rel[a]! - rel[b]! || a - b);
      expect(byAscendingRelevance(nodes, rel)).toEqual(sorted);
    }
  });
});
