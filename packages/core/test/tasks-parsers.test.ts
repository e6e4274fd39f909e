import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ParseIssue } from '../src/contracts/tasks.js';
import {
  mergeGraphExtractions,
  normalizeRelevanceScore,
  parseAnswer,
  parseCommunityAssessment,
  parseGraphExtraction,
  parseQueryEntities,
  parseQueryGraph,
  parseRelationshipTriple,
  parseSemanticUnits,
  parseSummary,
  parseTitleDescription,
} from '../src/tasks/index.js';

const fixture = (name: string) =>
  readFileSync(new URL(`./__fixtures__/tasks/${name}`, import.meta.url), 'utf8');
const kinds = (issues: ParseIssue[]) => issues.map((i) => i.kind);

/**
 * `parse` of each `[raw, repairable]` output gives `empty` and one no-records issue naming `raw`,
 * repairable as given (text that is not a record may be recovered by a repair retry).
 */
function expectNoRecords<R extends { issues: ParseIssue[] }>(
  parse: (raw: string) => R,
  empty: Omit<R, 'issues'>,
  cases: readonly (readonly [raw: string, repairable: true | undefined])[],
): void {
  for (const [raw, repairable] of cases) {
    expect(parse(raw)).toEqual({
      ...empty,
      issues: [{ kind: 'no-records', reason: expect.any(String), raw, repairable }],
    });
  }
}

