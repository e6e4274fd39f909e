import { describe, expect, it } from 'vitest';
import { EntityGraph, expandBridges, homeChunks, placeBridges } from '../src/graph/index.js';

// Chunk 0 (document "a") names b's title entity; chunk 1 is b's home chunk; chunk 2 is unrelated.
const graph = EntityGraph.fromSentences([[['alpha', 'beta']], [['beta']], [['gamma']]]);
const homes = ['alpha', 'beta', undefined];
const options = {
  bridges: 1,
  bridgeSeeds: 1,
  bridgeOrder: 'coverage' as const,
  bridgeMaxRank: 0,
  mentionBridges: 0,
  mentionSpread: 5,
  mentionResidualRank: 10,
};
const base = { graph, homes, ranking: [0, 2, 1], queryIds: [], residual: () => [] };

describe('placeBridges', () => {
  it('places what expandBridges places, asking for the entry ranking only when it is read', async () => {
    let asked = 0;
    const entryRanking = () => {
      asked++;
      return [{ id: 2 }, { id: 1 }, { id: 0 }];
    };
    const home = homeChunks(graph, homes);
    const placed = await placeBridges({ ...base, home, options, entryRanking });
    expect(placed).toEqual(expandBridges({ ...base, home, ...options }));
    expect(placed.ranking).toEqual([0, 1, 2]);
    expect(asked).toBe(0);
    const byEntry = await placeBridges({
      ...base,
      home,
      options: { ...options, bridgeOrder: 'entry' },
      entryRanking,
    });
    expect(asked).toBe(1);
    expect(byEntry).toEqual(
      expandBridges({
        ...base,
        home,
        ...options,
        bridgeOrder: 'entry',
        entryRank: new Map([
          [2, 0],
          [1, 1],
          [0, 2],
        ]),
      }),
    );
  });

  it('keeps the ranking when bridges are off or the index has no home chunks', async () => {
    const entryRanking = () => {
      throw new Error('not asked');
    };
    const off = await placeBridges({
      ...base,
      home: homeChunks(graph, homes),
      options: { ...options, bridges: 0 },
      entryRanking,
    });
    expect(off).toEqual({ ranking: [0, 2, 1], bridges: [] });
    expect(await placeBridges({ ...base, home: undefined, options, entryRanking })).toEqual({
      ranking: [0, 2, 1],
      bridges: [],
    });
  });
});
