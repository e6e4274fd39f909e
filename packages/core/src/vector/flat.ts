import { rename, writeFile } from 'node:fs/promises';
import { IndexFormatError, InvalidArgumentError } from '../contracts/errors.js';
import type {
  Metric,
  VectorHit,
  VectorIndex,
  VectorIndexFactory,
  VectorIndexOptions,
  VectorSearchOptions,
} from '../contracts/vector.js';
import { readIndexFile } from './index-file.js';

/** Magic bytes at the start of a saved {@link FlatIndex}: ASCII `GRAGFLAT`. */
export const FLAT_INDEX_MAGIC = 'GRAGFLAT';
/** Binary format version written by {@link FlatIndex.toBuffer}; `fromBuffer` reads only this version. */
export const FLAT_INDEX_FORMAT_VERSION = 1;

const METRICS: readonly Metric[] = ['cosine', 'ip', 'l2'];
const HEADER_BYTES = 24;
const FLOAT32_MAX = 3.4028234663852886e38;
const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** Options of {@link FlatIndex}; the same as the `VectorIndex` contract's. */
export type FlatIndexOptions = VectorIndexOptions;

/** Throws unless `id` is a non-negative safe integer. */
export function assertVectorId(fn: string, id: number): void {
  if (!Number.isSafeInteger(id) || id < 0) {
    throw new InvalidArgumentError('id', `${fn}: id must be a non-negative integer, got ${String(id)}.`);
  }
}

/** Throws unless `vector` has `dimensions` finite components. */
export function assertVector(
  fn: string,
  argument: string,
  vector: ArrayLike<number>,
  dimensions: number,
): void {
  if (vector === null || typeof vector !== 'object' || typeof vector.length !== 'number') {
    throw new InvalidArgumentError(argument, `${fn}: ${argument} must be an array of numbers.`);
  }
  if (vector.length !== dimensions) {
    throw new InvalidArgumentError(
      argument,
      `${fn}: ${argument} has ${vector.length} dimensions but the index has ${dimensions}; embed with the same model the index was built with.`,
    );
  }
  for (let i = 0; i < dimensions; i++) {
    const x = vector[i];
    if (typeof x !== 'number' || !Number.isFinite(x) || Math.abs(x) > FLOAT32_MAX) {
      throw new InvalidArgumentError(
        argument,
        `${fn}: ${argument}[${i}] is ${String(x)}; every component must be a finite number within float32 range.`,
      );
    }
  }
}

/** Throws unless `k` is a non-negative integer. */
export function assertK(fn: string, k: number): void {
  if (!Number.isInteger(k) || k < 0) {
    throw new InvalidArgumentError('k', `${fn}: k must be a non-negative integer, got ${String(k)}.`);
  }
}

/**
 * Exact (brute-force) vector index: every search scores every stored vector. The fallback when no
 * approximate index is installed, and the oracle approximate indexes are tested against.
 *
 * Vectors live in one growing `Float32Array` (normalized on insertion for the cosine metric), with
 * an id → slot map. Ties in score are broken by the lower id, so results are deterministic.
 *
 * @example
 * ```ts
 * const index = new FlatIndex({ dimensions: 3, metric: 'cosine' });
 * index.add(7, [1, 0, 0]);
 * index.search([1, 0.1, 0], 5); // [{ id: 7, score: 0.995… }]
 * ```
 */
export class FlatIndex implements VectorIndex {
  /** Always `'flat'`. */
  readonly kind = 'flat';
  readonly dimensions: number;
  readonly metric: Metric;
  private data: Float32Array;
  private slotIds: number[] = [];
  private readonly slots = new Map<number, number>();

