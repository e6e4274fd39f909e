import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { IndexFormatError } from './contracts/errors.js';
import { type Embedder, isFittableEmbedder } from './contracts/models.js';
import type { ArtifactWriter, IndexManifest, ManifestInput, StoredIndex } from './contracts/store.js';
import type { Chunk, ExtractedEntity, SourceLocation } from './contracts/types.js';
import type { VectorIndex } from './contracts/vector.js';
import { indexFileError, type Schema, v, validate } from './validate.js';

/** Name of the manifest file inside an index directory. */
export const MANIFEST_FILE = 'manifest.json';
/** Version of the manifest layout itself (not of a method's files). */
export const MANIFEST_VERSION = 1;

/** `manifest` with its layout version and time of writing filled in (when not given), as stores write it. */
export function completeManifest(manifest: ManifestInput): IndexManifest {
  return { manifestVersion: MANIFEST_VERSION, createdAt: new Date().toISOString(), ...manifest };
}

/** The text a store keeps for `manifest` (pretty JSON with a final newline, as `manifest.json` holds it). */
export function manifestText(manifest: IndexManifest): string {
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/**
 * Parse and check the text of a manifest as a store read it: JSON, a grag manifest, of the layout
 * version this grag reads, of the manifest shape. For implementers of an `IndexStore`.
 *
 * @param location The index's location (named in messages and the error's `path`).
 * @param file Where the manifest text was read from. @default `<location>/manifest.json`
 * @throws IndexFormatError saying what is wrong and to rebuild the index.
 */
export function parseManifest(
  text: string,
  location: string,
  file = `${location.replace(/\/$/, '')}/${MANIFEST_FILE}`,
): IndexManifest {
  let manifest: IndexManifest;
  try {
    manifest = JSON.parse(text) as IndexManifest;
  } catch (error) {
    throw new IndexFormatError(location, undefined, `${file} is not valid JSON; rebuild the index.`, {
      cause: error,
    });
  }
  if (typeof manifest !== 'object' || manifest === null || typeof manifest.method !== 'string') {
    throw new IndexFormatError(location, undefined, `${file} is not a grag manifest; rebuild the index.`);
  }
  if (manifest.manifestVersion !== MANIFEST_VERSION) {
    throw new IndexFormatError(
      location,
      manifest.manifestVersion,
      `${location} has manifest version ${manifest.manifestVersion}; this grag reads version ${MANIFEST_VERSION}. Rebuild the index.`,
    );
  }
  return validate(manifestSchema, manifest, file) as IndexManifest;
}

/**
 * Check that the manifest of the index at `location` is of the `expected` method and format version.
 * @throws IndexFormatError naming the location and what to do.
 */
export function checkManifest(
  manifest: IndexManifest,
  location: string,
  expected: { method?: string; formatVersion?: number; reads?: readonly number[] },
): void {
  if (expected.method !== undefined && manifest.method !== expected.method) {
    throw new IndexFormatError(
      location,
      manifest.formatVersion,
      `${location} holds a '${manifest.method}' index, not '${expected.method}'. Query it with --method ${manifest.method} or rebuild it.`,
    );
  }
  if (
    expected.formatVersion !== undefined &&
    manifest.formatVersion !== expected.formatVersion &&
    !expected.reads?.includes(manifest.formatVersion)
  ) {
    throw new IndexFormatError(
      location,
      manifest.formatVersion,
      `${location} is a '${manifest.method}' index of format version ${manifest.formatVersion}; this version reads ${expected.formatVersion}${expected.reads?.length ? ` (and ${expected.reads.join(', ')})` : ''}. Rebuild the index.`,
    );
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
    const kind = await stat(dir).then(
      (s) => (s.isDirectory() ? 'directory' : 'file'),
      () => 'absent',
    );
    throw new IndexFormatError(
      dir,
      undefined,
      kind === 'directory'
        ? `${dir} is not a grag index: it has no ${MANIFEST_FILE}. Build one with \`grag index\`.`
        : kind === 'file'
          ? `${dir} is a file, not an index directory; pass the directory \`grag index --out\` wrote.`
          : `Index directory ${dir} does not exist. Build it with \`grag index <corpus> --out ${dir}\`.`,
      { cause: error },
    );
  }
  const manifest = parseManifest(raw, dir, path);
  if (expected !== undefined) checkManifest(manifest, dir, expected);
  return manifest;
}

const manifestSchema = v.object({
  manifestVersion: v.int(),
  method: v.string(),
  formatVersion: v.int(),
  createdAt: v.optional(v.string()),
  params: v.record(v.unknown()),
  providers: v.record(v.string()),
  stats: v.optional(v.record(v.unknown())),
  tasks: v.optional(v.record(v.int())),
  vectorPrecision: v.optional(v.literal('float32', 'float16')),
  files: v.optional(v.array(v.string())),
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

/** Store a fittable embedder's state among an index's artifacts (nothing for other embedders). */
export async function saveEmbedderState(embedder: Embedder, out: ArtifactWriter): Promise<void> {
  if (!isFittableEmbedder(embedder)) return;
  await out.write(EMBEDDER_STATE_FILE, new TextEncoder().encode(JSON.stringify(embedder.state())));
}

/**
 * Restore a fittable embedder from the state an index holds (nothing for other embedders).
 * @throws IndexFormatError naming the state artifact when it is missing, not JSON or refused by the embedder.
 */
export async function restoreEmbedderState(embedder: Embedder, stored: StoredIndex): Promise<void> {
  if (!isFittableEmbedder(embedder)) return;
  const where = stored.locate(EMBEDDER_STATE_FILE);
  const state = validate(
    v.record(v.unknown()),
    parseJsonArtifact(await stored.read(EMBEDDER_STATE_FILE), where),
    where,
  );
  try {
    embedder.restore(state);
  } catch (error) {
    // The embedder checks its own state; name the file it came from.
    throw indexFileError(where, (error as Error).message, { cause: error });
  }
}

/**
 * Parse the bytes of a JSON artifact read from `where`.
 * @throws IndexFormatError naming `where` when they are not UTF-8 JSON.
 */
export function parseJsonArtifact(bytes: Uint8Array, where: string): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch (error) {
    throw indexFileError(where, `cannot be read (${(error as Error).message})`, { cause: error });
  }
}

/** Schema of a {@link SourceLocation} as indexes save it (on chunks, leaves, kept records). */
export const sourceLocationSchema: Schema<SourceLocation> = v.object({
  path: v.string(),
  page: v.optional(v.int({ min: 1 })),
  section: v.optional(v.array(v.string())),
  row: v.optional(v.int({ min: 1 })),
  record: v.optional(v.int({ min: 1 })),
});

/** Schema of an {@link ExtractedEntity} as indexes keep a chunk's extraction for updates. */
export const extractedEntitySchema: Schema<ExtractedEntity> = v.object({
  name: v.string(),
  type: v.string(),
  description: v.string(),
});

/**
 * Schema of an `ExtractedRelation` as indexes keep a chunk's extraction for updates, its `weight`
 * checked by `weight` (`v.nullable(v.number())` where a weight JSON cannot hold was written as null).
 */
export function extractedRelationSchema<W>(weight: Schema<W>) {
  return v.object({
    source: v.string(),
    target: v.string(),
    description: v.string(),
    weight,
    keywords: v.optional(v.array(v.string())),
  });
}

/**
 * The fields of a {@link Chunk}, to extend in a schema of a type that extends it. `location` is
 * optional: chunks of documents without segments, and indexes saved before chunks kept it, have none.
 */
export const chunkFields = {
  id: v.string(),
  docId: v.string(),
  order: v.int({ min: 0 }),
  text: v.string(),
  tokens: v.int({ min: 0 }),
  start: v.int({ min: 0 }),
  end: v.int({ min: 0 }),
  location: v.optional(sourceLocationSchema),
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
