/**
 * The directory primitives of index persistence: where an index directory may be written
 * ({@link checkIndexTarget}, {@link creationProblem}) and the atomic write itself
 * ({@link writeIndexDir}: a temporary sibling directory renamed into place). `directoryStore`
 * is built on them.
 */
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, readFile, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { OutputError } from '../contracts/errors.js';
import type { ManifestInput, StoreLock, StoreLockOptions, StoreTarget } from '../contracts/store.js';
import { completeManifest, MANIFEST_FILE, manifestText, readManifest } from '../persistence.js';
import { acquireLockFile, pidIsDead } from './lock.js';

/**
 * Files grag writes into an index directory beside the store's artifacts (the CLI's list of model
 * outputs it could not use): part of the index, replaced with it.
 */
export const INDEX_COMPANION_FILES: readonly string[] = ['build-issues.jsonl'];

/** What {@link checkIndexTarget} found at an index directory's path (a store's {@link StoreTarget}). */
export type IndexTarget = StoreTarget;

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
  const foreign = await foreignEntries(dir);
  if (foreign.length > 0) {
    const shown =
      foreign.slice(0, 3).join(', ') + (foreign.length > 3 ? ` and ${foreign.length - 3} more` : '');
    throw new OutputError(
      dir,
      `Refusing to replace the index in ${dir}: it also holds ${shown}, which grag did not write and replacing the index would delete; move ${foreign.length === 1 ? 'it' : 'them'} out of ${dir}, or write the index to another directory.`,
    );
  }
  await assertWritableAncestor(dirname(resolve(dir)));
  return 'index';
}

