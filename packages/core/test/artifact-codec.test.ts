import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IndexFormatError, type TaskSuite, type VectorIndexFactory } from '../src/index.js';
import {
  checkVectorRowsArtifact,
  createBuildContext,
  decodeArrays,
  decodeVectorRows,
  encodeArrays,
  encodeVectorRows,
  flatIndexFactory,
  indexProviders,
  openMethodIndex,
  packLists,
  sparseVectorRows,
  unpackLists,
  v,
  writeMethodIndex,
} from '../src/kit.js';
import { createScriptedEmbedder } from '../src/test/index.js';
import { temporaryRoot } from '../src/test/vitest.js';

const root = temporaryRoot('grag-artifact-codec-');

/** `count` rows of 64 components, row i with 0.3·(i + 1) at i and -0 at 63 − i, +0 elsewhere. */
function sparseRows(count: number): Float32Array[] {
  return Array.from({ length: count }, (_, i) => {
    const row = new Float32Array(64);
    row[i] = 0.3 * (i + 1);
    row[63 - i] = -0;
    return row;
  });
}

describe('vector rows', () => {
  it('read back bit for bit, dense or sparse, -0 included', () => {
    const dense = [Float32Array.from([0.1, -2, 3e-30, 7]), Float32Array.from([1, 2, 3, 4])];
    const sparse = sparseRows(5);
    for (const rows of [dense, sparse]) {
      const bytes = encodeVectorRows(rows, rows[0]!.length);
      const back = decodeVectorRows(bytes, rows.length, rows[0]!.length, 'x.rows');
      back.forEach((row, i) => {
        row.forEach((x, j) => {
          expect(Object.is(x, rows[i]![j]), `${i},${j}`).toBe(true);
        });
      });
    }
    // The sparse rows take a bitmap and their non-zero values, far less than dense float32.
    expect(encodeVectorRows(sparse, 64).byteLength).toBeLessThan(5 * 64);
    expect(encodeVectorRows(dense, 4).byteLength).toBe(24 + 2 * 4 * 4);
  });

  it('refuse another count, other dimensions and truncated bytes', () => {
    const bytes = encodeVectorRows([Float32Array.from([1, 0, 0, 2])], 4);
    expect(() => decodeVectorRows(bytes, 2, 4, 'x.rows')).toThrow(
      /holds 1 vectors of 4 dimensions, expected 2/,
    );
    expect(() => decodeVectorRows(bytes.subarray(0, bytes.length - 2), 1, 4, 'x.rows')).toThrow(
      IndexFormatError,
    );
    expect(() => decodeVectorRows(new Uint8Array(30), 1, 4, 'x.rows')).toThrow(/not a grag vector-rows/);
  });

  it('decode as sparse rows: the entries of every component but +0, dense or bitmap, -0 included', () => {
    const dense = [Float32Array.from([0.1, 0, -0, 7]), Float32Array.from([0, 0, 0, 0])];
    const sparse = sparseRows(4);
    for (const rows of [dense, sparse]) {
      const d = rows[0]!.length;
      const got = sparseVectorRows(encodeVectorRows(rows, d), rows.length, d, 'x.rows');
      const entries = (i: number) =>
        Array.from({ length: got.offsets[i + 1]! - got.offsets[i]! }, (_, e) => [
          got.components[got.offsets[i]! + e],
          got.values[got.offsets[i]! + e],
        ]);
      rows.forEach((row, i) => {
        const want = [...row].flatMap((x, j) => (Object.is(x, 0) ? [] : [[j, x]]));
        expect(entries(i)).toEqual(want);
        // -0 stays -0.
        entries(i).forEach(([j, x]) => {
          expect(Object.is(x, row[j!])).toBe(true);
        });
      });
    }
    expect(() => sparseVectorRows(encodeVectorRows(dense, 4), 3, 4, 'x.rows')).toThrow(/expected 3/);
  });

  it('are checked without decoding as decoding checks them: count, length, marks, finite values', () => {
    const sparse = [Float32Array.from([0, 1.5, 0, 0, 0, 0]), Float32Array.from([0, 0, 0, 0, 0, -2])];
    const bytes = encodeVectorRows(sparse, 6);
    expect(() => checkVectorRowsArtifact(bytes, 2, 6, 'x.rows')).not.toThrow();
    // Not aligned to 4 bytes: checked all the same.
    const shifted = new Uint8Array(bytes.length + 1).subarray(1);
    shifted.set(bytes);
    expect(() => checkVectorRowsArtifact(shifted, 2, 6, 'x.rows')).not.toThrow();
    expect(decodeVectorRows(shifted, 2, 6, 'x.rows')).toEqual(sparse);
    const refusals: [Uint8Array, number, RegExp][] = [
      [bytes, 3, /holds 2 vectors of 6 dimensions, expected 3/],
      [bytes.subarray(0, bytes.length - 1), 2, /is truncated/],
    ];
    // A bitmap that marks component 7 of 6.
    const beyond = bytes.slice();
    beyond[24]! |= 1 << 7;
    const infinite = encodeVectorRows([Float32Array.from([0, Number.POSITIVE_INFINITY, 0, 0, 0, 0])], 6);
    refusals.push([beyond, 2, /vector 0 marks component 7, beyond 6/]);
    for (const [b, rows, message] of refusals) {
      expect(() => checkVectorRowsArtifact(b, rows, 6, 'x.rows')).toThrow(message);
      expect(() => decodeVectorRows(b, rows, 6, 'x.rows')).toThrow(message);
    }
    expect(() => checkVectorRowsArtifact(infinite, 1, 6, 'x.rows')).toThrow(
      /non-finite component \(value 0\)/,
    );
    expect(() => decodeVectorRows(infinite, 1, 6, 'x.rows')).toThrow(/non-finite/);
  });
});

