/**
 * The persistence envelope every method's `save` and `load` go through: one manifest layout, the
 * providers an index was built with fingerprinted and checked on load, fitted embedder state kept,
 * saved parameters validated, and typed readers and writers of the index's files.
 *
 * @example
 * ```ts
 * await writeMethodIndex(dir, { method: 'my-rag', formatVersion: 1, providers, params, stats }, async (out) => {
 *   await out.json('chunks.json', chunks);
 *   await out.float32Rows('vectors.f32', vectors);
 * });
 * const opened = await openMethodIndex(dir, ctx, { method: 'my-rag', formatVersion: 1, params: checkParams });
 * const chunks = await opened.json('chunks.json', v.array(chunkSchema));
 * const vectors = await opened.float32Rows('vectors.f32', chunks.length);
 * ```
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GragError, IndexFormatError, InvalidArgumentError } from './errors.js';
import type { BuildContext } from './method.js';
import { type Embedder, modelFingerprint } from './models.js';
import {
  checkVectorRows,
  type IndexManifest,
  MANIFEST_FILE,
  readBinary,
  readJson,
  readManifest,
  restoreEmbedderState,
  saveEmbedderState,
  writeIndexDir,
  writeJson,
} from './persistence.js';
import type { TaskSuite } from './tasks/types.js';
import type { Tokenizer } from './tokenizer.js';
import {
  checkIndexFile,
  float32Rows,
  indexFileError,
  indexFileMessage,
  type Schema,
  ShapeIssue,
  validate,
} from './validate.js';
import type { VectorIndex, VectorIndexFactory } from './vector/types.js';

/** The providers an index can depend on, each fingerprinted in its manifest. */
export const INDEX_PROVIDER_KINDS = ['embedder', 'tasks', 'vectorIndex'] as const;
export type IndexProviderKind = (typeof INDEX_PROVIDER_KINDS)[number];

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