  constructor(options: FlatIndexOptions) {
    const { dimensions, metric = 'cosine', capacity = 16 } = options ?? ({} as FlatIndexOptions);
    if (!Number.isInteger(dimensions) || dimensions <= 0) {
      throw new InvalidArgumentError(
        'dimensions',
        `FlatIndex: dimensions must be a positive integer, got ${String(dimensions)}.`,
      );
    }
    if (!METRICS.includes(metric)) {
      throw new InvalidArgumentError(
        'metric',
        `FlatIndex: unknown metric ${String(metric)}; use 'cosine', 'ip' or 'l2'.`,
      );
    }
    if (!Number.isInteger(capacity) || capacity < 0) {
      throw new InvalidArgumentError(
        'capacity',
        `FlatIndex: capacity must be a non-negative integer, got ${String(capacity)}.`,
      );
    }
    this.dimensions = dimensions;
    this.metric = metric;
    this.data = new Float32Array(Math.max(1, capacity) * dimensions);
  }

  /** Number of vectors stored. */
  get size(): number {
    return this.slotIds.length;
  }

  /** Add the vector of `id`, replacing the one it had. For cosine the stored copy is normalized. */
  add(id: number, vector: ArrayLike<number>): void {
    assertVectorId('FlatIndex.add', id);
    assertVector('FlatIndex.add', 'vector', vector, this.dimensions);
    let slot = this.slots.get(id);
    if (slot === undefined) {
      slot = this.slotIds.length;
      this.ensureCapacity(slot + 1);
      this.slots.set(id, slot);
      this.slotIds.push(id);
    }
    this.writeSlot(slot, vector);
  }

  /** Whether `id` has a vector. */
  has(id: number): boolean {
    return this.slots.has(id);
  }

  /** Remove the vector of `id`. Returns whether it was there. */
  remove(id: number): boolean {
    const slot = this.slots.get(id);
    if (slot === undefined) return false;
    const last = this.slotIds.length - 1;
    if (slot !== last) {
      const d = this.dimensions;
      this.data.copyWithin(slot * d, last * d, last * d + d);
      const movedId = this.slotIds[last] as number;
      this.slotIds[slot] = movedId;
      this.slots.set(movedId, slot);
    }
    this.slotIds.pop();
    this.slots.delete(id);
    return true;
  }

  /** The stored ids, in storage order. */
  ids(): number[] {
    return this.slotIds.slice();
  }

  /**
   * The exact `k` best ids for `query` (best first; equal scores by lower id). `filter` is called
   * once per stored id; `ef` is ignored.
   */
  search(query: ArrayLike<number>, k: number, options: VectorSearchOptions = {}): VectorHit[] {
    assertVector('FlatIndex.search', 'query', query, this.dimensions);
    assertK('FlatIndex.search', k);
    const n = this.slotIds.length;
    const limit = Math.min(k, n);
    if (limit === 0) return [];
    const d = this.dimensions;
    const q = this.prepareQuery(query);
    const filter = options.filter;
    const data = this.data;
    const metric = this.metric;

    // Bounded heap of the best `limit` hits seen so far, worst at the root.
    const heapIds: number[] = [];
    const heapScores: number[] = [];
    const worse = (i: number, j: number): boolean => {
      const si = heapScores[i] as number;
      const sj = heapScores[j] as number;
      return si < sj || (si === sj && (heapIds[i] as number) > (heapIds[j] as number));
    };
    const swap = (i: number, j: number): void => {
      const ti = heapIds[i] as number;
      heapIds[i] = heapIds[j] as number;
      heapIds[j] = ti;
      const ts = heapScores[i] as number;
      heapScores[i] = heapScores[j] as number;
      heapScores[j] = ts;
    };
    const siftDown = (start: number): void => {
      let i = start;
      const size = heapIds.length;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let w = i;
        if (l < size && worse(l, w)) w = l;
        if (r < size && worse(r, w)) w = r;
        if (w === i) return;
        swap(i, w);
        i = w;
      }
    };