describe('parseGraphExtraction', () => {
  it('reads GraphRAG tuple records with the default delimiters', () => {
    const out = parseGraphExtraction(fixture('graphrag-tuples.txt'));
    expect(out.entities.map((e) => [e.name, e.type])).toEqual([
      ['MARIE CURIE', 'person'],
      ['PIERRE CURIE', 'person'],
      ['UNIVERSITY OF PARIS', 'organization'],
      ['WARSAW', 'geo'],
    ]);
    expect(out.entities[3]!.description).toBe('City where Marie Curie was born');
    expect(out.relations).toEqual([
      {
        source: 'MARIE CURIE',
        target: 'PIERRE CURIE',
        description: 'Marie and Pierre Curie were married and worked together on radioactivity',
        weight: 9,
      },
      {
        source: 'MARIE CURIE',
        target: 'UNIVERSITY OF PARIS',
        description: 'Marie Curie held a professorship at the University of Paris',
        weight: 7,
      },
      { source: 'MARIE CURIE', target: 'WARSAW', description: 'Marie Curie was born in Warsaw', weight: 5 },
    ]);
    expect(out.issues).toEqual([]);
  });

  it('reads records on one line with ## between them and custom delimiters', () => {
    const raw = '(entity;;A;;person;;first)@@(entity;;B;;geo;;second)@@(relationship;;A;;B;;lives in;;3)DONE';
    const out = parseGraphExtraction(raw, {
      tupleDelimiter: ';;',
      recordDelimiter: '@@',
      completionDelimiter: 'DONE',
    });
    expect(out.entities).toEqual([
      { name: 'A', type: 'person', description: 'first' },
      { name: 'B', type: 'geo', description: 'second' },
    ]);
    expect(out.relations).toEqual([{ source: 'A', target: 'B', description: 'lives in', weight: 3 }]);
    expect(out.issues).toEqual([]);
  });

  it('accepts |, <||> and tab delimiters, missing parentheses and newline-separated records', () => {
    const raw = [
      '("entity"|ALICE|PERSON|A baker)',
      'entity<||>BOB<||>person<||>A miller',
      '"relationship"\tALICE\tBOB\tbuys flour from\t6',
    ].join('\n');
    const out = parseGraphExtraction(raw);
    expect(out.entities).toEqual([
      { name: 'ALICE', type: 'person', description: 'A baker' },
      { name: 'BOB', type: 'person', description: 'A miller' },
    ]);
    expect(out.relations).toEqual([
      { source: 'ALICE', target: 'BOB', description: 'buys flour from', weight: 6 },
    ]);
  });

  it('reads record kinds in any case', () => {
    const out = parseGraphExtraction(
      '("ENTITY"<|>A<|>Person<|>x)##("Relationship"<|>A<|>B<|>knows<|>4)<|COMPLETE|>',
    );
    expect(out.entities).toEqual([{ name: 'A', type: 'person', description: 'x' }]);
    expect(out.relations).toEqual([{ source: 'A', target: 'B', description: 'knows', weight: 4 }]);
  });

  it('splits records written back to back without a record delimiter', () => {
    const raw = '("entity"<|>A<|>person<|>x)("entity"<|>B<|>person<|>y)("relationship"<|>A<|>B<|>knows<|>2)';
    const out = parseGraphExtraction(raw);
    expect(out.entities.map((e) => e.name)).toEqual(['A', 'B']);
    expect(out.relations).toHaveLength(1);
  });

  it('reads quoted comma-separated fields', () => {
    const out = parseGraphExtraction('("entity", "ACME, INC.", "organization", "Maker of anvils, rockets")');
    expect(out.entities).toEqual([
      { name: 'ACME, INC.', type: 'organization', description: 'Maker of anvils, rockets' },
    ]);
  });

  it("reads LightRAG's extra keywords field before the strength", () => {
    const out = parseGraphExtraction('("relationship"<|>A<|>B<|>partners<|>trade, alliance<|>8)<|COMPLETE|>');
    expect(out.relations).toEqual([
      { source: 'A', target: 'B', description: 'partners', weight: 8, keywords: ['trade', 'alliance'] },
    ]);
  });

  it('joins a description that runs over two lines', () => {
    const out = parseGraphExtraction('("entity"<|>A<|>person<|>first line\nsecond line)\n<|COMPLETE|>');
    expect(out.entities).toEqual([{ name: 'A', type: 'person', description: 'first line second line' }]);
  });

  it('defaults missing fields and reports each', () => {
    const out = parseGraphExtraction('("entity"<|>A<|>person)##("relationship"<|>A<|>B<|>knows)<|COMPLETE|>');
    expect(out.entities).toEqual([{ name: 'A', type: 'person', description: '' }]);
    expect(out.relations).toEqual([{ source: 'A', target: 'B', description: 'knows', weight: 1 }]);
    expect(kinds(out.issues)).toEqual(['missing-field', 'missing-field']);
  });

  it('reports a non-numeric strength and uses 1', () => {
    const out = parseGraphExtraction('("relationship"<|>A<|>B<|>knows<|>high)<|COMPLETE|>');
    expect(out.relations[0]!.weight).toBe(1);
    expect(out.issues).toEqual([expect.objectContaining({ kind: 'invalid-value' })]);
  });

  it('skips records without a name or endpoints and unknown kinds, keeping their raw text', () => {
    const out = parseGraphExtraction(
      '("entity"<|><|>person<|>nameless)##("relationship"<|>A<|><|>x<|>1)##("claim"<|>A<|>x)##("entity"<|>C<|>geo<|>ok)<|COMPLETE|>',
    );
    expect(out.entities).toEqual([{ name: 'C', type: 'geo', description: 'ok' }]);
    expect(out.relations).toEqual([]);
    expect(kinds(out.issues)).toEqual(['skipped-record', 'skipped-record', 'skipped-record']);
    expect(out.issues[2]!.raw).toBe('("claim"<|>A<|>x)');
  });

  it('drops a tuple record cut off at the end of the output as truncated', () => {
    const out = parseGraphExtraction('("entity"<|>A<|>person<|>x)##("entity"<|>B<|>person<|>a descrip');
    expect(out.entities.map((e) => e.name)).toEqual(['A']);
    expect(out.issues).toEqual([
      { kind: 'truncated', reason: expect.any(String), raw: '("entity"<|>B<|>person<|>a descrip' },
    ]);
  });

  it('reads JSON with mixed-case keys and numeric strings, inside prose and a code fence', () => {
    const raw = [
      'Sure, here you go:',
      '```json',
      '{"Entities": [{"Entity_Name": "Alice", "ENTITY_TYPE": "Person", "Description": "a baker"}],',
      ' "RELATIONSHIPS": [{"SOURCE": "Alice", "Target": "Bob", "description": "buys from", "Weight": "8"}]}',
      '```',
      'Let me know if you need more.',
    ].join('\n');
    const out = parseGraphExtraction(raw);
    expect(out.entities).toEqual([{ name: 'Alice', type: 'person', description: 'a baker' }]);
    expect(out.relations).toEqual([{ source: 'Alice', target: 'Bob', description: 'buys from', weight: 8 }]);
    expect(out.issues).toEqual([]);
  });

  it('recovers the complete records of truncated JSON and reports the cut', () => {
    const raw =
      '{"entities": [{"name": "A", "type": "person", "description": "x"}, {"name": "B", "type": "geo", "description": "y"}, {"name": "C", "ty';
    const out = parseGraphExtraction(raw);
    expect(out.entities.map((e) => e.name)).toEqual(['A', 'B']);
    expect(out.issues).toEqual([{ kind: 'truncated', reason: expect.any(String), raw: '{"name": "C", "ty' }]);
  });

  it('tolerates trailing commas, single quotes and bare keys', () => {
    const out = parseGraphExtraction(
      "{entities: [{name: 'A', type: 'person', description: 'x',},], relationships: [],}",
    );
    expect(out.entities).toEqual([{ name: 'A', type: 'person', description: 'x' }]);
    expect(out.issues).toEqual([]);
  });

  it('reports missing JSON fields and skips relations without a target', () => {
    const out = parseGraphExtraction(
      '{"entities": [{"name": "A"}], "relationships": [{"source": "A", "description": "x"}]}',
    );
    expect(out.entities).toEqual([{ name: 'A', type: '', description: '' }]);
    expect(out.relations).toEqual([]);
    expect(kinds(out.issues)).toEqual(['missing-field', 'missing-field', 'skipped-record']);
  });

  it('gives a no-records issue with the whole output for empty or record-free output', () => {
    for (const raw of [
      '',
      '   ',
      '<|COMPLETE|>',
      '```\n<|COMPLETE|>\n```',
      '{"entities": [], "relationships": []}',
    ]) {
      const out = parseGraphExtraction(raw);
      expect(out.entities).toEqual([]);
      expect(out.relations).toEqual([]);
      // Blank output and well-formed "nothing found" answers: nothing for a repair to recover.
      expect(out.issues).toEqual([{ kind: 'no-records', reason: expect.any(String), raw }]);
    }
    // Text that is neither records nor JSON may be recovered by a repair retry.
    for (const raw of ['I could not find any entities.', '| Name | Type |\n| --- | --- |']) {
      expect(parseGraphExtraction(raw).issues.filter((i) => i.kind === 'no-records')).toEqual([
        { kind: 'no-records', reason: expect.any(String), raw, repairable: true },
      ]);
    }
  });
});

