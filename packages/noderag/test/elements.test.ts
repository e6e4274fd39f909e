import type { Tokenizer } from '@grag/core';
import { HeteroGraph } from '@grag/heterograph';
import { describe, expect, it } from 'vitest';
import {
  attributeMaterial,
  communityMembers,
  fitTexts,
  layAttributes,
  layHighLevelElements,
  matchHighLevelElements,
} from '../src/elements.js';

/** One token per word; truncation keeps the first words. */
const words: Tokenizer = {
  name: 'words',
  count: (text) => text.split(/\s+/).filter(Boolean).length,
  encode: () => [],
  decode: () => '',
  truncate: (text, max) => text.split(/\s+/).filter(Boolean).slice(0, max).join(' '),
};

describe('fitTexts', () => {
  it('keeps the leading texts whose words plus one each fit the budget', () => {
    // Costs 3, 3, 2: 3 + 3 = 6 fits 7, 6 + 2 = 8 does not.
    expect(fitTexts(['a b', 'c d', 'e'], 7, words)).toEqual(['a b', 'c d']);
    expect(fitTexts(['a b', 'c d', 'e'], 8, words)).toEqual(['a b', 'c d', 'e']);
  });

  it('truncates the first text when even it does not fit', () => {
    expect(fitTexts(['a b c d e', 'f'], 3, words)).toEqual(['a b c']);
    expect(fitTexts([], 3, words)).toEqual([]);
  });
});

/** Orsa (N) in three units and two relationships, the most repeated ones laid twice. */
function entityGraph(): HeteroGraph {
  const g = new HeteroGraph();
  g.addNode('N:orsa', 'N', { text: 'Orsa', chunks: ['c0'], docs: ['d0'] });
  for (const [key, text, times] of [
    ['S:0', 'unit once', 1],
    ['R:0', 'relation twice', 2],
    ['S:1', 'unit twice', 2],
    ['R:1', 'relation once', 1],
  ] as const) {
    for (let i = 0; i < times; i++)
      g.addNode(key, key[0] as 'S' | 'R', { text, chunks: ['c0'], docs: ['d0'] });
    g.connect('N:orsa', key, key[0] === 'S' ? 'd' : 'r');
  }
  return g;
}

describe('attributes (G2)', () => {
  it('summarizes semantic units before relationships, the most repeated first', () => {
    expect(attributeMaterial(entityGraph(), 'N:orsa')).toEqual([
      'unit twice',
      'unit once',
      'relation twice',
      'relation once',
    ]);
  });

  it('lays an attribute per entity with a summary, joined to it, with its provenance', () => {
    const g = entityGraph();
    g.addNode('N:veska', 'N', { text: 'Veska', chunks: ['c1'], docs: ['d1'] });
    const laid = layAttributes({ graph: g, entities: ['N:orsa', 'N:veska'], summaries: ['An island.', ''] });
    expect(laid).toEqual({ attributes: 1, skipped: { 'empty-attribute': 1 } });
    expect(g.nodes('A')).toEqual(['A:orsa']);
    expect(g.node('A:orsa')).toMatchObject({ text: 'An island.', chunks: ['c0'], docs: ['d0'] });
    expect(g.neighbors('A:orsa', 'N')).toEqual(['N:orsa']);
  });
});

describe('high-level elements (G3)', () => {
  const graph = () => {
    const g = new HeteroGraph();
    g.addNode('S:0', 'S', { text: 'a', chunks: ['c0'], docs: ['d0'] });
    g.addNode('S:1', 'S', { text: 'b', chunks: ['c1'], docs: ['d1'] });
    g.addNode('A:x', 'A', { text: 'c', chunks: ['c1'], docs: ['d1'] });
    g.addNode('N:x', 'N', { text: 'x' });
    return g;
  };

  it('takes the S and A members of each community', () => {
    const communities = new Map([
      ['S:0', 0],
      ['N:x', 0],
      ['A:x', 2],
      ['S:1', 0],
    ]);
    expect(communityMembers(graph(), communities, 3)).toEqual([['S:0', 'S:1'], [], ['A:x']]);
  });

  it('lays H and O per titled community, H alone when untitled, nothing for an empty description', () => {
    const g = graph();
    const laid = layHighLevelElements({
      graph: g,
      communities: [
        { c: 0, m: ['S:0', 'S:1'] },
        { c: 2, m: ['A:x'] },
        { c: 3, m: ['S:1'] },
      ],
      elements: [
        { title: ' Theme ', description: ' Insight. ', issues: [] },
        { title: '', description: 'Other insight.', issues: [{ kind: 'missing-title' } as never] },
        { title: 'T', description: ' ', issues: [] },
      ],
    });
    expect(laid.highKeys).toEqual(['H:0', 'H:2']);
    expect(g.nodes('O')).toEqual(['O:0']);
    expect(g.node('H:0')).toMatchObject({ text: 'Insight.', chunks: ['c0', 'c1'], docs: ['d0', 'd1'] });
    expect(g.node('O:0').text).toBe('Theme');
    expect(g.neighbors('H:0', 'O')).toEqual(['O:0']);
    expect(laid.matching).toEqual([
      { id: 'S:0', type: 'S', community: 0 },
      { id: 'S:1', type: 'S', community: 0 },
      { id: 'H:0', type: 'H', community: 0 },
      { id: 'A:x', type: 'A', community: 2 },
      { id: 'H:2', type: 'H', community: 2 },
    ]);
    expect(laid.skipped).toEqual({ 'untitled-high-level-element': 1, 'empty-high-level-element': 1 });
    expect(laid.parseIssues).toEqual({ 'missing-title': 1 });
  });

  const v = (...xs: number[]) => Float32Array.from(xs);
  const nodes = [
    { id: 'S:0', type: 'S' as const, community: 0, vector: v(1, 0) },
    { id: 'S:1', type: 'S' as const, community: 0, vector: v(1, 0.1) },
    { id: 'A:x', type: 'A' as const, community: 0, vector: v(0, 1) },
    { id: 'H:0', type: 'H' as const, community: 0, vector: v(1, 0.05) },
  ];
  /** The matching of `nodes` with the dense shortcut at `denseMatchingClusterSize`, seed 42. */
  const matched = (denseMatchingClusterSize: number) =>
    matchHighLevelElements({ nodes, denseMatchingClusterSize, seed: 42 });

  it('joins each H to the members of its community in its k-means cluster (K = ⌈√n⌉)', async () => {
    const { edges, clusters } = await matched(0);
    expect(clusters).toBe(2);
    expect(edges.sort()).toEqual([
      ['S:0', 'H:0'],
      ['S:1', 'H:0'],
    ]);
  });

  it('joins every member to its H when the mean cluster size is within the dense shortcut', async () => {
    // n/K = 4/2 = 2 ≤ 2: the official code's shortcut, no k-means.
    const { edges, clusters } = await matched(2);
    expect(clusters).toBe(0);
    expect(edges).toEqual([
      ['S:0', 'H:0'],
      ['S:1', 'H:0'],
      ['A:x', 'H:0'],
    ]);
    expect((await matched(1.9)).clusters).toBe(2);
  });
});
