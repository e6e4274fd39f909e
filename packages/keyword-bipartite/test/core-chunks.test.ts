import { InvalidArgumentError } from '@grag/core';
import { describe, expect, it } from 'vitest';
import { type ChunkKnnGraph, seededShuffle, selectCoreChunks } from '../src/index.js';

const graph = (ids: string[], pairs: [number, number][]): ChunkKnnGraph => ({
  ids,
  edges: pairs.map(([source, target]) => ({ source, target })),
});

describe('selectCoreChunks', () => {
  it('scores a star as PageRank does by hand (damping 0.85, P = A/deg)', () => {
    // Leaves x, centre y: y = 0.15/4 + 0.85·3x and x = 0.15/4 + 0.85·y/3,
    // so x = 0.048125 / 0.2775 and y = 0.0375 + 2.55x.
    const x = 0.048125 / 0.2775;
    const y = 0.0375 + 2.55 * x;
    const star = graph(
      ['l1', 'centre', 'l2', 'l3'],
      [
        [1, 0],
        [1, 2],
        [1, 3],
      ],
    );
    const core = selectCoreChunks(star, { beta: 0.5 });
    expect([...core.scores!].map((s) => Number(s.toFixed(5)))).toEqual(
      [x, y, x, x].map((s) => Number(s.toFixed(5))),
    );
    // floor(4 · 0.5) = 2: the centre, then the first of the tied leaves.
    expect(core.ids).toEqual(['centre', 'l1']);
    expect(core.positions).toEqual([1, 0]);
  });

  it('prefers the middle of a path', () => {
    // Ends x, middle y: y = 0.05 + 0.85·2x, x = 0.05 + 0.85·y/2 → y = 0.135 / 0.2775.
    const path = graph(
      ['a', 'b', 'c'],
      [
        [0, 1],
        [1, 2],
      ],
    );
    const core = selectCoreChunks(path, { beta: 0.4 });
    expect(core.scores![1]).toBeCloseTo(0.135 / 0.2775, 5);
    expect(core.ids).toEqual(['b']);
  });

  it('keeps floor(n·β) chunks: none at β = 0, all at β = 1', () => {
    const path = graph(
      ['a', 'b', 'c', 'd', 'e'],
      [
        [0, 1],
        [1, 2],
        [2, 3],
        [3, 4],
      ],
    );
    expect(selectCoreChunks(path, { beta: 0 }).ids).toEqual([]);
    expect(selectCoreChunks(path, { beta: 1 }).ids.sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(selectCoreChunks(path, { beta: 0.8 }).ids).toHaveLength(4);
    expect(selectCoreChunks(path, { beta: 0.7 }).ids).toHaveLength(3);
  });

  it('draws a seeded uniform sample for KET-RAG-U', () => {
    const ids = Array.from({ length: 20 }, (_, i) => `c${i}`);
    const g = graph(ids, []);
    const a = selectCoreChunks(g, { method: 'uniform', beta: 0.5, seed: 7 });
    const b = selectCoreChunks(g, { method: 'uniform', beta: 0.5, seed: 7 });
    const c = selectCoreChunks(g, { method: 'uniform', beta: 0.5, seed: 8 });
    expect(a.ids).toEqual(b.ids);
    expect(a.ids).not.toEqual(c.ids);
    expect(new Set(a.ids).size).toBe(10);
    expect(a.scores).toBeUndefined();
  });

  it('rejects a budget outside [0, 1]', () => {
    expect(() => selectCoreChunks(graph(['a'], []), { beta: 1.5 })).toThrow(InvalidArgumentError);
  });
});

describe('seededShuffle', () => {
  it('is a permutation', () => {
    const order = seededShuffle(50, 3);
    expect([...order].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });
});
