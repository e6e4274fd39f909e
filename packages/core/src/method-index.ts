/**
 * The persistence envelope every method's `save` and `load` go through: one manifest layout, the
 * providers an index was built with fingerprinted and checked on load, fitted embedder state kept,
 * saved parameters validated, and typed readers and writers of the index's artifacts, kept by any
 * {@link IndexStore} (a directory path means `directoryStore(path)`).
 *
 * @example
 * ```ts
 * // `target`: a directory path, memoryStore(), a @grag/postgres store, …
 * await writeMethodIndex(target, { method: 'my-rag', formatVersion: 1, providers, params, stats }, async (out) => {
 *   await out.json('chunks.json', chunks);
 *   await out.float32Rows('vectors.f32', vectors);
 * });
 * const opened = await openMethodIndex(target, ctx, { method: 'my-rag', formatVersion: 1, params: checkParams });
 * const chunks = await opened.json('chunks.json', v.array(chunkSchema));
 * const vectors = await opened.float32Rows('vectors.f32', chunks.length);
 * ```
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  compress,
  decodeArrays,
  decodeVectorRows,
  decompressed,
  encodeArrays,
  encodeVectorRows,
  type StoredArray,
} from './artifact-codec.js';
import { GragError, IndexFormatError, InvalidArgumentError } from './contracts/errors.js';
import type { BuildContext } from './contracts/method.js';
import { INDEX_PROVIDER_KINDS, type IndexProviderKind } from './contracts/method.js';
import { type Embedder, modelFingerprint } from './contracts/models.js';
import type {
  ArtifactWriter,
  IndexManifest,
  IndexStore,
  StoredIndex,
  VectorCollectionOptions,
  VectorPrecision,
} from './contracts/store.js';
import type { TaskSuite, TaskVersions } from './contracts/tasks.js';
import type { Tokenizer } from './contracts/tokenizer.js';
import {
  indexVectors,
  type StoredVectors,
  type VectorIndex,
  type VectorIndexFactory,
} from './contracts/vector.js';
import {
  checkManifest,
  checkVectorRows,
  MANIFEST_FILE,
  parseJsonArtifact,
  restoreEmbedderState,
  saveEmbedderState,
} from './persistence.js';
import { toIndexStore } from './store/directory.js';
import { replacedPrecision } from './store/precision.js';
import { storeLocator } from './store/scratch.js';
import {
  checkIndexFile,
  float32Rows,
  indexFileError,
  indexFileMessage,
  type Schema,
  ShapeIssue,
  validate,
} from './validate.js';

/**
 * What a built index keeps of the {@link BuildContext} it was built with: the providers retrieval
 * needs. Never the context itself (its meter, progress reporter, signal and build runtime belong to
 * the build).
 */
export interface IndexProviders {
  readonly embedder: Embedder;
  readonly tasks: TaskSuite;
  readonly tokenizer: Tokenizer;
  readonly vectorIndex: VectorIndexFactory;
}

/** The {@link IndexProviders} of a context. */
export function indexProviders(ctx: BuildContext): IndexProviders {
  return { embedder: ctx.embedder, tasks: ctx.tasks, tokenizer: ctx.tokenizer, vectorIndex: ctx.vectorIndex };
}

/** The fingerprint of each provider, as manifests record them. */
export function providerFingerprints(providers: IndexProviders): Record<IndexProviderKind, string> {
  return {
    embedder: modelFingerprint(providers.embedder),
    tasks: providers.tasks.id,
    vectorIndex: providers.vectorIndex.kind,
  };
}

/** What {@link writeMethodIndex} records about an index (a fitted embedder's state is kept when `uses` names it). */
export interface MethodIndexHeader<P extends object> extends MethodIndexFormat {
  /** The providers the index was built with; every one is fingerprinted. */
  providers: IndexProviders;
  /** The options the index was built with (plain JSON data). */
  params: P;
  /** Counts and sizes worth showing. */
  stats?: Record<string, unknown>;
}

