import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { IndexFormatError } from './errors.js';
import { type Embedder, isFittableEmbedder } from './models.js';

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

/**
 * Write an index directory atomically: `write` fills a temporary sibling directory, the manifest
 * is written last, and the directory is renamed into place, replacing an older index only once
 * the new one is complete. A crash leaves either the old index or the new one, never a mix.
 */
export async function writeIndexDir(
  dir: string,
  manifest: Omit<IndexManifest, 'manifestVersion' | 'createdAt'> & Partial<IndexManifest>,
  write: (tmpDir: string) => Promise<void>,
): Promise<void> {
  const parent = dirname(dir);
  await mkdir(parent, { recursive: true });
  const suffix = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const tmp = join(parent, `.${basename(dir)}.tmp-${suffix}`);
  const old = join(parent, `.${basename(dir)}.old-${suffix}`);
  await mkdir(tmp, { recursive: true });
  try {
    await write(tmp);
    const full: IndexManifest = {
      manifestVersion: MANIFEST_VERSION,
      createdAt: new Date().toISOString(),
      ...manifest,
    };
    await writeFile(join(tmp, MANIFEST_FILE), `${JSON.stringify(full, null, 2)}\n`);
    let hadOld = false;
    try {
      await rename(dir, old);
      hadOld = true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    await rename(tmp, dir);
    if (hadOld) await rm(old, { recursive: true, force: true });
  } catch (error) {
    await rm(tmp, { recursive: true, force: true });
    throw error;
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
  return manifest;
}

/** Write `value` as JSON to `path`. */
export async function writeJson(path: string, value: unknown): Promise<void> {
  await writeFile(path, JSON.stringify(value));
}

/** Read JSON from a file of an index directory, with an {@link IndexFormatError} naming the file on failure. */
export async function readJson<T>(path: string): Promise<T> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T;
  } catch (error) {
    throw new IndexFormatError(
      path,
      undefined,
      `Cannot read ${path}: ${(error as Error).message}. Rebuild the index.`,
      {
        cause: error,
      },
    );
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
  if (isFittableEmbedder(embedder)) embedder.restore(await readJson(join(dir, EMBEDDER_STATE_FILE)));
}
