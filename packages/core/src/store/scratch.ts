/**
 * Helpers shared by the stores of core: artifact-name checks, scratch directories, and the
 * locator of an artifact in a store that is not a directory.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidArgumentError, StateError } from '../contracts/errors.js';
import type { ArtifactWriter, IndexStore } from '../contracts/store.js';
import { MANIFEST_FILE } from '../persistence.js';
import { pidIsDead } from './lock.js';

/** Prefix of scratch directories in the OS temporary directory; the owner's pid follows. */
const SCRATCH_PREFIX = 'grag-store-scratch-';
let swept: Promise<void> | undefined;

/**
 * Remove the scratch directories of processes of this host that are gone (a writer killed while it
 * spooled a version), once per process: `grag-store-scratch-<pid>-*` in the OS temporary
 * directory. Scratch directories of live processes, and names not grag's, are left alone.
 */
export function sweepStaleScratch(): Promise<void> {
  swept ??= (async () => {
    const dir = tmpdir();
    const pattern = new RegExp(`^${SCRATCH_PREFIX}(\\d+)-[A-Za-z0-9]{6}$`);
    const names = await readdir(dir).catch(() => [] as string[]);
    await Promise.all(
      names.map(async (name) => {
        const match = pattern.exec(name);
        if (match !== null && pidIsDead(Number(match[1])))
          await rm(join(dir, name), { recursive: true, force: true }).catch(() => {});
      }),
    );
  })();
  return swept;
}

/**
 * Check that `name` can name an artifact: a non-empty plain file name (no `/`, `\`, NUL, not `.`
 * or `..`) other than the manifest's. For implementers of an `IndexStore`.
 * @throws InvalidArgumentError naming the artifact and what to use instead.
 */
export function checkArtifactName(name: string, where = 'IndexStore'): string {
  if (
    typeof name !== 'string' ||
    name.length === 0 ||
    name === '.' ||
    name === '..' ||
    /[/\\\0]/.test(name)
  ) {
    throw new InvalidArgumentError(
      'name',
      `${where}: artifact name ${JSON.stringify(name)} is not a plain file name; use a name such as 'chunks.json' (no slashes).`,
    );
  }
  if (name === MANIFEST_FILE) {
    throw new InvalidArgumentError(
      'name',
      `${where}: '${MANIFEST_FILE}' is the manifest, written by the store itself; choose another artifact name.`,
    );
  }
  return name;
}

/** `<location>/<name>`: where an artifact of a store that is not a directory lives, for messages. */
export function artifactLocator(location: string, name: string): string {
  return `${location.replace(/\/+$/, '')}/${name}`;
}

/** The locator of artifact `file` of `store`, for messages (a file path for a directory). */
export function storeLocator(store: IndexStore): (file: string) => string {
  return store.kind === 'directory'
    ? (file) => join(store.location, file)
    : (file) => artifactLocator(store.location, file);
}

/**
 * A scratch directory under the OS temporary directory (`grag-store-scratch-<pid>-*`), made on
 * first use and removed by {@link Scratch.remove}; the first one of a process also removes those
 * of killed processes ({@link sweepStaleScratch}).
 */
export class Scratch {
  #dir: Promise<string> | undefined;
  #closed = false;

  constructor(private readonly owner: string) {}

  /** The directory (made on the first call). */
  get(): Promise<string> {
    if (this.#closed) {
      return Promise.reject(
        new StateError(
          `${this.owner}: the scratch directory was removed; the version was already stored or released.`,
        ),
      );
    }
    this.#dir ??= sweepStaleScratch().then(() => mkdtemp(join(tmpdir(), `${SCRATCH_PREFIX}${process.pid}-`)));
    return this.#dir;
  }

  /** Remove the directory and everything in it; later {@link get} calls throw `StateError`. */
  async remove(): Promise<void> {
    this.#closed = true;
    const dir = this.#dir;
    this.#dir = undefined;
    if (dir !== undefined) await rm(await dir, { recursive: true, force: true });
  }
}

/** A guard that throws `StateError` once the writer of a version is used after the version ended. */
export function assertOpen(closed: boolean, owner: string): void {
  if (closed) {
    throw new StateError(
      `${owner}: this artifact writer belongs to a version that was already stored or abandoned; write artifacts inside the writeVersion callback.`,
    );
  }
}

/**
 * Run `write` (a `writeVersion` callback) with an artifact writer that hands each artifact to `put`
 * under its checked name and lends a {@link Scratch} directory. Once `write` settles, the writer
 * throws `StateError` and the scratch directory is removed. What the stores of core share.
 */
export async function withArtifactWriter(
  owner: string,
  put: (name: string, data: Uint8Array) => void | Promise<void>,
  write: (out: ArtifactWriter) => Promise<void>,
): Promise<void> {
  const scratch = new Scratch(owner);
  let closed = false;
  const out: ArtifactWriter = {
    async write(name, data) {
      assertOpen(closed, owner);
      await put(checkArtifactName(name, owner), data);
    },
    scratch: () => scratch.get(),
  };
  try {
    await write(out);
  } finally {
    closed = true;
    await scratch.remove();
  }
}
