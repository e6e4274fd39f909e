/**
 * Compact encodings of an index's artifacts (see `IndexWriter` and `OpenedIndex`): vector rows
 * (dense, or a bitmap of the non-zero components and their values, whichever is smaller; values as
 * float32, or as float16 when asked), named typed arrays in one binary artifact (graphs and
 * adjacency as CSR offsets and targets instead of JSON), and gzip for JSON text. Every value reads
 * back bit for bit, but for float16 vector rows, which read back rounded to float16.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { isVectorPrecision, type VectorPrecision } from './contracts/store.js';
import { decodeFloat16, FLOAT16_MAX, firstNonFiniteFloat16, toFloat16Bits } from './float16.js';
import { indexFileError } from './validate.js';

/** Magic bytes of a vector-rows artifact (see {@link encodeVectorRows}): ASCII `GRAGROWS`. */
export const VECTOR_ROWS_MAGIC = 'GRAGROWS';
/** Magic bytes of a typed-arrays artifact (see {@link encodeArrays}): ASCII `GRAGARRS`. */
export const ARRAYS_MAGIC = 'GRAGARRS';
const CODEC_VERSION = 1;
const HEADER_BYTES = 24;
const DENSE = 0;
const BITMAP = 1;
/** Set in a vector-rows header's encoding word when the values are float16 (else float32). */
const FLOAT16 = 0x100;

function magicOf(bytes: Uint8Array): string {
  return bytes.byteLength >= 8 ? String.fromCharCode(...bytes.subarray(0, 8)) : '';
}

function header(magic: string, words: readonly number[]): { bytes: Uint8Array; view: DataView } {
  const bytes = new Uint8Array(HEADER_BYTES);
  for (let i = 0; i < 8; i++) bytes[i] = magic.charCodeAt(i);
  const view = new DataView(bytes.buffer);
  words.forEach((w, i) => {
    view.setUint32(8 + 4 * i, w, true);
  });
  return { bytes, view };
}

/** Whether component `x` is stored as a bit only (+0; -0 keeps its value, so it reads back as -0). */
const isZero = (x: number) => Object.is(x, 0);

/** Options of {@link encodeVectorRows}. */
export interface VectorRowsOptions {
  /**
   * How the values are stored: float32 (lossless), or float16 (rounded to nearest even; within a
   * relative 2^-11 down to 2^-14, within 2^-25 below that). @default 'float32'
   */
  precision?: VectorPrecision;
}

/**
 * Encode `rows` (each of `dimensions` float32 components): a 24-byte header (magic, version,
 * encoding, rows, dimensions), then either every component (dense) or, when smaller (sparse
 * vectors such as hashed TF-IDF), one bit per component saying whether it is non-zero followed by
 * the non-zero components. Components are little-endian float32 (lossless), or float16 with
 * `precision: 'float16'` (each rounded to the nearest float16; a component that rounds to +0 is
 * stored as a clear bit). @throws RangeError for a row of another length, or a component beyond
 * float16's range (±65504) with `'float16'`.
 */
