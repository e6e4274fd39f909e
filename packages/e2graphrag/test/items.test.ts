import { buildSummaryTree, type SummaryTree } from '@grag/summary-tree';
import { beforeAll, describe, expect, test } from 'vitest';
import { paperItems, rankedItems, renderLabelled, runsOf } from '../src/items.js';

// Leaves 0 a#0, 1 a#1 (one document), 2 b#0; summaries 3 (over 0-1) and 4 (over 2).
let tree: SummaryTree;
beforeAll(async () => {
  tree = await buildSummaryTree(
    [
      { id: 'a#0', text: 'A zero', docId: 'a' },
      { id: 'a#1', text: 'A one', docId: 'a' },
      { id: 'b#0', text: 'B zero', docId: 'b' },
    ],
    { summarize: async () => 'overview' },
    { groupSize: 2, stopRatio: 1 },
  );
});

describe('evidence items', () => {
  test('the tree of the example', () => {
    expect(tree.nodes.map((n) => [n.id, n.firstLeaf, n.lastLeaf])).toEqual([
      ['a#0', 0, 0],
      ['a#1', 1, 1],
      ['b#0', 2, 2],
      ['summary:1:0', 0, 1],
      ['summary:1:1', 2, 2],
    ]);
  });

  test('runs are consecutive leaves of one document', () => {
    expect(runsOf(tree, [0, 1, 2])).toEqual([[0, 1], [2]]);
    expect(runsOf(tree, [0, 2])).toEqual([[0], [2]]);
  });

  test('ranked items: one chunk per leaf scored 1/rank, labels of reached chunks, then summaries', () => {
    const result = {
      groups: [{ entities: ['X', 'Y'], leaves: [1] }],
      nodes: [
        { node: 3, score: 2 },
        { node: 0, score: 1 },
      ],
    };
    const { items, labels } = rankedItems(tree, result, [1, 2]);
    expect(items).toEqual([
      { id: 'a#1', kind: 'chunk', text: 'A one', score: 1, source: { chunkIds: ['a#1'], docIds: ['a'] } },
      { id: 'b#0', kind: 'chunk', text: 'B zero', score: 0.5, source: { chunkIds: ['b#0'], docIds: ['b'] } },
      {
        id: 'summary:1:0',
        kind: 'summary',
        text: 'overview',
        score: 2,
        source: { chunkIds: ['a#0', 'a#1'], docIds: ['a'] },
      },
    ]);
    expect([...labels]).toEqual([['a#1', 'X-Y']]);
    expect(items.map(renderLabelled(labels))).toEqual([
      '[a#1] X-Y: A one',
      '[b#0] B zero',
      '[summary:1:0] overview',
    ]);
  });

  test("the paper's items: runs merged under their group's label (local), tree nodes in rank order (global)", () => {
    const local = paperItems(tree, {
      groups: [
        { entities: ['X', 'Y'], leaves: [0, 1] },
        { entities: ['X'], leaves: [2] },
      ],
      nodes: [],
    });
    expect(local.items).toEqual([
      {
        id: 'a#0..a#1',
        kind: 'chunk',
        text: 'A zero\nA one',
        score: 2,
        source: { chunkIds: ['a#0', 'a#1'], docIds: ['a'] },
      },
      { id: 'b#0', kind: 'chunk', text: 'B zero', score: 1, source: { chunkIds: ['b#0'], docIds: ['b'] } },
    ]);
    expect([...local.labels]).toEqual([
      ['a#0..a#1', 'X-Y'],
      ['b#0', 'X'],
    ]);
    const global = paperItems(tree, {
      groups: [],
      nodes: [
        { node: 4, score: 3 },
        { node: 2, score: 1 },
      ],
    });
    expect(global.items.map((i) => [i.id, i.kind, i.score, i.source.chunkIds])).toEqual([
      ['summary:1:1', 'summary', 3, ['b#0']],
      ['b#0', 'chunk', 1, ['b#0']],
    ]);
    expect(global.labels.size).toBe(0);
  });
});