/** Writes the files of an index into its (temporary) directory. */
export interface IndexWriter {
  /** The directory being written. */
  readonly dir: string;
  /** The path of `file` in it. */
  path(file: string): string;
  /** Write `value` as JSON. */
  json(file: string, value: unknown): Promise<void>;
  /** Write vectors of equal length `dimensions` as one little-endian float32 file (read it with {@link OpenedIndex.float32Rows}). */
  float32Rows(file: string, rows: readonly ArrayLike<number>[], dimensions: number): Promise<void>;
  /** Save a vector index (read it with {@link OpenedIndex.vectors}). */
  vectors(file: string, index: VectorIndex): Promise<void>;
  /** Write raw bytes (read them with {@link OpenedIndex.bytes}). */
  bytes(file: string, data: Uint8Array): Promise<void>;
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

function writer(dir: string): IndexWriter {
  const path = (file: string) => join(dir, file);
  return {
    dir,
    path,
    json: (file, value) => writeJson(path(file), value),
    float32Rows: (file, rows, dimensions) => writeFile(path(file), packFloat32Rows(rows, dimensions)),
    vectors: (file, index) => index.save(path(file)),
    bytes: (file, data) => writeFile(path(file), data),
  };
}

/**
 * Write a method's index directory (atomically, refusing to replace anything but a grag index: see
 * `writeIndexDir`): `write` fills it, then the manifest records the method, format version,
 * params, stats and the fingerprint of every provider, and a fitted embedder's state is kept.
 */
export async function writeMethodIndex<P extends object>(
  dir: string,
  header: MethodIndexHeader<P>,
  write: (out: IndexWriter) => Promise<void>,
): Promise<void> {
  const uses = header.uses ?? INDEX_PROVIDER_KINDS;
  await writeIndexDir(
    dir,
    {
      method: header.method,
      formatVersion: header.formatVersion,
      params: { ...header.params } as Record<string, unknown>,
      providers: providerFingerprints(header.providers),
      ...(header.stats !== undefined ? { stats: header.stats } : {}),
    },
    async (tmp) => {
      await write(writer(tmp));
      if (uses.includes('embedder')) await saveEmbedderState(header.providers.embedder, tmp);
    },
  );
}

/** What names a method's index format: the method, its file-layout version and the providers it uses. */
export interface MethodIndexFormat {
  method: string;
  formatVersion: number;
  /** The providers the index depends on; each must match the context's on load. @default every kind */
  uses?: readonly IndexProviderKind[];
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

/** An index directory opened by {@link openMethodIndex}. */
export interface OpenedIndex<P, S> {
  readonly dir: string;
  readonly manifest: IndexManifest;
  /** The validated params. */
  readonly params: P;
  readonly stats: S;
  /** The context's providers (the embedder restored to its fitted state). */
  readonly providers: IndexProviders;
  /** The path of `file` in the index. */
  path(file: string): string;
  /** Read a JSON file and check it against `schema` (see `readJson`). */
  json<T>(file: string, schema: Schema<T>): Promise<T>;
  /** Run cross-file checks that call `shapeIssue`, reported against `file`. */
  check<T>(file: string, fn: () => T): T;
  /** Read a float32 row file of `rows` vectors (of the embedder's dimensions unless given). */
  float32Rows(file: string, rows: number, dimensions?: number): Promise<Float32Array[]>;
  /** Read a binary file. */
  bytes(file: string): Promise<Uint8Array>;
  /** An {@link IndexFormatError} naming `file` and what is wrong with it, ending with "rebuild the index.". */
  error(file: string, problem: string, options?: { cause?: unknown }): IndexFormatError;
  /** Load a vector index with the context's factory and check it holds ids `0 … count - 1` of the embedder's dimensions. */
  vectors(file: string, count: number): Promise<VectorIndex>;
}

/**
 * Open a method's index directory: the manifest must be of `method` and `formatVersion`; every
 * provider in `uses` must have the fingerprint recorded when it was built (one error names each
 * that differs); a fitted embedder gets its state back; the saved params pass `params`. Every
 * failure is an {@link IndexFormatError} that says what to do.
 */
export async function openMethodIndex<P, S = Record<string, unknown>>(
  dir: string,
  ctx: Pick<BuildContext, 'embedder' | 'tasks' | 'tokenizer' | 'vectorIndex'>,
  options: OpenMethodIndexOptions<P, S>,
): Promise<OpenedIndex<P, S>> {
  const manifest = await readManifest(dir, { method: options.method, formatVersion: options.formatVersion });
  const providers: IndexProviders = indexProviders(ctx as BuildContext);
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
    throw new IndexFormatError(
      dir,
      manifest.formatVersion,
      `${dir} was built with ${list}. Use the same ${differing.length === 1 ? differing[0] : 'providers'} or rebuild the index.`,
    );
  }
  if (uses.includes('embedder')) await restoreEmbedderState(providers.embedder, dir);
  const manifestPath = join(dir, MANIFEST_FILE);
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
  const path = (file: string) => join(dir, file);
  return {
    dir,
    manifest,
    params,
    stats,
    providers,
    path,
    json: (file, schema) => readJson(path(file), schema),
    check: (file, fn) => checkIndexFile(path(file), fn),
    bytes: (file) => readBinary(path(file)),
    error: (file, problem, errorOptions) => indexFileError(path(file), problem, errorOptions),
    async float32Rows(file, rows, dimensions = providers.embedder.dimensions) {
      return float32Rows(await readBinary(path(file)), rows, dimensions, path(file));
    },
    async vectors(file, count) {
      let vectors: VectorIndex;
      try {
        vectors = await providers.vectorIndex.load(path(file));
      } catch (error) {
        if (GragError.isInstance(error)) throw error;
        throw indexFileError(path(file), `cannot be loaded (${(error as Error).message})`, { cause: error });
      }
      checkVectorRows(vectors, { count, dimensions: providers.embedder.dimensions }, path(file));
      return vectors;
    },
  };
}
