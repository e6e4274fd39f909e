/**
 * `openIndexFolder`: a folder of saved indexes, each subfolder one index named by its folder, with
 * the job journal of the server that writes to it; and the removal of an index's folder (only the
 * files grag wrote).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type BuildContext, type IndexManifest, InvalidArgumentError, type Method } from '@grag/core';
import { MANIFEST_FILE, readManifest } from '@grag/core/kit';
import { directoryStore } from '@grag/core/store';
import { readWorkspaces } from './access.js';
import { HttpError } from './errors.js';
import { INDEX_NAME } from './indexes.js';
import { type OpenedJobJournal, openJobJournal } from './journal.js';
import { type LoadedIndex, type LoadIndexesOptions, loadIndex } from './load.js';

/** A folder of indexes, opened: what `createGragServer({ folder })` serves and writes to. */
export interface IndexFolder extends OpenedJobJournal {
  /** The folder. */
  readonly dir: string;
  /** Its indexes, each named by its subfolder, in name order. */
  readonly indexes: LoadedIndex[];
  /** Subfolders that are not indexes (no `manifest.json`, or a name an index cannot have), and why. */
  readonly skipped: { path: string; reason: string }[];
  /** The methods an index may be created with (`POST /v1/indexes`). */
  // biome-ignore lint/suspicious/noExplicitAny: indexes of every method
  readonly methods: readonly Method<any, any>[];
  /** The context a new index is built with, when indexes can be created. */
  readonly createContext: (() => BuildContext | Promise<BuildContext>) | undefined;
  /** The workspace of each index created over HTTP by a workspace's token (`.grag-workspaces.json`). */
  readonly workspaces: Record<string, string>;
}

/** Options of {@link openIndexFolder}: how its indexes are loaded, and how new ones are built. */
export interface IndexFolderOptions extends LoadIndexesOptions {
  /**
   * The context a new index is built with (`POST /v1/indexes`; return a new one per call). Without
   * it, indexes cannot be created over HTTP (documents can still be added to and removed from the
   * folder's indexes).
   */
  createContext?: () => BuildContext | Promise<BuildContext>;
  /**
   * Run again, when the server starts, the jobs a stop interrupted (queued, or running and not
   * saved), from the input journaled with them; `false` reports them `failed` (`interrupted`), as
   * grag did before jobs resumed. @default true
   */
  resumeJobs?: boolean;
}

/** What an interrupted removal leaves: `.<name>.deleting-<hex>`. */
const DELETING = /^\.(.+)\.deleting-[0-9a-f]{8}$/;
/** What an interrupted directory-store write leaves: `.<name>.tmp-…` or `.<name>.old-…`. */
const WRITING = /^\.(.+)\.(?:tmp|old)-\d+-[0-9a-f]{8}$/;

/**
 * Open the folder `dir` (made when it does not exist) as a folder of indexes: every subfolder with
 * a `manifest.json` is loaded (see `loadIndex`) under its folder's name; others are listed in
 * `skipped`. What interrupted writes left is cleared first (a version half written, an index half
 * removed), and the job journal is read: the jobs that were running when the server stopped are
 * `done` when their new version was saved; the others are resumed from their journaled input when
 * the server starts (`failed` with the reason when it cannot be read back, or with
 * `resumeJobs: false`; see `openJobJournal`). Throws for an index
 * that cannot be loaded, naming its folder.
 *
 * @example
 * ```ts
 * const folder = await openIndexFolder('./indexes', {
 *   methods: [bm25Rag, denseRag],
 *   context: () => createBuildContext(createOfflineProviders()),
 * });
 * const server = await serve({ folder, port: 8787 });
 * ```
 */
