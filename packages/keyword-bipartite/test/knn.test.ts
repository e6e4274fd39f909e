import { InvalidArgumentError } from '@grag/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildChunkKnnGraph, chunkKnnCsr, lexicalNeighbors } from '../src/index.js';

// Hand-made corpus. Shared keywords: c0–c1 2, c0–c2 1, c2–c3 2, every other pair 0; c4 shares none.
// Cosine top-1: c0→c2 (0.994), c1→c3 (0.995), c2→c0, c3→c1, c4→c0 (0.196 vs c2 0.195).
const corpus = [
  { id: 'c0', keywords: ['apple', 'banana', 'cherry'], vector: [1, 0, 0] },
  { id: 'c1', keywords: ['apple', 'banana', 'date'], vector: [0, 1, 0] },
  { id: 'c2', keywords: ['cherry', 'elder', 'fig'], vector: [0.9, 0.1, 0] },
  { id: 'c3', keywords: ['elder', 'fig', 'grape'], vector: [0.1, 1, 0] },
  { id: 'c4', keywords: ['kiwi'], vector: [0.2, 0, 1] },
];

describe('buildChunkKnnGraph', () => {
  it('links each chunk to its top lexical and top semantic neighbour (k = 1 each)', () => {
    const knn = buildChunkKnnGraph(corpus);
    expect(knn.ids).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
    expect(knn.edges.map((e) => [e.source, e.target, e.lexical ?? null, e.cosine !== undefined])).toEqual([
      [0, 1, 2, false],
      [0, 2, null, true],
      [0, 4, null, true],
      [1, 3, null, true],
      [2, 3, 2, false],
    ]);
    expect(knn.edges.find((e) => e.source === 0 && e.target === 4)!.cosine).toBeCloseTo(
      0.2 / Math.hypot(0.2, 1),
      9,
    );
  });

  it('merges a pair found by both similarities into one edge', () => {
    const same = corpus.map((c) => ({ ...c, vector: c.id === 'c1' ? [0.99, 0.01, 0] : c.vector }));
    const knn = buildChunkKnnGraph(same, { semanticK: 1 });
    const e01 = knn.edges.filter((e) => e.source === 0 && e.target === 1);
    expect(e01).toHaveLength(1);
    expect(e01[0]!.lexical).toBe(2);
    expect(e01[0]!.cosine).toBeGreaterThan(0.99);
  });

  it('needs no vectors when semanticK is 0', () => {
    const knn = buildChunkKnnGraph(
      corpus.map(({ id, keywords }) => ({ id, keywords })),
      { semanticK: 0, lexicalK: 2 },
    );
    // c0: c1 (2), c2 (1); c1: c0; c2: c3 (2), c0 (1); c3: c2.
    expect(knn.edges.map((e) => [e.source, e.target])).toEqual([
      [0, 1],
      [0, 2],
      [2, 3],
    ]);
  });

  it('rejects a chunk without a vector when semantic neighbours are asked for', () => {
    expect(() =>
      buildChunkKnnGraph([
        { id: 'a', keywords: [] },
        { id: 'b', keywords: [] },
      ]),
    ).toThrow(InvalidArgumentError);
  });

  it('gives PageRank an undirected view with both directions of each edge', () => {
    const csr = chunkKnnCsr(buildChunkKnnGraph(corpus));
    const degree = Array.from({ length: 5 }, (_, i) => csr.offsets[i + 1]! - csr.offsets[i]!);
    expect(degree).toEqual([3, 2, 2, 2, 1]);
  });
});

describe('lexicalNeighbors', () => {
  /** Brute force over all pairs: the definition (neighbours and their shared-keyword counts). */
  function oracle(sets: string[][], k: number): { neighbors: number[][]; scores: number[][] } {
    const rows = sets.map((a, i) => {
      const sa = new Set(a);
      return sets
        .map((b, j) => ({ j, shared: new Set(b.filter((w) => sa.has(w))).size }))
        .filter((x) => x.j !== i && x.shared > 0)
        .sort((x, y) => y.shared - x.shared || x.j - y.j)
        .slice(0, k);
    });
    return { neighbors: rows.map((r) => r.map((x) => x.j)), scores: rows.map((r) => r.map((x) => x.shared)) };
  }

  const found = (sets: string[][], k: number) => {
    const { neighbors, scores } = lexicalNeighbors(sets, k);
    return { neighbors: neighbors.map((row) => [...row]), scores: scores.map((row) => [...row]) };
  };

  it('matches the all-pairs definition on random corpora', () => {
    const word = fc.constantFrom('a1', 'b2', 'c3', 'd4', 'e5', 'f6', 'g7', 'h8');
    fc.assert(
      fc.property(
        fc.array(fc.array(word, { maxLength: 6 }), { maxLength: 25 }),
        fc.integer({ min: 0, max: 4 }),
        (sets, k) => {
          expect(found(sets, k)).toEqual(oracle(sets, k));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('matches it on larger corpora with common and rare keywords, many ties', () => {
    // Keyword w0 in about every chunk, w1–w3 in many, the rest rare: most pairs share something.
    const word = fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom('w0', 'w1', 'w2', 'w3') },
      { weight: 2, arbitrary: fc.integer({ min: 4, max: 60 }).map((i) => `w${i}`) },
    );
    fc.assert(
      fc.property(
        fc.array(fc.array(word, { minLength: 1, maxLength: 12 }), { minLength: 2, maxLength: 120 }),
        fc.integer({ min: 1, max: 3 }),
        (sets, k) => {
          expect(found(sets, k)).toEqual(oracle(sets, k));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('ignores keywords above the document-frequency cap', () => {
    const sets = [['common', 'x'], ['common', 'x'], ['common'], ['common', 'y'], ['y']];
    // 'common' is in 4 of 5 chunks: with a cap of 0.5 only x and y link chunks.
    const capped = lexicalNeighbors(sets, 1, { maxDocumentFrequency: 0.5 });
    expect(capped.neighbors.map((row) => [...row])).toEqual([[1], [0], [], [4], [3]]);
  });
});
