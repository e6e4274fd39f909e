import { readFile, rename, writeFile } from 'node:fs/promises';
import {
  type GraphVectorIndex,
  IndexFormatError,
  InvalidArgumentError,
  type Metric,
  type VectorHit,
  type VectorIndexFactory,
  type VectorIndexOptions,
  type VectorSearchOptions,
} from '@grag/core';
import { assertK, assertVector, assertVectorId, readIndexFile, sha256Hex } from '@grag/core/kit';
import type { HierarchicalNSW } from 'hnswlib-node';
import { checkNativeLayout, type NativeBaseLayer, readNativeBaseLayer } from './base-layer.js';
import { fileHeader, type HnswMeta, readFileHeader } from './file-header.js';
import { restoreVectors, stripVectors } from './graph-export.js';
import { loadHnswlib } from './native.js';
import { inScratchFile } from './scratch.js';

/** Magic bytes at the start of a saved {@link HnswIndex}: ASCII `GRAGHNSW`. */
export const HNSW_INDEX_MAGIC = 'GRAGHNSW';
/** File format version written by {@link HnswIndex.save}. */
export const HNSW_INDEX_FORMAT_VERSION = 1;
/** Magic bytes at the start of a graph {@link HnswIndex.exportGraph} exports: ASCII `GRAGHNSG`. */
export const HNSW_GRAPH_MAGIC = 'GRAGHNSG';
/** Format version written by {@link HnswIndex.exportGraph}. */
export const HNSW_GRAPH_FORMAT_VERSION = 1;

/** hnswlib-node stores labels as 32-bit unsigned integers. */
const MAX_LABEL = 0xffffffff;
const METRICS: readonly Metric[] = ['cosine', 'ip', 'l2'];

/** Options of {@link HnswIndex}. */
export interface HnswIndexOptions extends VectorIndexOptions {
  /**
   * Links per node and layer (level 0 keeps up to 2·M). Higher: better recall, more memory, slower build.
   * @default 16 (hnswlib's default; NodeRAG's official code builds with M = 50)
   */
  M?: number;
  /**
   * Candidate list size while inserting.
   * @default 200 (hnswlib's default, also NodeRAG's official code)
   */
  efConstruction?: number;
  /**
   * Candidate list size while searching (at least `k` is used). Overridable per search with `ef`.
   * @default 64
   */
  efSearch?: number;
  /**
   * Seed of hnswlib's level generator, so builds are reproducible.
   * @default 100 (hnswlib's default)
   */
  seed?: number;
}

/** Defaults merged into {@link HnswIndexOptions}. */
export const HNSW_DEFAULTS = {
  metric: 'cosine',
  capacity: 1024,
  M: 16,
  efConstruction: 200,
  efSearch: 64,
  seed: 100,
} as const satisfies Omit<Required<HnswIndexOptions>, 'dimensions'>;

function assertPositiveInteger(fn: string, argument: string, value: number, max = MAX_LABEL): void {
  if (!Number.isInteger(value) || value <= 0 || value > max) {
    throw new InvalidArgumentError(
      argument,
      `${fn}: ${argument} must be an integer between 1 and ${max}, got ${String(value)}.`,
    );
  }
}

function toScore(metric: Metric, distance: number): number {
  // hnswlib distances: cosine and ip are 1 − similarity, l2 is the squared distance.
  return metric === 'l2' ? -distance : 1 - distance;
}

/**
 * Approximate nearest-neighbour index: the `VectorIndex` contract on hnswlib's HNSW graph
 * (Malkov & Yashunin, "Efficient and robust approximate nearest neighbor search using Hierarchical
 * Navigable Small World graphs", TPAMI 2018) through the `hnswlib-node` native addon.
 *
 * Ids are the hnswlib labels (non-negative integers below 2³²). The index grows past `capacity`
 * on its own by doubling. Scores follow the contract: cosine similarity and inner product are
 * `1 − distance`, l2 is minus the squared distance.
 *
 * @example
 * ```ts
 * const index = new HnswIndex({ dimensions: 384, metric: 'cosine' });
 * index.add(0, embedding);
 * const hits = index.search(queryEmbedding, 10, { ef: 128 });
 * ```
 */
export class HnswIndex implements GraphVectorIndex {
  /** Always `'hnsw'`. */
  readonly kind = 'hnsw';
  readonly dimensions: number;
  readonly metric: Metric;
  /** Links per node and layer the graph was built with. */
  readonly M: number;
  /** Candidate list size used while inserting. */
  readonly efConstruction: number;
  /** Seed of the level generator. */
  readonly seed: number;
  /** Candidate list size used by `search` when the call gives no `ef`. May be changed at any time. */
  efSearch: number;
  private readonly native: HierarchicalNSW;
  private readonly labels = new Set<number>();