export async function openIndexFolder(dir: string, options: IndexFolderOptions): Promise<IndexFolder> {
  if (typeof dir !== 'string' || dir === '') {
    throw new InvalidArgumentError('dir', 'openIndexFolder: dir must be a folder path.');
  }
  await mkdir(dir, { recursive: true });
  const entries = await readdir(dir, { withFileTypes: true });
  await finishInterrupted(
    dir,
    entries.map((e) => e.name),
  );
  const names = (await readdir(dir, { withFileTypes: true }))
    .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
    .map((e) => e.name)
    .sort();
  const skipped: IndexFolder['skipped'] = [];
  const targets: string[] = [];
  for (const name of names) {
    const path = join(dir, name);
    const manifest = await stat(join(path, MANIFEST_FILE)).then(
      () => true,
      () => false,
    );
    if (!manifest) skipped.push({ path, reason: `no ${MANIFEST_FILE}: not a grag index` });
    else if (!INDEX_NAME.test(name))
      skipped.push({ path, reason: "an index name is letters, digits, '.', '_' or '-'; rename the folder" });
    else targets.push(name);
  }
  const indexes = await Promise.all(
    targets.map(async (name) => ({ ...(await loadIndex(join(dir, name), options)), name })),
  );
  const jobs = await openJobJournal(dir, {
    indexes,
    ...(options.resumeJobs !== undefined ? { resumeJobs: options.resumeJobs } : {}),
  });
  return {
    ...jobs,
    workspaces: await readWorkspaces(dir),
    dir,
    indexes,
    skipped,
    methods: options.methods,
    createContext: options.createContext,
  };
}

/** Clear what interrupted writes and removals left in the folder (grag's own names only). */
async function finishInterrupted(dir: string, names: readonly string[]): Promise<void> {
  const writing = new Set(names.map((n) => WRITING.exec(n)?.[1]).filter((n) => n !== undefined));
  // Taking an index's lock sweeps its dead writers' leftovers (and puts back a version moved aside);
  // an index another live process is writing now is left to that writer.
  for (const name of writing) {
    const lock = await directoryStore(join(dir, name))
      .lock({ timeoutMs: 0 })
      .catch(() => undefined);
    await lock?.release();
  }
  for (const name of names) {
    if (DELETING.test(name)) await removeIndexFiles(join(dir, name));
  }
}

/**
 * Remove the index in the folder `path`: refused (409, nothing removed) when the folder holds a
 * file its manifest does not list (a user's); else the folder is renamed aside at once (so it is no
 * longer an index of the folder), then its listed files, its manifest and the folder are removed.
 */
export async function removeIndexFolder(path: string, name: string): Promise<void> {
  // Held while the folder is checked and moved aside: no other writer (grag add) is in it then.
  const lock = await directoryStore(path).lock();
  try {
    await moveIndexAside(path, name);
  } finally {
    await lock.release();
  }
}

/** Check that the folder `path` holds only what grag wrote, then rename it aside and empty it. */
async function moveIndexAside(path: string, name: string): Promise<void> {
  const manifest: IndexManifest = await readManifest(path);
  const listed = new Set([...(manifest.files ?? []), MANIFEST_FILE]);
  const foreign = (await readdir(path)).filter((file) => !listed.has(file));
  if (foreign.length > 0) {
    throw new HttpError(
      409,
      'conflict',
      `The folder of index "${name}" holds files grag did not write (${foreign.slice(0, 5).join(', ')}${foreign.length > 5 ? ', …' : ''}); move them out, then delete the index again.`,
    );
  }
  const parent = join(path, '..');
  const aside = join(parent, `.${name}.deleting-${randomBytes(4).toString('hex')}`);
  await rename(path, aside);
  await removeIndexFiles(aside);
}

/** Remove the files a folder's manifest lists, then the manifest, then the folder if it is empty. */
async function removeIndexFiles(path: string): Promise<void> {
  const manifest = await readManifest(path).catch(() => undefined);
  for (const file of manifest?.files ?? []) {
    // Plain file names only: a manifest never makes this remove anything outside the folder.
    if (typeof file === 'string' && file !== '' && file !== '..' && !/[/\\\0]/.test(file)) {
      await rm(join(path, file), { force: true });
    }
  }
  await rm(join(path, MANIFEST_FILE), { force: true });
  await rmdir(path).catch(() => {});
}
