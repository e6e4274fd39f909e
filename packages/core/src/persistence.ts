import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { IndexFormatError, OutputError } from './errors.js';
import { type Embedder, isFittableEmbedder } from './models.js';
import type { Chunk } from './types.js';
import { indexFileError, type Schema, v, validate } from './validate.js';
import type { VectorIndex } from './vector/types.js';

/** Name of the manifest file inside an index directory. */
export const MANIFEST_FILE = 'manifest.json';
/** Version of the manifest layout itself (not of a method's files). */
export const MANIFEST_VERSION = 1;

/** What an index directory says about itself. */
export interface IndexManifest {
  /** Layout version of this manifest. */
  manifestVersion: number;
  /** Method that wrote the index, e.g. `'naive-dense'`. */
  method: string;
  /** Version of the method's on-disk format. */
  formatVersion: number;
  /** ISO time of writing. */
  createdAt: string;
  /** The method options the index was built with. */
  params: Record<string, unknown>;
  /** Fingerprints of the providers used (`provider:model[:dims]`), so a mismatched load can be detected. */
  providers: Record<string, string>;
  /** Counts and sizes worth showing (documents, chunks, nodes, bytes). */
  stats?: Record<string, unknown>;
}

/** What {@link checkIndexTarget} found at an index directory's path. */
export type IndexTarget = 'absent' | 'empty' | 'index';

/**
 * Check that an index may be written to `dir` without destroying anything that is not grag's own
 * output: `dir` must not exist, be an empty directory, or hold a grag index (a manifest that reads
 * as one), and its nearest existing ancestor must be a writable directory. Throws
 * {@link OutputError} naming the path and what to do otherwise; writes nothing.
 */
export async function checkIndexTarget(dir: string): Promise<IndexTarget> {
  const info = await lstat(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
    throw new OutputError(dir, `Cannot write the index to ${dir} (${error.code ?? error.message}).`, {
      cause: error,
    });
  });
  if (info === undefined) {
    await assertWritableAncestor(dir);
    return 'absent';
  }
  const isDir =
    info.isDirectory() || (info.isSymbolicLink() && (await stat(dir).catch(() => undefined))?.isDirectory());
  if (!isDir) {
    throw new OutputError(
      dir,
      `Refusing to write the index to ${dir}: it is an existing file, not an index directory, and would be replaced. Choose a new or empty directory.`,
    );
  }
  const entries = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    throw new OutputError(
      dir,
      `Cannot read ${dir} (${error.code ?? error.message}); choose another directory for the index.`,
      {
        cause: error,
      },
    );
  });
  if (entries.length === 0) {
    await assertWritableAncestor(dirname(resolve(dir)));
    return 'empty';
  }
  const isIndex = await readManifest(dir).then(
    () => true,
    () => false,
  );
  if (!isIndex) {
    throw new OutputError(
      dir,
      `Refusing to write the index to ${dir}: the directory exists and is not a grag index (no readable ${MANIFEST_FILE}), so replacing it would delete its ${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}. Choose a new or empty directory.`,
    );
  }
  await assertWritableAncestor(dirname(resolve(dir)));
  return 'index';
}

/** Why a directory cannot be created at a path (see {@link creationProblem}). */
export interface CreationProblem {
  /** `'file'`: `at` is a file; `'unreadable'`: `at` could not be looked at; `'unwritable'`: nothing can be created in `at`. */
  kind: 'file' | 'unreadable' | 'unwritable';
  /** The nearest existing ancestor (or the path that could not be looked at). */
  at: string;
  /** The error code, for `'unreadable'` and `'unwritable'`. */
  code?: string;
}

/**
 * Whether a directory can be created at `path` (or already exists there): its nearest existing
 * ancestor must be a directory in which a directory can really be made. That is probed by creating
 * and removing one, one level deep: `access()` says yes to root everywhere, and Node's recursive
 * mkdir never returns under /proc. Creates nothing that stays; `undefined` when all is well.
 */
