import { describe, expect, it } from 'vitest';
import {
  type LocalSearchEntity,
  type LocalSearchRelationship,
  localSearch,
  prepareLocalSearch,
  rankRelationships,
  rankTextUnits,
  renderLocalSearchItem,
  selectSeedEntities,
} from '../src/graph/index.js';
import { InvalidArgumentError } from '../src/index.js';
import { FlatIndex, getTokenizer } from '../src/kit.js';

const tokenizer = getTokenizer();

/*
 * Hand-made graph. Degrees: a 3, b 3, c 3, d 3, e 2, f 1, g 1.
 * Ranks (deg source + deg target): r0 6, r1 6, r2 6, r3 6, r4 5, r5 4, r6 5, r7 4.
 */
const names: Record<string, string> = {
  a: 'Alpha',
  b: 'Beta',
  c: 'Gamma',
  d: 'Delta',
  e: 'Epsilon',
  f: 'Zeta',
  g: 'Eta',
};
const entityUnits: Record<string, string[]> = {
  a: ['u1', 'u2'],
  b: ['u2', 'u3', 'u4'],
  c: ['u5'],
  d: ['u6'],
  e: ['u6'],
  f: [],
  g: ['missing'],
};
const entities: LocalSearchEntity[] = Object.keys(names).map((id) => ({
  id,
  name: names[id]!,
  description: `${names[id]} is entity ${id}`,
  textUnitIds: entityUnits[id]!,
}));
const rel = (
  id: string,
  source: string,
  target: string,
  textUnitIds: string[],
  weight = 1,
): LocalSearchRelationship => ({
  id,
  source,
  target,
  description: `${names[source]} relates to ${names[target]}`,
  weight,
  textUnitIds,
});
const relationships = [
  rel('r0', 'a', 'c', ['u1']),
  rel('r1', 'a', 'b', ['u2']),
  rel('r2', 'b', 'c', ['u4'], 5),
  rel('r3', 'a', 'd', ['u2']),
  rel('r4', 'd', 'e', ['u6']),
  rel('r5', 'd', 'f', []),
  rel('r6', 'b', 'e', ['u4', 'u3']),
  rel('r7', 'c', 'g', []),
];
const textUnits = ['u1', 'u2', 'u3', 'u4', 'u5', 'u6'].map((id) => ({
  id,
  text: `Text unit ${id} says something about the entities.`,
  docIds: [`doc-${id}`],
}));
const graph = prepareLocalSearch({ entities, relationships, textUnits });
const ids = (ranked: { index: number }[]) => ranked.map((r) => relationships[r.index]!.id);

describe('prepareLocalSearch', () => {
  it('computes GraphRAG ranks: entity degree and the combined degree of each relationship', () => {
    expect([...graph.degree]).toEqual([3, 3, 3, 3, 2, 1, 1]);
    expect([...graph.rank]).toEqual([6, 6, 6, 6, 5, 4, 5, 4]);
  });

  it('rejects a relationship whose endpoint is not an entity', () => {
    expect(() =>
      prepareLocalSearch({ entities, relationships: [rel('x', 'a', 'zz', [])], textUnits: [] }),
    ).toThrow(InvalidArgumentError);
  });
});

describe('rankRelationships', () => {
  it('puts relationships between two seeds first, then out-network ones by links to seeds, then rank', () => {
    // in: r1. out: r0 and r2 reach c, which is linked to both seeds (links 2; r2 has the higher
    // weight); r3 reaches d (links 1, rank 6), r6 reaches e (links 1, rank 5).
    expect(ids(rankRelationships(graph, ['a', 'b'], 10))).toEqual(['r1', 'r2', 'r0', 'r3', 'r6']);
  });

  it('keeps at most topK out-network relationships per seed', () => {
    expect(ids(rankRelationships(graph, ['a', 'b'], 1))).toEqual(['r1', 'r2', 'r0']);
  });

  it('orders in-network relationships by rank, then weight', () => {
    // d–e: in r4; out r3 (rank 6), r6 (rank 5), r5 (rank 4), each linked to one seed.
    expect(ids(rankRelationships(graph, ['d', 'e'], 10))).toEqual(['r4', 'r3', 'r6', 'r5']);
    // a, b, c: r0, r1, r2 all in-network with rank 6; r2 weighs 5.
    expect(ids(rankRelationships(graph, ['a', 'b', 'c'], 10))).toEqual(['r2', 'r0', 'r1', 'r3', 'r6', 'r7']);
  });

  it('marks in-network relationships and counts links', () => {
    const ranked = rankRelationships(graph, ['a', 'b'], 10);
    expect(ranked.map((r) => [r.inNetwork, r.links])).toEqual([
      [true, 0],
      [false, 2],
      [false, 2],
      [false, 1],
      [false, 1],
    ]);
  });

  it('rejects an unknown seed', () => {
    expect(() => rankRelationships(graph, ['nope'], 10)).toThrow(InvalidArgumentError);
  });
});

