/**
 * An hnswlib index without its vectors, for callers that keep the vectors themselves (a method that
 * stores its embeddings once): {@link stripVectors} cuts the vector out of every level-0 record of
 * the bytes hnswlib's `saveIndex` writes, {@link restoreVectors} puts them back from the caller's
 * vectors, exactly as hnswlib stored them (cosine: normalized in float32 the way hnswlib-node's
 * `normalizePoint` does), so the restored bytes are the saved ones and the index searches alike.
 */
import { IndexFormatError, type Metric } from '@grag/core';

/** Size of hnswlib's fixed header (see `readNativeBaseLayer`). */
const NATIVE_HEADER_BYTES = 96;

/** The record layout of an hnswlib file: where each element's vector sits. */
interface Layout {
  count: number;
  /** Bytes of one level-0 record: link block, vector, label. */
  recordBytes: number;
  /** Offset of the vector in a record (the link block's size). */
  dataOffset: number;
  /** Offset of the label in a record. */
  labelOffset: number;
  dimensions: number;
}

function layoutOf(bytes: Uint8Array, source: string, vectorBytesInRecord: boolean): Layout {
  const fail = (problem: string): never => {
    throw new IndexFormatError(
      source,
      undefined,
      `${source}: the hnswlib graph ${problem}; rebuild the index.`,
    );
  };
  if (bytes.byteLength < NATIVE_HEADER_BYTES) fail('is shorter than its header');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const u64 = (offset: number): number => {
    const value = view.getBigUint64(offset, true);
    if (value > BigInt(Number.MAX_SAFE_INTEGER)) fail(`has a header field at byte ${offset} out of range`);
    return Number(value);
  };
  const count = u64(16);
  const recordBytes = u64(24);
  const labelOffset = u64(32);
  const dataOffset = u64(40);
  const dimensions = (labelOffset - dataOffset) / 4;
  if (u64(0) !== 0 || !Number.isInteger(dimensions) || dimensions <= 0 || recordBytes !== labelOffset + 8) {
    fail('has an unexpected record layout');
  }
  const stored = vectorBytesInRecord ? recordBytes : recordBytes - 4 * dimensions;
  if (bytes.byteLength < NATIVE_HEADER_BYTES + count * stored) fail('is truncated');
  return { count, recordBytes, dataOffset, labelOffset, dimensions };
}

/**
 * The bytes of an hnswlib index (`native`, as `saveIndex` writes them) without the vector of each
 * level-0 record: the header, then per element its link block and label, then the upper levels as
 * they are. @throws IndexFormatError when the layout is not hnswlib's.
 */
export function stripVectors(native: Uint8Array, source = '<hnswlib index>'): Uint8Array {
  const { count, recordBytes, dataOffset, labelOffset, dimensions } = layoutOf(native, source, true);
  const vectorBytes = 4 * dimensions;
  const out = new Uint8Array(native.byteLength - count * vectorBytes);
  out.set(native.subarray(0, NATIVE_HEADER_BYTES));
  let at = NATIVE_HEADER_BYTES;
  for (let i = 0; i < count; i++) {
    const record = NATIVE_HEADER_BYTES + i * recordBytes;
    out.set(native.subarray(record, record + dataOffset), at);
    at += dataOffset;
    out.set(native.subarray(record + labelOffset, record + recordBytes), at);
    at += recordBytes - labelOffset;
  }
  out.set(native.subarray(NATIVE_HEADER_BYTES + count * recordBytes), at);
  return out;
}

/**
 * `vector` as hnswlib-node stores it for `metric`: cosine vectors normalized in float32 arithmetic
 * (the sum of squares accumulated in order, `sqrtf`, then each component divided), as its
 * `normalizePoint`; ip and l2 vectors as they are. Written into `out` at `at`.
 */
