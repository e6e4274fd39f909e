import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../src/contracts/errors.js';
import type { ExtractedEntity, ExtractedRelation } from '../src/contracts/types.js';
import {
  assembleKnowledgeGraph,
  cleanEntityName,
  KnowledgeGraphBuilder,
  normalizeEntityName,
  pageRank,
  relationId,
} from '../src/graph/index.js';

const entity = (name: string, type = 'person', description = ''): ExtractedEntity => ({
  name,
  type,
  description,
});
const relation = (
  source: string,
  target: string,
  weight = 1,
  description = '',
  keywords?: string[],
): ExtractedRelation => ({ source, target, weight, description, ...(keywords ? { keywords } : {}) });

/** What normalizeEntityName keeps and folds: a rule, then the names it maps to their keys. */
const ENTITY_KEYS: [rule: string, cases: [name: string, key: string][]][] = [
  [
    'trims, collapses whitespace and case-folds',
    [
      ['  Alice \n\t Smith ', 'alice smith'],
      ['ALICE SMITH', 'alice smith'],
    ],
  ],
  [
    'applies NFKC, so full-width letters and ligatures meet their plain forms',
    [
      ['ＡＣＭＥ', 'acme'],
      ['ﬁsh', 'fish'],
    ],
  ],
  [
    'strips surrounding quotes, emphasis, enclosing brackets and trailing punctuation',
    [
      ['"Paris"', 'paris'],
      ['“Paris.”', 'paris'],
      ["'Paris',", 'paris'],
      ['**Paris**', 'paris'],
      ['(Paris)', 'paris'],
      ['"(Paris)".', 'paris'],
    ],
  ],
  [
    'keeps inner punctuation and brackets that do not enclose the whole name',
    [
      ['C#', 'c#'],
      ['.NET', '.net'],
      ['AT&T', 'at&t'],
      ['Paris (France)', 'paris (france)'],
      ['(a) and (b)', '(a) and (b)'],
    ],
  ],
  ['maps a name without content to the empty key', [['  "" ', '']]],
];

describe('normalizeEntityName', () => {
  it.each(ENTITY_KEYS)('%s', (_rule, cases) => {
    for (const [name, key] of cases) expect(normalizeEntityName(name), name).toBe(key);
  });

  it('folds case fully enough that ß meets SS', () => {
    expect(normalizeEntityName('Straße')).toBe(normalizeEntityName('STRASSE'));
  });

  it('keeps case in the display form', () => {
    expect(cleanEntityName('  "The  Beatles." ')).toBe('The Beatles');
  });
});