  /**
   * Throws `HnswUnavailableError` when the `hnswlib-node` native addon cannot be loaded (see
   * `hnswAvailability()`), `InvalidArgumentError` for bad options.
   */
  constructor(options: HnswIndexOptions) {
    const o = {
      dimensions: options?.dimensions as number,
      metric: options?.metric ?? HNSW_DEFAULTS.metric,
      capacity: options?.capacity ?? HNSW_DEFAULTS.capacity,
      M: options?.M ?? HNSW_DEFAULTS.M,
      efConstruction: options?.efConstruction ?? HNSW_DEFAULTS.efConstruction,
      efSearch: options?.efSearch ?? HNSW_DEFAULTS.efSearch,
      seed: options?.seed ?? HNSW_DEFAULTS.seed,
    };
    assertPositiveInteger('HnswIndex', 'dimensions', o.dimensions, 65_535);
    if (!METRICS.includes(o.metric)) {
      throw new InvalidArgumentError(
        'metric',
        `HnswIndex: unknown metric ${String(o.metric)}; use 'cosine', 'ip' or 'l2'.`,
      );
    }
    assertPositiveInteger('HnswIndex', 'M', o.M, 65_535);
    assertPositiveInteger('HnswIndex', 'efConstruction', o.efConstruction);
    assertPositiveInteger('HnswIndex', 'efSearch', o.efSearch);
    if (!Number.isInteger(o.seed) || o.seed < 0 || o.seed > MAX_LABEL) {
      throw new InvalidArgumentError(
        'seed',
        `HnswIndex: seed must be an integer in [0, 2³²), got ${String(o.seed)}.`,
      );
    }
    if (!Number.isInteger(o.capacity) || o.capacity < 0 || o.capacity > MAX_LABEL) {
      throw new InvalidArgumentError(
        'capacity',
        `HnswIndex: capacity must be a non-negative integer below 2³², got ${String(o.capacity)}.`,
      );
    }
    this.dimensions = o.dimensions;
    this.metric = o.metric;
    this.M = o.M;
    this.efConstruction = o.efConstruction;
    this.efSearch = o.efSearch;
    this.seed = o.seed;
    this.native = new (loadHnswlib().HierarchicalNSW)(o.metric, o.dimensions);
    this.native.initIndex({
      maxElements: Math.max(1, o.capacity),
      m: o.M,
      efConstruction: o.efConstruction,
      randomSeed: o.seed,
    });
  }

  /** Number of vectors stored. */
  get size(): number {
    return this.labels.size;
  }

  /** Number of vectors the native index holds before it must grow (it grows by itself). */
  get capacity(): number {
    return this.native.getMaxElements();
  }

  /** Add the vector of `id`, replacing the one it had. Grows the index when it is full. */
  add(id: number, vector: ArrayLike<number>): void {
    assertVectorId('HnswIndex.add', id);
    if (id > MAX_LABEL) {
      throw new InvalidArgumentError(
        'id',
        `HnswIndex.add: hnswlib labels are 32-bit; id ${id} exceeds ${MAX_LABEL}.`,
      );
    }
    assertVector('HnswIndex.add', 'vector', vector, this.dimensions);
    if (!this.labels.has(id)) {
      const max = this.native.getMaxElements();
      if (this.native.getCurrentCount() >= max) {
        this.native.resizeIndex(Math.min(MAX_LABEL, Math.max(16, max * 2)));
      }
    }
    this.native.addPoint(Array.from(vector), id);
    this.labels.add(id);
  }

  /** Whether `id` has a vector. */
  has(id: number): boolean {
    return this.labels.has(id);
  }

  /** The stored ids (in no particular order). */
  ids(): number[] {
    return [...this.labels];
  }

  /**
   * The approximate `k` best ids for `query`, best first (equal scores by lower id). `ef` overrides
   * {@link HnswIndex.efSearch} for this call; at least `k` is used. `filter` is applied during the
   * graph search (hnswlib's filter functor), so a selective filter still yields up to `k` hits.
   */
  search(query: ArrayLike<number>, k: number, options: VectorSearchOptions = {}): VectorHit[] {
    assertVector('HnswIndex.search', 'query', query, this.dimensions);
    assertK('HnswIndex.search', k);
    if (options.ef !== undefined) assertPositiveInteger('HnswIndex.search', 'ef', options.ef);
    const limit = Math.min(k, this.labels.size);
    if (limit === 0) return [];
    this.native.setEf(Math.max(options.ef ?? this.efSearch, limit));
    const q = Array.from(query);
    const result = options.filter
      ? this.native.searchKnn(q, limit, options.filter)
      : this.native.searchKnn(q, limit);
    const hits: VectorHit[] = result.neighbors.map((id, i) => ({
      id,
      score: toScore(this.metric, result.distances[i] as number),
    }));
    hits.sort((a, b) => b.score - a.score || a.id - b.id);
    return hits;
  }