export function storedVector(metric: Metric, vector: ArrayLike<number>, out: Float32Array, at = 0): void {
  const d = vector.length;
  if (metric !== 'cosine') {
    for (let j = 0; j < d; j++) out[at + j] = vector[j]!;
    return;
  }
  const f = Math.fround;
  let sum = 0;
  // Without a branch on zero components (the offline embedder's vectors are half zeros, a branch
  // the processor cannot predict): a zero adds +0 to a sum that is never -0, so it adds nothing,
  // and ±0 / norm is the same ±0.
  for (let j = 0; j < d; j++) {
    const x = f(vector[j]!);
    sum = f(sum + f(x * x));
  }
  storeNormalized(vector, sum, out, at);
}

/**
 * `vector` divided by the float32 root of `sum`, its sum of squares, into `out` at `at` (as it is
 * when that root is not positive).
 */
function storeNormalized(vector: ArrayLike<number>, sum: number, out: Float32Array, at: number): void {
  const f = Math.fround;
  const d = vector.length;
  const norm = f(Math.sqrt(Math.abs(sum)));
  if (norm > 0) for (let j = 0; j < d; j++) out[at + j] = f(vector[j]!) / norm;
  else for (let j = 0; j < d; j++) out[at + j] = vector[j]!;
}

/**
 * Whether fewer than a quarter of `bits`' components (a float32 vector's bits) are not zero: read
 * until a quarter are found.
 */
function isSparse(bits: Uint32Array): boolean {
  const limit = bits.length >>> 2;
  let count = 0;
  for (let j = 0; j < bits.length; j++) if (bits[j] !== 0 && ++count >= limit) return false;
  return true;
}

/**
 * {@link storedVector} of a float32 `vector` into `out` at `at`, where `out` holds zeros: only the
 * components whose bits are not zero are read twice and written (a sparse embedding has few), in the
 * same float32 arithmetic, so the stored floats are the same. `nonZero` is scratch of `vector.length`.
 */
function storeSparseCosine(
  vector: Float32Array,
  bits: Uint32Array,
  out: Float32Array,
  at: number,
  nonZero: Int32Array,
): void {
  // Bits, not values: a −0 component is stored as −0.
  let count = 0;
  for (let j = 0; j < bits.length; j++) if (bits[j] !== 0) nonZero[count++] = j;
  const f = Math.fround;
  let sum = 0;
  for (let t = 0; t < count; t++) {
    const x = vector[nonZero[t]!]!;
    if (x !== 0) sum = f(sum + f(x * x));
  }
  const norm = f(Math.sqrt(Math.abs(sum)));
  for (let t = 0; t < count; t++) {
    const j = nonZero[t]!;
    const x = vector[j]!;
    out[at + j] = norm > 0 && x !== 0 ? x / norm : x;
  }
}

/**
 * Dense float32 vectors waiting to be stored for cosine ({@link storedVector}) four at a time: the
 * sum of squares of one vector is a chain of dependent float32 additions (hnswlib's order, so the
 * same norm bit for bit), and four independent chains side by side let the processor overlap them
 * (about half the time of one after another, for the offline embedder's 1,024 dimensions).
 */
class DenseCosineBatch {
  readonly #vectors: Float32Array[] = [];
  readonly #at = new Int32Array(4);
  readonly #sums = new Float32Array(4);

  constructor(readonly out: Float32Array) {}

