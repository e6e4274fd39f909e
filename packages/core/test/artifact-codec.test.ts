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
  fromFloat16Bits,
  indexProviders,
  openMethodIndex,
  packLists,
  sparseVectorRows,
  toFloat16Bits,
  unpackLists,
  v,
  writeMethodIndex,
} from '../src/kit.js';
import { directoryStore } from '../src/store/index.js';
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

describe('float16 vector rows', () => {
  it('convert as IEEE 754 half precision: hand-computed bits', () => {
    const cases: [number, number][] = [
      [1, 0x3c00],
      [-2, 0xc000],
      [0.5, 0x3800],
      [65504, 0x7bff], // largest finite
      [2 ** -14, 0x0400], // smallest normal
      [2 ** -24, 0x0001], // smallest subnormal
      [2 ** -25, 0x0000], // halfway to the smallest subnormal: ties to even (0)
      [3 * 2 ** -26, 0x0001], // past halfway: rounds up
      [0.1, 0x2e66], // 0.0999755859375
      [1 / 3, 0x3555],
      [1 + 2 ** -11, 0x3c00], // a tie between 1 and 1 + 2^-10: to even
      [1 + 3 * 2 ** -11, 0x3c02], // a tie between 1 + 2^-10 and 1 + 2^-9: to even
      [65520, 0x7c00], // rounds past the largest finite: Infinity
      [-0, 0x8000],
    ];
    for (const [x, bits] of cases) expect(toFloat16Bits(x), String(x)).toBe(bits);
    expect(fromFloat16Bits(0x2e66)).toBe(0.0999755859375);
    expect(fromFloat16Bits(0x0001)).toBe(2 ** -24);
    expect(Object.is(fromFloat16Bits(0x8000), -0)).toBe(true);
  });

  it('every finite float16 reads back to its own bits, and a float32 goes to the nearest float16', () => {
    for (let h = 0; h < 0x10000; h++) {
      if ((h & 0x7c00) === 0x7c00) continue; // Infinity and NaN
      expect(toFloat16Bits(fromFloat16Bits(h))).toBe(h);
    }
    // Random float32 values in float16's range: no other float16 is nearer (a tie goes to the even one).
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    for (let n = 0; n < 20000; n++) {
      const x = Math.fround((random() - 0.5) * 2 ** (Math.floor(random() * 40) - 28));
      const h = toFloat16Bits(x);
      const d = Math.abs(x - fromFloat16Bits(h));
      for (const other of [h - 1, h + 1, h ^ 0x8000]) {
        if (other < 0 || other > 0xffff || (other & 0x7c00) === 0x7c00) continue;
        const e = Math.abs(x - fromFloat16Bits(other));
        expect(d <= e, `${x}: ${h} against ${other}`).toBe(true);
        if (d === e && other !== (h ^ 0x8000)) expect(h & 1, `${x}: a tie goes to even`).toBe(0);
      }
    }
  });

  it('read back rounded to float16, in about half the bytes; +0 after rounding is a clear bit, -0 kept', () => {
    const dense = [Float32Array.from([0.1, -2, 3e-30, 7]), Float32Array.from([1, 2, 3, 1 / 3])];
    const sparse = sparseRows(5);
    for (const rows of [dense, sparse]) {
      const d = rows[0]!.length;
      const bytes = encodeVectorRows(rows, d, { precision: 'float16' });
      const back = decodeVectorRows(bytes, rows.length, d, 'x.rows');
      const entries = sparseVectorRows(bytes, rows.length, d, 'x.rows');
      let e = 0;
      back.forEach((row, i) => {
        row.forEach((x, j) => {
          const want = fromFloat16Bits(toFloat16Bits(rows[i]![j]!));
          expect(Object.is(x, want), `${i},${j}`).toBe(true);
          if (!Object.is(want, 0)) {
            expect(entries.components[e]).toBe(j);
            expect(Object.is(entries.values[e++], want)).toBe(true);
          }
        });
        expect(entries.offsets[i + 1]).toBe(e);
      });
      expect(() => checkVectorRowsArtifact(bytes, rows.length, d, 'x.rows')).not.toThrow();
    }
    // 3e-30 is below float16's smallest subnormal: +0, not stored.
    expect(
      Object.is(decodeVectorRows(encodeVectorRows(dense, 4, { precision: 'float16' }), 2, 4, 'x')[0]![2], 0),
    ).toBe(true);
    expect(encodeVectorRows(dense, 4, { precision: 'float16' }).byteLength).toBe(24 + 2 * 4 * 2);
    // Sparse: the bitmap (8 bytes a row) and 2 bytes per stored value (two a row) instead of 4.
    expect(encodeVectorRows(sparse, 64, { precision: 'float16' }).byteLength).toBe(24 + 5 * 8 + 10 * 2);
    expect(encodeVectorRows(sparse, 64).byteLength).toBe(24 + 5 * 8 + 10 * 4);
  });

  it('are checked as float32 rows are: a stored Infinity or NaN is refused, naming the value', () => {
    const bytes = encodeVectorRows([Float32Array.from([0, 1.5, 0, -2, 0.25, 0])], 6, {
      precision: 'float16',
    });
    expect(() => checkVectorRowsArtifact(bytes, 1, 6, 'x.rows')).not.toThrow();
    // Six values of 2 bytes after the header (dense: a bitmap would take as many bytes); set the second to Infinity, then NaN.
    for (const bits of [0x7c00, 0x7e01]) {
      const bad = bytes.slice();
      bad[24 + 2] = bits & 0xff;
      bad[24 + 3] = bits >> 8;
      expect(() => checkVectorRowsArtifact(bad, 1, 6, 'x.rows')).toThrow(/non-finite component \(value 1\)/);
      expect(() => decodeVectorRows(bad, 1, 6, 'x.rows')).toThrow(/non-finite component \(value 1\)/);
    }
  });

  it('refuse a component beyond float16 range, and an unknown precision', () => {
    expect(() => encodeVectorRows([Float32Array.from([1, 70000])], 2, { precision: 'float16' })).toThrow(
      /row 0 component 1 \(70000\) is beyond float16's range/,
    );
    // 65519 still rounds to the largest finite float16.
    expect(
      decodeVectorRows(
        encodeVectorRows([Float32Array.from([65519])], 1, { precision: 'float16' }),
        1,
        1,
        'x',
      ),
    ).toEqual([Float32Array.from([65504])]);
    expect(() =>
      encodeVectorRows([Float32Array.from([1])], 1, { precision: 'bfloat16' as unknown as 'float16' }),
    ).toThrow(/unknown vector precision "bfloat16"/);
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

  it("writes vector rows at the store's precision, float16 recorded in the manifest and kept by a rewrite", async () => {
    const ctx = context(flatIndexFactory);
    const third = [Float32Array.from([1 / 3, -0.1])];
    const dir = join(root(), 'precision');
    const write = (options: { vectorPrecision?: 'float16' | 'float32' }) =>
      writeMethodIndex(
        directoryStore(dir, options),
        { method: 'demo', formatVersion: 2, providers: indexProviders(ctx), params: {} },
        async (out) => {
          await out.vectorRows('v.rows', third);
        },
      );
    const read = async () => {
      const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
      const opened = await openMethodIndex(dir, ctx, {
        method: 'demo',
        formatVersion: 2,
        params: () => ({}),
      });
      return { precision: manifest.vectorPrecision, row: [...(await opened.vectorRows('v.rows', 1))[0]!] };
    };
    const half = [0x3555, 0xae66].map(fromFloat16Bits);
    await write({}); // a new index: float32
    expect(await read()).toEqual({ precision: undefined, row: [...third[0]!] });
    await write({ vectorPrecision: 'float16' });
    expect(await read()).toEqual({ precision: 'float16', row: half });
    await write({}); // none given: the replaced version's
    expect(await read()).toEqual({ precision: 'float16', row: half });
    await write({ vectorPrecision: 'float32' });
    expect(await read()).toEqual({ precision: undefined, row: [...third[0]!] });
    expect(() => directoryStore(join(root(), 'x'), { vectorPrecision: 'int4' as 'float16' })).toThrow(
      /vectorPrecision is "int4"; use one of 'float32', 'float16'/,
    );
  });

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