describe('mergeGraphExtractions', () => {
  it('keeps records in order and drops exact duplicates only', () => {
    const a = parseGraphExtraction('("entity"<|>A<|>person<|>x)##("relationship"<|>A<|>B<|>r<|>2)');
    const b = parseGraphExtraction(
      '("entity"<|>a<|>person<|>x)##("entity"<|>A<|>person<|>other)##("relationship"<|>a<|>b<|>r<|>2)',
    );
    const merged = mergeGraphExtractions([a, b]);
    expect(merged.entities.map((e) => `${e.name}:${e.description}`)).toEqual(['A:x', 'A:other']);
    expect(merged.relations).toHaveLength(1);
  });
});

describe('parseSemanticUnits', () => {
  it('reads NodeRAG units from a fenced JSON answer', () => {
    const out = parseSemanticUnits(fixture('noderag-units.txt'));
    expect(out.units).toEqual([
      {
        text: 'Hinton was awarded the Nobel Prize for inventing backpropagation.',
        entities: ['Hinton', 'Nobel Prize', 'backpropagation'],
        relationships: [
          { source: 'Hinton', relation: 'received', target: 'Nobel Prize' },
          { source: 'Hinton', relation: 'invented', target: 'backpropagation' },
        ],
      },
      {
        text: 'Backpropagation made training deep neural networks practical.',
        entities: ['backpropagation', 'deep neural networks'],
        relationships: [
          { source: 'backpropagation', relation: 'enabled training of', target: 'deep neural networks' },
        ],
      },
    ]);
    expect(out.issues).toEqual([]);
  });

  it('accepts a bare array, mixed-case keys, and relationships as arrays, objects or | strings', () => {
    const raw = `Output: [{"Semantic_Unit": "A met B.", "ENTITIES": ["A", "B"], "Relationships": [["A", "met", "B"], {"Source": "B", "Relation": "greeted", "Target": "A"}, "A | likes | B"]}] done`;
    const out = parseSemanticUnits(raw);
    expect(out.units).toEqual([
      {
        text: 'A met B.',
        entities: ['A', 'B'],
        relationships: [
          { source: 'A', relation: 'met', target: 'B' },
          { source: 'B', relation: 'greeted', target: 'A' },
          { source: 'A', relation: 'likes', target: 'B' },
        ],
      },
    ]);
  });

  it('uses the unit entities to split relationships whose names contain commas', () => {
    const out = parseSemanticUnits(
      '{"units": [{"semantic_unit": "x", "entities": ["Washington, D.C.", "USA"], "relationships": ["Washington, D.C., capital of, USA"]}]}',
    );
    expect(out.units[0]!.relationships).toEqual([
      { source: 'Washington, D.C.', relation: 'capital of', target: 'USA' },
    ]);
  });

  it('defaults missing lists, skips units without text and bad relationships', () => {
    const out = parseSemanticUnits(
      '{"units": [{"semantic_unit": "only text"}, {"entities": ["A"]}, {"semantic_unit": "y", "entities": ["A"], "relationships": ["A, B"]}]}',
    );
    expect(out.units).toEqual([
      { text: 'only text', entities: [], relationships: [] },
      { text: 'y', entities: ['A'], relationships: [] },
    ]);
    expect(kinds(out.issues)).toEqual(['missing-field', 'missing-field', 'skipped-record', 'skipped-record']);
    expect(out.issues[3]!.raw).toBe('A, B');
  });

  it('skips unit entities without a name and splits an entity string', () => {
    const out = parseSemanticUnits(
      '{"units": [{"semantic_unit": "x", "entities": [{"name": "A"}, {"kind": "?"}], "relationships": []}, {"semantic_unit": "y", "entities": "B, C", "relationships": []}]}',
    );
    expect(out.units.map((u) => u.entities)).toEqual([['A'], ['B', 'C']]);
    expect(kinds(out.issues)).toEqual(['skipped-record']);
  });

  it('keeps the complete units of truncated JSON', () => {
    const out = parseSemanticUnits(
      '{"units": [{"semantic_unit": "a", "entities": [], "relationships": []}, {"semantic_unit": "b", "entit',
    );
    expect(out.units.map((u) => u.text)).toEqual(['a']);
    expect(kinds(out.issues)).toEqual(['truncated']);
  });

  it('gives a no-records issue for empty or non-JSON output, repairable when there was text', () => {
    expectNoRecords(parseSemanticUnits, { units: [] }, [
      ['', undefined],
      ['{"units": []}', undefined],
      ['No units here.', true],
    ]);
  });
});