/** Writes the artifacts of an index's new version into its store (see {@link writeMethodIndex}). */
export interface IndexWriter {
  /** Where the index is being written (the store's location), for messages. */
  readonly location: string;
  /** Where artifact `file` will live (a file path in a directory, `<location>/<file>` elsewhere), for messages. */
  locate(file: string): string;
  /** Write `value` as JSON; with `compress`, gzipped ({@link OpenedIndex.json} reads both). */
  json(file: string, value: unknown, options?: { compress?: boolean }): Promise<void>;
  /** Write vectors of equal length `dimensions` as one little-endian float32 artifact (read it with {@link OpenedIndex.float32Rows}). */
  float32Rows(file: string, rows: readonly ArrayLike<number>[], dimensions: number): Promise<void>;
  /** Save a vector index (read it with {@link OpenedIndex.vectors}); it is saved to a scratch file whose bytes are stored. */
  vectors(file: string, index: VectorIndex): Promise<void>;
  /** Write raw bytes (read them with {@link OpenedIndex.bytes}). */
  bytes(file: string, data: Uint8Array): Promise<void>;
  /**
   * Write vectors (of the embedder's dimensions unless given) compactly: dense, or a bitmap of
   * non-zero components and their values when that is smaller (see `encodeVectorRows`), the values
   * as float32 (lossless) or, when the store asks for it (`IndexStore.vectorPrecision`), float16.
   * Read them with {@link OpenedIndex.vectorRows}.
   */
  vectorRows(file: string, rows: readonly ArrayLike<number>[], dimensions?: number): Promise<void>;
  /** Write named typed arrays (graphs as CSR offsets, targets, weights) as one binary artifact; read with {@link OpenedIndex.arrays}. */
  arrays(file: string, arrays: Readonly<Record<string, StoredArray>>): Promise<void>;
  /**
   * Save the vector index over vectors the index keeps elsewhere (as {@link IndexWriter.vectorRows}
   * or derived from them), unless the context's factory is exact (`VectorIndexFactory.exact`): an
   * exact index is nothing but its vectors, so nothing is written and
   * {@link OpenedIndex.vectorIndex} builds it again from them; the vectors are stored once.
   * Resolves to whether the file was written.
   */
  vectorIndex(file: string, index: VectorIndex): Promise<boolean>;
  /**
   * Present when the store keeps vector collections searchable in place (see
   * `ArtifactWriter.vectorCollection`): store `vectors` (of the embedder's dimensions) as collection
   * `name`. Read it with {@link OpenedIndex.vectorCollection}.
   */
  vectorCollection?(
    name: string,
    vectors: readonly ArrayLike<number>[],
    options: Omit<VectorCollectionOptions, 'dimensions'>,
  ): Promise<void>;
  /** Bytes of the artifacts written so far (the manifest and embedder state excluded): the index's size. */
  bytesWritten(): number;
}

