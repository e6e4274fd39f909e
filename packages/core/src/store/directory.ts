/**
 * The embedded default {@link IndexStore}: an index is a directory holding one file per artifact
 * and `manifest.json`, written atomically (a temporary sibling directory, manifest last, renamed
 * into place) and never replacing anything grag did not write. It is exactly the layout grag has
 * always written, so existing index directories load unchanged.
 */
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { IndexFormatError, InvalidArgumentError } from '../contracts/errors.js';
import type {
  IndexStore,
  StoredIndex,
  StoreLock,
  StoreLockOptions,
  VectorPrecision,
} from '../contracts/store.js';
import { MANIFEST_FILE, readBinary, readManifest } from '../persistence.js';
import { checkIndexTarget, lockIndexDir, writeIndexDir } from './directory-files.js';
import { lockInTurn } from './lock.js';
import { vectorPrecisionOption } from './precision.js';
import { checkArtifactName, Scratch, withArtifactWriter } from './scratch.js';

/** The store {@link directoryStore} makes: an {@link IndexStore} that always has a writer lock. */
export interface DirectoryStore extends IndexStore {
  lock(options?: StoreLockOptions): Promise<StoreLock>;
}

/** Options of {@link directoryStore}. */
export interface DirectoryStoreOptions {
  /**
   * How long a write (or `lock()`) waits for another writer of the same index before an
   * `OutputError` naming it; `0` refuses at once. @default 60000
   */
  lockTimeoutMs?: number;
  /** Called when a write starts waiting for another writer (`holder`: `pid 123, since 14:02:07`). */
  onLockWait?: (holder: string) => void;
  /**
   * How vector rows are written (see `IndexStore.vectorPrecision`). @default the precision of the
   * version a write replaces, `'float32'` for a new index
   */
  vectorPrecision?: VectorPrecision;
}

/**
 * The store of an index kept in the directory `dir` (one file per artifact plus `manifest.json`).
 *
 * - `target()` is `checkIndexTarget(dir)`: `'absent'`, `'empty'` or `'index'`, and an
 *   `OutputError` for a file or a non-empty directory that is not a grag index.
 * - `writeVersion` writes a temporary sibling directory and renames it into place once the
 *   manifest (which lists the files written) is written; a failed or interrupted write leaves the
 *   previous index as it was, and the next write removes its leftovers. An index directory that
 *   also holds files the index does not list (a user's) is refused, never replaced. A symbolic
 *   link to a directory is written through (its target gets the index; the link stays).
 * - One writer at a time: a write holds the lock file `.<name>.lock` beside the directory (owner
 *   pid, host and start time, created exclusively); another writer waits up to `lockTimeoutMs`,
 *   then is refused with an `OutputError` naming the owner; a lock whose owner died is taken
 *   over. `lock()` holds it across a read-modify-write (see `withStoreLock`).
 * - `open()` reads the files in place: a snapshot keeps its version only until a writer replaces
 *   the directory (open, read what you need, release).
 *
 * @example
 * ```ts
 * const store = directoryStore('./my-index');
 * await denseRag.save(index, store); // the same as denseRag.save(index, './my-index')
 * ```
 */
export function directoryStore(dir: string, options: DirectoryStoreOptions = {}): DirectoryStore {
  if (typeof dir !== 'string' || dir.length === 0) {
    throw new InvalidArgumentError('dir', 'directoryStore: dir must be a non-empty directory path.');
  }
  const owner = `directoryStore(${dir})`;
  const precision = vectorPrecisionOption(owner, options.vectorPrecision);
  const lockOptions = (given: StoreLockOptions = {}): StoreLockOptions => ({
    ...(options.lockTimeoutMs !== undefined ? { timeoutMs: options.lockTimeoutMs } : {}),
    ...(options.onLockWait !== undefined ? { onWait: options.onLockWait } : {}),
    ...given,
  });
  /** The lock `lock()` took, while it is held. */
  let holding: StoreLock | undefined;
  /** Callers of `lock()` in one process take turns. */
  const inTurn = lockInTurn();
  return {
    kind: 'directory',
    location: dir,
    ...precision,
    target: () => checkIndexTarget(dir),
    async lock(given) {
      const { held } = await inTurn(
        () => lockIndexDir(dir, lockOptions(given)),
        () => {
          holding = undefined;
        },
      );
      holding = held;
      return held;
    },
    async writeVersion(manifest, write) {
      const locking = holding !== undefined ? { locked: true } : lockOptions();
      await writeIndexDir(
        dir,
        manifest,
        (tmp) => withArtifactWriter(owner, (name, data) => writeFile(join(tmp, name), data), write),
        locking,
      );
    },
    async open(): Promise<StoredIndex> {
      const manifest = await readManifest(dir);
      const entries = await readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
        throw new IndexFormatError(
          dir,
          manifest.formatVersion,
          `Cannot list ${dir} (${error.code ?? error.message}); check its permissions.`,
          { cause: error },
        );
      });
      // The files present that the manifest lists (an older index: every file), so a user's file
      // is never read; a listed file that is gone is missing, as it would be without the list.
      const listed = manifest.files === undefined ? undefined : new Set(manifest.files);
      const names = entries
        .filter((entry) => !entry.isDirectory() && entry.name !== MANIFEST_FILE)
        .map((entry) => entry.name)
        .filter((name) => listed === undefined || listed.has(name))
        .sort();
      const scratch = new Scratch(owner);
      return {
        manifest,
        names,
        locate: (name) => join(dir, name),
        read: (name) => readBinary(join(dir, checkArtifactName(name, owner))),
        scratch: () => scratch.get(),
        release: () => scratch.remove(),
      };
    },
  };
}

/**
 * The store a `save` or `load` target names: a string is a directory ({@link directoryStore}), a
 * store is itself.
 * @throws InvalidArgumentError for anything else.
 */
export function toIndexStore(target: string | IndexStore): IndexStore {
  if (typeof target === 'string') return directoryStore(target);
  if (
    target !== null &&
    typeof target === 'object' &&
    typeof target.writeVersion === 'function' &&
    typeof target.open === 'function'
  ) {
    return target;
  }
  throw new InvalidArgumentError(
    'target',
    `An index target must be a directory path or an IndexStore (directoryStore, memoryStore, a @grag/postgres store); got ${target === null ? 'null' : typeof target}.`,
  );
}
