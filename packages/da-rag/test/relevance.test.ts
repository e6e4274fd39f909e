import type { Bm25Index } from '@grag/core/kit';
import { lcg32 } from '@grag/core/test';
import { describe, expect, test } from 'vitest';
import {
  cosines,
  nodeRelevance,
  postingCosines,
  RELEVANCE_DEPTH,
  topByScore,
  vectorPostings,
} from '../src/relevance.js';

const query = Float32Array.of(1, 0);
const vectors = [Float32Array.of(1, 0), Float32Array.of(0, 1), Float32Array.of(0.6, 0.8)];

/** A BM25 stand-in with fixed hits that records the depth asked for. */
function fixedLexical(hits: { id: number; score: number }[]) {
  const depths: number[] = [];
  const index = {
    search: (_query: string, k: number) => {
      depths.push(k);
      return hits.slice(0, k);
    },
  } as unknown as Bm25Index;
  return { lexical: () => index, depths };
}

describe('cosines', () => {
  test('is the dot product of the unit query with each chosen unit vector', () => {
    const out = cosines(query, vectors, [2, 0, 1]);
    expect(Array.from(out)).toEqual([expect.closeTo(0.6, 6), 1, 0]);
  });
});

describe('nodeRelevance', () => {
  test("'dense' is the cosine of every node, and never asks BM25", () => {
    const { lexical, depths } = fixedLexical([]);
    const out = nodeRelevance({ mode: 'dense', query: 'q', queryUnit: query, vectors, lexical });
    expect(Array.from(out)).toEqual([1, 0, expect.closeTo(0.6, 6)]);
    expect(depths).toEqual([]);
  });

  test("'lexical' is BM25 over every node scaled to the best hit; nodes without a hit get 0", () => {
    const { lexical, depths } = fixedLexical([
      { id: 2, score: 4 },
      { id: 0, score: 1 },
    ]);
    const out = nodeRelevance({ mode: 'lexical', query: 'q', queryUnit: undefined, vectors, lexical });
    expect(Array.from(out)).toEqual([0.25, 0, 1]);
    expect(depths).toEqual([3]);
  });

  test("'hybrid' fuses the two rankings by reciprocal rank, first place in both lists scoring 1", () => {
    // Dense ranking: 0 (1), 2 (0.6), 1 (0). BM25 ranking: 2, 0.
    const { lexical, depths } = fixedLexical([
      { id: 2, score: 4 },
      { id: 0, score: 1 },
    ]);
    const out = nodeRelevance({ mode: 'hybrid', query: 'q', queryUnit: query, vectors, lexical });
    const rrf = (...ranks: number[]) => ranks.reduce((s, r) => s + 1 / (60 + r), 0) / (2 / 61);
    expect(out[0]).toBeCloseTo(rrf(1, 2), 12);
    expect(out[2]).toBeCloseTo(rrf(2, 1), 12);
    expect(out[1]).toBeCloseTo(rrf(3), 12);
    expect(depths).toEqual([RELEVANCE_DEPTH]);
  });
});

/** Vectors of `d` coordinates, each non-zero (uniform in [-1, 1)) with probability `p`, drawn from `next`. */
const sparseVectors = (next: () => number, d: number) => (p: number) =>
  Float32Array.from({ length: d }, () => (next() < p ? next() * 2 - 1 : 0));

/** The dot product of `q` with every one of `vectors`, summed coordinate by coordinate in order. */
const fullDots = (q: Float32Array, vectors: readonly Float32Array[]) =>
  vectors.map((v) => {
    let dot = 0;
    for (let c = 0; c < q.length; c++) dot += q[c]! * v[c]!;
    return dot;
  });

describe('cosines on sparse queries', () => {
  test('equals the full dot product bit for bit, zero coordinates of the query skipped', () => {
    const next = lcg32(11);
    const d = 64;
    const sparse = sparseVectors(next, d);
    const vectors = Array.from({ length: 50 }, () => sparse(0.4));
    for (let trial = 0; trial < 20; trial++) {
      const q = sparse(0.2);
      const full = fullDots(q, vectors);
      expect(
        Array.from(
          cosines(
            q,
            vectors,
            vectors.map((_, i) => i),
          ),
        ),
      ).toEqual(full);
    }
  });
});

describe('postingCosines (the postings of sparse vectors)', () => {
  test('equals the full dot product of every vector bit for bit', () => {
    const next = lcg32(29);
    const d = 96;
    const sparse = sparseVectors(next, d);
    // Some vectors share no dimension with a query (sum 0), some cancel.
    const vectors = [...Array.from({ length: 80 }, () => sparse(0.1)), new Float32Array(d)];
    const postings = vectorPostings(vectors)!;
    expect(postings.count).toBe(vectors.length);
    for (let trial = 0; trial < 30; trial++) {
      const q = sparse(0.15);
      const full = fullDots(q, vectors);
      const got = postingCosines(q, postings);
      expect(Array.from(got)).toEqual(full);
      for (let i = 0; i < full.length; i++) expect(Object.is(got[i], full[i]), `vector ${i}`).toBe(true);
    }
  });

  test('dense vectors (more than a quarter of their coordinates non-zero) get no postings', () => {
    const dense = Array.from({ length: 4 }, (_, i) => Float32Array.from([1, i, 2, 0]));
    expect(vectorPostings(dense)).toBeNull();
    const sparse = [Float32Array.from([1, 0, 0, 0]), Float32Array.from([0, 0, 0, 0])];
    expect(vectorPostings(sparse)?.ids).toEqual(Uint32Array.from([0]));
  });
});

describe('topByScore', () => {
  test('gives the first indices of the full sort by descending score, ties by ascending index', () => {
    const next = lcg32(5);
    for (const n of [0, 1, 7, 300]) {
      // A coarse grid, so ties are frequent.
      const scores = Float64Array.from({ length: n }, () => Math.round(next() * 8) / 8 - 0.25);
      const sorted = Array.from(scores.keys()).sort((a, b) => scores[b]! - scores[a]! || a - b);
      for (const count of [0, 1, 5, 100, 400]) {
        expect(topByScore(scores, count)).toEqual(sorted.slice(0, count));
      }
    }
  });
});
