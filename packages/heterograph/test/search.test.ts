import { InvalidArgumentError } from '@grag/core';
import { FlatIndex } from '@grag/core/kit';
import { mulberry32 } from '@grag/core/test';
import { describe, expect, it } from 'vitest';
import {
  ALL_NODE_TYPES,
  addSemanticEdges,
  HeteroGraph,
  HeteroSearch,
  type HeteroSearchResult,
  NameIndex,
  type NodeType,
  phraseMatcher,
  RETRIEVABLE_TYPES,
  vectorEntries,
} from '../src/index.js';

describe('exact matching of query entities (dual search)', () => {
  const names = new NameIndex();
  for (const [key, name] of [
    ['n1', 'Bart Simpson'],
    ['n2', 'Art Deco'],
    ['n3', 'Geoffrey HINTON'],
    ['n4', 'New   York City'],
    ['n5', 'York New'],
    ['n6', 'Barack Obama'],
    ['n7', 'Obama'],
    ['n8', 'AT&T Inc.'],
    ['n9', 'C++ language'],
    ['n10', 'C language'],
    ['n11', 'Zürich'],
  ] as const) {
    names.add(key, name);
  }

  it('matches at word boundaries only: "art" finds "Art Deco", not "Bart Simpson"', () => {
    expect(names.match('art')).toEqual(['n2']);
  });

  it('ignores case on both sides', () => {
    expect(names.match('hinton')).toEqual(['n3']);
    expect(names.match('GEOFFREY hinton')).toEqual(['n3']);
  });

  it('matches multi-word names as a phrase in order, across any whitespace', () => {
    expect(names.match('new york')).toEqual(['n4']);
    expect(names.match('York  City')).toEqual(['n4']);
    expect(names.match('city york')).toEqual([]);
  });

  it('finds the entity inside longer names but not a longer entity inside a shorter name', () => {
    expect(names.match('Obama')).toEqual(['n6', 'n7']);
    expect(names.match('Barack Obama')).toEqual(['n6']);
  });

  it('handles punctuation and non-ASCII letters', () => {
    expect(names.match('AT&T')).toEqual(['n8']);
    expect(names.match('c++')).toEqual(['n9']);
    expect(names.match('Zürich')).toEqual(['n11']);
    expect(names.match('rich')).toEqual([]); // "ü" is a letter: no boundary inside "Zürich"
    expect(names.match('   ')).toEqual([]);
    expect(phraseMatcher('')).toBeNull();
  });
});

/**
 * x is an entity with four neighbours: S1 (which also touches the text T1), S2, the relationship R1
 * and the attribute A1; the overview O1 is joined to the high-level element H1, which touches S2.
 */
function example(): HeteroGraph {
  const g = new HeteroGraph();
  const add = (key: string, type: NodeType, text = key) => g.addNode(key, type, { text });
  add('x', 'N', 'Ada Lovelace');
  add('S1', 'S');
  add('S2', 'S');
  add('R1', 'R');
  add('A1', 'A');
  add('T1', 'T');
  g.connect('S1', 'x', 'd');
  g.connect('S2', 'x', 'd');
  g.connect('R1', 'x', 'r');
  g.connect('A1', 'x', 'a');
  g.connect('T1', 'S1', 's');
  return g;
}

/** Node → PPR score for every node with mass. */
function positive(search: HeteroSearch, result: HeteroSearchResult): Record<string, number> {
  const { nodeIds } = search.csr();
  const out: Record<string, number> = {};
  result.ppr.forEach((score, i) => {
    if (score > 0) out[nodeIds[i]!] = score;
  });
  return out;
}

