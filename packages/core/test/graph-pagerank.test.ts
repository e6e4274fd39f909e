import { DirectedGraph, UndirectedGraph } from 'graphology';
import { describe, expect, it } from 'vitest';
import { ConvergenceError, InvalidArgumentError } from '../src/contracts/errors.js';
import {
  csrFromEdges,
  PAGERANK_DEFAULTS,
  PPR_DEFAULTS,
  pageRank,
  pageRankCsr,
  personalizationVector,
  personalizedPageRank,
  personalizedPageRankCsr,
  toCsr,
} from '../src/graph/index.js';
import { mulberry32 } from '../src/test/random.js';

function expectScores(actual: Map<string, number>, expected: Record<string, number>, digits = 12): void {
  expect([...actual.keys()].sort()).toEqual(Object.keys(expected).sort());
  for (const [node, value] of Object.entries(expected)) expect(actual.get(node)).toBeCloseTo(value, digits);
}

function sum(values: Iterable<number>): number {
  let s = 0;
  for (const v of values) s += v;
  return s;
}

/** Seeded PRNG, so random inputs are identical across runs. */
const rng = mulberry32;

/**
 * Undirected, unweighted: a–b, b–c, b–d, c–d. Degrees a 1, b 3, c 2, d 2.
 */
function diamond(weights: [number, number, number, number] = [1, 1, 1, 1]) {
  const graph = new UndirectedGraph();
  for (const n of ['a', 'b', 'c', 'd']) graph.addNode(n);
  graph.addEdge('a', 'b', { weight: weights[0] });
  graph.addEdge('b', 'c', { weight: weights[1] });
  graph.addEdge('b', 'd', { weight: weights[2] });
  graph.addEdge('c', 'd', { weight: weights[3] });
  return graph;
}

