import type { Chunk, SemanticUnitRecord } from '@grag/core';
import { describe, expect, it } from 'vitest';
import { layUnits, linkUnits } from '../src/units.js';

const chunk = (id: string, docId: string, order = 0): Chunk => ({
  id,
  docId,
  order,
  text: '',
  tokens: 0,
  start: 0,
  end: 0,
});
const unit = (
  text: string,
  entities: string[],
  relationships: [string, string, string][] = [],
): SemanticUnitRecord => ({
  text,
  entities,
  relationships: relationships.map(([source, relation, target]) => ({ source, relation, target })),
});

describe('layUnits (G1)', () => {
  const chunks = [chunk('c0', 'a'), chunk('c1', 'b')];
  const laid = layUnits({
    chunks,
    units: [
      [
        unit(
          ' Ada founded Acme. ',
          ['Ada', 'ACME', '!!!'],
          [
            ['Ada', ' founded  ', 'Acme'],
            ['Ada', 'is', 'ada'],
          ],
        ),
        unit('  ', []),
      ],
      [
        unit('Ada founded Acme.', ['Ada'], [['Ada', 'founded', 'Acme']]),
        unit('Bo joined Acme.', ['Bo', 'Acme']),
      ],
    ],
  });
  const { graph } = laid;
  const edge = (a: string, b: string) => {
    const key = graph.graph.edge(a, b);
    return key === undefined ? undefined : graph.graph.getEdgeAttributes(key);
  };
  const R = 'R:ada|founded|acme';

  it('merges identical unit texts into one S node and keeps each chunk’s units in order', () => {
    expect(graph.nodes('S')).toEqual(['S:0', 'S:1']);
    expect(graph.node('S:0')).toMatchObject({
      text: 'Ada founded Acme.',
      weight: 2,
      chunks: ['c0', 'c1'],
      docs: ['a', 'b'],
    });
    expect(laid.unitsOfChunk).toEqual([['S:0'], ['S:0', 'S:1']]);
    expect(laid.extractedUnits).toBe(4);
  });

  it('makes one N node per normalized name, named as first written, weighed once per unit', () => {
    expect(graph.nodes('N')).toEqual(['N:ada', 'N:acme', 'N:bo']);
    expect(graph.node('N:acme')).toMatchObject({ text: 'ACME', weight: 3 });
    expect(graph.node('N:ada').weight).toBe(2);
  });

  it('makes one R node per source–relation–target, joined once to both ends and to each unit', () => {
    expect(graph.nodes('R')).toEqual([R]);
    expect(graph.node(R)).toMatchObject({ text: 'Ada founded ACME', weight: 2 });
    expect(edge(R, 'N:ada')).toMatchObject({ kind: 'r', baseWeight: 1 });
    expect(edge(R, 'N:acme')).toMatchObject({ kind: 'r', baseWeight: 1 });
    expect(edge('S:0', R)).toMatchObject({ kind: 'd', baseWeight: 1 });
    // The unit names Ada in both chunks: its S–N edge is laid twice.
    expect(edge('S:0', 'N:ada')).toMatchObject({ kind: 'd', baseWeight: 2 });
    expect(edge('S:1', 'N:acme')).toMatchObject({ kind: 'd', baseWeight: 1 });
    expect(graph.graph.size).toBe(7);
  });

  it('counts what it leaves out', () => {
    expect(laid.skipped).toEqual({ 'nameless-entity': 1, 'self-relation': 1, 'blank-unit': 1 });
  });
});

describe('linkUnits', () => {
  it('gives every unit its document’s title entity and resolves relationship ends to canonical names', () => {
    const { units, linking } = linkUnits({
      docs: [
        { id: 'film', title: 'Harbour Lights', text: '' },
        { id: 'person', title: 'José Almeida (director)', text: '' },
      ],
      chunks: [chunk('film', 'film'), chunk('person', 'person')],
      units: [
        [
          unit(
            'Harbour Lights was directed by Jose Almeida.',
            ['Jose Almeida'],
            [['Harbour Lights', 'directed by', 'Jose Almeida']],
          ),
        ],
        [unit('He grew up in Porto.', ['Porto'])],
      ],
    });
    expect(units[0]![0]!.entities).toEqual(expect.arrayContaining(['Harbour Lights', 'José Almeida']));
    expect(units[0]![0]!.relationships).toEqual([
      { source: 'Harbour Lights', relation: 'directed by', target: 'José Almeida' },
    ]);
    expect(units[1]![0]!.entities).toEqual(expect.arrayContaining(['José Almeida', 'Porto']));
    expect(linking.titleEntities).toBe(2);
  });
});