/** The `files` an index directory's manifest lists (its version's artifacts), or `undefined` for an index written before grag listed them. */
export async function listedFiles(dir: string): Promise<string[] | undefined> {
  try {
    const { files } = JSON.parse(await readFile(join(dir, MANIFEST_FILE), 'utf8')) as { files?: unknown };
    return Array.isArray(files) && files.every((f) => typeof f === 'string') ? files : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The entries of the index directory `dir` that are not part of its index, sorted: anything but
 * the manifest, the artifacts it lists (`files`) and {@link INDEX_COMPANION_FILES}. An index
 * written before manifests listed their files counts as its own every regular file not changed
 * after its manifest was written (artifacts are written first, the manifest last).
 */
export async function foreignEntries(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const own = (name: string) => name === MANIFEST_FILE || INDEX_COMPANION_FILES.includes(name);
  const files = await listedFiles(dir);
  if (files !== undefined) {
    const listed = new Set(files);
    return entries
      .map((e) => e.name)
      .filter((name) => !own(name) && !listed.has(name))
      .sort();
  }
  const written = (await stat(join(dir, MANIFEST_FILE))).ctimeMs;
  const foreign: string[] = [];
  for (const entry of entries) {
    if (own(entry.name)) continue;
    if (!entry.isFile()) {
      foreign.push(entry.name);
      continue;
    }
    const info = await lstat(join(dir, entry.name)).catch(() => undefined);
    if (info !== undefined && info.ctimeMs > written) foreign.push(entry.name);
  }
  return foreign.sort();
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
 * Where an index directory at `dir` is really written: through a symbolic link to a directory, its
 * target (the link stays), else `dir` itself, as an absolute path under the real parent directory
 * (so every path to one index names the same lock).
 */
export async function realIndexDir(dir: string): Promise<string> {
  const full = resolve(dir);
  const info = await lstat(full).catch(() => undefined);
  if (info?.isSymbolicLink()) {
    const target = await realpath(full).catch(() => undefined);
    if (target !== undefined) return target;
  }
  const parent = await realpath(dirname(full)).catch(() => dirname(full));
  return join(parent, basename(full));
}

/** The lock file of the index directory whose real path is `real`: `.<name>.lock` beside it. */
export function indexLockPath(real: string): string {
  return join(dirname(real), `.${basename(real)}.lock`);
}

/**
 * Take the writer lock of the index directory `dir` (see `acquireLockFile`), then clear the
 * leftovers of killed writers beside it ({@link sweepIndexLeftovers}). Creates nothing when the
 * directory's parent does not exist (there is no index to protect yet): the lock is then a no-op.
 */
export async function lockIndexDir(dir: string, options: StoreLockOptions = {}): Promise<StoreLock> {
  const real = await realIndexDir(dir);
  const parentExists = await stat(dirname(real)).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!parentExists) return { release: async () => {} };
  let lock: StoreLock;
  try {
    lock = await acquireLockFile(indexLockPath(real), { ...options, what: dir });
  } catch (error) {
    throw outputFailure(dir, error);
  }
  try {
    await sweepIndexLeftovers(real);
  } catch (error) {
    await lock.release();
    throw error;
  }
  return lock;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Remove what killed writers left beside the index directory `real` (only grag's own names, only
 * of processes of this host that are gone): `.<name>.tmp-<pid>-<hex>` (a version being written),
 * `.<name>.old-<pid>-<hex>` (the version being replaced) and `.grag-write-probe-<pid>-<hex>`. When
 * the index itself is missing because its writer died between moving it aside and moving the new
 * one in, the old version is put back instead. Call it holding the index's lock.
 */
export async function sweepIndexLeftovers(real: string): Promise<void> {
  const parent = dirname(real);
  const pattern = new RegExp(
    `^(?:\\.${escapeRegExp(basename(real))}\\.(tmp|old)|\\.grag-write-probe)-(\\d+)-[0-9a-f]{8}$`,
  );
  const names = await readdir(parent).catch(() => [] as string[]);
  let dead = names
    .map((name) => ({ path: join(parent, name), match: pattern.exec(name) }))
    .filter(({ match }) => match !== null && pidIsDead(Number(match[2])));
  if (dead.length === 0) return;
  const missing = await lstat(real).then(
    () => false,
    () => true,
  );
  if (missing) {
    // The newest old version that is a whole index (its manifest is written last) goes back.
    const olds = await Promise.all(
      dead
        .filter(({ match }) => match?.[1] === 'old')
        .map(async ({ path }) => ({
          path,
          at: await stat(join(path, MANIFEST_FILE)).then(
            (s) => s.mtimeMs,
            () => -1,
          ),
        })),
    );
    const newest = olds.filter((o) => o.at >= 0).sort((a, b) => b.at - a.at)[0];
    if (newest !== undefined) {
      await rename(newest.path, real);
      dead = dead.filter(({ path }) => path !== newest.path);
    }
  }
  await Promise.all(dead.map(({ path }) => rm(path, { recursive: true, force: true })));
}

/** How {@link writeIndexDir} takes the index's writer lock. */
export interface WriteIndexDirOptions extends StoreLockOptions {
  /** The caller holds the index's lock already ({@link lockIndexDir}): do not take it. */
  locked?: boolean;
}

/**
 * Write an index directory atomically: `write` fills a temporary sibling directory, the manifest
 * (listing the files written, as `files`) is written last, and the directory is renamed into
 * place, replacing an older index only once the new one is complete. A crash leaves either the old
 * index or the new one, never a mix; its leftovers are removed by the next write. The write holds
 * the index's lock ({@link lockIndexDir}), so writers of one index never overlap. A symbolic link
 * to a directory is written through: its target gets the index, the link stays. Only grag's own
 * output is ever replaced: an existing `dir` that is a file, a non-empty directory without a grag
 * manifest, or an index directory that also holds files the index does not list, is refused with
 * {@link OutputError} (see {@link checkIndexTarget}) before anything is written.
 */
export async function writeIndexDir(
  dir: string,
  manifest: ManifestInput,
  write: (tmpDir: string) => Promise<void>,
  options: WriteIndexDirOptions = {},
): Promise<void> {
  await checkIndexTarget(dir);
  const real = await realIndexDir(dir);
  const parent = dirname(real);
  try {
    await mkdir(parent, { recursive: true });
  } catch (error) {
    throw outputFailure(dir, error);
  }
  const { locked, ...lockOptions } = options;
  const lock = locked ? undefined : await lockIndexDir(dir, lockOptions);
  try {
    if (locked) await sweepIndexLeftovers(real);
    await replaceIndexDir(dir, real, manifest, write);
  } finally {
    await lock?.release();
  }
}

async function replaceIndexDir(
  dir: string,
  real: string,
  manifest: ManifestInput,
  write: (tmpDir: string) => Promise<void>,
): Promise<void> {
  const parent = dirname(real);
  const suffix = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const tmp = join(parent, `.${basename(real)}.tmp-${suffix}`);
  const old = join(parent, `.${basename(real)}.old-${suffix}`);
  try {
    await mkdir(tmp);
  } catch (error) {
    throw outputFailure(dir, error);
  }
  try {
    await write(tmp);
    const files = (await readdir(tmp)).filter((name) => name !== MANIFEST_FILE).sort();
    await writeFile(join(tmp, MANIFEST_FILE), manifestText({ ...completeManifest(manifest), files }));
    // Checked again right before the swap: the build may have run for hours.
    const target = await checkIndexTarget(dir);
    let hadOld = false;
    if (target !== 'absent') {
      try {
        await rename(real, old);
        hadOld = true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
    await rename(tmp, real);
    if (hadOld) await rm(old, { recursive: true, force: true });
  } catch (error) {
    await rm(tmp, { recursive: true, force: true });
    throw outputFailure(dir, error);
  }
}
