import { GragError, InvalidArgumentError } from '@grag/core';
import { toCsr } from '@grag/core/graph';
import { mulberry32 } from '@grag/core/test';
import { UndirectedGraph } from 'graphology';
import louvainModule from 'graphology-communities-louvain';
import { describe, expect, it } from 'vitest';
import { leiden, leidenAssign, leidenUpdate, leidenUpdateCsr, partitionQuality } from '../src/index.js';
import { groupsOf, isConnected, plantedPartition, randomGraph } from './helpers.js';

// A CommonJS package: under NodeNext its default import types as the module record.
const louvain = ((louvainModule as unknown as { default?: unknown }).default ??
  louvainModule) as typeof louvainModule.default;

/** Two triangles {a,b,c} and {d,e,f} joined by the edge c–d. */
function twoTriangles(): UndirectedGraph {
  const g = new UndirectedGraph();
  for (const v of 'abcdef') g.addNode(v);
  for (const [u, v] of ['ab', 'bc', 'ca', 'de', 'ef', 'fd', 'cd']) g.addEdge(u!, v!);
  return g;
}

describe('partitionQuality', () => {
  it('computes the modularity of two triangles joined by a bridge by hand', () => {
    const g = twoTriangles();
    const split = new Map([...'abcdef'].map((v) => [v, 'abc'.includes(v) ? 0 : 1]));
    // m = 7; each side: L = 3, K = 7. Q = 2·(3/7 − (7/14)²) = 6/7 − 1/2.
    expect(partitionQuality(g, split)).toBeCloseTo(6 / 7 - 0.5, 12);
    const one = new Map([...'abcdef'].map((v) => [v, 0]));
    expect(partitionQuality(g, one)).toBeCloseTo(0, 12);
    // CPM with γ = 0.5: 2·(3 − 0.5·3) = 3.
    expect(partitionQuality(g, split, { quality: 'cpm', resolution: 0.5 })).toBeCloseTo(3, 12);
  });
});