export function encodeVectorRows(
  rows: readonly ArrayLike<number>[],
  dimensions: number,
  options: VectorRowsOptions = {},
): Uint8Array {
  const half = options.precision === 'float16';
  if (options.precision !== undefined && !isVectorPrecision(options.precision)) {
    throw new RangeError(
      `unknown vector precision ${JSON.stringify(options.precision)}: use 'float32' or 'float16'`,
    );
  }
  const width = half ? 2 : 4;
  // The stored value of each component: its float32, or its float16 bits.
  const value = half ? toFloat16Bits : Math.fround;
  const zero = half ? (h: number) => h === 0 : isZero;
  let nonZero = 0;
  rows.forEach((row, i) => {
    if (row.length !== dimensions) {
      throw new RangeError(`row ${i} has ${row.length} components, expected ${dimensions}`);
    }
    for (let j = 0; j < dimensions; j++) {
      const x = row[j]!;
      const stored = value(x);
      // A finite value that rounds to a float16 infinity.
      if (half && (stored & 0x7fff) === 0x7c00 && Number.isFinite(x)) {
        throw new RangeError(
          `row ${i} component ${j} (${x}) is beyond float16's range (±${FLOAT16_MAX}); store these vectors as float32`,
        );
      }
      if (!zero(stored)) nonZero++;
    }
  });
  const maskBytes = Math.ceil(dimensions / 8);
  const denseBytes = Math.ceil((rows.length * dimensions * width) / 4) * 4;
  const bitmapBytes = Math.ceil((rows.length * maskBytes) / 4) * 4 + Math.ceil((nonZero * width) / 4) * 4;
  const layout = bitmapBytes < denseBytes ? BITMAP : DENSE;
  const head = header(VECTOR_ROWS_MAGIC, [
    CODEC_VERSION,
    layout | (half ? FLOAT16 : 0),
    rows.length,
    dimensions,
  ]);
  const out = new Uint8Array(HEADER_BYTES + (layout === BITMAP ? bitmapBytes : denseBytes));
  out.set(head.bytes);
  const view = new DataView(out.buffer);
  const put = half
    ? (at: number, x: number) => view.setUint16(at, x, true)
    : (at: number, x: number) => view.setFloat32(at, x, true);
  if (layout === DENSE) {
    rows.forEach((row, i) => {
      for (let j = 0; j < dimensions; j++) put(HEADER_BYTES + (i * dimensions + j) * width, value(row[j]!));
    });
    return out;
  }
  let at = HEADER_BYTES + Math.ceil((rows.length * maskBytes) / 4) * 4;
  rows.forEach((row, i) => {
    const mask = HEADER_BYTES + i * maskBytes;
    for (let j = 0; j < dimensions; j++) {
      const x = value(row[j]!);
      if (zero(x)) continue;
      out[mask + (j >> 3)]! |= 1 << (j & 7);
      put(at, x);
      at += width;
    }
  });
  return out;
}

/** Whether `bytes` are an artifact written by {@link encodeVectorRows} (not raw float32 rows). */
export function isVectorRows(bytes: Uint8Array): boolean {
  return magicOf(bytes) === VECTOR_ROWS_MAGIC;
}

/**
 * The index of the first value that is not finite, or -1: x · 0 is ±0 for a finite x and NaN for
 * ±Infinity and NaN, summed in four independent sums (three times as fast as testing each value),
 * and only when the sum is NaN is each value tested.
 */
function firstNonFinite(values: Float32Array): number {
  let [a, b, c, d] = [0, 0, 0, 0];
  const whole = values.length & ~3;
  for (let k = 0; k < whole; k += 4) {
    a += values[k]! * 0;
    b += values[k + 1]! * 0;
    c += values[k + 2]! * 0;
    d += values[k + 3]! * 0;
  }
  for (let k = whole; k < values.length; k++) a += values[k]! * 0;
  return a + b + c + d === 0 ? -1 : values.findIndex((x) => !Number.isFinite(x));
}

/** Where the components of a checked vector-rows artifact are (see {@link vectorRowsLayout}). */
interface VectorRowsLayout {
  encoding: typeof DENSE | typeof BITMAP;
  /** Whether the components are float16 (else float32). */
  half: boolean;
  /** Byte offset of the first stored component. */
  at: number;
  /** How many components are stored. */
  values: number;
  maskBytes: number;
}

/**
 * Check an artifact of {@link encodeVectorRows} without decoding its rows: the header (`rows` rows
 * of `dimensions`), its length, that no bitmap marks a component beyond `dimensions`, and that every
 * stored component is finite. @throws IndexFormatError naming `file`.
 */