describe('parseRelationshipTriple', () => {
  it('splits "A, RELATION, B" and joins extra middle parts into the relation', () => {
    expect(parseRelationshipTriple('Hinton, received, Nobel Prize')).toEqual({
      source: 'Hinton',
      relation: 'received',
      target: 'Nobel Prize',
    });
    expect(parseRelationshipTriple('A, works, with, B')).toEqual({
      source: 'A',
      relation: 'works, with',
      target: 'B',
    });
    expect(parseRelationshipTriple('A -> founded -> B')).toEqual({
      source: 'A',
      relation: 'founded',
      target: 'B',
    });
    expect(parseRelationshipTriple('A, B')).toBeUndefined();
  });
});

describe('parseTitleDescription', () => {
  it('reads JSON with any key case, inside prose or a fence', () => {
    const expected = { title: 'Curie and radium', description: 'How radium was isolated.', issues: [] };
    expect(
      parseTitleDescription('{"title": "Curie and radium", "description": "How radium was isolated."}'),
    ).toEqual(expected);
    expect(
      parseTitleDescription(
        'Here:\n```json\n{"TITLE": "Curie and radium", "Description": "How radium was isolated."}\n```',
      ),
    ).toEqual(expected);
  });

  it('reads labelled lines and falls back to first line as title', () => {
    expect(
      parseTitleDescription('**Title:** Curie and radium\n**Description:** How radium\nwas isolated.'),
    ).toEqual({
      title: 'Curie and radium',
      description: 'How radium was isolated.',
      issues: [],
    });
    expect(parseTitleDescription('# Curie and radium\nHow radium was isolated.')).toEqual({
      title: 'Curie and radium',
      description: 'How radium was isolated.',
      issues: [],
    });
  });

  it('reports a missing description and a truncated JSON value', () => {
    const missing = parseTitleDescription('{"title": "Only a title"}');
    expect(missing).toEqual({
      title: 'Only a title',
      description: '',
      issues: [expect.objectContaining({ kind: 'missing-field' })],
    });
    const cut = parseTitleDescription('{"title": "Curie", "description": "How radium was iso');
    expect(cut.title).toBe('Curie');
    expect(cut.description).toBe('How radium was iso');
    expect(kinds(cut.issues)).toEqual(['truncated']);
  });

  it('gives a no-records issue for empty output', () => {
    expectNoRecords(parseTitleDescription, { title: '', description: '' }, [['', undefined]]);
  });
});

