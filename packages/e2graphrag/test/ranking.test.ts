import { describe, expect, test } from 'vitest';
import { fuseChunkRanking, graphLeaves } from '../src/ranking.js';

describe("Algorithm 1's leaves", () => {
  test('are the ranked chunks of local mode, else the leaves among the nodes of global mode', () => {
    expect(graphLeaves({ ranked: [4, 1], nodes: [] }, 6)).toEqual([4, 1]);
    const nodes = [
      { node: 7, score: 3 },
      { node: 2, score: 2 },
      { node: 6, score: 2 },
      { node: 4, score: 1 },
    ];
    expect(graphLeaves({ ranked: [], nodes }, 6)).toEqual([2, 4]);
  });
});

describe('the fused chunk ranking', () => {
  const entry = [{ id: 5 }, { id: 3 }, { id: 7 }];

  test('with graph weight 0 keeps the entry order and puts the other leaves behind it', () => {
    // 5: 1/61; 3: 1/62 + ε/61; 7: 1/63; 9: ε/62.
    expect(fuseChunkRanking({ entry, leaves: [3, 9], graphWeight: 0 })).toEqual([5, 3, 7, 9]);
  });

  test('with graph weight 1 is plain reciprocal rank fusion (k = 60)', () => {
    // 5: 1/61 = .01639; 3: 1/62 + 1/61 = .03252; 7: 1/63 = .01587; 9: 1/62 = .01613.
    expect(fuseChunkRanking({ entry, leaves: [3, 9], graphWeight: 1 })).toEqual([3, 5, 9, 7]);
  });

  test('is the entry order when Algorithm 1 selected no leaf, and the leaves when there is no entry point', () => {
    expect(fuseChunkRanking({ entry, leaves: [], graphWeight: 1 })).toEqual([5, 3, 7]);
    expect(fuseChunkRanking({ entry: [], leaves: [9, 3], graphWeight: 0 })).toEqual([9, 3]);
  });
});
