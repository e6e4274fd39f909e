import { InvalidArgumentError } from '@grag/core';
import { UndirectedGraph } from 'graphology';
import { describe, expect, it } from 'vitest';
import { betweenness, coreNumbers, importantEntities } from '../src/index.js';
import { randomGraph } from './helpers.js';

/** Oracle: the k-core by repeated peeling of nodes of degree < k, for every k. */
function peelingCoreNumbers(graph: UndirectedGraph): Map<string, number> {
  const core = new Map(graph.nodes().map((v) => [v, 0]));
  for (let k = 1; ; k++) {
    const alive = new Set(graph.nodes());
    let removed = true;
    while (removed) {
      removed = false;
      for (const v of [...alive]) {
        const degree = graph.neighbors(v).filter((u) => alive.has(u) && u !== v).length;
        if (degree < k) {
          alive.delete(v);
          removed = true;
        }
      }
    }
    if (alive.size === 0) return core;
    for (const v of alive) core.set(v, k);
  }
}

/** Oracle: betweenness from all-pairs BFS, Σ over unordered pairs of σ_sv·σ_vt/σ_st on shortest paths. */
function bruteForceBetweenness(graph: UndirectedGraph): Map<string, number> {
  const nodes = graph.nodes();
  const bfs = (s: string) => {
    const dist = new Map([[s, 0]]);
    const sigma = new Map([[s, 1]]);
    const queue = [s];
    for (let i = 0; i < queue.length; i++) {
      const v = queue[i]!;
      for (const u of graph.neighbors(v)) {
        if (!dist.has(u)) {
          dist.set(u, dist.get(v)! + 1);
          sigma.set(u, 0);
          queue.push(u);
        }
        if (dist.get(u) === dist.get(v)! + 1) sigma.set(u, sigma.get(u)! + sigma.get(v)!);
      }
    }
    return { dist, sigma };
  };
  const all = new Map(nodes.map((v) => [v, bfs(v)]));
  const out = new Map(nodes.map((v) => [v, 0]));
  for (let a = 0; a < nodes.length; a++) {
    for (let b = a + 1; b < nodes.length; b++) {
      const s = nodes[a]!;
      const t = nodes[b]!;
      const fromS = all.get(s)!;
      const dst = fromS.dist.get(t);
      if (dst === undefined) continue;
      for (const v of nodes) {
        if (v === s || v === t) continue;
        const dsv = fromS.dist.get(v);
        const dvt = all.get(v)!.dist.get(t);
        if (dsv === undefined || dvt === undefined || dsv + dvt !== dst) continue;
        const share = (fromS.sigma.get(v)! * all.get(v)!.sigma.get(t)!) / fromS.sigma.get(t)!;
        out.set(v, out.get(v)! + share);
      }
    }
  }
  return out;
}

describe('coreNumbers', () => {
  it('gives a clique of k+1 nodes core number k and a pendant node core number 1', () => {
    const g = new UndirectedGraph();
    for (const v of 'abcde') g.addNode(v);
    for (const u of 'abcd') for (const v of 'abcd') if (u < v) g.addEdge(u, v);
    g.addEdge('d', 'e');
    g.addNode('alone');
    expect(Object.fromEntries(coreNumbers(g))).toEqual({ a: 3, b: 3, c: 3, d: 3, e: 1, alone: 0 });
  });

  it('matches repeated peeling on random graphs of several densities', () => {
    for (const [n, p, seed] of [
      [40, 0.05, 1],
      [60, 0.1, 2],
      [50, 0.3, 3],
      [80, 0.02, 4],
    ] as const) {
      const g = randomGraph(n, p, seed);
      expect(coreNumbers(g)).toEqual(peelingCoreNumbers(g));
    }
  });
});