describe('KnowledgeGraphBuilder', () => {
  it('merges case and whitespace variants into one entity named as first seen', () => {
    const kg = new KnowledgeGraphBuilder()
      .addExtraction({ entities: [entity('Alice  Smith')], relations: [] }, { chunkId: 'c1', docId: 'd1' })
      .addExtraction(
        { entities: [entity('ALICE SMITH'), entity('"alice smith."')], relations: [] },
        {
          chunkId: 'c2',
          docId: 'd1',
        },
      )
      .build();
    expect([...kg.entities.keys()]).toEqual(['alice smith']);
    expect(kg.entities.get('alice smith')!.name).toBe('Alice Smith');
  });

  it('accumulates distinct descriptions in order instead of overwriting them', () => {
    const kg = assembleKnowledgeGraph([
      {
        chunkId: 'c1',
        docId: 'd',
        extraction: { entities: [entity('Bob', 'person', 'A baker.')], relations: [] },
      },
      {
        chunkId: 'c2',
        docId: 'd',
        extraction: {
          entities: [entity('bob', 'person', 'Lives in Lyon.'), entity('BOB', 'person', '')],
          relations: [],
        },
      },
      {
        chunkId: 'c3',
        docId: 'd',
        extraction: { entities: [entity('Bob', 'person', ' A baker. ')], relations: [] },
      },
    ]);
    expect(kg.entities.get('bob')!.descriptions).toEqual(['A baker.', 'Lives in Lyon.']);
  });

  it('counts types and lists them most frequent first, ties in order of first appearance', () => {
    const kg = assembleKnowledgeGraph([
      {
        chunkId: 'c1',
        docId: 'd',
        extraction: {
          entities: [entity('Acme', 'organization'), entity('Acme', 'geo'), entity('Acme', 'PERSON')],
          relations: [],
        },
      },
      { chunkId: 'c2', docId: 'd', extraction: { entities: [entity('Acme', ' person ')], relations: [] } },
    ]);
    // person 2, organization 1, geo 1 (organization seen before geo).
    expect(kg.entities.get('acme')!.types).toEqual(['person', 'organization', 'geo']);
  });

  it('unites chunk ids in order of first appearance and records each chunk’s document', () => {
    const kg = assembleKnowledgeGraph([
      { chunkId: 'c2', docId: 'd1', extraction: { entities: [entity('Eve')], relations: [] } },
      {
        chunkId: 'c1',
        docId: 'd2',
        extraction: { entities: [entity('eve'), entity('Eve ')], relations: [] },
      },
      { chunkId: 'c2', docId: 'd1', extraction: { entities: [entity('EVE')], relations: [] } },
    ]);
    expect(kg.entities.get('eve')!.chunkIds).toEqual(['c2', 'c1']);
    expect([...kg.chunkDocs]).toEqual([
      ['c2', 'd1'],
      ['c1', 'd2'],
    ]);
  });

  it('merges A→B and B→A into one undirected relation, summing weights and uniting the rest', () => {
    const kg = assembleKnowledgeGraph([
      {
        chunkId: 'c1',
        docId: 'd',
        extraction: {
          entities: [entity('Alice'), entity('Bob')],
          relations: [relation('Alice', 'Bob', 2, 'Alice hired Bob.', ['hiring'])],
        },
      },
      {
        chunkId: 'c2',
        docId: 'd',
        extraction: {
          entities: [],
          relations: [
            relation('bob', 'ALICE', 3, 'Bob works for Alice.', ['work', 'hiring']),
            relation('Bob', 'Alice', 0.5, 'Alice hired Bob.'),
          ],
        },
      },
    ]);
    expect(kg.relations.size).toBe(1);
    const r = kg.relations.get(relationId('alice', 'bob'))!;
    expect(r).toEqual({
      id: '["alice","bob"]',
      source: 'alice',
      target: 'bob',
      descriptions: ['Alice hired Bob.', 'Bob works for Alice.'],
      weight: 5.5, // 2 + 3 + 0.5
      keywords: ['hiring', 'work'],
      chunkIds: ['c1', 'c2'],
    });
    expect(relationId('bob', 'alice')).toBe(relationId('alice', 'bob'));
  });

  it('creates an entity of type unknown for an endpoint never extracted as an entity', () => {
    const builder = new KnowledgeGraphBuilder().addExtraction(
      { entities: [entity('Alice')], relations: [relation('Alice', '"Zed Corp"', 1)] },
      { chunkId: 'c1', docId: 'd' },
    );
    expect(builder.build().entities.get('zed corp')).toEqual({
      id: 'zed corp',
      name: 'Zed Corp',
      types: ['unknown'],
      descriptions: [],
      chunkIds: ['c1'],
    });
    // A later entity record gives it a real type, a description and its canonical name.
    builder.addExtraction(
      { entities: [entity('ZED CORP', 'organization', 'A firm.')], relations: [] },
      { chunkId: 'c2', docId: 'd' },
    );
    expect(builder.build().entities.get('zed corp')).toMatchObject({
      name: 'ZED CORP',
      types: ['organization'],
      descriptions: ['A firm.'],
      chunkIds: ['c1', 'c2'],
    });
  });

  it('drops self-relations, empty names and invalid weights and lists each with its reason', () => {
    const selfLoop = relation('Alice', ' alice. ', 4);
    const emptyEnd = relation('Alice', '""', 1);
    const badWeight = relation('Alice', 'Bob', Number.NaN);
    const emptyEntity = entity('  ');
    const kg = assembleKnowledgeGraph([
      {
        chunkId: 'c1',
        docId: 'd',
        extraction: { entities: [entity('Alice'), emptyEntity], relations: [selfLoop, emptyEnd, badWeight] },
      },
    ]);
    expect(kg.relations.size).toBe(0);
    expect([...kg.entities.keys()]).toEqual(['alice']);
    expect(kg.skipped).toEqual([
      { kind: 'entity', reason: 'empty-name', chunkId: 'c1', docId: 'd', record: emptyEntity },
      { kind: 'relation', reason: 'self-relation', chunkId: 'c1', docId: 'd', record: selfLoop },
      { kind: 'relation', reason: 'empty-name', chunkId: 'c1', docId: 'd', record: emptyEnd },
      { kind: 'relation', reason: 'invalid-weight', chunkId: 'c1', docId: 'd', record: badWeight },
    ]);
  });

  it('rejects a chunk id given again with another document', () => {
    const builder = new KnowledgeGraphBuilder().addExtraction(
      { entities: [], relations: [] },
      { chunkId: 'c1', docId: 'd1' },
    );
    expect(() =>
      builder.addExtraction({ entities: [], relations: [] }, { chunkId: 'c1', docId: 'd2' }),
    ).toThrow(InvalidArgumentError);
  });

  it('returns snapshots that later additions do not change', () => {
    const builder = new KnowledgeGraphBuilder().addExtraction(
      { entities: [entity('Alice', 'person', 'first')], relations: [] },
      { chunkId: 'c1', docId: 'd' },
    );
    const before = builder.build();
    builder.addExtraction(
      { entities: [entity('Alice', 'person', 'second')], relations: [relation('Alice', 'Bob')] },
      { chunkId: 'c2', docId: 'd' },
    );
    expect(before.entities.get('alice')!.descriptions).toEqual(['first']);
    expect(before.relations.size).toBe(0);
    expect(builder.build().entities.get('alice')!.descriptions).toEqual(['first', 'second']);
  });
});