export async function creationProblem(path: string): Promise<CreationProblem | undefined> {
  let at = resolve(path);
  for (;;) {
    const info = await stat(at).catch((error: NodeJS.ErrnoException) => error);
    if (!(info instanceof Error)) {
      if (!info.isDirectory()) return { kind: 'file', at };
      break;
    }
    if (info.code !== 'ENOENT' && info.code !== 'ENOTDIR')
      return { kind: 'unreadable', at, code: info.code ?? info.message };
    const parent = dirname(at);
    if (parent === at) return undefined;
    at = parent;
  }
  const probe = join(at, `.grag-write-probe-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    await mkdir(probe);
  } catch (error) {
    return {
      kind: 'unwritable',
      at,
      code: (error as NodeJS.ErrnoException).code ?? (error as Error).message,
    };
  }
  await rm(probe, { recursive: true, force: true });
  return undefined;
}

/** Throw {@link OutputError} unless an index directory can be created at `path` ({@link creationProblem}). */
async function assertWritableAncestor(path: string): Promise<void> {
  const problem = await creationProblem(path);
  if (problem === undefined) return;
  throw new OutputError(
    path,
    problem.kind === 'file'
      ? `Cannot write the index to ${path}: ${problem.at} is a file, not a directory.`
      : `Cannot write the index to ${path}: ${problem.at} is not writable (${problem.code}). Choose a writable location.`,
  );
}

/** An fs error while writing `dir`, as an {@link OutputError} naming the path. */
function outputFailure(dir: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException)?.code;
  if (typeof code !== 'string' || !/^E[A-Z]+$/.test(code)) return error;
  return new OutputError(
    dir,
    `Cannot write the index to ${dir} (${code}: ${(error as Error).message.replace(/^[A-Z]+: /, '')}). Check the location and free space, then run again.`,
    { cause: error },
  );
}

/**
 * Write an index directory atomically: `write` fills a temporary sibling directory, the manifest
 * is written last, and the directory is renamed into place, replacing an older index only once
 * the new one is complete. A crash leaves either the old index or the new one, never a mix.
 * Only grag's own output is ever replaced: an existing `dir` that is a file, or a non-empty
 * directory without a grag manifest, is refused with {@link OutputError} (see
 * {@link checkIndexTarget}) before anything is written.
 */
export async function writeIndexDir(
  dir: string,
  manifest: Omit<IndexManifest, 'manifestVersion' | 'createdAt'> & Partial<IndexManifest>,
  write: (tmpDir: string) => Promise<void>,
): Promise<void> {
  await checkIndexTarget(dir);
  const parent = dirname(dir);
  const suffix = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const tmp = join(parent, `.${basename(dir)}.tmp-${suffix}`);
  const old = join(parent, `.${basename(dir)}.old-${suffix}`);
  try {
    await mkdir(parent, { recursive: true });
    await mkdir(tmp, { recursive: true });
  } catch (error) {
    throw outputFailure(dir, error);
  }
  try {
    await write(tmp);
    const full: IndexManifest = {
      manifestVersion: MANIFEST_VERSION,
      createdAt: new Date().toISOString(),
      ...manifest,
    };
    await writeFile(join(tmp, MANIFEST_FILE), `${JSON.stringify(full, null, 2)}\n`);
    // Checked again right before the swap: the build may have run for hours.
    const target = await checkIndexTarget(dir);
    let hadOld = false;
    if (target !== 'absent') {
      try {
        await rename(dir, old);
        hadOld = true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
    await rename(tmp, dir);
    if (hadOld) await rm(old, { recursive: true, force: true });
  } catch (error) {
    await rm(tmp, { recursive: true, force: true });
    throw outputFailure(dir, error);
  }
}

/**
 * Read and check an index directory's manifest. Throws {@link IndexFormatError} when the
 * directory or manifest is missing, unreadable, from another method, or of another format version.
 */
export async function readManifest(
  dir: string,
  expected?: { method?: string; formatVersion?: number },
): Promise<IndexManifest> {
  const path = join(dir, MANIFEST_FILE);
  let raw: string;
  try {
    raw = await readFile(path, 'utf8');
  } catch (error) {
    const exists = await stat(dir).then(
      (s) => s.isDirectory(),
      () => false,
    );
    throw new IndexFormatError(
      dir,
      undefined,
      exists
        ? `${dir} is not a grag index: it has no ${MANIFEST_FILE}. Build one with \`grag index\`.`
        : `Index directory ${dir} does not exist. Build it with \`grag index <corpus> --out ${dir}\`.`,
      { cause: error },
    );
  }
  let manifest: IndexManifest;
  try {
    manifest = JSON.parse(raw) as IndexManifest;
  } catch (error) {
    throw new IndexFormatError(dir, undefined, `${path} is not valid JSON; rebuild the index.`, {
      cause: error,
    });
  }
  if (typeof manifest !== 'object' || manifest === null || typeof manifest.method !== 'string') {
    throw new IndexFormatError(dir, undefined, `${path} is not a grag manifest; rebuild the index.`);
  }
  if (manifest.manifestVersion !== MANIFEST_VERSION) {
    throw new IndexFormatError(
      dir,
      manifest.manifestVersion,
      `${dir} has manifest version ${manifest.manifestVersion}; this grag reads version ${MANIFEST_VERSION}. Rebuild the index.`,
    );
  }
  if (expected?.method !== undefined && manifest.method !== expected.method) {
    throw new IndexFormatError(
      dir,
      manifest.formatVersion,
      `${dir} holds a '${manifest.method}' index, not '${expected.method}'. Query it with --method ${manifest.method} or rebuild it.`,
    );
  }
  if (expected?.formatVersion !== undefined && manifest.formatVersion !== expected.formatVersion) {
    throw new IndexFormatError(
      dir,
      manifest.formatVersion,
      `${dir} is a '${manifest.method}' index of format version ${manifest.formatVersion}; this version reads ${expected.formatVersion}. Rebuild the index.`,
    );
  }
  return validate(manifestSchema, manifest, path) as IndexManifest;
}

