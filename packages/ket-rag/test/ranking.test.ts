import type { RetrievedItem } from '@grag/core';
import { describe, expect, it } from 'vitest';
import {
  channelRankScores,
  followNeighbours,
  mergeAlternating,
  neighbourLists,
  rankPositions,
} from '../src/ranking.js';
import { unitTitleSeeds } from '../src/seeds.js';

const item = (id: string, kind: string, score = 0.5): RetrievedItem => ({
  id,
  kind,
  text: id,
  score,
  source: { chunkIds: [], docIds: [] },
});

describe('rankings of the channels', () => {
  it('ranks positions by descending score, ties by position, keeping those asked for', () => {
    expect(rankPositions([0.2, 0.9, 0.2, 0.5])).toEqual([
      { id: 1, score: 0.9 },
      { id: 3, score: 0.5 },
      { id: 0, score: 0.2 },
      { id: 2, score: 0.2 },
    ]);
    expect(rankPositions([0, 3, 0, 1], (i) => i !== 3).map((h) => h.id)).toEqual([1, 0, 2]);
  });

  it('scores chunk items 1/(60 + rank) among the chunks, other items unchanged', () => {
    const scored = channelRankScores([item('e', 'entity', 7), item('c1', 'chunk'), item('c2', 'chunk')]);
    expect(scored.map((i) => i.score)).toEqual([7, 1 / 61, 1 / 62]);
  });

  it('takes the first list, then alternates the others without repeats, up to the limit', () => {
    expect(
      mergeAlternating(
        ['q'],
        [
          ['u1', 'u2', 'u3'],
          ['u1', 'e1'],
        ],
        4,
      ),
    ).toEqual(['q', 'u1', 'u2', 'e1']);
    expect(mergeAlternating(['a', 'b', 'c'], [['d']], 2)).toEqual(['a', 'b']);
    expect(mergeAlternating([], [[], ['x', 'y']], 10)).toEqual(['x', 'y']);
  });
});

describe('KNN neighbours (KNNG-RAG)', () => {
  // Edges 0-1, 2-0, 1-3 over five chunks (4 has none).
  const neighbours = neighbourLists(5, [
    { source: 0, target: 1 },
    { source: 2, target: 0 },
    { source: 1, target: 3 },
  ]);

  it('lists both ends of every edge, in edge order', () => {
    expect(neighbours).toEqual([[1, 2], [0, 3], [0], [1], []]);
  });

  it('follows each hit by its neighbours, each chunk once; neighbours score 0', () => {
    const hits = [
      { id: 1, score: 0.9 },
      { id: 2, score: 0.8 },
      { id: 4, score: 0.1 },
    ];
    expect(followNeighbours(hits, neighbours)).toEqual([
      { id: 1, score: 0.9 },
      { id: 0, score: 0 },
      { id: 3, score: 0 },
      { id: 2, score: 0.8 },
      { id: 4, score: 0.1 },
    ]);
  });
});

describe('seed entities from entry sub-chunks', () => {
  it("takes each unit's own title entity, then the title entities it links to, each once", () => {
    const entities = [{ id: 'alpha' }, { id: 'beta' }, { id: 'gamma' }];
    const seeds = unitTitleSeeds({
      units: [
        { id: 'b/0', docId: 'b' },
        { id: 'a/0', docId: 'a' },
        { id: 'c/0', docId: 'c' },
      ],
      titleEntityOf: new Map([
        ['a', 'alpha'],
        ['b', 'beta'],
        ['c', 'gone'], // not in the graph: skipped
      ]),
      unitEntities: new Map([
        ['b/0', [1, 2]],
        ['a/0', [0, 1]],
        ['c/0', [2]],
      ]),
      entities,
      has: (id) => entities.some((e) => e.id === id),
    });
    expect(seeds).toEqual(['beta', 'gamma', 'alpha']);
  });
});
