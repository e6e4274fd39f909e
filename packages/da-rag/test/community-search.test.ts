import { trussGraphFromEdges } from '@grag/ktruss';
import { describe, expect, test } from 'vitest';
import { byRelevance, type EacsOptions, eacs, oneHop, spreadK } from '../src/community-search.js';
import { layerSearch, PAPER_EACS } from './eacs-fixtures.js';

/** Every pair of `nodes` as an edge. */
const clique = (nodes: number[]): [number, number][] =>
  nodes.flatMap((a, i) => nodes.slice(i + 1).map((b): [number, number] => [a, b]));

describe('spreadK', () => {
  test('spreads k over the feasible range, both ends included', () => {
    expect(spreadK(3, 12, 3, 'geometric')).toEqual([3, 6, 12]);
    expect(spreadK(3, 12, 3, 'linear')).toEqual([3, 8, 12]);
    expect(spreadK(3, 48, 5, 'geometric')).toEqual([3, 6, 12, 24, 48]);
    expect(spreadK(3, 4, 3, 'geometric')).toEqual([3, 4]);
    expect(spreadK(3, 9, 1, 'linear')).toEqual([3]);
    expect(spreadK(3, 2, 3, 'linear')).toEqual([]);
  });
});

describe('byRelevance', () => {
  test('orders by descending relevance, ties by index', () => {
    expect(byRelevance([0, 1, 2, 3], [0.5, 0.9, 0.5, 0.1])).toEqual([1, 0, 2, 3]);
  });
});