describe('personalizedPageRank (NodeRAG shallow PPR)', () => {
  it('uses teleport 0.5, two iterations and the paper update by default (NodeRAG §2.5)', () => {
    expect(PPR_DEFAULTS).toMatchObject({ teleport: 0.5, iterations: 2, tolerance: 0, update: 'paper' });
    expect(PAGERANK_DEFAULTS).toMatchObject({ damping: 0.85, maxIterations: 100, tolerance: 1e-6 });
  });

  it('matches hand-computed vectors after t = 1 and t = 2 on an unweighted graph', () => {
    // p = (1, 0, 0, 0) over (a, b, c, d); α = 0.5.
    // Pᵀp: a sends everything to b → (0, 1, 0, 0); π1 = ½p + ½(0, 1, 0, 0) = (1/2, 1/2, 0, 0).
    // Pᵀπ1: a's 1/2 → b; b's 1/2 splits 1/6 each to a, c, d → (1/6, 1/2, 1/6, 1/6).
    // π2 = ½p + ½(1/6, 1/2, 1/6, 1/6) = (7/12, 3/12, 1/12, 1/12).
    const graph = diamond();
    expectScores(personalizedPageRank(graph, ['a'], { iterations: 1 }), { a: 0.5, b: 0.5, c: 0, d: 0 });
    expectScores(personalizedPageRank(graph, ['a']), { a: 7 / 12, b: 3 / 12, c: 1 / 12, d: 1 / 12 });
  });

  it('returns the personalization vector itself after zero iterations', () => {
    expectScores(personalizedPageRank(diamond(), ['a', 'c'], { iterations: 0 }), {
      a: 0.5,
      b: 0,
      c: 0.5,
      d: 0,
    });
  });

  it('follows edge weights, row-normalized by out-weight', () => {
    // weights a–b 1, b–c 2, b–d 1, c–d 1 → out-weights a 1, b 4, c 3, d 2.
    // Seeds {a, c}: p = (1/2, 0, 1/2, 0).
    // Pᵀp: a → b 1/2; c → b 1/2·2/3 = 1/3, d 1/2·1/3 = 1/6 → (0, 5/6, 0, 1/6).
    // π1 = ½p + ½(0, 5/6, 0, 1/6) = (1/4, 5/12, 1/4, 1/12).
    // Pᵀπ1: a(1/4) → b 1/4; b(5/12) → a 5/48, c 10/48, d 5/48; c(1/4) → b 1/6, d 1/12;
    //   d(1/12) → b 1/24, c 1/24
    //   = (5/48, 22/48, 12/48, 9/48).
    // π2 = ½p + ½(5/48, 22/48, 12/48, 9/48) = (29/96, 22/96, 36/96, 9/96).
    const graph = diamond([1, 2, 1, 1]);
    expectScores(personalizedPageRank(graph, ['a', 'c'], { iterations: 1 }), {
      a: 1 / 4,
      b: 5 / 12,
      c: 1 / 4,
      d: 1 / 12,
    });
    expectScores(personalizedPageRank(graph, ['a', 'c']), { a: 29 / 96, b: 22 / 96, c: 36 / 96, d: 9 / 96 });
  });

  it('ignores weights with weighted: false', () => {
    // Same as the unweighted hand computation: (7/12, 3/12, 1/12, 1/12).
    expectScores(personalizedPageRank(diamond([1, 2, 1, 1]), ['a'], { weighted: false }), {
      a: 7 / 12,
      b: 3 / 12,
      c: 1 / 12,
      d: 1 / 12,
    });
  });

  it('sends the mass of a dangling node back to the personalization vector', () => {
    // a → b, b has no out-edge, c is isolated. p = (1, 0, 0), α = 0.5.
    // π1 = ½p + ½(0, 1, 0) = (1/2, 1/2, 0).
    // Step 2: Pᵀπ1 = (0, 1/2, 0) plus dangling mass 1/2 from b, returned along p: (1/2, 1/2, 0).
    // π2 = ½p + ½(1/2, 1/2, 0) = (3/4, 1/4, 0).
    const graph = new DirectedGraph();
    for (const n of ['a', 'b', 'c']) graph.addNode(n);
    graph.addEdge('a', 'b');
    expectScores(personalizedPageRank(graph, ['a']), { a: 3 / 4, b: 1 / 4, c: 0 });
  });

  it('runs the lazy-walk variant of NodeRAG code with teleport as the stay probability', () => {
    // π(t) = α·π(t−1) + (1 − α)·Pᵀπ(t−1), π(0) = p = (1, 0, 0, 0), α = 0.5.
    // π1 = ½(1, 0, 0, 0) + ½(0, 1, 0, 0) = (1/2, 1/2, 0, 0).
    // π2 = ½(1/2, 1/2, 0, 0) + ½(1/6, 1/2, 1/6, 1/6) = (4/12, 6/12, 1/12, 1/12).
    const graph = diamond();
    expectScores(personalizedPageRank(graph, ['a'], { update: 'lazy' }), {
      a: 4 / 12,
      b: 6 / 12,
      c: 1 / 12,
      d: 1 / 12,
    });
    // α = 0.3: π1 = 0.3·(1, 0, 0, 0) + 0.7·(0, 1, 0, 0).
    expectScores(personalizedPageRank(graph, ['a'], { update: 'lazy', teleport: 0.3, iterations: 1 }), {
      a: 0.3,
      b: 0.7,
      c: 0,
      d: 0,
    });
  });

  it('weights seeds given as a map and counts repeated seeds once', () => {
    // p from {a: 1, c: 3} = (1/4, 0, 3/4, 0); from ['a', 'a', 'c'] = (1/2, 0, 1/2, 0).
    const csr = toCsr(diamond());
    expect([
      ...personalizationVector(
        csr,
        new Map([
          ['a', 1],
          ['c', 3],
        ]),
      ),
    ]).toEqual([0.25, 0, 0.75, 0]);
    expect([...personalizationVector(csr, ['a', 'a', 'c'])]).toEqual([0.5, 0, 0.5, 0]);
  });

  it('gives the same scores from a Csr, and by CSR index from the Csr variant', () => {
    const graph = diamond([1, 2, 1, 1]);
    const csr = toCsr(graph);
    const fromGraph = personalizedPageRank(graph, ['a', 'c']);
    expect(personalizedPageRank(csr, ['a', 'c'])).toEqual(fromGraph);
    const raw = personalizedPageRankCsr(csr, [1, 0, 1, 0]);
    expect(raw).toBeInstanceOf(Float64Array);
    expect([...raw]).toEqual(csr.nodeIds.map((id) => fromGraph.get(id)));
  });

  it('stops early once the L1 change is within tolerance', () => {
    // With many iterations allowed and a tolerance, the result is the fixed point
    // π = α·p + (1 − α)·Pᵀπ. Check the fixed-point equation on the diamond directly.
    const graph = diamond();
    const pi = personalizedPageRank(graph, ['a'], { iterations: 10_000, tolerance: 1e-14 });
    const deg: Record<string, number> = { a: 1, b: 3, c: 2, d: 2 };
    const next = (v: string) => {
      let inflow = 0;
      graph.forEachNeighbor(v, (u) => {
        inflow += pi.get(u)! / deg[u]!;
      });
      return 0.5 * (v === 'a' ? 1 : 0) + 0.5 * inflow;
    };
    for (const v of ['a', 'b', 'c', 'd']) expect(pi.get(v)).toBeCloseTo(next(v), 12);
  });

  it('rejects unknown seeds, string seeds, empty seeds and bad options', () => {
    const graph = diamond();
    expect(() => personalizedPageRank(graph, ['zz'])).toThrow(/seed "zz" is not a node/);
    expect(() => personalizedPageRank(graph, 'a' as unknown as string[])).toThrow(/array of node keys/);
    expect(() => personalizedPageRank(graph, [])).toThrow(InvalidArgumentError);
    expect(() => personalizedPageRank(graph, new Map([['a', -1]]))).toThrow(/non-negative/);
    expect(() => personalizedPageRank(graph, ['a'], { teleport: 1.5 })).toThrow(/teleport/);
    expect(() => personalizedPageRank(graph, ['a'], { iterations: 1.5 })).toThrow(/iterations/);
    expect(() => personalizedPageRankCsr(toCsr(graph), [1, 0])).toThrow(/length 2/);
  });
});