const manifestSchema = v.object({
  manifestVersion: v.int(),
  method: v.string(),
  formatVersion: v.int(),
  createdAt: v.optional(v.string()),
  params: v.record(v.unknown()),
  providers: v.record(v.string()),
  stats: v.optional(v.record(v.unknown())),
});

/** Write `value` as JSON to `path`. */
export async function writeJson(path: string, value: unknown): Promise<void> {
  await writeFile(path, JSON.stringify(value));
}

/**
 * Read JSON from a file of an index directory and check its shape against `schema` (see
 * `validate.ts`). Throws an {@link IndexFormatError} naming the file and what is wrong with it
 * (`/idx/graph.json: nodes[3].id is not a string; rebuild the index.`) when the file is missing,
 * not JSON, or of another shape.
 */
export async function readJson<T>(path: string, schema: Schema<T>): Promise<T>;
/** @deprecated Pass a schema: unchecked JSON from disk leaks internal errors on a corrupted index. */
export async function readJson<T = unknown>(path: string): Promise<T>;
export async function readJson<T>(path: string, schema?: Schema<T>): Promise<T> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw indexFileError(path, `cannot be read (${(error as Error).message})`, { cause: error });
  }
  return schema === undefined ? (value as T) : validate(schema, value, path);
}

/** Read a binary file of an index directory, with an {@link IndexFormatError} naming the file on failure. */
export async function readBinary(path: string): Promise<Uint8Array> {
  try {
    return await readFile(path);
  } catch (error) {
    throw indexFileError(path, `cannot be read (${(error as Error).message})`, { cause: error });
  }
}

/**
 * Refuse to load an index with providers other than those it was built with (for the keys given):
 * vectors from one embedder are meaningless to another.
 */
export function assertSameProviders(
  dir: string,
  manifest: IndexManifest,
  current: Record<string, string>,
): void {
  for (const [key, fingerprint] of Object.entries(current)) {
    const built = manifest.providers[key];
    if (built !== undefined && built !== fingerprint) {
      throw new IndexFormatError(
        dir,
        manifest.formatVersion,
        `${dir} was built with ${key} '${built}', but '${fingerprint}' is configured. Use the same ${key} or rebuild the index.`,
      );
    }
  }
}

/** File in an index directory that holds a fitted embedder's state. */
export const EMBEDDER_STATE_FILE = 'embedder.json';

/** Write a fittable embedder's state into an index directory (nothing for other embedders). */
export async function saveEmbedderState(embedder: Embedder, dir: string): Promise<void> {
  if (isFittableEmbedder(embedder)) await writeJson(join(dir, EMBEDDER_STATE_FILE), embedder.state());
}

/** Restore a fittable embedder from the state an index directory holds (nothing for other embedders). */
export async function restoreEmbedderState(embedder: Embedder, dir: string): Promise<void> {
  if (!isFittableEmbedder(embedder)) return;
  const path = join(dir, EMBEDDER_STATE_FILE);
  const state = await readJson(path, v.record(v.unknown()));
  try {
    embedder.restore(state);
  } catch (error) {
    // The embedder checks its own state; name the file it came from.
    throw indexFileError(path, (error as Error).message, { cause: error });
  }
}

/** The fields of a {@link Chunk}, to extend in a schema of a type that extends it. */
export const chunkFields = {
  id: v.string(),
  docId: v.string(),
  order: v.int({ min: 0 }),
  text: v.string(),
  tokens: v.int({ min: 0 }),
  start: v.int({ min: 0 }),
  end: v.int({ min: 0 }),
};

/** Schema of a {@link Chunk} as methods save it in their index files. */
export const chunkSchema: Schema<Chunk> = v.object(chunkFields);

/**
 * Check that a loaded vector index holds exactly the ids `0 … count - 1` (one per unit of the
 * index) with `dimensions` components, so searches cannot return an id the method has no unit for.
 * @throws IndexFormatError naming `path`.
 */
export function checkVectorRows(
  vectors: VectorIndex,
  expected: { count: number; dimensions?: number },
  path: string,
): void {
  const { count, dimensions } = expected;
  if (dimensions !== undefined && vectors.dimensions !== dimensions) {
    throw indexFileError(path, `holds ${vectors.dimensions}-dimensional vectors, expected ${dimensions}`);
  }
  if (vectors.size !== count) {
    throw indexFileError(path, `holds ${vectors.size} vectors, expected ${count}`);
  }
  for (let id = 0; id < count; id++) {
    if (!vectors.has(id)) {
      throw indexFileError(path, `has no vector for id ${id}`);
    }
  }
}