describe('parseQueryEntities', () => {
  it('reads a JSON list under any key case, de-duplicating case-insensitively', () => {
    expect(parseQueryEntities('{"Entities": ["Marie Curie", "radium", "marie curie"]}')).toEqual({
      entities: ['Marie Curie', 'radium'],
      issues: [],
    });
    expect(parseQueryEntities('```json\n["Paris", {"name": "France"}]\n```').entities).toEqual([
      'Paris',
      'France',
    ]);
  });

  it('reads bulleted, numbered and comma-separated lists', () => {
    expect(parseQueryEntities('Here are the entities:\n- Paris\n2. "France"\n* Seine').entities).toEqual([
      'Paris',
      'France',
      'Seine',
    ]);
    expect(parseQueryEntities('Entities: Paris, France').entities).toEqual(['Paris', 'France']);
  });

  it('skips items without a name and reads semicolon-separated lists', () => {
    const out = parseQueryEntities('{"ENTITIES": [{"type": "geo"}, {"Name": "Paris"}]}');
    expect(out.entities).toEqual(['Paris']);
    expect(out.issues).toEqual([
      { kind: 'skipped-record', reason: expect.any(String), raw: '{"type":"geo"}', repairable: true },
    ]);
    expect(parseQueryEntities('Paris; France; Seine').entities).toEqual(['Paris', 'France', 'Seine']);
  });

  it('keeps the complete items of a truncated list', () => {
    const out = parseQueryEntities('{"entities": ["Paris", "Fra');
    expect(out.entities).toEqual(['Paris']);
    expect(kinds(out.issues)).toEqual(['truncated']);
  });

  it('gives a no-records issue for empty output or an empty list', () => {
    expect(kinds(parseQueryEntities('').issues)).toEqual(['no-records']);
    expect(parseQueryEntities('{"entities": []}')).toEqual({
      entities: [],
      issues: [{ kind: 'no-records', reason: expect.any(String), raw: '{"entities": []}' }],
    });
  });
});

describe('parseQueryGraph', () => {
  const valid = JSON.stringify({
    nodes: [
      { id: 'n1', label: 'UNK', target: true },
      { id: 'n2', label: 'UNK', target: false },
      { id: 'n3', label: 'Mozart', target: false },
    ],
    edges: [
      { source: 'n1', target: 'n2', relation: 'flows through' },
      { source: 'n3', target: 'n2', relation: 'born in' },
    ],
  });

  it('reads nodes, UNK labels and target flags', () => {
    expect(parseQueryGraph(valid)).toEqual({
      nodes: [
        { id: 'n1', label: null, isTarget: true },
        { id: 'n2', label: null, isTarget: false },
        { id: 'n3', label: 'Mozart', isTarget: false },
      ],
      edges: [
        { source: 'n1', target: 'n2', relation: 'flows through' },
        { source: 'n3', target: 'n2', relation: 'born in' },
      ],
      issues: [],
    });
  });

  it('makes every unknown node a target when no node has a flag (SG-RAG convention)', () => {
    const out = parseQueryGraph(
      '{"nodes": [{"id": "a", "label": "?"}, {"id": "b", "label": "Paris"}], "edges": []}',
    );
    expect(out.nodes).toEqual([
      { id: 'a', label: null, isTarget: true },
      { id: 'b', label: 'Paris', isTarget: false },
    ]);
  });

  it('accepts mixed-case keys, prose, edges by label and edges as arrays', () => {
    const raw =
      'Graph:\n{"NODES": [{"ID": "q1", "Label": "UNK", "Is_Target": "true"}, {"ID": "q2", "Label": "Paris"}], "Edges": [{"Source": "q1", "Target": "paris", "Relation": "capital of"}, ["q2", "q1", "near"]]}\nThanks';
    const out = parseQueryGraph(raw);
    expect(out.nodes).toEqual([
      { id: 'q1', label: null, isTarget: true },
      { id: 'q2', label: 'Paris', isTarget: false },
    ]);
    expect(out.edges).toEqual([
      { source: 'q1', target: 'q2', relation: 'capital of' },
      { source: 'q2', target: 'q1', relation: 'near' },
    ]);
    expect(out.issues).toEqual([]);
  });

  it('fills a missing id, skips repeated ids and dangling edges, defaults a missing relation', () => {
    const out = parseQueryGraph(
      '{"nodes": [{"label": "A"}, {"id": "x", "label": "B"}, {"id": "x", "label": "C"}], "edges": [{"source": "n1", "target": "x"}, {"source": "x", "target": "zzz", "relation": "r"}]}',
    );
    expect(out.nodes.map((n) => n.id)).toEqual(['n1', 'x']);
    expect(out.edges).toEqual([{ source: 'n1', target: 'x', relation: '' }]);
    expect(kinds(out.issues)).toEqual(['missing-field', 'skipped-record', 'missing-field', 'skipped-record']);
  });

  it('reads a graph from a code fence', () => {
    const out = parseQueryGraph(`\`\`\`json\n${valid}\n\`\`\``);
    expect(out.nodes.map((n) => n.id)).toEqual(['n1', 'n2', 'n3']);
    expect(out.edges).toHaveLength(2);
  });

  it('keeps complete nodes of a truncated graph', () => {
    const out = parseQueryGraph('{"nodes": [{"id": "n1", "label": "UNK", "target": true}, {"id": "n2", "lab');
    expect(out.nodes).toEqual([{ id: 'n1', label: null, isTarget: true }]);
    expect(out.edges).toEqual([]);
    expect(kinds(out.issues)).toEqual(['truncated']);
  });

  it('gives a no-records issue for empty or graph-free output, repairable when there was text', () => {
    expectNoRecords(parseQueryGraph, { nodes: [], edges: [] }, [
      ['', undefined],
      ['{"nodes": []}', undefined],
      ['no graph', true],
    ]);
  });
});