  /**
   * The base layer (level 0) of the HNSW graph, exactly as hnswlib built it: for each id, its
   * out-links (at most 2·M, chosen by hnswlib's neighbour-selection heuristic, so not simply the
   * nearest ones; the relation is not necessarily symmetric). This is what NodeRAG's official code
   * reads with its hnswlib fork's `get_layer_graph(0)`. hnswlib-node has no such call, so the graph
   * is read from the index's serialized bytes (one temporary file).
   */
  async baseLayerGraph(): Promise<Map<number, number[]>> {
    const layer = readNativeBaseLayer(await this.serializeNative());
    const graph = new Map<number, number[]>();
    layer.labels.forEach((label, i) => {
      if (!layer.deleted[i]) graph.set(label, layer.links[i] ?? []);
    });
    return graph;
  }

  /**
   * For each id, its `M` nearest other ids found by searching the index with the id's own vector
   * (`k = M + 1`, the id itself left out). A k-nearest-neighbour graph approximated by HNSW search,
   * not the HNSW graph itself: see {@link HnswIndex.baseLayerGraph} for that.
   *
   * @param M neighbours per id. @default the index's `M`
   */
  baseLayerNeighbors(M: number = this.M): Map<number, number[]> {
    assertPositiveInteger('HnswIndex.baseLayerNeighbors', 'M', M);
    const out = new Map<number, number[]>();
    const k = Math.min(M + 1, this.labels.size);
    this.native.setEf(Math.max(this.efSearch, k));
    for (const id of this.labels) {
      const point = this.native.getPoint(id);
      const { neighbors } = this.native.searchKnn(point, k);
      out.set(id, neighbors.filter((n) => n !== id).slice(0, M));
    }
    return out;
  }

  /**
   * Write the index to one file: magic `GRAGHNSW` (8 bytes), format version (u32 LE), length of a
   * JSON header (u32 LE), the JSON header (metric, dimensions, M, efConstruction, efSearch, seed),
   * then hnswlib's own serialization. Written atomically (temporary file, then rename).
   */
  async save(path: string): Promise<void> {
    const native = await this.serializeNative();
    const meta = this.headerOf(native);
    const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
    await writeFile(
      tmp,
      Buffer.concat([fileHeader(HNSW_INDEX_MAGIC, HNSW_INDEX_FORMAT_VERSION, meta), native]),
    );
    await rename(tmp, path);
  }

  /**
   * Load an index written by {@link HnswIndex.save}. Throws `IndexFormatError` when the file is
   * missing, not an HNSW index of this package, or of another format version, and
   * `HnswUnavailableError` when the native addon cannot be loaded.
   */
  static async load(path: string): Promise<HnswIndex> {
    loadHnswlib();
    const bytes = await readIndexFile(
      path,
      `HnswIndex.load: cannot read ${path}; check the path or rebuild the index.`,
    );
    const fail = (message: string, version?: number, cause?: unknown): never => {
      throw new IndexFormatError(path, version, `HnswIndex.load: ${path} ${message}`, { cause });
    };
    const {
      meta,
      version,
      rest: native,
    } = readFileHeader(bytes, HNSW_INDEX_MAGIC, HNSW_INDEX_FORMAT_VERSION, fail, path);
    // hnswlib trusts its file: a corrupted link list can crash the process. Files written since the
    // hash was added must match it; older ones get the full layout check.
    if (meta.sha256 !== undefined && sha256Hex(native) !== meta.sha256) {
      fail(
        'is corrupted: its hnswlib graph does not match the checksum in its header; rebuild the index.',
        version,
      );
    }
    return HnswIndex.fromNative(meta, native, path, (message, cause) => fail(message, version, cause));
  }

  /**
   * The index's graph without its vectors, for a caller that keeps the vectors (ids = positions)
   * and gives them back to {@link HnswIndex.fromGraph}: magic `GRAGHNSG` (8 bytes), format version
   * (u32 LE), length of a JSON header (u32 LE), the JSON header (as {@link HnswIndex.save}'s, with
   * the SHA-256 of what follows), then hnswlib's serialization with every vector cut out.
   */
  async exportGraph(): Promise<Uint8Array> {
    const stripped = stripVectors(await this.serializeNative());
    return Buffer.concat([
      fileHeader(HNSW_GRAPH_MAGIC, HNSW_GRAPH_FORMAT_VERSION, this.headerOf(stripped)),
      stripped,
    ]);
  }

  /** The JSON header of a saved index or graph: the parameters, and the SHA-256 of `payload`. */
  private headerOf(payload: Uint8Array): HnswMeta {
    return {
      metric: this.metric,
      dimensions: this.dimensions,
      M: this.M,
      efConstruction: this.efConstruction,
      efSearch: this.efSearch,
      seed: this.seed,
      sha256: sha256Hex(payload),
    };
  }

