import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mulberry32, randomVectors } from '@grag/core/test';
import { runVectorIndexSpec } from '@grag/core/test/vitest';
import { describe, expect, it } from 'vitest';
import { IndexFormatError, InvalidArgumentError } from '../src/contracts/errors.js';
import {
  cosineSimilarity,
  dot,
  FlatIndex,
  flatIndexFactory,
  type Metric,
  norm,
  normalize,
  squaredL2,
} from '../src/vector/index.js';

runVectorIndexSpec('FlatIndex', flatIndexFactory);

describe('vector math', () => {
  it('computes dot products, norms and squared distances by their definitions', () => {
    expect(dot([1, 2, 3], [4, -5, 6])).toBe(4 - 10 + 18);
    expect(norm([3, 4])).toBe(5);
    expect(squaredL2([1, 2, 3], [4, 6, 3])).toBe(9 + 16);
  });

  it('normalizes into a new unit-length Float32Array and leaves a zero vector zero', () => {
    const source = new Float32Array([3, 0, 4]);
    const unit = normalize(source);
    expect(unit).not.toBe(source);
    expect(Array.from(source)).toEqual([3, 0, 4]);
    expect(unit[0]).toBeCloseTo(0.6, 6);
    expect(unit[2]).toBeCloseTo(0.8, 6);
    expect(Array.from(normalize([0, 0, 0]))).toEqual([0, 0, 0]);
  });

  it('gives cosine similarity in [-1, 1] and 0 when a vector is zero', () => {
    expect(cosineSimilarity([1, 0], [1, 1])).toBeCloseTo(Math.SQRT1_2, 12);
    expect(cosineSimilarity([2, 0], [-5, 0])).toBe(-1);
    expect(cosineSimilarity([0, 0], [1, 1])).toBe(0);
    expect(cosineSimilarity([1, 1], [0, 0])).toBe(0);
  });
});

describe('FlatIndex', () => {
  function bruteForce(
    metric: Metric,
    stored: Map<number, Float32Array>,
    query: Float32Array,
    k: number,
  ): { id: number; score: number }[] {
    return [...stored]
      .map(([id, v]) => ({
        id,
        score:
          metric === 'cosine'
            ? cosineSimilarity(v, query)
            : metric === 'ip'
              ? dot(v, query)
              : -squaredL2(v, query),
      }))
      .sort((a, b) => b.score - a.score || a.id - b.id)
      .slice(0, k);
  }

  it('stays equal to a brute-force oracle through random adds, replacements and removals', () => {
    const rand = mulberry32(5);
    for (const metric of ['cosine', 'ip', 'l2'] as const) {
      const index = new FlatIndex({ dimensions: 6, metric, capacity: 1 });
      const stored = new Map<number, Float32Array>();
      const pool = randomVectors(600, 6, 6);
      for (let step = 0; step < 600; step++) {
        const id = Math.floor(rand() * 150);
        if (rand() < 0.25) {
          expect(index.remove(id)).toBe(stored.delete(id));
        } else {
          const v = pool[step] as Float32Array;
          index.add(id, v);
          stored.set(id, v);
        }
        expect(index.size).toBe(stored.size);
        if (step % 50 === 0) {
          const q = pool[(step * 7) % 600] as Float32Array;
          const hits = index.search(q, 12);
          const expected = bruteForce(metric, stored, q, 12);
          expect(hits.map((h) => h.id)).toEqual(expected.map((h) => h.id));
          for (const [i, h] of hits.entries()) expect(h.score).toBeCloseTo(expected[i]?.score ?? NaN, 5);
        }
      }
      expect(index.ids().sort((a, b) => a - b)).toEqual([...stored.keys()].sort((a, b) => a - b));
    }
  });

  it('scores cosine independently of vector length and gives a zero vector score 0', () => {
    const index = new FlatIndex({ dimensions: 2, metric: 'cosine' });
    index.add(1, [1, 1]);
    index.add(2, [100, 100]);
    index.add(3, [0, 0]);
    const hits = index.search([3, 1], 3);
    expect(hits.map((h) => h.id)).toEqual([1, 2, 3]);
    expect(hits[0]?.score).toBeCloseTo(4 / Math.sqrt(20), 6);
    expect(hits[1]?.score).toBeCloseTo(4 / Math.sqrt(20), 6);
    expect(hits[2]?.score).toBe(0);
  });

  it('calls the filter once per stored id', () => {
    const index = new FlatIndex({ dimensions: 1, metric: 'l2' });
    for (const id of [4, 8, 15, 16]) index.add(id, [id]);
    const seen: number[] = [];
    index.search([0], 2, {
      filter: (id) => {
        seen.push(id);
        return true;
      },
    });
    expect(seen.sort((a, b) => a - b)).toEqual([4, 8, 15, 16]);
  });

  it('rejects a non-positive dimension count and an unknown metric', () => {
    expect(() => new FlatIndex({ dimensions: 0 })).toThrow(InvalidArgumentError);
    expect(() => new FlatIndex({ dimensions: 2.5 })).toThrow(InvalidArgumentError);
    expect(() => new FlatIndex({ dimensions: 2, metric: 'hamming' as Metric })).toThrow(InvalidArgumentError);
  });

  it('writes the documented little-endian layout', async () => {
    const index = new FlatIndex({ dimensions: 2, metric: 'l2' });
    index.add(10, [1.5, -2]);
    index.add(3, [0.25, 4]);
    const dir = await mkdtemp(join(tmpdir(), 'grag-flat-'));
    try {
      const path = join(dir, 'flat.idx');
      await index.save(path);
      const bytes = await readFile(path);
      expect(bytes.length).toBe(24 + 2 * 8 + 2 * 2 * 4);
      expect(bytes.subarray(0, 8).toString('latin1')).toBe('GRAGFLAT');
      expect(bytes.readUInt32LE(8)).toBe(1);
      expect(bytes.readUInt8(12)).toBe(2);
      expect(bytes.readUInt32LE(16)).toBe(2);
      expect(bytes.readUInt32LE(20)).toBe(2);
      expect([bytes.readDoubleLE(24), bytes.readDoubleLE(32)]).toEqual([10, 3]);
      expect([0, 1, 2, 3].map((i) => bytes.readFloatLE(40 + 4 * i))).toEqual([1.5, -2, 0.25, 4]);
      expect(Buffer.from(index.toBuffer()).equals(bytes)).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('throws IndexFormatError on a wrong magic, an unknown version or a truncated body', () => {
    const index = new FlatIndex({ dimensions: 3 });
    index.add(1, [1, 2, 3]);
    const good = index.toBuffer();
    expect(FlatIndex.fromBuffer(good).search([1, 2, 3], 1)[0]?.id).toBe(1);

    const badMagic = good.slice();
    badMagic[0] = 'X'.charCodeAt(0);
    expect(() => FlatIndex.fromBuffer(badMagic, 'x.idx')).toThrow(IndexFormatError);

    const badVersion = good.slice();
    new DataView(badVersion.buffer).setUint32(8, 99, true);
    let error: unknown;
    try {
      FlatIndex.fromBuffer(badVersion, 'v.idx');
    } catch (e) {
      error = e;
    }
    expect(IndexFormatError.isInstance(error) && error.version === 99 && error.path === 'v.idx').toBe(true);

    expect(() => FlatIndex.fromBuffer(good.subarray(0, good.length - 4))).toThrow(IndexFormatError);
  });
});
