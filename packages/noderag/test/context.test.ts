import { HeteroGraph } from '@grag/heterograph';
import { describe, expect, it } from 'vitest';
import { CONTEXT_TYPE_ORDER, chooseNodes, orderByType, type RankedNode, subgraphOf } from '../src/context.js';
import { entryWeights } from '../src/retrieve.js';

const nodes: RankedNode[] = [
  { key: 'T:a', type: 'T', score: 0.1 },
  { key: 'S:0', type: 'S', score: 0.9 },
  { key: 'H:0', type: 'H', score: 0.5 },
  { key: 'S:1', type: 'S', score: 0.7 },
  { key: 'R:0', type: 'R', score: 0.3 },
];
/** Tokens of each node's text. */
const TOKENS: Record<string, number> = { 'T:a': 5, 'S:0': 10, 'H:0': 50, 'S:1': 10, 'R:0': 10 };
const choose = (budget: number) => [
  ...chooseNodes({ nodes, budget, tokens: (n) => TOKENS[n.key]!, headingTokens: 8, separatorTokens: 2 }),
];

describe('chooseNodes', () => {
  it('takes nodes by score while they fit, a heading charged to the first of each type', () => {
    // By score: S:0 10+2+8 = 20, S:1 10+2 = 12 (32), H:0 50+2+8 = 60 (92), R:0 20 (112), T:a 15 (127).
    expect(choose(127)).toEqual(['S:0', 'S:1', 'H:0', 'R:0', 'T:a']);
    expect(choose(126)).toEqual(['S:0', 'S:1', 'H:0', 'R:0']);
  });

  it('passes over a node too large for what is left and takes smaller ones after it', () => {
    // H:0 (60) does not fit after 32 of 70; R:0 (52) and T:a (67) do.
    expect(choose(70)).toEqual(['S:0', 'S:1', 'R:0', 'T:a']);
  });

  it('always takes the best node, even over the budget', () => {
    expect(choose(5)).toEqual(['S:0']);
  });
});

describe('orderByType', () => {
  it('groups the chosen nodes in the context type order, best first within a group', () => {
    const chosen = new Set(['T:a', 'S:0', 'H:0', 'S:1']);
    expect(orderByType(nodes, chosen, CONTEXT_TYPE_ORDER).map((n) => n.key)).toEqual([
      'H:0',
      'S:0',
      'S:1',
      'T:a',
    ]);
  });
});

describe('subgraphOf', () => {
  it('lists each edge among the given nodes once, smaller key first', () => {
    const g = new HeteroGraph();
    for (const key of ['S:0', 'N:a', 'N:b', 'T:x']) g.addNode(key, key[0] as 'S', { text: key });
    g.connect('S:0', 'N:a', 'd');
    g.connect('S:0', 'N:b', 'd');
    g.connect('T:x', 'S:0', 's');
    expect(subgraphOf(g, ['S:0', 'N:a', 'T:x', 'S:0'])).toEqual({
      nodes: ['S:0', 'N:a', 'T:x'],
      // Each node's edges in turn (S:0's to T:x, then N:a's to S:0).
      edges: [
        ['S:0', 'T:x'],
        ['N:a', 'S:0'],
      ],
    });
  });
});

describe('entryWeights', () => {
  it('weighs exact entries 1 and the i-th vector entry 1/(i + 1) with rank weighting', () => {
    const weights = entryWeights({ exact: ['N:a', 'T:x'], vector: ['T:x', 'S:0', 'S:1'], weighting: 'rank' });
    expect([...weights]).toEqual([
      ['N:a', 1],
      ['T:x', 1],
      ['S:0', 1 / 2],
      ['S:1', 1 / 3],
    ]);
    const uniform = entryWeights({ exact: ['N:a'], vector: ['S:0', 'S:1'], weighting: 'uniform' });
    expect([...uniform.values()]).toEqual([1, 1, 1]);
  });
});