describe('rankTextUnits', () => {
  it('orders units by first seed, then by that seed’s relationships from the unit, once each', () => {
    // a: u2 (r1, r3) before u1 (r0). b: u2 taken; u4 (r2, r6) before u3 (r6).
    expect(rankTextUnits(graph, ['a', 'b'])).toEqual([
      { id: 'u2', seed: 0, relationships: 2 },
      { id: 'u1', seed: 0, relationships: 1 },
      { id: 'u4', seed: 1, relationships: 2 },
      { id: 'u3', seed: 1, relationships: 1 },
    ]);
  });

  it('skips units that are not in the graph', () => {
    expect(rankTextUnits(graph, ['g'])).toEqual([]);
  });
});

describe('selectSeedEntities', () => {
  // Entity i has the unit vector e_i; the query is nearest to b, then a.
  const vectors = entities.map((_, i) => Array.from({ length: 8 }, (_, c) => (c === i ? 1 : 0)));
  const query = [0.6, 0.8, 0, 0, 0, 0, 0, 0];

  it('ranks entities by cosine similarity to the query', () => {
    const seeds = selectSeedEntities(graph, query, vectors, 2);
    expect(seeds.map((s) => s.id)).toEqual(['b', 'a']);
    expect(seeds[0]!.score).toBeCloseTo(0.8, 6);
  });

  it('gives the same seeds from a vector index over entity positions', () => {
    const index = new FlatIndex({ dimensions: 8 });
    vectors.forEach((v, i) => {
      index.add(i, v);
    });
    expect(selectSeedEntities(graph, query, index, 2).map((s) => s.id)).toEqual(['b', 'a']);
  });
});