/** Pack `rows` (each of `dimensions` components) into little-endian float32 bytes. */
export function packFloat32Rows(rows: readonly ArrayLike<number>[], dimensions: number): Uint8Array {
  const out = new Float32Array(rows.length * dimensions);
  rows.forEach((row, i) => {
    if (row.length !== dimensions) {
      throw new RangeError(`row ${i} has ${row.length} components, expected ${dimensions}`);
    }
    out.set(row, i * dimensions);
  });
  // Float32Array is platform-endian; every platform Node supports is little-endian.
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

function writer(
  store: IndexStore,
  out: ArtifactWriter,
  providers: IndexProviders,
  precision: VectorPrecision,
): IndexWriter {
  let written = 0;
  const collection = out.vectorCollection?.bind(out);
  const put = async (file: string, data: Uint8Array) => {
    await out.write(file, data);
    written += data.byteLength;
  };
  const vectors = async (file: string, index: VectorIndex) => {
    const path = join(await out.scratch(), file);
    await index.save(path);
    const data = new Uint8Array(await readFile(path));
    await rm(path, { force: true });
    await put(file, data);
  };
  return {
    location: store.location,
    locate: storeLocator(store),
    json: (file, value, options) => {
      const text = new TextEncoder().encode(JSON.stringify(value));
      return put(file, options?.compress ? compress(text) : text);
    },
    float32Rows: (file, rows, dimensions) => put(file, packFloat32Rows(rows, dimensions)),
    vectorRows: (file, rows, dimensions = providers.embedder.dimensions) =>
      put(file, encodeVectorRows(rows, dimensions, { precision })),
    arrays: (file, arrays) => put(file, encodeArrays(arrays)),
    async vectorIndex(file, index) {
      if (providers.vectorIndex.exact) return false;
      await vectors(file, index);
      return true;
    },
    vectors,
    bytes: put,
    bytesWritten: () => written,
    ...(collection
      ? {
          vectorCollection: (
            name: string,
            vectors: readonly ArrayLike<number>[],
            options: Omit<VectorCollectionOptions, 'dimensions'>,
          ) => collection(name, vectors, { ...options, dimensions: providers.embedder.dimensions }),
        }
      : {}),
  };
}

/**
 * Write a method's index as a new version of `target` (a directory path, or any
 * {@link IndexStore}): `write` puts the artifacts, then the manifest records the method, format
 * version, params, stats, the task contracts the build called (`header.tasks`) and the fingerprint
 * of every provider, and a fitted embedder's state is kept. The store makes it atomic: a failed
 * write leaves the previous version served, and a directory store refuses to replace anything but
 * a grag index (see `checkIndexTarget`).
 */
export async function writeMethodIndex<P extends object>(
  target: string | IndexStore,
  header: MethodIndexHeader<P>,
  write: (out: IndexWriter) => Promise<void>,
): Promise<void> {
  const store = toIndexStore(target);
  const precision = store.vectorPrecision ?? (await replacedPrecision(store));
  const uses = header.uses ?? INDEX_PROVIDER_KINDS;
  await store.writeVersion(
    {
      method: header.method,
      formatVersion: header.formatVersion,
      params: { ...header.params } as Record<string, unknown>,
      providers: providerFingerprints(header.providers),
      ...(header.stats !== undefined ? { stats: header.stats } : {}),
      ...(header.tasks !== undefined ? { tasks: { ...header.tasks } } : {}),
      ...(precision === 'float16' ? { vectorPrecision: precision } : {}),
    },
    async (out) => {
      await write(writer(store, out, header.providers, precision));
      if (uses.includes('embedder')) await saveEmbedderState(header.providers.embedder, out);
    },
  );
}

/** What names a method's index format: the method, its file-layout version and the providers it uses. */
export interface MethodIndexFormat {
  method: string;
  formatVersion: number;
  /** The providers the index depends on; each must match the context's on load. @default every kind */
  uses?: readonly IndexProviderKind[];
  /**
   * The task contracts the method's build calls, with their versions (`MethodCapabilities.tasks.build`),
   * recorded in the manifest by {@link writeMethodIndex}; not checked on load. @default not recorded
   */
  tasks?: TaskVersions;
  /**
   * Older format versions the method still loads (`OpenedIndex.manifest.formatVersion` says which
   * one an index has); any other version is refused with a message saying to rebuild. @default none
   */
  reads?: readonly number[];
}

/** What {@link openMethodIndex} checks and returns. */
export interface OpenMethodIndexOptions<P, S> extends MethodIndexFormat {
  /**
   * The saved params, checked and typed: typically `resolveOptions(DEFAULTS, saved)` (so an index
   * written before an option existed gets its default) followed by `validateOptions`. What it
   * throws is reported as an {@link IndexFormatError} naming the manifest.
   */
  params: (saved: Record<string, unknown>) => P;
  /** The shape of the manifest's stats. @default any record */
  stats?: Schema<S>;
}

/** An index opened by {@link openMethodIndex}: its checked manifest and typed readers of its artifacts. */
export interface OpenedIndex<P, S> {
  /** Where the index lives (the store's location), for messages. */
  readonly location: string;
  readonly manifest: IndexManifest;
  /** The validated params. */
  readonly params: P;
  readonly stats: S;
  /** The context's providers (the embedder restored to its fitted state). */
  readonly providers: IndexProviders;
  /** The names of the index's artifacts, sorted. */
  readonly names: readonly string[];
  /** Where artifact `file` lives (a file path in a directory, `<location>/<file>` elsewhere), for messages. */
  locate(file: string): string;
  /** Read a JSON artifact and check it against `schema` (see `validate`). */
  json<T>(file: string, schema: Schema<T>): Promise<T>;
  /** Run cross-artifact checks that call `shapeIssue`, reported against `file`. */
  check<T>(file: string, fn: () => T): T;
  /** Read a float32 row artifact of `rows` vectors (of the embedder's dimensions unless given). */
  float32Rows(file: string, rows: number, dimensions?: number): Promise<Float32Array[]>;
  /** Read a binary artifact (the same bytes on every call: copy them before changing them). */
  bytes(file: string): Promise<Uint8Array>;
  /** Read vectors written by {@link IndexWriter.vectorRows}: `rows` of them, of the embedder's dimensions unless given. */
  vectorRows(file: string, rows: number, dimensions?: number): Promise<Float32Array[]>;
  /** Read the typed arrays written by {@link IndexWriter.arrays}, by name. */
  arrays(file: string): Promise<Map<string, StoredArray>>;
  /**
   * The vector index {@link IndexWriter.vectorIndex} saved as `file`, checked to hold `count`
   * vectors; when it saved none (an exact factory), built with the context's factory from
   * `vectors()` (ids = positions), as the build did.
   */
  vectorIndex(file: string, count: number, vectors: () => readonly ArrayLike<number>[]): Promise<VectorIndex>;
  /** An {@link IndexFormatError} naming `file` and what is wrong with it, ending with "rebuild the index.". */
  error(file: string, problem: string, options?: { cause?: unknown }): IndexFormatError;
  /** Load a vector index with the context's factory and check it holds ids `0 … count - 1` of the embedder's dimensions. */
  vectors(file: string, count: number): Promise<VectorIndex>;
  /** Names of the index's vector collections (see {@link IndexWriter.vectorCollection}), sorted. */
  readonly collections: readonly string[];
  /**
   * Vector collection `name`, searched where it is stored, checked to hold `count` vectors of the
   * embedder's dimensions. `IndexFormatError` when it is missing or of another shape.
   */
  vectorCollection(name: string, count: number): Promise<StoredVectors>;
}

/**
 * Read every artifact of `stored` (one consistent version, whatever writers do next). A failed
 * read is kept and thrown when that artifact is asked for, so an unused one cannot fail a load.
 */
async function readAll(stored: StoredIndex): Promise<Map<string, Uint8Array | { error: unknown }>> {
  const artifacts = new Map<string, Uint8Array | { error: unknown }>();
  for (const name of stored.names) {
    artifacts.set(name, await stored.read(name).catch((error: unknown) => ({ error })));
  }
  return artifacts;
}

/** The bytes of `vectors` loaded by `factory` through a scratch file; errors name `where`, not the scratch file. */
async function loadVectors(factory: VectorIndexFactory, file: string, bytes: Uint8Array, where: string) {
  const dir = await mkdtemp(join(tmpdir(), 'grag-vectors-'));
  const path = join(dir, file);
  try {
    await writeFile(path, bytes);
    return await factory.load(path);
  } catch (error) {
    if (IndexFormatError.isInstance(error) && error.message.includes(path)) {
      throw new IndexFormatError(where, error.version, error.message.split(path).join(where), {
        cause: error,
      });
    }
    if (GragError.isInstance(error)) throw error;
    throw indexFileError(where, `cannot be loaded (${(error as Error).message})`, { cause: error });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The vector indexes grag ships, by kind: the factory to pass to load an index built with one. */
const VECTOR_INDEX_FACTORIES: Readonly<Record<string, { call: string; from: string }>> = {
  flat: { call: 'flatIndexFactory', from: '@grag/core/kit' },
  hnsw: { call: 'hnswIndexFactory()', from: '@grag/hnsw' },
  pgvector: { call: 'pgVectorIndexFactory({ … })', from: '@grag/postgres' },
};

/**
 * Open a method's index in `target` (a directory path, or any {@link IndexStore}): the manifest
 * must be of `method` and `formatVersion`; every provider in `uses` must have the fingerprint
 * recorded when it was built (one error names each that differs); a fitted embedder gets its state
 * back; the saved params pass `params`. The version's artifacts are read at once (one consistent
 * version) and the store's snapshot released before this returns. Every failure is an
 * {@link IndexFormatError} that says what to do.
 */
export async function openMethodIndex<P, S = Record<string, unknown>>(
  target: string | IndexStore,
  ctx: Pick<BuildContext, 'embedder' | 'tasks' | 'tokenizer' | 'vectorIndex'>,
  options: OpenMethodIndexOptions<P, S>,
): Promise<OpenedIndex<P, S>> {
  const store = toIndexStore(target);
  const location = store.location;
  const locate = storeLocator(store);
  const stored = await store.open();
  let artifacts: Map<string, Uint8Array | { error: unknown }>;
  const collections = new Map<string, StoredVectors | { error: unknown }>();
  const manifest = stored.manifest;
  const providers: IndexProviders = indexProviders(ctx as BuildContext);
  try {
    checkManifest(manifest, location, {
      method: options.method,
      formatVersion: options.formatVersion,
      ...(options.reads ? { reads: options.reads } : {}),
    });
    const uses = options.uses ?? INDEX_PROVIDER_KINDS;
    const current = providerFingerprints(providers);
    const differing = uses.filter((kind) => {
      const built = manifest.providers[kind];
      // Indexes written before a fingerprint was recorded are not refused for it.
      return built !== undefined && built !== current[kind];
    });
    if (differing.length > 0) {
      const list = differing
        .map((kind) => `${kind} '${manifest.providers[kind]}' (now '${current[kind]}')`)
        .join(', ');
      const factory = VECTOR_INDEX_FACTORIES[manifest.providers.vectorIndex ?? ''];
      const how =
        differing.includes('vectorIndex') && factory
          ? ` Load it with \`createBuildContext({ …, vectorIndex: ${factory.call} })\`, ${factory.call.replace(/\(.*$/, '')} from ${factory.from}.`
          : '';
      throw new IndexFormatError(
        location,
        manifest.formatVersion,
        `${location} was built with ${list}. Use the same ${differing.length === 1 ? differing[0] : 'providers'} or rebuild the index.${how}`,
      );
    }
    if (uses.includes('embedder')) await restoreEmbedderState(providers.embedder, stored);
    artifacts = await readAll(stored);
    for (const name of stored.collections ?? []) {
      const opened = stored.vectorCollection?.(name);
      if (opened) collections.set(name, await opened.catch((error: unknown) => ({ error })));
    }
  } finally {
    await stored.release();
  }
  const manifestPath = locate(MANIFEST_FILE);
  let params: P;
  try {
    params = options.params(manifest.params);
  } catch (error) {
    if (!(error instanceof ShapeIssue) && !InvalidArgumentError.isInstance(error)) throw error;
    const problem = error instanceof ShapeIssue ? error.message : (error as Error).message.replace(/\.$/, '');
    throw new IndexFormatError(
      manifestPath,
      manifest.formatVersion,
      indexFileMessage(manifestPath, `params: ${problem}`),
      {
        cause: error,
      },
    );
  }
  const stats = (
    options.stats
      ? validate(options.stats, manifest.stats ?? {}, `${manifestPath} stats`)
      : (manifest.stats ?? {})
  ) as S;
  const read = async (file: string): Promise<Uint8Array> => {
    const found = artifacts.get(file);
    if (found === undefined) throw indexFileError(locate(file), 'is missing');
    if (found instanceof Uint8Array) return found;
    throw found.error;
  };
  const loadIndex = async (file: string, count: number) => {
    const vectors = await loadVectors(providers.vectorIndex, file, await read(file), locate(file));
    checkVectorRows(vectors, { count, dimensions: providers.embedder.dimensions }, locate(file));
    return vectors;
  };
  return {
    location,
    manifest,
    params,
    stats,
    providers,
    names: stored.names,
    locate,
    async json(file, schema) {
      const where = locate(file);
      return validate(schema, parseJsonArtifact(decompressed(await read(file), where), where), where);
    },
    check: (file, fn) => checkIndexFile(locate(file), fn),
    bytes: read,
    error: (file, problem, errorOptions) => indexFileError(locate(file), problem, errorOptions),
    async float32Rows(file, rows, dimensions = providers.embedder.dimensions) {
      return float32Rows(await read(file), rows, dimensions, locate(file));
    },
    vectors: loadIndex,
    async vectorRows(file, rows, dimensions = providers.embedder.dimensions) {
      return decodeVectorRows(await read(file), rows, dimensions, locate(file));
    },
    arrays: async (file) => decodeArrays(await read(file), locate(file)),
    async vectorIndex(file, count, vectors) {
      if (artifacts.has(file)) return loadIndex(file, count);
      const rows = vectors();
      if (rows.length !== count) {
        throw indexFileError(locate(file), `is built from ${rows.length} vectors, expected ${count}`);
      }
      return indexVectors(providers.vectorIndex, rows, { dimensions: providers.embedder.dimensions });
    },
    collections: [...collections.keys()].sort(),
    async vectorCollection(name, count) {
      const found = collections.get(name);
      if (found === undefined) throw indexFileError(locate(name), 'is missing (no such vector collection)');
      if ('error' in found) throw found.error;
      const { dimensions } = providers.embedder;
      if (found.size !== count || found.dimensions !== dimensions) {
        throw indexFileError(
          found.location,
          `holds ${found.size} vectors of ${found.dimensions} dimensions where ${count} of ${dimensions} were expected`,
        );
      }
      return found;
    },
  };
}
