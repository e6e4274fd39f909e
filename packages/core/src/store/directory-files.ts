/**
 * The directory primitives of index persistence: where an index directory may be written
 * ({@link checkIndexTarget}, {@link creationProblem}) and the atomic write itself
 * ({@link writeIndexDir}: a temporary sibling directory renamed into place). `directoryStore`
 * is built on them.
 */
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { OutputError } from '../errors.js';
import {
  completeManifest,
  MANIFEST_FILE,
  type ManifestInput,
  manifestText,
  readManifest,
} from '../persistence.js';
import type { StoreTarget } from './types.js';

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
  manifest: ManifestInput,
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
    await writeFile(join(tmp, MANIFEST_FILE), manifestText(completeManifest(manifest)));
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