  add(vector: Float32Array, at: number): void {
    this.#at[this.#vectors.length] = at;
    this.#vectors.push(vector);
    if (this.#vectors.length === 4) this.flush();
  }

  /** Store the vectors waiting (fewer than four: one at a time, by {@link storedVector}). */
  flush(): void {
    const vectors = this.#vectors;
    if (vectors.length === 4) {
      const sums = this.#sums;
      sumsOfSquares4(vectors[0]!, vectors[1]!, vectors[2]!, vectors[3]!, sums);
      for (let i = 0; i < 4; i++) storeNormalized(vectors[i]!, sums[i]!, this.out, this.#at[i]!);
    } else {
      for (let i = 0; i < vectors.length; i++) storedVector('cosine', vectors[i]!, this.out, this.#at[i]!);
    }
    vectors.length = 0;
  }
}

/**
 * The float32 sums of squares of four vectors of one length, each added in order as
 * {@link storedVector} adds one, into `out`.
 */
function sumsOfSquares4(
  a: Float32Array,
  b: Float32Array,
  c: Float32Array,
  d: Float32Array,
  out: Float32Array,
): void {
  const f = Math.fround;
  let sa = 0;
  let sb = 0;
  let sc = 0;
  let sd = 0;
  for (let j = 0; j < a.length; j++) {
    const xa = a[j]!;
    const xb = b[j]!;
    const xc = c[j]!;
    const xd = d[j]!;
    sa = f(sa + f(xa * xa));
    sb = f(sb + f(xb * xb));
    sc = f(sc + f(xc * xc));
    sd = f(sd + f(xd * xd));
  }
  out[0] = sa;
  out[1] = sb;
  out[2] = sc;
  out[3] = sd;
}

/**
 * The hnswlib bytes {@link stripVectors} was given, from its output and the vectors: element i's
 * vector is `vectors[label of i]` as hnswlib stored it for `metric` ({@link storedVector}).
 * @throws IndexFormatError when the layout is not hnswlib's, a label has no vector or a vector has
 * other dimensions.
 */
export function restoreVectors(
  stripped: Uint8Array,
  vectors: readonly ArrayLike<number>[],
  metric: Metric,
  source = '<hnswlib index>',
): Uint8Array {
  const { count, recordBytes, dataOffset, labelOffset, dimensions } = layoutOf(stripped, source, false);
  // A plain view: a Buffer's `subarray` makes a Buffer, far slower for many small copies.
  stripped = new Uint8Array(stripped.buffer, stripped.byteOffset, stripped.byteLength);
  const fail = (problem: string): never => {
    throw new IndexFormatError(source, undefined, `${source}: ${problem}; rebuild the index.`);
  };
  const vectorBytes = 4 * dimensions;
  const out = new Uint8Array(stripped.byteLength + count * vectorBytes);
  // Records and their vectors start at multiples of 4 bytes, so the vectors are written in place as
  // float32 (platform-endian; every platform Node supports is little-endian).
  const floats = new Float32Array(out.buffer, out.byteOffset, out.byteLength >>> 2);
  const view = new DataView(stripped.buffer, stripped.byteOffset, stripped.byteLength);
  out.set(stripped.subarray(0, NATIVE_HEADER_BYTES));
  const storedRecord = recordBytes - vectorBytes;
  const nonZero = new Int32Array(dimensions);
  const dense = new DenseCosineBatch(floats);
  for (let i = 0; i < count; i++) {
    const from = NATIVE_HEADER_BYTES + i * storedRecord;
    const record = NATIVE_HEADER_BYTES + i * recordBytes;
    out.set(stripped.subarray(from, from + dataOffset), record);
    out.set(stripped.subarray(from + dataOffset, from + storedRecord), record + labelOffset);
    const at = from + dataOffset;
    const label = view.getUint32(at, true) + view.getUint32(at + 4, true) * 2 ** 32;
    const vector = vectors[label];
    if (vector === undefined) fail(`element ${i} has label ${label}, which has no vector`);
    if (vector!.length !== dimensions) {
      fail(`the vector of label ${label} has ${vector!.length} dimensions, the graph ${dimensions}`);
    }
    const to = (record + dataOffset) >>> 2;
    if (metric === 'cosine' && vector instanceof Float32Array) {
      // `out` is new, so zeros: a sparse float32 vector (4-byte aligned) is written sparsely, dense
      // ones four at a time.
      const bits = new Uint32Array(vector.buffer, vector.byteOffset, vector.length);
      if (isSparse(bits)) storeSparseCosine(vector, bits, floats, to, nonZero);
      else dense.add(vector, to);
    } else storedVector(metric, vector!, floats, to);
  }
  dense.flush();
  out.set(
    stripped.subarray(NATIVE_HEADER_BYTES + count * storedRecord),
    NATIVE_HEADER_BYTES + count * recordBytes,
  );
  return out;
}