describe('HeteroSearch', () => {
  it('computes the shallow PPR vector after t = 2 iterations as by hand', () => {
    const g = example();
    const search = new HeteroSearch(g);
    const result = search.search({ exact: ['x'], vector: [] });
    // π1 = ½p + ½Pᵀp: x ½, each neighbour ⅛. π2 = ½p + ½Pᵀπ1:
    //   x = ½ + ½(⅛·½ + ⅛ + ⅛ + ⅛) = 0.71875; S1, S2, R1, A1 = ½·⅛ = 0.0625; T1 = ½·(⅛·½) = 0.03125.
    expect(positive(search, result)).toEqual({
      x: 0.71875,
      S1: 0.0625,
      S2: 0.0625,
      R1: 0.0625,
      A1: 0.0625,
      T1: 0.03125,
    });
    // The lazy update of the official code: π2 = ½π1 + ½Pᵀπ1.
    const lazy = search.search({ exact: ['x'], vector: [] }, { update: 'lazy' });
    expect(positive(search, lazy)).toEqual({
      x: 0.46875,
      S1: 0.125,
      S2: 0.125,
      R1: 0.125,
      A1: 0.125,
      T1: 0.03125,
    });
    const once = search.search({ exact: ['x'], vector: [] }, { iterations: 1 });
    expect(once.scoreOf('x')).toBe(0.5);
    expect(once.scoreOf('T1')).toBe(0);
  });

  it('official selection: picks top nodes per bucket, brings attributes of entities, never N or O', () => {
    const g = example();
    const result = new HeteroSearch(g).search(
      { exact: ['x'], vector: [] },
      { crossNodeSelection: 'official', limits: { cross: 2 } },
    );
    expect(result.picked.entities).toEqual(['x']);
    // Ranking after x: S1, S2, R1, A1 (ties in insertion order), T1. Cross nodes: S1, S2 (limit 2);
    // A1 comes as the attribute of x; R1 as a relationship.
    expect(result.nodes.map((n) => [n.key, n.reason])).toEqual([
      ['S1', 'cross'],
      ['S2', 'cross'],
      ['A1', 'attribute'],
      ['R1', 'relationship'],
    ]);
  });

  it('official selection: brings the high-level element of a matched overview, vector entries first', () => {
    const g = example();
    g.addNode('O1', 'O', { text: 'Analytical Engine' });
    g.addNode('H1', 'H', { text: 'The engine community.' });
    g.connect('O1', 'H1', 'o');
    g.connect('H1', 'S2', 'h');
    const search = new HeteroSearch(g);
    expect(search.exactMatch(['analytical engine', 'ada'])).toEqual(['O1', 'x']);
    const result = search.search(
      { exact: ['O1'], vector: ['T1'] },
      { crossNodeSelection: 'official', limits: { cross: 0 } },
    );
    expect(result.nodes[0]).toMatchObject({ key: 'T1', reason: 'entry' });
    expect(result.picked.overviews).toEqual(['O1']);
    expect(result.nodes.map((n) => n.key)).toContain('H1');
    expect(result.nodes.find((n) => n.key === 'H1')!.reason).toBe('high-level');
  });

  it('returns only retrievable types for any entry set on a random heterograph', () => {
    const rand = mulberry32(5);
    const g = new HeteroGraph();
    const keys: string[] = [];
    for (let i = 0; i < 200; i++) {
      const type = ALL_NODE_TYPES[Math.floor(rand() * 7)]!;
      keys.push(g.addNode(`${type}${i}`, type, { text: `${type} ${i}` }));
    }
    for (let e = 0; e < 600; e++) {
      const a = keys[Math.floor(rand() * keys.length)]!;
      const b = keys[Math.floor(rand() * keys.length)]!;
      if (a !== b) g.connect(a, b, 'd');
    }
    const search = new HeteroSearch(g);
    for (let q = 0; q < 30; q++) {
      const entries = keys.filter(() => rand() < 0.03);
      const exact = entries.filter((k) => k.startsWith('N') || k.startsWith('O'));
      const vector = entries.filter((k) => !exact.includes(k) && !k.startsWith('R'));
      const result = search.search({ exact, vector }, { crossNodeSelection: 'official' });
      for (const node of result.nodes) {
        expect(RETRIEVABLE_TYPES).toContain(node.type);
        expect(node.type).not.toBe('N');
        expect(node.type).not.toBe('O');
      }
      expect(new Set(result.nodes.map((n) => n.key)).size).toBe(result.nodes.length);
      // Oracle: the official code's walk over the whole ranking, bucket by bucket.
      const { nodeIds } = search.csr();
      const ranked = nodeIds
        .map((key, i) => ({ key, i, score: result.ppr[i]! }))
        .filter((x) => x.score > 0)
        .sort((a, b) => b.score - a.score || a.i - b.i);
      const picked: Record<string, string[]> = { N: [], R: [], O: [], cross: [] };
      const limit: Record<string, number> = { N: 10, R: 30, O: 10, cross: 10 };
      for (const { key } of ranked) {
        if (vector.includes(key)) continue;
        const type = g.typeOf(key)!;
        const bucket = type === 'N' || type === 'R' || type === 'O' ? type : 'cross';
        if (picked[bucket]!.length < limit[bucket]!) picked[bucket]!.push(key);
      }
      expect(result.picked.entities).toEqual(picked.N);
      expect(result.picked.overviews).toEqual(picked.O);
      expect(result.nodes.filter((x) => x.reason === 'cross').map((x) => x.key)).toEqual(picked.cross);
      expect(result.nodes.filter((x) => x.reason === 'relationship').map((x) => x.key)).toEqual(
        picked.R!.filter((key) => !result.nodes.some((x) => x.key === key && x.reason !== 'relationship')),
      );
      // Oracle of the paper's selection: the top 10 of each type over the whole ranking, entries
      // included, filtered to the retrievable types and joined to the vector entries.
      const paper = search.search({ exact, vector }, { crossNodeSelection: 'paper' });
      const taken = new Map<string, number>();
      const perType = ranked.filter(({ key }) => {
        const type = g.typeOf(key)!;
        taken.set(type, (taken.get(type) ?? 0) + 1);
        return taken.get(type)! <= 10;
      });
      const expected = [
        ...vector,
        ...perType
          .filter(({ key }) => RETRIEVABLE_TYPES.includes(g.typeOf(key)!) && !vector.includes(key))
          .map(({ key }) => key),
      ];
      expect(paper.nodes.map((x) => x.key)).toEqual(expected);
      expect(paper.picked.entities).toEqual(
        perType.filter(({ key }) => g.typeOf(key) === 'N').map(({ key }) => key),
      );
    }
  });

  it('reaches a node that is no entry point only through the walk, two hops out at t = 2', () => {
    // T1 hangs off S1, which hangs off the entry x: two hops. Scores as in the first test above.
    const search = new HeteroSearch(example());
    for (const crossNodeSelection of ['official', 'paper'] as const) {
      const keys = (iterations: number) =>
        search
          .search({ exact: ['x'], vector: [] }, { iterations, crossNodeSelection })
          .nodes.map((n) => n.key);
      const walked = search.search({ exact: ['x'], vector: [] }, { crossNodeSelection });
      expect(walked.nodes.find((n) => n.key === 'T1')).toMatchObject({ score: 0.03125, reason: 'cross' });
      expect(keys(1)).not.toContain('T1'); // one hop: S1, S2, R1, A1 only
      expect(keys(1)).toContain('S1');
      expect(keys(0)).not.toContain('T1'); // no walk: only x has mass
    }
  });

  /**
   * x has S1, S2, the relationship R1 (to y) and its attribute A1; y has its attribute Ay; T1 hangs off
   * S1; the overview O1 names H1, which touches S2. Entries x (exact) and S1 (vector), ½ each.
   * Degrees: x 4, S1 2, S2 2, R1 2, y 2, H1 2, A1 1, Ay 1, T1 1, O1 1.
   *   π1 = ½p + ½Pᵀp: x ½·½ + ½·¼ = 0.375, S1 ¼ + ½·⅛ = 0.3125, T1 ½·¼ = 0.125, S2 = R1 = A1 = 0.0625.
   *   π2 = ½p + ½Pᵀπ1: x ¼ + ½(0.15625 + 0.03125 + 0.03125 + 0.0625) = 0.390625,
   *   S1 ¼ + ½(0.09375 + 0.125) = 0.359375, T1 ½·0.15625 = 0.078125, S2 = R1 = A1 ½·0.09375 = 0.046875,
   *   H1 = y = ½·0.03125 = 0.015625, Ay = O1 = 0.
   */
  function crossExample(): HeteroGraph {
    const g = new HeteroGraph();
    for (const [key, type] of [
      ['x', 'N'],
      ['y', 'N'],
      ['S1', 'S'],
      ['S2', 'S'],
      ['R1', 'R'],
      ['A1', 'A'],
      ['Ay', 'A'],
      ['T1', 'T'],
      ['O1', 'O'],
      ['H1', 'H'],
    ] as const) {
      g.addNode(key, type, { text: key });
    }
    g.connect('S1', 'x', 'd');
    g.connect('S2', 'x', 'd');
    g.connect('R1', 'x', 'r');
    g.connect('R1', 'y', 'r');
    g.connect('A1', 'x', 'a');
    g.connect('Ay', 'y', 'a');
    g.connect('T1', 'S1', 's');
    g.connect('O1', 'H1', 'o');
    g.connect('H1', 'S2', 'h');
    return g;
  }

  it('selects cross nodes as the official buckets or as the top k of each type (paper)', () => {
    const search = new HeteroSearch(crossExample());
    const entries = { exact: ['x'], vector: ['S1'] };
    const official = search.search(entries, { crossNodeSelection: 'official', limits: { cross: 1 } });
    expect(positive(search, official)).toEqual({
      x: 0.390625,
      S1: 0.359375,
      T1: 0.078125,
      S2: 0.046875,
      R1: 0.046875,
      A1: 0.046875,
      H1: 0.015625,
      y: 0.015625,
    });
    // Official: the shared bucket past the vector entry takes T1 (S2 and A1 score less); the entities
    // x and y bring their attributes, Ay although the walk never reached it; R1 from its bucket.
    expect(official.nodes.map((n) => [n.key, n.reason, n.score])).toEqual([
      ['S1', 'entry', 0.359375],
      ['T1', 'cross', 0.078125],
      ['A1', 'attribute', 0.046875],
      ['Ay', 'attribute', 0],
      ['R1', 'relationship', 0.046875],
    ]);
    expect(official.picked).toEqual({ entities: ['x', 'y'], overviews: [] });
    // Paper: the best node of each type, the entry S1 holding the S place (S2 stays out); H1 comes by
    // its own score, Ay (no mass) does not; the best N (x) is filtered out.
    const paper = search.search(entries, { crossNodeSelection: 'paper', limits: { cross: 1 } });
    expect(paper.nodes.map((n) => [n.key, n.reason, n.score])).toEqual([
      ['S1', 'entry', 0.359375],
      ['T1', 'cross', 0.078125],
      ['R1', 'cross', 0.046875],
      ['A1', 'cross', 0.046875],
      ['H1', 'cross', 0.015625],
    ]);
    expect(paper.picked).toEqual({ entities: ['x'], overviews: [] });
    // With k = 2 the S place beside the entry goes to S2; the limits of the official buckets do not
    // apply to the paper's selection.
    const two = search.search(entries, {
      crossNodeSelection: 'paper',
      limits: { cross: 2, entities: 0, relationships: 0, overviews: 0 },
    });
    expect(two.nodes.map((n) => n.key)).toEqual(['S1', 'T1', 'S2', 'R1', 'A1', 'H1']);
  });

  it('walks without HNSW weight when semantic edges are switched off', () => {
    const g = example();
    addSemanticEdges(g, [['T1', ['S2', 'S2']]]);
    const search = new HeteroSearch(g);
    const withEdges = search.search({ exact: [], vector: ['T1'] });
    const without = search.search({ exact: [], vector: ['T1'] }, { semanticEdges: false });
    expect(withEdges.scoreOf('S2')).toBeGreaterThan(0);
    expect(without.scoreOf('S2')).toBe(0); // two hops away without the T1–S2 edge
  });

  it("applies the official code's unbalance adjustment: w' = min(w, 1/max(deg u, deg v))", () => {
    const g = example();
    const csr = new HeteroSearch(g).csr({ semanticEdges: true, edgeWeighting: 'unbalance-adjust' });
    const weight = (a: string, b: string) => {
      const i = csr.index.get(a)!;
      for (let e = csr.offsets[i]!; e < csr.offsets[i + 1]!; e++) {
        if (csr.nodeIds[csr.targets[e]!] === b) return csr.weights[e];
      }
      return undefined;
    };
    expect(weight('x', 'S2')).toBe(0.25); // deg x = 4
    expect(weight('S1', 'T1')).toBe(0.5); // deg S1 = 2
    expect(weight('T1', 'S1')).toBe(0.5);
  });

  it('refuses an entry that is not a node', () => {
    expect(() => new HeteroSearch(example()).search({ exact: ['nope'], vector: [] })).toThrow(
      InvalidArgumentError,
    );
  });

  it('weighs entries by the given personalization weights, normalized to sum 1', () => {
    const search = new HeteroSearch(example());
    const even = search.search({ exact: [], vector: ['S1', 'S2'] }, { iterations: 0 });
    expect([even.scoreOf('S1'), even.scoreOf('S2')]).toEqual([0.5, 0.5]);
    const weights = new Map([['S1', 3]]); // S2 keeps weight 1
    const skewed = search.search({ exact: [], vector: ['S1', 'S2'], weights }, { iterations: 0 });
    expect([skewed.scoreOf('S1'), skewed.scoreOf('S2')]).toEqual([0.75, 0.25]);
    expect(() => search.search({ exact: [], vector: ['S1'], weights: new Map([['S1', -1]]) })).toThrow(
      InvalidArgumentError,
    );
  });
});

describe('addSemanticEdges', () => {
  it('adds each listed pair once: new edges weigh 1, existing edges gain 1, unknown ends are skipped', () => {
    const g = example();
    const counts = addSemanticEdges(g, [
      ['S1', ['S2', 'x', 'ghost', 'S1']],
      ['S2', ['S1']],
    ]);
    expect(counts).toEqual({ added: 1, reinforced: 1, skipped: 1 });
    expect(g.graph.getEdgeAttribute(g.graph.edge('S1', 'S2')!, 'weight')).toBe(1);
    expect(g.graph.getEdgeAttribute(g.graph.edge('S1', 'x')!, 'weight')).toBe(2);
  });
});

describe('vectorEntries', () => {
  it('maps index ids to node keys, best first', () => {
    const index = new FlatIndex({ dimensions: 2 });
    index.add(0, [1, 0]);
    index.add(1, [0, 1]);
    index.add(2, [0.9, 0.1]);
    const hits = vectorEntries(index, ['T1', 'S1', 'S2'], [1, 0], 2);
    expect(hits.map((h) => h.key)).toEqual(['T1', 'S2']);
    expect(() => vectorEntries(index, ['T1'], [0, 1], 1)).toThrow(/no key/);
  });
});