describe('leiden', () => {
  it('splits two triangles joined by a bridge into the triangles', () => {
    const { communities, count, quality } = leiden(twoTriangles(), { seed: 1 });
    expect(count).toBe(2);
    expect(communities.get('a')).toBe(communities.get('c'));
    expect(communities.get('d')).toBe(communities.get('f'));
    expect(communities.get('a')).not.toBe(communities.get('d'));
    expect(quality).toBeCloseTo(6 / 7 - 0.5, 12);
  });

  it('recovers a clearly planted partition exactly', () => {
    const { graph, truth } = plantedPartition(5, 30, 0.5, 0.005, 3);
    const { communities, count } = leiden(graph, { seed: 5 });
    expect(count).toBe(5);
    for (const members of groupsOf(communities).values()) {
      expect(new Set(members.map((m) => truth.get(m))).size).toBe(1);
    }
  });

  it('returns only connected communities on sparse random graphs', () => {
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const g = randomGraph(300, 0.012, seed);
      const { communities, splits } = leiden(g, { seed });
      expect(splits).toBe(0);
      for (const members of groupsOf(communities).values()) expect(isConnected(g, members)).toBe(true);
    }
  });

  it('finds modularity at least as high as Louvain on planted-partition graphs (mean of 5 seeds)', () => {
    const cases = [
      plantedPartition(8, 40, 0.2, 0.02, 11),
      plantedPartition(12, 25, 0.3, 0.03, 12),
      plantedPartition(6, 60, 0.1, 0.02, 13),
      plantedPartition(20, 15, 0.4, 0.02, 14),
    ];
    const seeds = [0, 1, 2, 3, 4];
    for (const { graph } of cases) {
      const ours = seeds.map((seed) => leiden(graph, { seed }));
      const theirs = seeds.map((seed) => {
        const run = louvain.detailed(graph, { getEdgeWeight: null, rng: mulberry32(seed) });
        return partitionQuality(graph, new Map(Object.entries(run.communities)));
      });
      expect(mean(ours.map((r) => r.quality))).toBeGreaterThanOrEqual(mean(theirs) - 1e-12);
      for (const run of ours) expect(partitionQuality(graph, run.communities)).toBeCloseTo(run.quality, 12);
    }
  });

  it('gives the same partition for the same seed and graph', () => {
    const { graph } = plantedPartition(10, 30, 0.15, 0.03, 21);
    const a = leiden(graph, { seed: 9 });
    const b = leiden(graph, { seed: 9 });
    expect([...a.communities]).toEqual([...b.communities]);
    expect(a.quality).toBe(b.quality);
  });

  it('uses edge weights, or ignores them with weightAttribute null', () => {
    // A 4-cycle a-b-c-d-a: heavy a-b and c-d edges make {a,b}, {c,d} the communities.
    const g = new UndirectedGraph();
    for (const v of 'abcd') g.addNode(v);
    g.addEdge('a', 'b', { weight: 10 });
    g.addEdge('b', 'c', { weight: 1 });
    g.addEdge('c', 'd', { weight: 10 });
    g.addEdge('d', 'a', { weight: 1 });
    const weighted = leiden(g, { seed: 1 });
    expect(weighted.communities.get('a')).toBe(weighted.communities.get('b'));
    expect(weighted.communities.get('c')).toBe(weighted.communities.get('d'));
    expect(weighted.communities.get('a')).not.toBe(weighted.communities.get('c'));
    // Q = 2·(10/22 − (11/22)²)
    expect(weighted.quality).toBeCloseTo(2 * (10 / 22 - 0.25), 12);
    const unweighted = leiden(g, { seed: 1, weightAttribute: null });
    expect(unweighted.quality).toBeCloseTo(
      partitionQuality(g, unweighted.communities, { weightAttribute: null }),
    );
  });

  it('makes more, smaller communities at a higher resolution, and CPM works', () => {
    const { graph } = plantedPartition(4, 40, 0.3, 0.05, 31);
    const coarse = leiden(graph, { seed: 1, resolution: 0.2 });
    const fine = leiden(graph, { seed: 1, resolution: 3 });
    expect(fine.count).toBeGreaterThan(coarse.count);
    const cpm = leiden(graph, { seed: 1, quality: 'cpm', resolution: 0.1 });
    expect(cpm.count).toBeGreaterThanOrEqual(4);
    expect(partitionQuality(graph, cpm.communities, { quality: 'cpm', resolution: 0.1 })).toBeCloseTo(
      cpm.quality,
    );
  });

  it('stops after maxLevels and still returns connected communities', () => {
    const { graph } = plantedPartition(6, 30, 0.2, 0.02, 41);
    const one = leiden(graph, { seed: 2, maxLevels: 1, iterations: 1 });
    const full = leiden(graph, { seed: 2 });
    expect(one.levels).toBe(1);
    expect(full.quality).toBeGreaterThanOrEqual(one.quality - 1e-12);
    for (const members of groupsOf(one.communities).values()) expect(isConnected(graph, members)).toBe(true);
  });

  it('puts isolated nodes in communities of their own and handles an empty graph', () => {
    const g = twoTriangles();
    g.addNode('lonely');
    const { communities } = leiden(g, { seed: 1 });
    const lonely = communities.get('lonely')!;
    expect([...communities.values()].filter((c) => c === lonely)).toHaveLength(1);
    expect(leiden(new UndirectedGraph()).count).toBe(0);
  });

  it('writes communities into node attributes with leidenAssign', () => {
    const g = twoTriangles();
    const result = leidenAssign(g, { seed: 1, attribute: 'c' });
    expect(g.getNodeAttribute('a', 'c')).toBe(result.communities.get('a'));
  });

  it('refuses bad options and negative weights with InvalidArgumentError', () => {
    const g = twoTriangles();
    expect(() => leiden(g, { resolution: -1 })).toThrow(InvalidArgumentError);
    expect(() => leiden(g, { iterations: 0 })).toThrow(/iterations/);
    const bad = twoTriangles();
    bad.setEdgeAttribute(bad.edge('a', 'b')!, 'weight', -2);
    try {
      leiden(bad);
      expect.unreachable();
    } catch (error) {
      expect(GragError.isInstance(error)).toBe(true);
      expect((error as Error).message).toMatch(/non-negative/);
    }
  });
});

