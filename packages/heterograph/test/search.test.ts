import { FlatIndex, InvalidArgumentError } from '@grag/core';
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

  it('picks top nodes per type, brings attributes of entities, and never returns N or O', () => {
    const g = example();
    const result = new HeteroSearch(g).search({ exact: ['x'], vector: [] }, { limits: { cross: 2 } });
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

  it('brings the high-level element of a matched overview, and returns vector entries first', () => {
    const g = example();
    g.addNode('O1', 'O', { text: 'Analytical Engine' });
    g.addNode('H1', 'H', { text: 'The engine community.' });
    g.connect('O1', 'H1', 'o');
    g.connect('H1', 'S2', 'h');
    const search = new HeteroSearch(g);
    expect(search.exactMatch(['analytical engine', 'ada'])).toEqual(['O1', 'x']);
    const result = search.search({ exact: ['O1'], vector: ['T1'] }, { limits: { cross: 0 } });
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
      const result = search.search({ exact, vector });
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
    }
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