function vectorRowsLayout(
  bytes: Uint8Array,
  rows: number,
  dimensions: number,
  file: string,
): VectorRowsLayout {
  if (!isVectorRows(bytes) || bytes.byteLength < HEADER_BYTES) {
    throw indexFileError(file, 'is not a grag vector-rows artifact');
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const [version, word, count, dims] = [8, 12, 16, 20].map((at) => view.getUint32(at, true)) as [
    number,
    number,
    number,
    number,
  ];
  if (version !== CODEC_VERSION) throw indexFileError(file, `has vector-rows version ${version}`);
  if (count !== rows || dims !== dimensions) {
    throw indexFileError(
      file,
      `holds ${count} vectors of ${dims} dimensions, expected ${rows} of ${dimensions}`,
    );
  }
  const half = (word & FLOAT16) !== 0;
  const encoding = word & ~FLOAT16;
  const maskBytes = Math.ceil(dimensions / 8);
  const at = HEADER_BYTES + (encoding === BITMAP ? Math.ceil((rows * maskBytes) / 4) * 4 : 0);
  if (at > bytes.byteLength) throw indexFileError(file, 'is truncated');
  let values: number;
  if (encoding === DENSE) values = rows * dimensions;
  else if (encoding === BITMAP) {
    values = 0;
    for (let b = HEADER_BYTES; b < HEADER_BYTES + rows * maskBytes; b++) values += BITS[bytes[b]!]!;
    // The bits of a row's last mask byte past `dimensions` must be clear.
    const spare = 0xff & ~((1 << (dimensions - (maskBytes - 1) * 8)) - 1);
    for (let i = 0; spare !== 0 && i < rows; i++) {
      const last = bytes[HEADER_BYTES + (i + 1) * maskBytes - 1]!;
      if ((last & spare) !== 0) {
        const j = (maskBytes - 1) * 8 + (31 - Math.clz32(last & spare & -(last & spare)));
        throw indexFileError(file, `vector ${i} marks component ${j}, beyond ${dimensions}`);
      }
    }
  } else throw indexFileError(file, `has an unknown encoding ${word}`);
  const width = half ? 2 : 4;
  if (at + values * width > bytes.byteLength) throw indexFileError(file, 'is truncated');
  const layout = { encoding: encoding as VectorRowsLayout['encoding'], half, at, values, maskBytes };
  // Checked without decoding float16 values: one is infinite or NaN when its exponent bits are all set.
  const nonFinite = half
    ? firstNonFiniteFloat16(bytes, at, values)
    : firstNonFinite(float32Stored(bytes, at, values));
  if (nonFinite >= 0) throw indexFileError(file, `holds a non-finite component (value ${nonFinite})`);
  return layout;
}

/**
 * The stored components of a checked artifact as float32: a view of the bytes when they are float32
 * and aligned, else a copy (float16 values decoded).
 */
function storedValues(bytes: Uint8Array, layout: VectorRowsLayout): Float32Array {
  return layout.half
    ? decodeFloat16(bytes, layout.at, layout.values)
    : float32Stored(bytes, layout.at, layout.values);
}

/**
 * The `values` float32 components at byte `at` (little-endian, as every platform Node supports): a
 * view of `bytes` when aligned to 4, else one aligned copy.
 */
function float32Stored(bytes: Uint8Array, at: number, values: number): Float32Array {
  const offset = bytes.byteOffset + at;
  return offset % 4 === 0
    ? new Float32Array(bytes.buffer, offset, values)
    : new Float32Array(bytes.slice(at, at + values * 4).buffer);
}

/**
 * Check an artifact of {@link encodeVectorRows} as {@link decodeVectorRows} does, without
 * decoding its rows (for vectors read later, or never). @throws IndexFormatError naming `file`.
 */
export function checkVectorRowsArtifact(
  bytes: Uint8Array,
  rows: number,
  dimensions: number,
  file: string,
): void {
  vectorRowsLayout(bytes, rows, dimensions, file);
}

/**
 * Decode an artifact of {@link encodeVectorRows}, checking it holds `rows` rows of `dimensions`
 * finite components. @throws IndexFormatError naming `file`.
 */
export function decodeVectorRows(
  bytes: Uint8Array,
  rows: number,
  dimensions: number,
  file: string,
): Float32Array[] {
  // The stored components: read in place when float32 and aligned (the rows below are copies).
  const layout = vectorRowsLayout(bytes, rows, dimensions, file);
  const { encoding, maskBytes } = layout;
  const stored = storedValues(bytes, layout);
  if (encoding === DENSE)
    return Array.from({ length: rows }, (_, i) => stored.slice(i * dimensions, (i + 1) * dimensions));
  // One allocation for every row (rows are views of it): far faster than one array per row.
  const all = new Float32Array(rows * dimensions);
  const out = Array.from({ length: rows }, (_, i) => all.subarray(i * dimensions, (i + 1) * dimensions));
  let k = 0;
  for (let i = 0; i < rows; i++) {
    const row = out[i]!;
    const mask = HEADER_BYTES + i * maskBytes;
    for (let b = 0; b < maskBytes; b++) {
      let bits = bytes[mask + b]!;
      while (bits !== 0) {
        const low = bits & -bits;
        row[b * 8 + (31 - Math.clz32(low))] = stored[k++]!;
        bits ^= low;
      }
    }
  }
  return out;
}

/** Vector rows as compressed sparse rows (see {@link sparseVectorRows}). */
export interface SparseVectorRows {
  rows: number;
  dimensions: number;
  /** Row `i`'s entries are `offsets[i] … offsets[i + 1] - 1` (`rows + 1` offsets). */
  offsets: Int32Array;
  /** The component of each entry, ascending within a row. */
  components: Int32Array;
  /** The value of each entry: every component but +0 (-0 included, as stored). */
  values: Float32Array;
}

/**
 * Decode an artifact of {@link encodeVectorRows} as sparse rows: each row's components other than
 * +0, with their values, checked as {@link decodeVectorRows} checks them. For sparse vectors (such as
 * hashed TF-IDF) far less to allocate and to add up than dense rows. @throws IndexFormatError naming `file`.
 */
export function sparseVectorRows(
  bytes: Uint8Array,
  rows: number,
  dimensions: number,
  file: string,
): SparseVectorRows {
  const layout = vectorRowsLayout(bytes, rows, dimensions, file);
  const { encoding, values: count, maskBytes } = layout;
  // The values are returned: a copy, not a view of the bytes.
  const viewed = storedValues(bytes, layout);
  const stored = layout.half ? viewed : viewed.slice();
  const offsets = new Int32Array(rows + 1);
  if (encoding === DENSE) {
    let n = 0;
    for (let k = 0; k < count; k++) if (!isZero(stored[k]!)) n++;
    const components = new Int32Array(n);
    const values = new Float32Array(n);
    let e = 0;
    for (let i = 0; i < rows; i++) {
      for (let j = 0; j < dimensions; j++) {
        const x = stored[i * dimensions + j]!;
        if (isZero(x)) continue;
        components[e] = j;
        values[e++] = x;
      }
      offsets[i + 1] = e;
    }
    return { rows, dimensions, offsets, components, values };
  }
  const components = new Int32Array(count);
  let k = 0;
  for (let i = 0; i < rows; i++) {
    const mask = HEADER_BYTES + i * maskBytes;
    for (let b = 0; b < maskBytes; b++) {
      let bits = bytes[mask + b]!;
      while (bits !== 0) {
        const low = bits & -bits;
        components[k++] = b * 8 + (31 - Math.clz32(low));
        bits ^= low;
      }
    }
    offsets[i + 1] = k;
  }
  return { rows, dimensions, offsets, components, values: stored };
}

/** Set bits of each byte value. */
const BITS = Uint8Array.from({ length: 256 }, (_, n) => {
  let c = 0;
  for (let x = n; x !== 0; x &= x - 1) c++;
  return c;
});

/** A typed array {@link encodeArrays} stores. */
export type StoredArray = Int32Array | Uint32Array | Float32Array | Float64Array | Uint8Array | Uint16Array;

const ARRAY_TYPES = {
  int32: Int32Array,
  uint32: Uint32Array,
  float32: Float32Array,
  float64: Float64Array,
  uint8: Uint8Array,
  uint16: Uint16Array,
} as const;
type ArrayType = keyof typeof ARRAY_TYPES;

function typeOf(array: StoredArray): ArrayType {
  if (array instanceof Int32Array) return 'int32';
  if (array instanceof Uint32Array) return 'uint32';
  if (array instanceof Float32Array) return 'float32';
  if (array instanceof Float64Array) return 'float64';
  if (array instanceof Uint16Array) return 'uint16';
  return 'uint8';
}

const align8 = (n: number) => Math.ceil(n / 8) * 8;

/**
 * Encode named typed arrays as one artifact: a 24-byte header (magic, version, length of a JSON
 * table), the table (`[name, type, length]` per array), then each array little-endian, 8-byte
 * aligned. For graphs and adjacency: CSR offsets, targets and weights.
 */
export function encodeArrays(arrays: Readonly<Record<string, StoredArray>>): Uint8Array {
  const entries = Object.entries(arrays);
  const table = new TextEncoder().encode(JSON.stringify(entries.map(([n, a]) => [n, typeOf(a), a.length])));
  let size = align8(HEADER_BYTES + table.byteLength);
  for (const [, a] of entries) size += align8(a.byteLength);
  const out = new Uint8Array(size);
  out.set(header(ARRAYS_MAGIC, [CODEC_VERSION, table.byteLength]).bytes);
  out.set(table, HEADER_BYTES);
  let at = align8(HEADER_BYTES + table.byteLength);
  // Typed arrays are platform-endian; every platform Node supports is little-endian.
  for (const [, a] of entries) {
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), at);
    at += align8(a.byteLength);
  }
  return out;
}