describe('parseCommunityAssessment', () => {
  it('reads the score and report from JSON with any key case, prose and fences', () => {
    expect(parseCommunityAssessment('{"score": 7, "report": "Covers the treaty."}')).toEqual({
      score: 7,
      report: 'Covers the treaty.',
      issues: [],
    });
    expect(
      parseCommunityAssessment('Result:\n```json\n{"Relevance_Score": "8", "REPORT": "r"}\n```').score,
    ).toBe(8);
  });

  it('normalises explicit denominators, percentages and obvious 0-100 scores; clamps the rest', () => {
    const cases: [unknown, number, boolean][] = [
      ['7/10', 7, false],
      ['45/50', 9, false],
      ['3 out of 5', 6, false],
      ['85%', 8.5, false],
      ['21/20', 10, true],
      [85, 8.5, true],
      [250, 10, true],
      [-2, 0, true],
      [10, 10, false],
      [0, 0, false],
    ];
    for (const [value, score, reported] of cases) {
      const out = normalizeRelevanceScore(value, 'raw');
      expect(out?.score).toBeCloseTo(score);
      expect(out?.issue !== undefined).toBe(reported);
    }
  });

  it('reads labelled lines and a score written in prose', () => {
    expect(parseCommunityAssessment('Score: 6/10\nReport: Mentions the river.')).toEqual({
      score: 6,
      report: 'Mentions the river.',
      issues: [],
    });
    expect(
      parseCommunityAssessment('I would give it a relevance of 4.\nIt only touches on the topic.'),
    ).toEqual({
      score: 4,
      report: 'It only touches on the topic.',
      issues: [],
    });
  });

  it('reports a missing score, a non-numeric score and a truncated report', () => {
    const noScore = parseCommunityAssessment('{"report": "r"}');
    expect(noScore.score).toBe(0);
    expect(kinds(noScore.issues)).toEqual(['missing-field']);
    const word = parseCommunityAssessment('{"score": "high", "report": "r"}');
    expect(word.score).toBe(0);
    expect(kinds(word.issues)).toEqual(['invalid-value']);
    const cut = parseCommunityAssessment('{"score": 9, "report": "The community describes');
    expect(cut.score).toBe(9);
    expect(cut.report).toBe('The community describes');
    expect(kinds(cut.issues)).toEqual(['truncated']);
  });

  it('gives a no-records issue for empty output', () => {
    expect(parseCommunityAssessment('')).toEqual({
      score: 0,
      report: '',
      issues: [{ kind: 'no-records', reason: expect.any(String), raw: '' }],
    });
  });
});