describe('KnowledgeGraph.toGraph', () => {
  it('gives an undirected graphology graph with entity attributes and relation weights', () => {
    const kg = assembleKnowledgeGraph([
      {
        chunkId: 'c1',
        docId: 'd',
        extraction: {
          entities: [entity('Alice', 'person', 'A founder.'), entity('Acme', 'organization')],
          relations: [relation('Alice', 'Acme', 2, 'Alice founded Acme.'), relation('Acme', 'Bob', 1)],
        },
      },
      { chunkId: 'c2', docId: 'd', extraction: { entities: [], relations: [relation('acme', 'alice', 3)] } },
    ]);
    const graph = kg.toGraph();
    expect(graph.type).toBe('undirected');
    expect(graph.nodes()).toEqual(['alice', 'acme', 'bob']);
    expect(graph.size).toBe(2);
    expect(graph.getNodeAttributes('alice')).toEqual({
      id: 'alice',
      name: 'Alice',
      types: ['person'],
      descriptions: ['A founder.'],
      chunkIds: ['c1', 'c2'],
    });
    const edge = graph.edge('acme', 'alice')!;
    expect(edge).toBe('["acme","alice"]');
    expect(graph.getEdgeAttribute(edge, 'weight')).toBe(5);
    // Mutating the graph does not touch the knowledge graph.
    graph.getNodeAttributes('alice').descriptions.push('changed');
    expect(kg.entities.get('alice')!.descriptions).toEqual(['A founder.']);
    // The weighted star around acme: acme holds the most PageRank.
    const ranks = pageRank(graph);
    expect(ranks.get('acme')!).toBeGreaterThan(ranks.get('alice')!);
    expect(ranks.get('alice')!).toBeGreaterThan(ranks.get('bob')!);
  });
});