/** Decode an artifact of {@link encodeArrays}. @throws IndexFormatError naming `file`. */
export function decodeArrays(bytes: Uint8Array, file: string): Map<string, StoredArray> {
  if (magicOf(bytes) !== ARRAYS_MAGIC || bytes.byteLength < HEADER_BYTES) {
    throw indexFileError(file, 'is not a grag arrays artifact');
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(8, true);
  if (version !== CODEC_VERSION) throw indexFileError(file, `has arrays version ${version}`);
  const tableBytes = view.getUint32(12, true);
  let table: [string, ArrayType, number][];
  try {
    table = JSON.parse(new TextDecoder().decode(bytes.subarray(HEADER_BYTES, HEADER_BYTES + tableBytes)));
  } catch (error) {
    throw indexFileError(file, 'has an unreadable table of arrays', { cause: error });
  }
  const out = new Map<string, StoredArray>();
  let at = align8(HEADER_BYTES + tableBytes);
  if (!Array.isArray(table)) throw indexFileError(file, 'has no table of arrays');
  for (const entry of table) {
    if (!Array.isArray(entry)) throw indexFileError(file, 'has a bad entry in its table of arrays');
    const [name, type, length] = entry;
    const Type = Object.hasOwn(ARRAY_TYPES, type) ? ARRAY_TYPES[type] : undefined;
    if (!Type || !Number.isSafeInteger(length) || length < 0)
      throw indexFileError(file, `has a bad entry ${name}`);
    const byteLength = length * Type.BYTES_PER_ELEMENT;
    if (at + byteLength > bytes.byteLength) throw indexFileError(file, `is truncated (array ${name})`);
    const copy = new Uint8Array(byteLength);
    copy.set(bytes.subarray(at, at + byteLength));
    out.set(name, new Type(copy.buffer));
    at += align8(byteLength);
  }
  return out;
}

/** gzip `bytes` (deterministic: the same bytes for the same input). */
export function compress(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(gzipSync(bytes, { level: 6 }));
}

/** `bytes` unzipped when they are gzip (magic 1f 8b; JSON and grag's binary artifacts never start so), else as they are. */
export function decompressed(bytes: Uint8Array, file: string): Uint8Array {
  if (bytes.byteLength < 2 || bytes[0] !== 0x1f || bytes[1] !== 0x8b) return bytes;
  try {
    return new Uint8Array(gunzipSync(bytes));
  } catch (error) {
    throw indexFileError(file, `cannot be unzipped (${(error as Error).message})`, { cause: error });
  }
}

/** Lists of non-negative integers (adjacency) as CSR: `offsets` (length n + 1) and the concatenated `targets`. */
export function packLists(lists: readonly ArrayLike<number>[]): { offsets: Int32Array; targets: Int32Array } {
  const offsets = new Int32Array(lists.length + 1);
  lists.forEach((list, i) => {
    offsets[i + 1] = offsets[i]! + list.length;
  });
  const targets = new Int32Array(offsets[lists.length]!);
  lists.forEach((list, i) => {
    targets.set(list, offsets[i]!);
  });
  return { offsets, targets };
}

/**
 * The lists of {@link packLists} back (views into `targets`), checked: `n + 1` ascending offsets
 * from 0 to the number of targets, every target in `[0, bound)`.
 * @throws IndexFormatError naming `file` and the array (`what`) that is wrong.
 */
export function unpackLists(
  csr: { offsets: StoredArray | undefined; targets: StoredArray | undefined },
  expected: { lists: number; bound: number },
  file: string,
  what: string,
): Int32Array[] {
  const { offsets, targets } = csr;
  if (!(offsets instanceof Int32Array) || !(targets instanceof Int32Array)) {
    throw indexFileError(file, `lacks the int32 arrays of ${what}`);
  }
  if (
    offsets.length !== expected.lists + 1 ||
    offsets[0] !== 0 ||
    offsets[expected.lists] !== targets.length
  ) {
    throw indexFileError(file, `${what}: offsets do not span ${expected.lists} lists`);
  }
  for (let i = 0; i < targets.length; i++) {
    const t = targets[i]!;
    if (t < 0 || t >= expected.bound)
      throw indexFileError(file, `${what}: target ${i} is ${t}, beyond ${expected.bound}`);
  }
  return Array.from({ length: expected.lists }, (_, i) => {
    const [from, to] = [offsets[i]!, offsets[i + 1]!];
    if (to < from) throw indexFileError(file, `${what}: offsets decrease at ${i}`);
    return targets.subarray(from, to);
  });
}
