import { InvalidArgumentError } from '@grag/core';
import { FlatIndex } from '@grag/core/kit';
import { describe, expect, it } from 'vitest';
import { buildKeywordBipartite, keywordChannel, queryKeywordSeeds, rankKeywords } from '../src/index.js';

// Keywords: alpha → u0, u1; beta → u0, u2; gamma → u3.
const graph = buildKeywordBipartite([
  { id: 'u0', text: 'alpha beta' },
  { id: 'u1', text: 'alpha' },
  { id: 'u2', text: 'beta' },
  { id: 'u3', text: 'gamma' },
]);
/** A unit vector whose cosine with the query [1, 0] is `c`. */
const at = (c: number) => [c, Math.sqrt(1 - c * c)];
const query = [1, 0];
const index = {
  graph,
  keywordVectors: [at(0.95), at(0.85), at(0.6)], // alpha, beta, gamma
  unitVectors: [at(0.9), at(0.5), at(0.8), at(0.7)],
  unitTokens: [40, 30, 50, 20],
};

describe('keywordChannel', () => {
  it('expands seed keywords until the candidates would pass twice the budget', () => {
    // Budget 50, limit 100. alpha: u0 (40), u1 (30) → 70; beta: u2 (50) → 120 > 100: stop.
    const result = keywordChannel(index, query, { budgetTokens: 50 });
    expect(result.seeds.map((s) => graph.keywords[s])).toEqual(['alpha', 'beta']);
    expect(result.candidates.map((c) => graph.units[c.unit])).toEqual(['u0', 'u1']);
    expect(result.collectedTokens).toBe(70);
    expect(result.full).toBe(true);
  });

  it('stops at the budget itself with collectFactor 1 (the paper’s Algorithm 4)', () => {
    const result = keywordChannel(index, query, { budgetTokens: 50, collectFactor: 1 });
    expect(result.seeds.map((s) => graph.keywords[s])).toEqual(['alpha']);
    expect(result.candidates.map((c) => graph.units[c.unit])).toEqual(['u0']);
    expect(result.collectedTokens).toBe(40);
  });

  it('ranks every collected unit by similarity when the budget is not reached', () => {
    const result = keywordChannel(index, query, { budgetTokens: 100 });
    expect(result.seeds).toHaveLength(3);
    expect(result.full).toBe(false);
    expect(result.candidates.map((c) => [graph.units[c.unit], graph.keywords[c.seed]])).toEqual([
      ['u0', 'alpha'],
      ['u2', 'beta'],
      ['u3', 'gamma'],
      ['u1', 'alpha'],
    ]);
    expect(result.candidates[0]!.score).toBeCloseTo(0.9, 9);
  });

  it('reads keyword seeds from a vector index as well', () => {
    const vectors = new FlatIndex({ dimensions: 2 });
    index.keywordVectors.forEach((v, i) => {
      vectors.add(i, v);
    });
    expect(rankKeywords(query, vectors, 2).map((r) => r.keyword)).toEqual([0, 1]);
    const result = keywordChannel({ ...index, keywordVectors: vectors }, query, { budgetTokens: 50 });
    expect(result.candidates.map((c) => c.unit)).toEqual([0, 1]);
  });

  it('returns nothing for a zero budget and rejects a mismatched index', () => {
    expect(keywordChannel(index, query, { budgetTokens: 0 }).candidates).toEqual([]);
    expect(() => keywordChannel({ ...index, unitTokens: [1] }, query, { budgetTokens: 10 })).toThrow(
      InvalidArgumentError,
    );
  });
});

describe('keywordChannel with given seeds and unit scores', () => {
  it('walks the given seeds and ranks by unitScore; queryKeywordSeeds orders the query keywords rarest first', () => {
    const graph = buildKeywordBipartite([
      { id: 'a', text: 'Ada Lovelace wrote notes.' },
      { id: 'b', text: 'Lovelace met Babbage.' },
      { id: 'c', text: 'Notes on engines.' },
    ]);
    const seeds = queryKeywordSeeds(graph, 'Which notes did Ada Lovelace write?');
    // ada (1 unit), then lovelace and notes (2 units each, query order)
    expect(seeds.map((k) => graph.keywords[k])).toEqual(['ada', 'notes', 'lovelace']);
    const unitVectors = [new Float32Array([1, 0]), new Float32Array([0, 1]), new Float32Array([1, 1])];
    const found = keywordChannel(
      {
        graph,
        keywordVectors: graph.keywords.map(() => new Float32Array([1, 0])),
        unitVectors,
        unitTokens: [5, 5, 5],
      },
      new Float32Array([1, 0]),
      { budgetTokens: 100, seeds, unitScore: (unit) => [0.1, 0.9, 0.5][unit]! },
    );
    expect(found.seeds).toEqual(seeds);
    expect(found.candidates.map((c) => c.unit)).toEqual([1, 2, 0]);
    expect(found.candidates.map((c) => c.score)).toEqual([0.9, 0.5, 0.1]);
  });
});
