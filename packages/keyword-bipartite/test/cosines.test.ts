import { cosineSimilarity } from '@grag/core/kit';
import { describe, expect, it } from 'vitest';
import { cosineScores, descendingRankOf, descendingRanks, unitColumns } from '../src/index.js';

/** A deterministic pseudo-random stream (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Float32 vectors with about `density` of their components non-zero (signed). */
function vectors(count: number, dimensions: number, density: number, next: () => number): Float32Array[] {
  return Array.from({ length: count }, () =>
    Float32Array.from({ length: dimensions }, () => (next() < density ? next() * 2 - 1 : 0)),
  );
}

describe('cosineScores', () => {
  it('equals cosineSimilarity bit for bit, for sparse and dense queries and units, zero vectors included', () => {
    const next = random(7);
    const dims = 48;
    const units = [...vectors(60, dims, 0.5, next), ...vectors(20, dims, 1, next), new Float32Array(dims)];
    const columns = unitColumns(units, dims);
    const queries = [
      ...vectors(5, dims, 0.1, next),
      ...vectors(5, dims, 1, next),
      new Float32Array(dims),
      Float32Array.from({ length: dims }, (_, d) => (d === 3 ? 1 : 0)),
    ];
    for (const q of queries) {
      const got = cosineScores(q, columns);
      expect(got).toHaveLength(units.length);
      units.forEach((u, i) => {
        expect(got[i]).toBe(cosineSimilarity(q, u));
      });
    }
  });
});

describe('descendingRanks', () => {
  it('ranks by descending score with ties by position, as sorting (score, position) pairs', () => {
    const next = random(11);
    // Few distinct values: many ties.
    const scores = Array.from({ length: 200 }, () => Math.floor(next() * 7) / 7);
    const oracle = scores
      .map((score, id) => ({ id, score }))
      .sort((a, b) => b.score - a.score || a.id - b.id)
      .map((h) => h.id);
    const ranks = descendingRanks(scores);
    oracle.forEach((id, rank) => {
      expect(ranks[id]).toBe(rank);
    });
    expect([...descendingRanks([0.2, 0.9, 0.2, 0.5])]).toEqual([2, 0, 3, 1]);
    // The same rank read at one position at a time.
    const rankOf = descendingRankOf(Float64Array.from(scores));
    scores.forEach((_, id) => {
      expect(rankOf(id)).toBe(ranks[id]);
    });
    const signed = Float64Array.from([0, -0.5, 0.25, 0, -0, 0.25, 1]);
    const want = descendingRanks(signed);
    signed.forEach((_, id) => {
      expect(descendingRankOf(signed)(id)).toBe(want[id]);
    });
  });
});