describe('eacs', () => {
  // A 4-clique (relevance 0.9) and a 5-clique (0.5): trussness 4 and 5.
  const graph = trussGraphFromEdges(9, [...clique([0, 1, 2, 3]), ...clique([4, 5, 6, 7, 8])]);
  const relevance = [0.9, 0.9, 0.9, 0.9, 0.5, 0.5, 0.5, 0.5, 0.5];

  test('finds the best community at each k of the spread range and merges a community found twice', () => {
    const global = [10, 11, 12, 13, 14, 15, 16, 17, 18];
    const { communities, trace } = eacs('kg', layerSearch(graph, relevance, global), PAPER_EACS);
    expect(trace).toEqual({ nodes: 9, edges: 16, feasibleK: [3, 5], kValues: [3, 4, 5], candidates: 2 });
    // k = 3 and 4: both cliques qualify, the 4-clique has the higher QRScore; k = 5: the 5-clique only.
    expect(communities.map((c) => [c.id, c.ks, c.nodes])).toEqual([
      ['kg-k3+4', [3, 4], [10, 11, 12, 13]],
      ['kg-k5', [5], [14, 15, 16, 17, 18]],
    ]);
    expect(communities[0]!.qrScore).toBeCloseTo(0.9, 12);
    expect(communities[0]!.edges).toHaveLength(6);
    expect(communities[0]!.edges.every(([a, b]) => a >= 10 && a <= 13 && b >= 10 && b <= 13)).toBe(true);
    expect(communities[1]!.qrScore).toBeCloseTo(0.5, 12);
  });

  test('caps the range at kMax and searches only around query vertices (querySeeds)', () => {
    const capped = eacs('kg', layerSearch(graph, relevance), { ...PAPER_EACS, kMax: 3 });
    expect(capped.trace.feasibleK).toEqual([3, 5]);
    expect(capped.trace.kValues).toEqual([3]);
    // The most relevant node sits in the 5-clique: every community holds it.
    const seeded = eacs('kg', layerSearch(graph, [0.9, 0.9, 0.9, 0.9, 1, 0.5, 0.5, 0.5, 0.5]), {
      ...PAPER_EACS,
      querySeeds: 1,
    });
    expect(seeded.communities.length).toBeGreaterThan(0);
    for (const c of seeded.communities) expect(c.nodes[0]).toBe(4);
  });

  test("with searchRegion, searches the query vertex's region only (hand-computed)", () => {
    // Two 4-cliques sharing node 0: one 4-truss component. Its neighbours 4, 5, 6 are the more relevant.
    const twin = trussGraphFromEdges(7, [...clique([0, 1, 2, 3]), ...clique([0, 4, 5, 6])]);
    const rel = [1, 0.9, 0.9, 0.9, 0.95, 0.95, 0.95];
    const seeded = { ...PAPER_EACS, querySeeds: 1, kMax: 4 };
    // The whole component. k = 3: node 1 (0.9, below the mean) goes, leaving the 3-truss
    // {0, 2, 3} + {0, 4, 5, 6}; 2 or 3 cannot go (edge 0-3 or 0-2 would be in no triangle).
    // k = 4: no node can go.
    expect(eacs('chunk', layerSearch(twin, rel), seeded).communities.map((c) => [c.ks, c.nodes])).toEqual([
      [[3], [0, 4, 5, 6, 2, 3]],
      [[4], [0, 4, 5, 6, 1, 2, 3]],
    ]);
    // A region of 4 nodes: node 0 and its three most relevant neighbours. k = 3: node 4 goes
    // (0.95 below the mean 0.9625), leaving the triangle {0, 5, 6}; k = 4: the 4-clique stays.
    const local = eacs('chunk', layerSearch(twin, rel), { ...seeded, searchRegion: 4 }).communities;
    expect(local.map((c) => [c.ks, c.nodes])).toEqual([
      [[3], [0, 5, 6]],
      [[4], [0, 4, 5, 6]],
    ]);
    expect(local[1]!.qrScore).toBeCloseTo(3.85 / 4, 12);
  });

  test("with communitySearch 'local', the local size-bounded search around the query vertex, Q-Peel on a small component (hand-computed)", () => {
    // The 3-truss is the triangles {0,3,4}, {0,3,5}, {1,3,5} (edge 2-5 is in none): 5 nodes.
    const g = trussGraphFromEdges(6, [
      [0, 3],
      [0, 4],
      [0, 5],
      [1, 3],
      [1, 5],
      [2, 5],
      [3, 4],
      [3, 5],
    ]);
    const rel = [1, 0, 0, 0, 0.5, 0];
    const options: EacsOptions = {
      ...PAPER_EACS,
      querySeeds: 1,
      kMax: 3,
      maxCommunityNodes: 5,
      communitySearch: 'local',
      localExactUpTo: 0,
    };
    // The local search has no QRScore phase, and the component is within the bound: all of it.
    const local = eacs('chunk', layerSearch(g, rel), options).communities;
    expect(local.map((c) => [c.ks, c.nodes])).toEqual([[[3], [0, 4, 1, 3, 5]]]);
    expect(local[0]!.qrScore).toBeCloseTo(1.5 / 5, 12);
    // Q-Peel's phase (mean 0.3) removes 1, then 5 (mean 0.375; 3 cannot go, edge 0-4 would lose its
    // only triangle), and stops at 4 (0.5, not below the mean 0.5): {0, 3, 4}. A component of at
    // most `localExactUpTo` nodes is searched so.
    const small = eacs('chunk', layerSearch(g, rel), { ...options, localExactUpTo: 5 }).communities;
    expect(small.map((c) => [c.ks, c.nodes])).toEqual([[[3], [0, 4, 3]]]);
    expect(small).toEqual(
      eacs('chunk', layerSearch(g, rel), { ...options, communitySearch: 'q-peel' }).communities,
    );
    // Without a query vertex there is nothing to search from: Q-Peel, as with 'q-peel'.
    const anywhere = { ...options, querySeeds: 0 };
    expect(eacs('chunk', layerSearch(g, rel), anywhere)).toEqual(
      eacs('chunk', layerSearch(g, rel), { ...anywhere, communitySearch: 'q-peel' }),
    );
  });

  test('finds nothing below kMin or on a graph without edges', () => {
    const triangle = trussGraphFromEdges(3, clique([0, 1, 2]));
    expect(eacs('sim', layerSearch(triangle, [1, 1, 1]), { ...PAPER_EACS, kMin: 4 })).toEqual({
      communities: [],
      trace: { nodes: 3, edges: 3, feasibleK: null, kValues: [], candidates: 0 },
    });
    expect(eacs('sim', layerSearch(trussGraphFromEdges(2, []), [1, 1]), PAPER_EACS).communities).toEqual([]);
  });
});

describe('oneHop (w/o ACS)', () => {
  test('takes the most relevant nodes, their neighbours and the edges at the seeds', () => {
    // A path 0-1-2-3-4 with a chord 1-3; seeds 1 and 3.
    const g = trussGraphFromEdges(5, [
      [0, 1],
      [1, 2],
      [2, 3],
      [3, 4],
      [1, 3],
    ]);
    const { communities, trace } = oneHop('chunk', layerSearch(g, [0.1, 0.9, 0.2, 0.8, 0.3]), 2);
    expect(trace.candidates).toBe(1);
    const [c] = communities;
    expect(c!.id).toBe('chunk-1hop');
    expect(c!.nodes).toEqual([1, 3, 4, 2, 0]);
    expect(c!.edges).toEqual([
      [1, 0],
      [1, 2],
      [1, 3],
      [3, 2],
      [3, 4],
    ]);
    expect(c!.qrScore).toBeCloseTo((0.1 + 0.9 + 0.2 + 0.8 + 0.3) / 5, 12);
    expect(c!.initialQrScore).toBeNull();
  });
});