describe('betweenness', () => {
  it('gives the middle of a path a–b–c betweenness 1', () => {
    const g = new UndirectedGraph();
    g.mergeEdge('a', 'b');
    g.mergeEdge('b', 'c');
    expect(Object.fromEntries(betweenness(g, { samples: undefined }))).toEqual({ a: 0, b: 1, c: 0 });
  });

  it('matches the all-pairs brute force exactly when every node is a source', () => {
    for (const [n, p, seed] of [
      [30, 0.1, 5],
      [40, 0.06, 6],
      [25, 0.3, 7],
    ] as const) {
      const g = randomGraph(n, p, seed);
      const exact = betweenness(g, { samples: undefined });
      const oracle = bruteForceBetweenness(g);
      for (const [v, b] of oracle) expect(exact.get(v)).toBeCloseTo(b, 9);
      // Asking for at least n samples is the exact computation too.
      expect(betweenness(g, { samples: n + 5 })).toEqual(exact);
    }
  });

  it('normalizes by (n − 1)(n − 2)/2 on request', () => {
    const g = randomGraph(20, 0.2, 8);
    const raw = betweenness(g, { samples: undefined });
    const normalized = betweenness(g, { samples: undefined, normalized: true });
    for (const [v, b] of raw) expect(normalized.get(v)).toBeCloseTo(b / ((19 * 18) / 2), 12);
  });

  it('samples sources deterministically under a seed and scales by n/k', () => {
    const g = randomGraph(60, 0.08, 9);
    const a = betweenness(g, { samples: 10, seed: 3 });
    expect(betweenness(g, { samples: 10, seed: 3 })).toEqual(a);
    expect(betweenness(g, { samples: 10, seed: 4 })).not.toEqual(a);
    // Summed over nodes, the estimate is unbiased for the total; with 10 of 60 sources it is near it.
    const total = (m: Map<string, number>) => [...m.values()].reduce((x, y) => x + y, 0);
    const exact = total(betweenness(g, { samples: undefined }));
    expect(total(a) / exact).toBeGreaterThan(0.6);
    expect(total(a) / exact).toBeLessThan(1.4);
    expect(() => betweenness(g, { samples: 0 })).toThrow(InvalidArgumentError);
  });
});

describe('importantEntities', () => {
  /**
   * A clique of six entities e1..e6, a hub entity joined to eight semantic units, and an entity b
   * bridging e1 and the hub. |V| = 16, |E| = 25: k_default = ⌊ln 16 · √(50/16)⌋ = ⌊4.90⌋ = 4.
   */
  function example(): UndirectedGraph {
    const g = new UndirectedGraph();
    const es = ['e1', 'e2', 'e3', 'e4', 'e5', 'e6'];
    for (const e of [...es, 'hub', 'b']) g.addNode(e, { type: 'N' });
    for (let i = 0; i < 8; i++) g.addNode(`s${i}`, { type: 'S' });
    for (const u of es) for (const v of es) if (u < v) g.addEdge(u, v);
    for (let i = 0; i < 8; i++) g.addEdge('hub', `s${i}`);
    g.addEdge('e1', 'b');
    g.addEdge('b', 'hub');
    return g;
  }

  it('unites the k-core with the high-betweenness entities, at k = ⌊ln|V|·√(mean degree)⌋', () => {
    const g = example();
    const found = importantEntities(g, { betweennessSamples: undefined });
    expect(found.k).toBe(4);
    expect(found.byCore).toEqual(['e1', 'e2', 'e3', 'e4', 'e5', 'e6']);
    // B(G): entities above mean betweenness × ⌊log10 16⌋ = mean × 1, from the brute-force oracle.
    const oracle = bruteForceBetweenness(g);
    const mean = [...oracle.values()].reduce((a, b) => a + b, 0) / g.order;
    expect(found.meanBetweenness).toBeCloseTo(mean, 9);
    const expected = [...oracle].filter(([v, b]) => g.getNodeAttribute(v, 'type') === 'N' && b > mean);
    expect(found.byBetweenness).toEqual(expected.map(([v]) => v));
    expect(found.byBetweenness).toEqual(expect.arrayContaining(['hub', 'b', 'e1']));
    expect(new Set(found.nodes)).toEqual(new Set([...found.byCore, ...found.byBetweenness]));
  });

  it('never selects a node that is not a candidate (semantic units are central here but not entities)', () => {
    const g = example();
    const found = importantEntities(g, { betweennessSamples: undefined, k: 1 });
    expect(found.nodes.every((v) => g.getNodeAttribute(v, 'type') === 'N')).toBe(true);
    const mine = importantEntities(g, { isCandidate: (v) => v.startsWith('s'), k: 1 });
    expect(mine.nodes.every((v) => v.startsWith('s'))).toBe(true);
  });

  it("offers Algorithm 1's written degree rule, which keeps a high-degree hub outside the k-core", () => {
    const g = example();
    const core = importantEntities(g, { betweennessSamples: undefined, betweennessScale: 1000 });
    const degree = importantEntities(g, {
      betweennessSamples: undefined,
      betweennessScale: 1000,
      coreRule: 'degree',
    });
    expect(core.nodes).not.toContain('hub');
    expect(degree.nodes).toContain('hub'); // degree 9 ≥ 4, core number 1
  });
});
