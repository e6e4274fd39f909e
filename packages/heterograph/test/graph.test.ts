import { InvalidArgumentError } from '@grag/core';
import { describe, expect, it } from 'vitest';
import {
  EMBEDDED_TYPES,
  EXACT_ENTRY_TYPES,
  HeteroGraph,
  NODE_TYPES,
  RETRIEVABLE_TYPES,
  VECTOR_ENTRY_TYPES,
} from '../src/index.js';

describe('node type tables', () => {
  it('state Table 6: retrievable {T,S,R,A,H}, exact entries {N,O}, vector entries and embedded {T,S,A,H}', () => {
    expect(new Set(RETRIEVABLE_TYPES)).toEqual(new Set(['T', 'S', 'A', 'H', 'R']));
    expect(new Set(EXACT_ENTRY_TYPES)).toEqual(new Set(['N', 'O']));
    expect(new Set(VECTOR_ENTRY_TYPES)).toEqual(new Set(['T', 'S', 'A', 'H']));
    expect(new Set(EMBEDDED_TYPES)).toEqual(new Set(['T', 'S', 'A', 'H']));
    expect(NODE_TYPES.R.entry).toBeNull(); // relationships are retrievable but never entry points
    expect(Object.keys(NODE_TYPES)).toHaveLength(7);
  });
});

describe('HeteroGraph', () => {
  function small(): HeteroGraph {
    const g = new HeteroGraph();
    g.addNode('N:hinton', 'N', { text: 'Hinton', chunks: ['c1'], docs: ['d1'] });
    g.addNode('N:nobel', 'N', { text: 'Nobel Prize', chunks: ['c1'] });
    g.addNode('S:0', 'S', { text: 'Hinton was awarded the Nobel Prize.', chunks: ['c1'], docs: ['d1'] });
    g.connect('S:0', 'N:hinton', 'd');
    g.connect('S:0', 'N:nobel', 'd');
    return g;
  }

  it('merges provenance in first-seen order without repeats, over many merges and after an outside change', () => {
    const g = new HeteroGraph();
    const want: string[] = [];
    for (let i = 0; i < 300; i++) {
      const chunk = `c${(i * 7) % 120}`;
      if (!want.includes(chunk)) want.push(chunk);
      g.addNode('N:town', 'N', { text: 'Town', chunks: [chunk], docs: [`d${i % 3}`] });
    }
    expect(g.node('N:town').chunks).toEqual(want);
    expect(g.node('N:town').docs).toEqual(['d0', 'd1', 'd2']);
    expect(g.node('N:town').weight).toBe(300);
    // changed in place from outside: the next merge still sees every member
    g.node('N:town').docs.push('d9');
    g.node('N:town').chunks = ['x'];
    g.addNode('N:town', 'N', { text: 'Town', chunks: ['x', 'c1', 'y'], docs: ['d9', 'd0', 'd4'] });
    expect(g.node('N:town').chunks).toEqual(['x', 'c1', 'y']);
    expect(g.node('N:town').docs).toEqual(['d0', 'd1', 'd2', 'd9', 'd4']);
  });

  it('merges a repeated node: weight grows, provenance is united, text is kept', () => {
    const g = small();
    g.addNode('N:hinton', 'N', { text: 'HINTON', chunks: ['c2', 'c1'], docs: ['d2'] });
    expect(g.node('N:hinton')).toMatchObject({
      type: 'N',
      text: 'Hinton',
      weight: 2,
      chunks: ['c1', 'c2'],
      docs: ['d1', 'd2'],
    });
    expect(g.typeOf('N:hinton')).toBe('N');
    expect(g.typeOf('missing')).toBeUndefined();
  });

  it('refuses a key reused with another type, unknown types and self edges', () => {
    const g = small();
    expect(() => g.addNode('N:hinton', 'S', { text: 'x' })).toThrow(InvalidArgumentError);
    expect(() => g.addNode('x', 'Q' as 'N', { text: 'x' })).toThrow(/unknown node type/);
    expect(() => g.connect('S:0', 'S:0', 'd')).toThrow(/itself/);
    expect(() => g.connect('S:0', 'nope', 'd')).toThrow(/no node "nope"/);
  });

  it('raises the weight of an existing edge by 1 and counts HNSW weight apart', () => {
    const g = small();
    g.connect('N:hinton', 'S:0', 'd');
    const edge = g.graph.edge('S:0', 'N:hinton')!;
    expect(g.graph.getEdgeAttributes(edge)).toEqual({ kind: 'd', weight: 2, baseWeight: 2, hnsw: 0 });
    expect(g.addSemanticEdge('N:hinton', 'S:0')).toBe('reinforced');
    expect(g.addSemanticEdge('S:0', 'N:hinton')).toBe('repeated');
    expect(g.graph.getEdgeAttributes(edge)).toEqual({ kind: 'd', weight: 3, baseWeight: 2, hnsw: 1 });
    expect(g.addSemanticEdge('N:hinton', 'N:nobel')).toBe('added');
    expect(g.graph.getEdgeAttributes(g.graph.edge('N:hinton', 'N:nobel')!)).toEqual({
      kind: 'hnsw',
      weight: 1,
      baseWeight: 0,
      hnsw: 1,
    });
  });

  it('reports node counts per type and structural, HNSW and merged edge counts (Table 4)', () => {
    const g = small();
    g.addSemanticEdge('S:0', 'N:hinton'); // overlaps a structural edge
    g.addSemanticEdge('N:hinton', 'N:nobel'); // new
    expect(g.stats()).toEqual({
      nodes: { T: 0, S: 1, N: 2, R: 0, A: 0, O: 0, H: 0 },
      totalNodes: 3,
      structuralEdges: 2,
      hnswEdges: 2,
      hnswOverlap: 1,
      totalEdges: 3,
    });
  });

  it('lists nodes and neighbours by type and survives a JSON round trip', () => {
    const g = small();
    expect(g.nodes('N')).toEqual(['N:hinton', 'N:nobel']);
    expect(g.neighbors('S:0', 'N')).toEqual(['N:hinton', 'N:nobel']);
    expect(g.neighbors('N:hinton', 'S')).toEqual(['S:0']);
    const copy = HeteroGraph.fromJSON(JSON.parse(JSON.stringify(g.toJSON())));
    expect(copy.stats()).toEqual(g.stats());
    expect(copy.node('S:0')).toEqual(g.node('S:0'));
    const broken = g.toJSON();
    broken.nodes[0]!.attributes!.type = 'Z' as 'N';
    expect(() => HeteroGraph.fromJSON(broken)).toThrow(/not a heterograph/);
  });
});
