import { getTokenizer } from '@grag/core';
import { describe, expect, test } from 'vitest';
import {
  bestCandidate,
  type Candidate,
  distinctCandidates,
  evidenceScore,
  packCommunities,
  rankCandidates,
} from '../src/pack.js';
import type { DaRagIndex } from '../src/types.js';

function candidate(over: Partial<Candidate> & Pick<Candidate, 'id' | 'layer'>): Candidate {
  return {
    ks: [],
    nodes: [],
    edges: [],
    qrScore: 0,
    initialQrScore: null,
    members: 'members',
    chunkIds: [],
    docIds: [],
    score: 0,
    report: '',
    ...over,
  };
}

describe('evidenceScore', () => {
  test('is 10 × the mean relevance of the chunks a community packs', () => {
    const index = new Map([
      ['a', 0],
      ['b', 1],
    ]);
    expect(evidenceScore(['b', 'a'], [0.2, 0.6], index)).toBeCloseTo(4, 12);
    expect(evidenceScore([], [0.2, 0.6], index)).toBe(0);
  });
});

describe('rankCandidates / bestCandidate', () => {
  test('rank by score, then QRScore, then layer (chunk, kg, sim), then id', () => {
    const ranked = rankCandidates([
      candidate({ id: 'sim-k3', layer: 'sim', score: 5, qrScore: 0.5 }),
      candidate({ id: 'kg-k4', layer: 'kg', score: 5, qrScore: 0.5 }),
      candidate({ id: 'kg-k3', layer: 'kg', score: 5, qrScore: 0.5 }),
      candidate({ id: 'chunk-k3', layer: 'chunk', score: 5, qrScore: 0.4 }),
      candidate({ id: 'chunk-k5', layer: 'chunk', score: 6, qrScore: 0.1 }),
    ]);
    expect(ranked.map((c) => c.id)).toEqual(['chunk-k5', 'kg-k3', 'kg-k4', 'sim-k3', 'chunk-k3']);
    const best = bestCandidate([
      candidate({ id: 'chunk-k3', layer: 'chunk', score: 5, qrScore: 0.2 }),
      candidate({ id: 'chunk-k6', layer: 'chunk', score: 5, qrScore: 0.3 }),
    ]);
    expect(best.id).toBe('chunk-k6');
  });
});

describe('packCommunities', () => {
  const index = {
    chunks: [{ id: 'c0' }, { id: 'c1' }, { id: 'c2' }],
    entities: [{ id: 'e0' }, { id: 'e1' }],
  } as unknown as DaRagIndex;
  const ranked = [
    candidate({ id: 'chunk-k3+4', layer: 'chunk', ks: [3, 4], nodes: [1, 0], edges: [[1, 0]], score: 9 }),
    candidate({ id: 'kg-k3', layer: 'kg', ks: [3], nodes: [0, 1], edges: [[0, 1]], score: 7, report: 'R' }),
    candidate({ id: 'chunk-1hop', layer: 'chunk', nodes: [2], score: 2 }),
  ];

  test('packs the top communities and reports their subgraph, k values and the trace of all', () => {
    const out = packCommunities({
      index,
      ranked,
      budget: 1000,
      topK: 2,
      communityText: 'report+members',
      packing: 'greedy',
      tokenizer: getTokenizer(),
    });
    expect(out.packed.items.map((i) => [i.id, i.text])).toEqual([
      ['chunk-k3+4', 'members'],
      ['kg-k3', 'R\n\nmembers'],
    ]);
    expect(out.ranked).toBe(2);
    expect(new Set(out.subgraph.nodes)).toEqual(new Set(['chunk:c1', 'chunk:c0', 'entity:e0', 'entity:e1']));
    expect(out.subgraph.edges).toEqual([
      ['chunk:c0', 'chunk:c1'],
      ['entity:e0', 'entity:e1'],
    ]);
    expect(out.chosenK).toEqual({ chunk: [3, 4], kg: [3] });
    expect(out.communities.map((c) => [c.id, c.nodes, c.packed])).toEqual([
      ['chunk-k3+4', ['c1', 'c0'], true],
      ['kg-k3', ['e0', 'e1'], true],
      ['chunk-1hop', ['c2'], false],
    ]);
  });

  test('distinctCandidates keeps the first of the candidates with one layer and one node set', () => {
    const twice = [
      ...ranked,
      candidate({ id: 'a2:chunk-k3', layer: 'chunk', ks: [3], nodes: [0, 1], score: 1 }),
      candidate({ id: 'a2:kg-k3', layer: 'kg', ks: [3], nodes: [1], score: 1 }),
    ];
    expect(distinctCandidates(twice).map((c) => c.id)).toEqual([
      'chunk-k3+4',
      'kg-k3',
      'chunk-1hop',
      'a2:kg-k3',
    ]);
  });

  test('packs nothing within a budget of 0', () => {
    const out = packCommunities({
      index,
      ranked,
      budget: 0,
      topK: undefined,
      communityText: 'members',
      packing: 'greedy',
      tokenizer: getTokenizer(),
    });
    expect(out.packed.items).toEqual([]);
    expect(out.subgraph).toEqual({ nodes: [], edges: [] });
    expect(out.chosenK).toEqual({});
    expect(out.communities.every((c) => !c.packed)).toBe(true);
  });
});