  /**
   * The index {@link HnswIndex.exportGraph} exported, with its vectors: `vectors[id]` is the vector
   * of id `id`, as it was added. The restored index is the exported one, byte for byte (hnswlib's
   * stored vectors are recomputed exactly), so it searches alike. Throws `IndexFormatError` naming
   * `source` when the bytes are not such an export, are corrupted or do not fit the vectors.
   */
  static async fromGraph(
    bytes: Uint8Array,
    vectors: readonly ArrayLike<number>[],
    source = '<hnsw graph>',
  ): Promise<HnswIndex> {
    loadHnswlib();
    const fail = (message: string, version?: number, cause?: unknown): never => {
      throw new IndexFormatError(source, version, `HnswIndex.fromGraph: ${source} ${message}`, { cause });
    };
    const { meta, version, rest } = readFileHeader(
      bytes,
      HNSW_GRAPH_MAGIC,
      HNSW_GRAPH_FORMAT_VERSION,
      fail,
      source,
    );
    if (meta.sha256 === undefined || sha256Hex(rest) !== meta.sha256) {
      fail('is corrupted: its graph does not match the checksum in its header; rebuild the index.', version);
    }
    let native: Uint8Array;
    try {
      native = restoreVectors(rest, vectors, meta.metric, source);
    } catch (error) {
      return fail(`does not fit its vectors (${(error as Error).message})`, version, error);
    }
    return HnswIndex.fromNative(meta, native, source, (message, cause) => fail(message, version, cause));
  }

  /** An index of `meta`'s settings holding the hnswlib graph `native` (checked first). */
  private static async fromNative(
    meta: HnswMeta,
    native: Uint8Array,
    source: string,
    fail: (message: string, cause?: unknown) => never,
  ): Promise<HnswIndex> {
    let index: HnswIndex;
    try {
      index = new HnswIndex({ ...meta, capacity: 1 });
    } catch (error) {
      return fail('has invalid settings in its header; rebuild the index.', error);
    }
    let layer: NativeBaseLayer;
    try {
      layer = checkNativeLayout(native, source);
    } catch (error) {
      return fail(`holds a corrupt hnswlib graph (${(error as Error).message}); rebuild the index.`, error);
    }
    if (layer.dimensions !== meta.dimensions) {
      fail(
        `declares ${meta.dimensions} dimensions but its graph stores ${layer.dimensions}; rebuild the index.`,
      );
    }
    if (layer.M !== meta.M)
      fail(`declares M = ${meta.M} but its graph has M = ${layer.M}; rebuild the index.`);
    try {
      await inScratchFile(async (file) => {
        await writeFile(file, native);
        await index.native.readIndex(file);
      });
    } catch (error) {
      return fail('holds an hnswlib graph that hnswlib could not read.', error);
    }
    layer.labels.forEach((label, i) => {
      if (!layer.deleted[i]) index.labels.add(label);
    });
    return index;
  }

  private async serializeNative(): Promise<Buffer> {
    return inScratchFile(async (file) => {
      await this.native.writeIndex(file);
      return readFile(file);
    });
  }
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value ?? {}).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * A `VectorIndexFactory` that also restores an index from {@link HnswIndex.exportGraph}'s bytes and
 * the vectors the caller kept ({@link HnswIndex.fromGraph}, with the factory's `efSearch`).
 */
export interface HnswIndexFactory extends VectorIndexFactory {
  fromGraph(bytes: Uint8Array, vectors: readonly ArrayLike<number>[], source?: string): Promise<HnswIndex>;
}

/**
 * A `VectorIndexFactory` of {@link HnswIndex} with the given HNSW settings; the dimensions, metric
 * and capacity come from each `create` call. `load` and `fromGraph` apply `efSearch` when it is given here.
 *
 * @example
 * ```ts
 * const factory = hnswIndexFactory({ M: 50, efSearch: 128 });
 * const index = factory.create({ dimensions: 768 });
 * ```
 */
export function hnswIndexFactory(
  options: Partial<Omit<HnswIndexOptions, 'dimensions'>> = {},
): HnswIndexFactory {
  const settings = stripUndefined(options);
  const withSettings = (index: HnswIndex): HnswIndex => {
    if (settings.efSearch !== undefined) {
      assertPositiveInteger('hnswIndexFactory', 'efSearch', settings.efSearch);
      index.efSearch = settings.efSearch;
    }
    return index;
  };
  return {
    kind: 'hnsw',
    create: (createOptions) =>
      new HnswIndex({ ...settings, ...stripUndefined(createOptions), dimensions: createOptions.dimensions }),
    load: async (path) => withSettings(await HnswIndex.load(path)),
    fromGraph: async (bytes, vectors, source) =>
      withSettings(await HnswIndex.fromGraph(bytes, vectors, source)),
  };
}