    for (let slot = 0; slot < n; slot++) {
      const id = this.slotIds[slot] as number;
      if (filter && !filter(id)) continue;
      const base = slot * d;
      let score: number;
      if (metric === 'l2') {
        let sum = 0;
        for (let j = 0; j < d; j++) {
          const diff = (data[base + j] as number) - (q[j] as number);
          sum += diff * diff;
        }
        score = -sum;
      } else {
        let sum = 0;
        for (let j = 0; j < d; j++) sum += (data[base + j] as number) * (q[j] as number);
        score = sum;
      }
      if (heapIds.length < limit) {
        heapIds.push(id);
        heapScores.push(score);
        let i = heapIds.length - 1;
        while (i > 0) {
          const parent = (i - 1) >> 1;
          if (!worse(i, parent)) break;
          swap(i, parent);
          i = parent;
        }
      } else {
        const rootScore = heapScores[0] as number;
        if (score > rootScore || (score === rootScore && id < (heapIds[0] as number))) {
          heapIds[0] = id;
          heapScores[0] = score;
          siftDown(0);
        }
      }
    }

    const hits: VectorHit[] = heapIds.map((id, i) => ({ id, score: heapScores[i] as number }));
    hits.sort((a, b) => b.score - a.score || a.id - b.id);
    return hits;
  }

  /** Write the index to `path` as one binary file (see {@link FlatIndex.toBuffer}); atomic via rename. */
  async save(path: string): Promise<void> {
    const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
    await writeFile(tmp, this.toBuffer());
    await rename(tmp, path);
  }

  /**
   * Serialize to bytes, little-endian: magic `GRAGFLAT` (8 bytes), format version (u32), metric
   * (u8: 0 cosine, 1 ip, 2 l2) and 3 zero bytes, dimensions (u32), count (u32), the ids (f64 × count),
   * then the stored vectors (f32 × count × dimensions; unit length for cosine).
   */
  toBuffer(): Uint8Array {
    const n = this.slotIds.length;
    const d = this.dimensions;
    const idBytes = n * 8;
    const bytes = new Uint8Array(HEADER_BYTES + idBytes + n * d * 4);
    const view = new DataView(bytes.buffer);
    for (let i = 0; i < 8; i++) bytes[i] = FLAT_INDEX_MAGIC.charCodeAt(i);
    view.setUint32(8, FLAT_INDEX_FORMAT_VERSION, true);
    view.setUint8(12, METRICS.indexOf(this.metric));
    view.setUint32(16, d, true);
    view.setUint32(20, n, true);
    for (let i = 0; i < n; i++) view.setFloat64(HEADER_BYTES + i * 8, this.slotIds[i] as number, true);
    const vectorsOffset = HEADER_BYTES + idBytes;
    const values = this.data.subarray(0, n * d);
    if (LITTLE_ENDIAN_HOST) {
      bytes.set(new Uint8Array(values.buffer, values.byteOffset, values.byteLength), vectorsOffset);
    } else {
      for (let i = 0; i < values.length; i++)
        view.setFloat32(vectorsOffset + i * 4, values[i] as number, true);
    }
    return bytes;
  }

  /**
   * Read an index from the bytes {@link FlatIndex.toBuffer} wrote. `path` only names the source in
   * errors. Throws `IndexFormatError` for a wrong magic, an unsupported version or a corrupt body.
   */
  static fromBuffer(buffer: Uint8Array, path = '<buffer>'): FlatIndex {
    const fail = (message: string, version?: number): never => {
      const text = /Rebuild the index\.$/.test(message)
        ? message
        : `${message.replace(/\.$/, '')}; rebuild the index.`;
      throw new IndexFormatError(path, version, `FlatIndex.load: ${path} ${text}`);
    };
    if (buffer.byteLength < HEADER_BYTES) fail('is too short to be a flat vector index.');
    let magic = '';
    for (let i = 0; i < 8; i++) magic += String.fromCharCode(buffer[i] as number);
    if (magic !== FLAT_INDEX_MAGIC) fail('is not a grag flat vector index (wrong magic bytes).');
    const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
    const version = view.getUint32(8, true);
    if (version !== FLAT_INDEX_FORMAT_VERSION) {
      fail(
        `has format version ${version}; this version of @grag/core reads version ${FLAT_INDEX_FORMAT_VERSION}. Rebuild the index.`,
        version,
      );
    }
    const metric = METRICS[view.getUint8(12)];
    if (metric === undefined) fail(`has an unknown metric code ${view.getUint8(12)}.`, version);
    const d = view.getUint32(16, true);
    const n = view.getUint32(20, true);
    if (d === 0) fail('declares 0 dimensions.', version);
    const expected = HEADER_BYTES + n * 8 + n * d * 4;
    if (buffer.byteLength !== expected) {
      fail(
        `has ${buffer.byteLength} bytes but its header implies ${expected}; the file is truncated or corrupt.`,
        version,
      );
    }
    const index = new FlatIndex({ dimensions: d, metric: metric as Metric, capacity: n });
    for (let i = 0; i < n; i++) {
      const id = view.getFloat64(HEADER_BYTES + i * 8, true);
      if (!Number.isSafeInteger(id) || id < 0) fail(`holds an invalid id ${id} at position ${i}.`, version);
      if (index.slots.has(id)) fail(`holds id ${id} twice.`, version);
      index.slots.set(id, i);
      index.slotIds.push(id);
    }
    const vectorsOffset = buffer.byteOffset + HEADER_BYTES + n * 8;
    const values = index.data;
    if (LITTLE_ENDIAN_HOST) {
      new Uint8Array(values.buffer, values.byteOffset, n * d * 4).set(
        new Uint8Array(buffer.buffer, vectorsOffset, n * d * 4),
      );
    } else {
      for (let i = 0; i < n * d; i++) values[i] = view.getFloat32(HEADER_BYTES + n * 8 + i * 4, true);
    }
    for (let i = 0; i < n * d; i++) {
      if (!Number.isFinite(values[i] as number))
        fail(`holds a non-finite vector component at ${i}.`, version);
    }
    return index;
  }

  /** Load an index saved by {@link FlatIndex.save}. Throws `IndexFormatError` when the file is missing or not one. */
  static async load(path: string): Promise<FlatIndex> {
    const bytes = await readIndexFile(
      path,
      `FlatIndex.load: cannot read ${path} (it is written by FlatIndex.save); check the path or rebuild the index.`,
    );
    return FlatIndex.fromBuffer(bytes, path);
  }

  private ensureCapacity(count: number): void {
    const needed = count * this.dimensions;
    if (needed <= this.data.length) return;
    const grown = new Float32Array(Math.max(needed, this.data.length * 2));
    grown.set(this.data);
    this.data = grown;
  }

  private writeSlot(slot: number, vector: ArrayLike<number>): void {
    const d = this.dimensions;
    const base = slot * d;
    let scale = 1;
    if (this.metric === 'cosine') {
      let sum = 0;
      for (let j = 0; j < d; j++) sum += (vector[j] as number) ** 2;
      scale = sum > 0 ? 1 / Math.sqrt(sum) : 0;
    }
    for (let j = 0; j < d; j++) this.data[base + j] = (vector[j] as number) * scale;
  }

  private prepareQuery(query: ArrayLike<number>): Float64Array {
    const d = this.dimensions;
    const q = new Float64Array(d);
    for (let j = 0; j < d; j++) q[j] = query[j] as number;
    if (this.metric === 'cosine') {
      let sum = 0;
      for (let j = 0; j < d; j++) sum += (q[j] as number) ** 2;
      const scale = sum > 0 ? 1 / Math.sqrt(sum) : 0;
      for (let j = 0; j < d; j++) q[j] = (q[j] as number) * scale;
    }
    return q;
  }
}

/** Factory of {@link FlatIndex}, for methods that take any `VectorIndex` implementation. */
export const flatIndexFactory: VectorIndexFactory = {
  kind: 'flat',
  exact: true,
  create: (options) => new FlatIndex(options),
  load: (path) => FlatIndex.load(path),
};