describe('parseAnswer', () => {
  const ids = ['c1', 'c2', 'doc#3'];

  it('collects inline citations in first-cited order without duplicates', () => {
    const out = parseAnswer('Paris is the capital [c2]. It lies on the Seine [c1, c2][doc#3].', ids);
    expect(out).toEqual({
      answer: 'Paris is the capital [c2]. It lies on the Seine [c1, c2][doc#3].',
      citations: ['c2', 'c1', 'doc#3'],
      issues: [],
    });
  });

  it('reads (source: id), (id), [Source: id], numeric positions and case variants', () => {
    const out = parseAnswer('A (source: c2). B (C1). C [Source: doc#3]. D [1]. E (see the map).', ids);
    expect(out.citations).toEqual(['c2', 'c1', 'doc#3']);
    expect(out.issues).toEqual([]);
  });

  it('reports unknown ids and ignores Markdown links', () => {
    const out = parseAnswer('Yes [c1][c9]. See [the docs](https://example.com).', ids);
    expect(out.citations).toEqual(['c1']);
    expect(out.issues).toEqual([
      { kind: 'invalid-value', reason: expect.stringContaining('c9'), raw: '[c9]' },
    ]);
  });

  it('reads a JSON answer with a citation list, in a fence', () => {
    const out = parseAnswer('```json\n{"Answer": "Paris [c1].", "Citations": ["c2", "c7"]}\n```', ids);
    expect(out.answer).toBe('Paris [c1].');
    expect(out.citations).toEqual(['c2', 'c1']);
    expect(kinds(out.issues)).toEqual(['invalid-value']);
  });

  it('keeps the partial answer of truncated JSON and reports the cut', () => {
    const out = parseAnswer('{"answer": "Paris [c1] is the cap', ids);
    expect(out.answer).toBe('Paris [c1] is the cap');
    expect(out.citations).toEqual(['c1']);
    expect(out.issues.map((i) => i.kind)).toEqual(['truncated']);
  });

  it('does not read parenthesised enumerations as citations by position', () => {
    const out = parseAnswer('Two steps: (1) mix, (2) bake [2].', ids);
    expect(out.citations).toEqual(['c2']);
    expect(out.issues).toEqual([]);
  });

  it('strips an "Answer:" label and gives a no-records issue for empty output', () => {
    expect(parseAnswer('Answer: Paris [c1]', ids).answer).toBe('Paris [c1]');
    expect(parseAnswer('', ids)).toEqual({
      answer: '',
      citations: [],
      issues: [{ kind: 'no-records', reason: expect.any(String), raw: '' }],
    });
  });
});

describe('parseSummary', () => {
  it('strips fences, a Summary label and reads a JSON summary field', () => {
    expect(parseSummary('Summary: The Curies isolated radium.')).toBe('The Curies isolated radium.');
    expect(parseSummary('```\nThe Curies isolated radium.\n```')).toBe('The Curies isolated radium.');
    expect(parseSummary('{"Summary": "The Curies isolated radium."}')).toBe('The Curies isolated radium.');
    expect(parseSummary('Summary statistics were computed.')).toBe('Summary statistics were computed.');
    expect(parseSummary('  ')).toBe('');
  });
});