describe('localSearch', () => {
  const render = (text: string, kind: string, id: string) =>
    renderLocalSearchItem({ id, kind, text, score: 0, source: { chunkIds: [], docIds: [] } });
  const entityLine = (id: string) => render(`${names[id]}: ${names[id]} is entity ${id}`, 'entity', id);
  const relationLine = (r: LocalSearchRelationship) =>
    render(`${names[r.source]} — ${names[r.target]}: ${r.description}`, 'relation', r.id);
  const byId = (id: string) => relationships.find((r) => r.id === id)!;
  const count = (parts: string[]) => tokenizer.count(parts.join('\n\n'));

  it('writes entities, then relationships, then text units, within the budget', () => {
    const result = localSearch(graph, null, null, { seeds: ['a', 'b'], budgetTokens: 4000, tokenizer });
    expect(result.items.map((i) => `${i.kind}:${i.id}`)).toEqual([
      'entity:a',
      'entity:b',
      'relation:r1',
      'relation:r2',
      'relation:r0',
      'relation:r3',
      'relation:r6',
      'chunk:u2',
      'chunk:u1',
      'chunk:u4',
      'chunk:u3',
    ]);
    expect(result.context.split('\n\n')[0]).toBe(entityLine('a'));
    expect(result.context).toContain('[u4] Text unit u4');
    expect(result.items.at(-1)!.source.docIds).toEqual(['doc-u3']);
    expect(result.tokens).toBe(tokenizer.count(result.context));
    expect(result.relationshipSeeds).toBe(2);
  });

  it('keeps the relationships of the largest seed prefix that fits the local share', () => {
    // Seed a alone: r0, r1, r3 (links 1, rank 6, weight 1: relationship order).
    const one = [entityLine('a'), entityLine('b'), ...['r0', 'r1', 'r3'].map((r) => relationLine(byId(r)))];
    const localShare = count(one);
    const result = localSearch(graph, null, null, {
      seeds: ['a', 'b'],
      budgetTokens: 2 * localShare,
      tokenizer,
    });
    expect(result.relationshipSeeds).toBe(1);
    expect(result.items.filter((i) => i.kind === 'relation').map((i) => i.id)).toEqual(['r0', 'r1', 'r3']);
    expect(result.sections.entities + result.sections.relationships).toBeLessThanOrEqual(localShare);
  });

  it('fills the text-unit share with whole units only', () => {
    const unitLine = (id: string) => render(textUnits.find((u) => u.id === id)!.text, 'chunk', id);
    const twoUnits = count([unitLine('u2'), unitLine('u1')]);
    const result = localSearch(graph, null, null, {
      seeds: ['a', 'b'],
      budgetTokens: 4000,
      textUnitProp: twoUnits / 4000 + 1e-9,
      tokenizer,
    });
    expect(result.items.filter((i) => i.kind === 'chunk').map((i) => i.id)).toEqual(['u2', 'u1']);
    expect(result.sections.textUnits).toBe(twoUnits);
  });

  it('never exceeds small budgets', () => {
    for (const budget of [0, 5, 17, 40, 80, 160]) {
      const result = localSearch(graph, null, null, {
        seeds: ['a', 'b', 'd'],
        budgetTokens: budget,
        tokenizer,
      });
      expect(result.tokens).toBeLessThanOrEqual(budget);
      expect(result.tokens).toBe(tokenizer.count(result.context));
    }
  });

  it('picks seeds by similarity when no seeds are given', () => {
    const vectors = entities.map((_, i) => Array.from({ length: 8 }, (_, c) => (c === i ? 1 : 0)));
    const result = localSearch(graph, [0, 0, 0, 1, 0.5, 0, 0, 0], vectors, {
      topKEntities: 2,
      budgetTokens: 4000,
      tokenizer,
    });
    expect(result.seeds.map((s) => s.id)).toEqual(['d', 'e']);
    expect(result.items.filter((i) => i.kind === 'relation').map((i) => i.id)).toEqual([
      'r4',
      'r3',
      'r6',
      'r5',
    ]);
  });

  it('uses no text units when textUnitProp is 0', () => {
    const result = localSearch(graph, null, null, {
      seeds: ['a'],
      budgetTokens: 4000,
      textUnitProp: 0,
      tokenizer,
    });
    expect(result.items.some((i) => i.kind === 'chunk')).toBe(false);
    expect(result.sections.textUnits).toBe(0);
  });
});

describe('localSearch provenance', () => {
  it("gives every item the locations of its text units: a chunk its own, an entity or relation its units' (distinct)", () => {
    const located = prepareLocalSearch({
      entities,
      relationships,
      textUnits: textUnits.map((u, i) => ({
        ...u,
        // u1 and u2 on page 1, then one page each; u6 has none (its document had no segments).
        ...(u.id === 'u6' ? {} : { locations: [{ path: 'report.pdf', page: Math.max(1, i) }] }),
      })),
    });
    const result = localSearch(located, null, null, {
      seeds: ['a', 'b', 'd'],
      budgetTokens: 4000,
      tokenizer,
    });
    const byId = new Map(result.items.map((i) => [i.id, i.source]));
    expect(byId.get('u4')).toEqual({
      chunkIds: ['u4'],
      docIds: ['doc-u4'],
      locations: [{ path: 'report.pdf', page: 3 }],
    });
    // r6 rests on u4 and u3; r1 on u2 alone; r4 on u6, which has no location.
    expect(byId.get('r6')!.locations).toEqual([
      { path: 'report.pdf', page: 3 },
      { path: 'report.pdf', page: 2 },
    ]);
    expect(byId.get('r1')!.locations).toEqual([{ path: 'report.pdf', page: 1 }]);
    expect(byId.get('r4')).toEqual({ chunkIds: ['u6'], docIds: ['doc-u6'] });
    // Entity a rests on u1 and u2, both on page 1: one location.
    expect(byId.get('a')).toEqual({
      chunkIds: ['u1', 'u2'],
      docIds: ['doc-u1', 'doc-u2'],
      locations: [{ path: 'report.pdf', page: 1 }],
    });
  });
});