describe('typed arrays and lists', () => {
  it('named arrays and CSR lists read back', () => {
    const lists = [Int32Array.from([1, 2]), Int32Array.from([]), Int32Array.from([0])];
    const { offsets, targets } = packLists(lists);
    const weights = Float64Array.from([0.1, Number.NaN, 1 / 3]);
    const back = decodeArrays(
      encodeArrays({ offsets, targets, weights, flags: Uint8Array.from([1]) }),
      'g.bin',
    );
    expect([...back.keys()]).toEqual(['offsets', 'targets', 'weights', 'flags']);
    expect(back.get('weights')).toEqual(weights);
    const unpacked = unpackLists(
      { offsets: back.get('offsets'), targets: back.get('targets') },
      { lists: 3, bound: 3 },
      'g.bin',
      'lists',
    );
    expect(unpacked.map((l) => [...l])).toEqual([[1, 2], [], [0]]);
    expect(() => unpackLists({ offsets, targets }, { lists: 3, bound: 2 }, 'g.bin', 'lists')).toThrow(
      /g\.bin.*lists: target 1 is 2, beyond 2/,
    );
    expect(() =>
      unpackLists({ offsets, targets: undefined }, { lists: 3, bound: 3 }, 'g.bin', 'lists'),
    ).toThrow(IndexFormatError);
  });
});

describe('the envelope with compact artifacts', () => {
  const context = (vectorIndex: VectorIndexFactory) =>
    createBuildContext({
      embedder: createScriptedEmbedder({ dimensions: 2 }),
      tasks: { id: 't' } as TaskSuite,
      vectorIndex,
    });
  const rows = [Float32Array.from([1, 0]), Float32Array.from([0.5, -2])];

  for (const [kind, factory] of [
    ['an exact factory', flatIndexFactory],
    ['another factory', { kind: 'flat', create: flatIndexFactory.create, load: flatIndexFactory.load }],
  ] as const) {
    it(`gzipped JSON, vector rows and ${kind}'s vector index round-trip`, async () => {
      const dir = join(root(), kind.replace(/ /g, '-'));
      const ctx = context(factory);
      const index = flatIndexFactory.create({ dimensions: 2 });
      rows.forEach((r, i) => {
        index.add(i, r);
      });
      await writeMethodIndex(
        dir,
        { method: 'demo', formatVersion: 2, providers: indexProviders(ctx), params: {} },
        async (out) => {
          await out.json('texts.json', { texts: ['a', 'b'] }, { compress: true });
          await out.vectorRows('v.rows', rows);
          expect(await out.vectorIndex('v.vec', index)).toBe(factory !== flatIndexFactory);
        },
      );
      expect((await readFile(join(dir, 'texts.json')))[0]).toBe(0x1f);
      expect((await readdir(dir)).includes('v.vec')).toBe(factory !== flatIndexFactory);
      const opened = await openMethodIndex(dir, ctx, {
        method: 'demo',
        formatVersion: 2,
        params: () => ({}),
      });
      expect(await opened.json('texts.json', v.object({ texts: v.array(v.string()) }))).toEqual({
        texts: ['a', 'b'],
      });
      const back = await opened.vectorRows('v.rows', 2);
      expect(back).toEqual(rows);
      const loaded = await opened.vectorIndex('v.vec', 2, () => back);
      expect(loaded.search([1, 0], 2)).toEqual(index.search([1, 0], 2));
    });
  }

  it('reads the older format versions a method names, and refuses others naming them', async () => {
    const ctx = context(flatIndexFactory);
    const dir = join(root(), 'versions');
    await writeMethodIndex(
      dir,
      { method: 'demo', formatVersion: 1, providers: indexProviders(ctx), params: {} },
      async () => {},
    );
    const open = (reads?: number[]) =>
      openMethodIndex(dir, ctx, {
        method: 'demo',
        formatVersion: 3,
        ...(reads ? { reads } : {}),
        params: () => ({}),
      });
    expect((await open([1])).manifest.formatVersion).toBe(1);
    await expect(open([2])).rejects.toThrow(
      /format version 1; this version reads 3 \(and 2\)\. Rebuild the index\./,
    );
    await expect(open()).rejects.toThrow(/this version reads 3\. Rebuild the index\./);
  });
});