describe('inputs the fuzz test found', () => {
  it('tuple records: own parentheses, cuts after an inner parenthesis or inside a delimiter', () => {
    // Without record parentheses, a description ending in ")" keeps it.
    expect(parseGraphExtraction('entity<|>A<|>person<|>born in Paris (1867)').entities).toEqual([
      { name: 'A', type: 'person', description: 'born in Paris (1867)' },
    ]);
    // Cut right after the ")" of "(1867)": the record itself is not closed.
    const cut = parseGraphExtraction('("entity"<|>A<|>person<|>x)##("entity"<|>B<|>person<|>born (1867)');
    expect(cut.entities.map((e) => e.name)).toEqual(['A']);
    expect(kinds(cut.issues)).toEqual(['truncated']);
    // Cut inside the completion marker or record delimiter after a complete record.
    for (const raw of ['("entity"<|>A<|>person<|>x)<|COMP', '("entity"<|>A<|>person<|>x)#']) {
      expect(parseGraphExtraction(raw)).toEqual({
        entities: [{ name: 'A', type: 'person', description: 'x' }],
        relations: [],
        issues: [],
      });
    }
    // A record cut inside its kind is truncated, not an unknown kind.
    expect(kinds(parseGraphExtraction('("entity"<|>A<|>person<|>x)##("ent').issues)).toEqual(['truncated']);
  });

  it('tuple records: back-to-back unknown kinds and ;-separated records are reported, not absorbed', () => {
    const glued = parseGraphExtraction(
      '("entity"<|>A<|>person<|>x)("claim"<|>A<|>y)("entity"<|>B<|>geo<|>z)',
    );
    expect(glued.entities.map((e) => [e.name, e.description])).toEqual([
      ['A', 'x'],
      ['B', 'z'],
    ]);
    expect(glued.issues).toEqual([
      expect.objectContaining({ kind: 'skipped-record', raw: '("claim"<|>A<|>y)' }),
    ]);
    const semicolons = parseGraphExtraction('"entity";A;person;x\n"claim";A;y\n"entity";B;geo;z');
    expect(semicolons.entities.map((e) => e.name)).toEqual(['A', 'B']);
    expect(semicolons.issues).toEqual([expect.objectContaining({ raw: '"claim";A;y', repairable: true })]);
  });

  it('JSON lists: a malformed last element does not swallow what follows', () => {
    const out = parseGraphExtraction(
      '{"entities": [{"name": "A", "type": "person", "description": "x"}, {"name": "Q", "type": }], "relationships": [{"source": "A", "target": "B", "description": "d", "strength": 2}]}',
    );
    expect(out.entities.map((e) => e.name)).toEqual(['A']);
    expect(out.relations).toHaveLength(1);
    expect(out.issues).toEqual([
      {
        kind: 'skipped-record',
        reason: expect.any(String),
        raw: '{"name": "Q", "type": }',
        repairable: true,
      },
    ]);
    // A list none of whose records is usable is still read, and its losses reported.
    const units = parseSemanticUnits('[{"x": 1}, {"semantic_unit": "cut sho');
    expect(units.units).toEqual([]);
    expect(kinds(units.issues)).toEqual(['truncated', 'skipped-record', 'no-records']);
  });

  it('query graphs: a node without an id never takes an id a later node has', () => {
    const out = parseQueryGraph(
      '{"nodes": [{"label": "Paris"}, {"id": "n1", "label": "UNK", "target": true}], "edges": [{"source": "n1", "target": "Paris", "relation": "in"}]}',
    );
    expect(out.nodes).toEqual([
      { id: 'n1_', label: 'Paris', isTarget: false },
      { id: 'n1', label: null, isTarget: true },
    ]);
    expect(out.edges).toEqual([{ source: 'n1', target: 'n1_', relation: 'in' }]);
  });

  it('query entities: a bare array on its own line after prose', () => {
    expect(
      parseQueryEntities('Here they are [as requested]:\n["Paris", {"name": "France"}]').entities,
    ).toEqual(['Paris', 'France']);
  });

  it('labelled lines cut inside the next label, a cut closing fence, and JSON junk as a title', () => {
    expect(parseTitleDescription('**Title:** Curie and radium\n**Desc')).toMatchObject({
      title: 'Curie and radium',
      description: '',
    });
    expect(parseCommunityAssessment('Score: 7\nRep').score).toBe(7);
    expect(parseTitleDescription('```\nTitle: T\nDescription: D\n``')).toEqual({
      title: 'T',
      description: 'D',
      issues: [],
    });
    expect(parseTitleDescription('{}').issues).toEqual([
      { kind: 'no-records', reason: expect.any(String), raw: '{}', repairable: true },
    ]);
  });

  it('summaries: lead-in lines, bold labels, JSON after prose and an empty JSON summary', () => {
    expect(parseSummary('Here is a summary of the passages:\n\nThe Curies isolated radium.')).toBe(
      'The Curies isolated radium.',
    );
    expect(parseSummary('**Summary:** The Curies isolated radium.')).toBe('The Curies isolated radium.');
    expect(parseSummary('Sure: {"summary": "The Curies isolated radium."}')).toBe(
      'The Curies isolated radium.',
    );
    expect(parseSummary('{"summary": ""}')).toBe('');
    // A first line ending with ":" that is not a lead-in stays.
    expect(parseSummary('Three things matter:\n- radium')).toBe('Three things matter:\n- radium');
  });
});
