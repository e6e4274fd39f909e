/**
 * Compact, lossless encodings of an index's artifacts (see `IndexWriter` and `OpenedIndex`):
 * vector rows (dense float32, or a bitmap of the non-zero components and their float32 values,
 * whichever is smaller), named typed arrays in one binary artifact (graphs and adjacency as CSR
 * offsets and targets instead of JSON), and gzip for JSON text. Every value reads back bit for bit.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { indexFileError } from './validate.js';

/** Magic bytes of a vector-rows artifact (see {@link encodeVectorRows}): ASCII `GRAGROWS`. */
export const VECTOR_ROWS_MAGIC = 'GRAGROWS';
/** Magic bytes of a typed-arrays artifact (see {@link encodeArrays}): ASCII `GRAGARRS`. */
export const ARRAYS_MAGIC = 'GRAGARRS';
const CODEC_VERSION = 1;
const HEADER_BYTES = 24;
const DENSE = 0;
const BITMAP = 1;

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

/**
 * Encode `rows` (each of `dimensions` float32 components) losslessly: a 24-byte header (magic,
 * version, encoding, rows, dimensions), then either every component as little-endian float32
 * (dense) or, when smaller (sparse vectors such as hashed TF-IDF), one bit per component saying
 * whether it is non-zero followed by the non-zero components as float32.
 */
export function encodeVectorRows(rows: readonly ArrayLike<number>[], dimensions: number): Uint8Array {
  let nonZero = 0;
  rows.forEach((row, i) => {
    if (row.length !== dimensions) {
      throw new RangeError(`row ${i} has ${row.length} components, expected ${dimensions}`);
    }
    for (let j = 0; j < dimensions; j++) if (!isZero(Math.fround(row[j]!))) nonZero++;
  });
  const maskBytes = Math.ceil(dimensions / 8);
  const denseBytes = rows.length * dimensions * 4;
  const bitmapBytes = Math.ceil((rows.length * maskBytes) / 4) * 4 + nonZero * 4;
  const encoding = bitmapBytes < denseBytes ? BITMAP : DENSE;
  const head = header(VECTOR_ROWS_MAGIC, [CODEC_VERSION, encoding, rows.length, dimensions]);
  const out = new Uint8Array(HEADER_BYTES + (encoding === BITMAP ? bitmapBytes : denseBytes));
  out.set(head.bytes);
  const view = new DataView(out.buffer);
  if (encoding === DENSE) {
    rows.forEach((row, i) => {
      for (let j = 0; j < dimensions; j++)
        view.setFloat32(HEADER_BYTES + (i * dimensions + j) * 4, row[j]!, true);
    });
    return out;
  }
  let at = HEADER_BYTES + Math.ceil((rows.length * maskBytes) / 4) * 4;
  rows.forEach((row, i) => {
    const mask = HEADER_BYTES + i * maskBytes;
    for (let j = 0; j < dimensions; j++) {
      const x = Math.fround(row[j]!);
      if (isZero(x)) continue;
      out[mask + (j >> 3)]! |= 1 << (j & 7);
      view.setFloat32(at, x, true);
      at += 4;
    }
  });
  return out;
}

/** Whether `bytes` are an artifact written by {@link encodeVectorRows} (not raw float32 rows). */
export function isVectorRows(bytes: Uint8Array): boolean {
  return magicOf(bytes) === VECTOR_ROWS_MAGIC;
}

/**
 * Whether every value is finite: x · 0 is ±0 for a finite x and NaN for ±Infinity and NaN, summed in
 * four independent sums (three times as fast as testing each value).
 */
function allFinite(values: Float32Array): boolean {
  let [a, b, c, d] = [0, 0, 0, 0];
  const whole = values.length & ~3;
  for (let k = 0; k < whole; k += 4) {
    a += values[k]! * 0;
    b += values[k + 1]! * 0;
    c += values[k + 2]! * 0;
    d += values[k + 3]! * 0;
  }
  for (let k = whole; k < values.length; k++) a += values[k]! * 0;
  return a + b + c + d === 0;
}

/** Where the components of a checked vector-rows artifact are (see {@link vectorRowsLayout}). */
interface VectorRowsLayout {
  encoding: typeof DENSE | typeof BITMAP;
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
  const [version, encoding, count, dims] = [8, 12, 16, 20].map((at) => view.getUint32(at, true));
  if (version !== CODEC_VERSION) throw indexFileError(file, `has vector-rows version ${version}`);
  if (count !== rows || dims !== dimensions) {
    throw indexFileError(
      file,
      `holds ${count} vectors of ${dims} dimensions, expected ${rows} of ${dimensions}`,
    );
  }
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
  } else throw indexFileError(file, `has an unknown encoding ${encoding}`);
  if (at + values * 4 > bytes.byteLength) throw indexFileError(file, 'is truncated');
  // Float32 view of the stored components (little-endian, as every platform Node supports); a copy
  // when the bytes are not aligned to 4.
  const offset = bytes.byteOffset + at;
  const stored =
    offset % 4 === 0
      ? new Float32Array(bytes.buffer, offset, values)
      : new Float32Array(bytes.slice(at, at + values * 4).buffer);
  if (!allFinite(stored)) {
    for (let k = 0; k < values; k++) {
      if (!Number.isFinite(stored[k]!))
        throw indexFileError(file, `holds a non-finite component (value ${k})`);
    }
  }
  return { encoding: encoding as VectorRowsLayout['encoding'], at, values, maskBytes };
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
  const { encoding, at, values, maskBytes } = vectorRowsLayout(bytes, rows, dimensions, file);
  // The stored components (little-endian, as every platform Node supports): read in place when
  // aligned (the rows below are copies), else one aligned copy.
  const offset = bytes.byteOffset + at;
  const stored =
    offset % 4 === 0
      ? new Float32Array(bytes.buffer, offset, values)
      : new Float32Array(bytes.slice(at, at + values * 4).buffer);
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
  const { encoding, at, values: count, maskBytes } = vectorRowsLayout(bytes, rows, dimensions, file);
  const stored = new Float32Array(count);
  new Uint8Array(stored.buffer).set(bytes.subarray(at, at + count * 4));
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
