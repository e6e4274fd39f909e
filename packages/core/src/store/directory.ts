/**
 * The embedded default {@link IndexStore}: an index is a directory holding one file per artifact
 * and `manifest.json`, written atomically (a temporary sibling directory, manifest last, renamed
 * into place) and never replacing anything grag did not write. It is exactly the layout grag has
 * always written, so existing index directories load unchanged.
 */
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { IndexFormatError, InvalidArgumentError } from '../errors.js';
import { MANIFEST_FILE, readBinary, readManifest } from '../persistence.js';
import { checkIndexTarget, writeIndexDir } from './directory-files.js';
import { assertOpen, checkArtifactName, Scratch } from './scratch.js';
import type { ArtifactWriter, IndexStore, StoredIndex } from './types.js';

/**
 * The store of an index kept in the directory `dir` (one file per artifact plus `manifest.json`).
 *
 * - `target()` is `checkIndexTarget(dir)`: `'absent'`, `'empty'` or `'index'`, and an
 *   `OutputError` for a file or a non-empty directory that is not a grag index.
 * - `writeVersion` writes a temporary sibling directory and renames it into place once the
 *   manifest is written; a failed or interrupted write leaves the previous index as it was.
 * - `open()` reads the files in place: a snapshot keeps its version only until a writer replaces
 *   the directory (open, read what you need, release).
 *
 * @example
 * ```ts
 * const store = directoryStore('./my-index');
 * await denseRag.save(index, store); // the same as denseRag.save(index, './my-index')
 * ```
 */
export function directoryStore(dir: string): IndexStore {
  if (typeof dir !== 'string' || dir.length === 0) {
    throw new InvalidArgumentError('dir', 'directoryStore: dir must be a non-empty directory path.');
  }
  const owner = `directoryStore(${dir})`;
  return {
    kind: 'directory',
    location: dir,
    target: () => checkIndexTarget(dir),
    async writeVersion(manifest, write) {
      await writeIndexDir(dir, manifest, async (tmp) => {
        const scratch = new Scratch(owner);
        let closed = false;
        const out: ArtifactWriter = {
          async write(name, data) {
            assertOpen(closed, owner);
            await writeFile(join(tmp, checkArtifactName(name, owner)), data);
          },
          scratch: () => scratch.get(),
        };
        try {
          await write(out);
        } finally {
          closed = true;
          await scratch.remove();
        }
      });
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
      const names = entries
        .filter((entry) => !entry.isDirectory() && entry.name !== MANIFEST_FILE)
        .map((entry) => entry.name)
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
