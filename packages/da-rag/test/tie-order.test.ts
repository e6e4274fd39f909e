import { mulberry32 } from '@grag/core/kit';
import { type TrussGraph, trussGraphFromEdges } from '@grag/ktruss';
import { describe, expect, test } from 'vitest';
import { eacs } from '../src/community-search.js';
import { inTieOrder, relabelGraph } from '../src/tie-order.js';
import { layerSearch, PAPER_EACS } from './eacs-fixtures.js';

/** What a found community is, whatever the labels it was found under. */
const shape = (found: ReturnType<typeof eacs>) =>
  found.communities.map((c) => ({
    ks: c.ks,
    nodes: c.nodes,
    edges: c.edges.map(([a, b]) => (a < b ? `${a}-${b}` : `${b}-${a}`)).sort(),
    qrScore: c.qrScore.toFixed(12),
  }));

describe('relabelGraph', () => {
  test('a seeded permutation of the nodes, edges and keys carried over', () => {
    const g = trussGraphFromEdges(6, [
      [0, 1],
      [1, 2],
      [0, 2],
      [2, 3],
      [3, 4],
      [4, 5],
    ]);
    const r = relabelGraph(g, 7);
    expect([...r.order].sort()).toEqual([0, 1, 2, 3, 4, 5]);
    expect(relabelGraph(g, 7).order).toEqual(r.order);
    for (let i = 0; i < 6; i++) {
      expect(r.position[r.order[i]!]).toBe(i);
      expect(r.graph.nodeIds[i]).toBe(g.nodeIds[r.order[i]!]);
    }
    expect(r.graph.m).toBe(g.m);
    const edges = (x: TrussGraph, label: (v: number) => number) =>
      Array.from({ length: x.m }, (_, e) => {
        const [a, b] = [label(x.sources[e]!), label(x.targets[e]!)];
        return a < b ? `${a}-${b}` : `${b}-${a}`;
      }).sort();
    // Read back in the original labels, the relabelled graph has the original's edges.
    expect(edges(r.graph, (v) => r.order[v]!)).toEqual(edges(g, (v) => v));
  });
});

describe('inTieOrder', () => {
  test('without ties in relevance, a search in any tie order finds the same communities (random graphs)', () => {
    const rand = mulberry32(29);
    for (let t = 0; t < 60; t++) {
      const n = 10 + Math.floor(rand() * 8);
      const edges: [number, number][] = [];
      for (let a = 0; a < n; a++) for (let b = a + 1; b < n; b++) if (rand() < 0.45) edges.push([a, b]);
      const g = trussGraphFromEdges(n, edges);
      const rel = Array.from({ length: n }, () => rand());
      for (const options of [
        PAPER_EACS,
        { ...PAPER_EACS, querySeeds: 1, maxCommunityNodes: 5 },
        {
          ...PAPER_EACS,
          querySeeds: 1,
          maxCommunityNodes: 5,
          communitySearch: 'local' as const,
          localExactUpTo: 0,
        },
      ]) {
        const base = shape(eacs('chunk', layerSearch(g, rel), options));
        for (const seed of [1, 2, 3]) {
          expect(shape(eacs('chunk', inTieOrder(layerSearch(g, rel), seed), options))).toEqual(base);
        }
      }
    }
  });

  test('with ties, the query vertex (and so the community) follows the tie order', () => {
    // Two triangles of equal relevance: the query vertex is the first node in the tie order.
    const g = trussGraphFromEdges(6, [
      [0, 1],
      [1, 2],
      [0, 2],
      [3, 4],
      [4, 5],
      [3, 5],
    ]);
    const rel = [0.5, 0.5, 0.5, 0.5, 0.5, 0.5];
    const options = { ...PAPER_EACS, querySeeds: 1 };
    expect(eacs('chunk', layerSearch(g, rel), options).communities.map((c) => c.nodes)).toEqual([[0, 1, 2]]);
    const seen = new Set<string>();
    for (let seed = 1; seed <= 12; seed++) {
      const first = relabelGraph(g, seed).order[0]!;
      const [community] = eacs('chunk', inTieOrder(layerSearch(g, rel), seed), options).communities;
      const nodes = [...community!.nodes].sort();
      expect(nodes).toEqual(first < 3 ? [0, 1, 2] : [3, 4, 5]);
      seen.add(nodes.join(','));
    }
    expect(seen.size).toBe(2);
  });
});