describe('leidenUpdate', () => {
  it('puts a node added to one triangle into it and leaves the other triangle alone', () => {
    const g = twoTriangles();
    const before = leiden(g, { seed: 1 }).communities;
    g.addNode('x');
    g.addEdge('x', 'a');
    g.addEdge('x', 'b');
    const { communities, count } = leidenUpdate(g, before, ['a', 'b'], { seed: 1 });
    expect(count).toBe(2);
    // x has 2 links into {a,b,c}: gain 2 − a_x·K/2m = 2 − 2·9/18 = 1 > 0; into nothing else.
    expect(communities.get('x')).toBe(communities.get('a'));
    expect(groupsOf(communities).get(communities.get('d')!)!.sort()).toEqual(['d', 'e', 'f']);
  });

  it('keeps every node where it was when nothing is affected, and splits a community a removal disconnected', () => {
    // A path a–b–c–d in one community; removing b leaves a alone and c–d together.
    const g = new UndirectedGraph();
    for (const v of 'abcd') g.addNode(v);
    for (const [u, v] of ['ab', 'bc', 'cd']) g.addEdge(u!, v!);
    const before = new Map([...'abcd'].map((v) => [v, 7]));
    const same = leidenUpdate(g, before, [], { seed: 1 });
    expect(same.count).toBe(1);
    expect(same.splits).toBe(0);
    g.dropNode('b');
    const after = leidenUpdate(g, before, [], { seed: 1 });
    expect(after.count).toBe(2);
    expect(after.splits).toBe(1);
    expect(after.communities.get('c')).toBe(after.communities.get('d'));
    expect(after.communities.get('a')).not.toBe(after.communities.get('c'));
  });

  it('moves only nodes the frontier reaches: a planted partition with one new node keeps every other assignment', () => {
    const { graph } = plantedPartition(6, 25, 0.4, 0.004, 11);
    const before = leiden(graph, { seed: 3 }).communities;
    graph.addNode('new');
    for (const v of ['g2-0', 'g2-1', 'g2-2', 'g4-0']) graph.addEdge('new', v);
    const { communities } = leidenUpdate(graph, before, ['g2-0', 'g2-1', 'g2-2', 'g4-0'], { seed: 3 });
    expect(communities.get('new')).toBe(communities.get('g2-0'));
    // The same grouping of the old nodes (ids are renumbered).
    const pairs = (m: ReadonlyMap<string, number>) =>
      [...groupsOf(new Map([...m].filter(([k]) => k !== 'new'))).values()].map((x) => x.sort().join()).sort();
    expect(pairs(communities)).toEqual(pairs(before));
  });

  it('never ends below the quality of the previous communities with the new nodes alone', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const g = randomGraph(200, 0.03, seed);
      const before = leiden(g, { seed }).communities;
      const rand = mulberry32(seed);
      const added: string[] = [];
      for (let i = 0; i < 20; i++) {
        const key = `n${i}`;
        g.addNode(key);
        added.push(key);
        for (let j = 0; j < 3; j++) {
          const other = String(Math.floor(rand() * 200));
          if (!g.hasEdge(key, other)) g.addEdge(key, other);
        }
      }
      for (let i = 0; i < 10; i++) g.dropNode(String(i * 7));
      const start = new Map<string, number>();
      g.forEachNode((v) => {
        start.set(v, before.get(v) ?? 1000 + start.size);
      });
      const affected = added.flatMap((v) => [v, ...g.neighbors(v)]);
      const { communities, quality } = leidenUpdate(g, before, affected, { seed });
      expect(quality).toBeGreaterThanOrEqual(partitionQuality(g, start) - 1e-12);
      for (const members of groupsOf(communities).values()) expect(isConnected(g, members)).toBe(true);
    }
  });

  it('refuses arrays of the wrong length', () => {
    const g = twoTriangles();
    const csr = toCsr(g, { directed: false });
    expect(() => leidenUpdateCsr(csr, new Int32Array(1), new Uint8Array(6))).toThrow(
      /previous has 1 entries for a graph of 6 nodes/,
    );
    expect(() => leidenUpdate(g, new Map(), [], { iterations: 0 })).toThrow(InvalidArgumentError);
  });
});

function mean(values: number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}