describe('pageRank', () => {
  it('matches the hand-solved stationary vector of a two-node graph with a dangling node', () => {
    // a → b, b dangling (its mass spreads uniformly). d = 0.85, n = 2:
    // π_a = 0.15/2 + 0.85·(π_b/2),  π_b = 0.15/2 + 0.85·(π_a + π_b/2),  π_a + π_b = 1
    // ⇒ π_a = 0.075 + 0.425(1 − π_a) ⇒ 1.425 π_a = 0.5 ⇒ π_a = 20/57, π_b = 37/57.
    const graph = new DirectedGraph();
    graph.mergeEdge('a', 'b');
    expectScores(pageRank(graph, { tolerance: 1e-15, maxIterations: 1000 }), { a: 20 / 57, b: 37 / 57 });
  });

  it('is uniform on a directed cycle', () => {
    const csr = csrFromEdges(
      3,
      [
        [0, 1],
        [1, 2],
        [2, 0],
      ],
      { directed: true },
    );
    expect([...pageRankCsr(csr)]).toEqual([1 / 3, 1 / 3, 1 / 3]);
  });

  // Reference values recorded once with python networkx 2.8.8 (Debian python3-networkx), by
  // `networkx.algorithms.link_analysis.pagerank_alg._pagerank_python(G, alpha=d, personalization=...,
  // weight=..., tol=1e-15, max_iter=10000)`, and cross-checked against `pagerank_numpy` (exact
  // eigenvector) to within 1e-15. networkx's `alpha` is our `damping` (= 1 − teleport).
  describe('against networkx reference outputs', () => {
    // D: a→b (1), a→c (2), b→c (1), c→a (1), c→d (3), e→a (1); d is dangling, e has no in-edge.
    function networkxDirected() {
      const graph = new DirectedGraph();
      for (const n of ['a', 'b', 'c', 'd', 'e']) graph.addNode(n);
      const edges: [string, string, number][] = [
        ['a', 'b', 1],
        ['a', 'c', 2],
        ['b', 'c', 1],
        ['c', 'a', 1],
        ['c', 'd', 3],
        ['e', 'a', 1],
      ];
      for (const [s, t, w] of edges) graph.addEdge(s, t, { weight: w });
      return graph;
    }
    // U: p–q (2), q–r (1), r–p (1), r–s (4), s–s (1.5); t is isolated.
    function networkxUndirected() {
      const graph = new UndirectedGraph();
      for (const n of ['p', 'q', 'r', 's', 't']) graph.addNode(n);
      const edges: [string, string, number][] = [
        ['p', 'q', 2],
        ['q', 'r', 1],
        ['r', 'p', 1],
        ['r', 's', 4],
        ['s', 's', 1.5],
      ];
      for (const [s, t, w] of edges) graph.addEdge(s, t, { weight: w });
      return graph;
    }
    const strict = { tolerance: 1e-15, maxIterations: 10_000 };

    it('agrees on weighted PageRank of a directed graph with a dangling node', () => {
      expectScores(pageRank(networkxDirected(), strict), {
        a: 0.20694006478913424,
        b: 0.13505784668647242,
        c: 0.30849003472689573,
        d: 0.27308722546794717,
        e: 0.07642482832955064,
      });
    });

    it('agrees on unweighted PageRank of the same graph', () => {
      expectScores(pageRank(networkxDirected(), { ...strict, weighted: false }), {
        a: 0.2519547323720164,
        b: 0.17071754981489423,
        c: 0.31582746715755505,
        d: 0.19786346209874722,
        e: 0.06363678855678717,
      });
    });

    it('agrees on weighted PageRank of an undirected graph with a self-loop and an isolated node', () => {
      expectScores(pageRank(networkxUndirected(), strict), {
        p: 0.1859339021430687,
        q: 0.1859339021430687,
        r: 0.3136007949323059,
        s: 0.27838682246830326,
        t: 0.03614457831325302,
      });
    });

    it('agrees on converged personalized PageRank with weighted seeds (networkx alpha 0.5)', () => {
      const run = { teleport: 0.5, iterations: 10_000, tolerance: 1e-15 };
      expectScores(
        personalizedPageRank(
          networkxDirected(),
          new Map([
            ['a', 1],
            ['d', 3],
          ]),
          run,
        ),
        {
          a: 0.2181818181818182,
          b: 0.036363636363636306,
          c: 0.09090909090909084,
          d: 0.6545454545454547,
          e: 0,
        },
      );
      expectScores(personalizedPageRank(networkxUndirected(), ['q'], run), {
        p: 0.20660187667560265,
        q: 0.5816018766756037,
        r: 0.1528150134048257,
        s: 0.05898123324396783,
        t: 0,
      });
    });
  });

  it('agrees with a dense power iteration on seeded random graphs, and sums to 1', () => {
    const random = rng(42);
    for (let trial = 0; trial < 5; trial++) {
      const n = 30;
      const edges: [number, number, number][] = [];
      for (let s = 0; s < n; s++) {
        if (s % 7 === 3) continue; // some dangling nodes
        for (let t = 0; t < n; t++) if (random() < 0.1) edges.push([s, t, 0.5 + random() * 3]);
      }
      const csr = csrFromEdges(n, edges, { directed: true });
      // Dense oracle: M[s][t] = w / out(s); iterate x ← (1−d)/n + d·(Mᵀx + dangling/n) 500 times.
      const out = new Array(n).fill(0);
      for (const [s, , w] of edges) out[s] += w;
      let x = new Array(n).fill(1 / n);
      for (let it = 0; it < 500; it++) {
        const y = new Array(n).fill(0);
        let dangling = 0;
        for (let s = 0; s < n; s++) if (out[s] === 0) dangling += x[s];
        for (const [s, t, w] of edges) y[t] += (x[s] * w) / out[s];
        x = y.map((v) => 0.15 / n + 0.85 * (v + dangling / n));
      }
      const scores = pageRankCsr(csr, { tolerance: 1e-14, maxIterations: 1000 });
      for (let i = 0; i < n; i++) expect(scores[i]).toBeCloseTo(x[i], 10);
      expect(sum(scores)).toBeCloseTo(1, 12);

      const seeds = new Float64Array(n);
      seeds[trial] = 1;
      seeds[trial + 10] = 2;
      for (const update of ['paper', 'lazy'] as const) {
        expect(sum(personalizedPageRankCsr(csr, seeds, { update, iterations: 5 }))).toBeCloseTo(1, 12);
      }
    }
  });

  it('throws ConvergenceError when the tolerance is not reached within maxIterations', () => {
    const graph = new DirectedGraph();
    graph.mergeEdge('a', 'b');
    let error: unknown;
    try {
      pageRank(graph, { damping: 0.99, maxIterations: 3, tolerance: 1e-12 });
    } catch (e) {
      error = e;
    }
    expect(ConvergenceError.isInstance(error)).toBe(true);
    expect((error as ConvergenceError).iterations).toBe(3);
    expect((error as Error).message).toMatch(/raise maxIterations or tolerance/);
    // tolerance 0 runs a fixed number of iterations and never throws.
    expect(sum(pageRank(graph, { damping: 0.99, maxIterations: 3, tolerance: 0 }).values())).toBeCloseTo(
      1,
      12,
    );
  });

  it('rejects negative weights unless weights are ignored', () => {
    const graph = new DirectedGraph();
    graph.mergeEdge('a', 'b', { weight: -1 });
    expect(() => pageRank(graph)).toThrow(/non-negative weights/);
    expectScores(pageRank(graph, { weighted: false, tolerance: 1e-15, maxIterations: 1000 }), {
      a: 20 / 57,
      b: 37 / 57,
    });
  });

  it('returns an empty map for an empty graph', () => {
    expect(pageRank(new DirectedGraph()).size).toBe(0);
  });
});
