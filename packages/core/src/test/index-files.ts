import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { compress, decompressed } from '../artifact-codec.js';
import { sha256Hex } from '../cache.js';
import type { IndexStore } from '../contracts/store.js';
import { directoryStore } from '../store/directory.js';

/**
 * Copy the index directory `from` to `to` and edit the JSON file `file` of the copy (gzipped or
 * not): `edit` changes the parsed value in place (what it returns is ignored). For tests of a method's load checks:
 * `await editedIndexCopy(saved, join(root, 'bad'), 'graph.json', (g) => { g.nodes[0].id = 5; })`.
 */
export async function editedIndexCopy(
  from: string,
  to: string,
  file: string,
  // biome-ignore lint/suspicious/noExplicitAny: edits reach into JSON of a layout the test knows
  edit: (json: any) => unknown,
): Promise<string> {
  await cp(from, to, { recursive: true });
  const path = join(to, file);
  const bytes = new Uint8Array(await readFile(path));
  const zipped = bytes[0] === 0x1f && bytes[1] === 0x8b;
  const json = JSON.parse(new TextDecoder().decode(decompressed(bytes, path)));
  edit(json);
  const text = new TextEncoder().encode(JSON.stringify(json));
  // A gzipped artifact (`IndexWriter.json` with `compress`) stays gzipped.
  await writeFile(path, zipped ? compress(text) : text);
  return to;
}

/** Changes {@link copyStoredIndex} makes to the copy. */
export interface StoredIndexEdits {
  /** Edit the manifest in place (what it returns is ignored). */
  // biome-ignore lint/suspicious/noExplicitAny: edits reach into a manifest of a layout the test knows
  manifest?: (manifest: any) => unknown;
  /** New bytes for artifact `name` (`undefined`: keep them, `null`: leave the artifact out). */
  artifact?: (name: string, data: Uint8Array) => Uint8Array | null | undefined;
}

/**
 * Copy the current version of the index in `from` into `to` (any two stores), applying `edits`:
 * for tests of a method's load checks on any store, e.g.
 * `await copyStoredIndex(saved, memoryStore(), { manifest: (m) => { m.formatVersion = 99; } })`.
 * @returns `to`.
 */
export async function copyStoredIndex(
  from: IndexStore,
  to: IndexStore,
  edits: StoredIndexEdits = {},
): Promise<IndexStore> {
  const snapshot = await from.open();
  try {
    const manifest = structuredClone(snapshot.manifest);
    edits.manifest?.(manifest);
    await to.writeVersion(manifest, async (out) => {
      for (const name of snapshot.names) {
        const data = await snapshot.read(name);
        const edited = edits.artifact?.(name, data);
        if (edited !== null) await out.write(name, edited ?? data);
      }
    });
  } finally {
    await snapshot.release();
  }
  return to;
}

/**
 * Save `index` with `method` into `dir`/new and copy that, with `edits`, into `dir`/`copy` (`old`
 * unless given): an index as an older grag saved it (or a damaged one), for tests of what a method
 * reads of it, e.g. `const old = await savedCopy(method, index, dir, { artifact: (name) =>
 * (name === 'update.json' ? null : undefined) })`.
 * @returns the copy's store.
 */
export async function savedCopy<I>(
  method: { save(index: I, dir: string): Promise<unknown> },
  index: I,
  dir: string,
  edits: StoredIndexEdits,
  copy = 'old',
): Promise<IndexStore> {
  await method.save(index, join(dir, 'new'));
  return copyStoredIndex(directoryStore(join(dir, 'new')), directoryStore(join(dir, copy)), edits);
}

/**
 * Every file under `dir` by relative path, the manifest without its write time (`createdAt`): what
 * two builds of the same index must agree on, byte for byte.
 */
export async function readIndexTree(dir: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    let bytes = await readFile(path);
    if (entry.name === 'manifest.json') {
      const { createdAt: _createdAt, ...rest } = JSON.parse(bytes.toString('utf8')) as Record<
        string,
        unknown
      >;
      bytes = Buffer.from(JSON.stringify(rest));
    }
    out.set(relative(dir, path), bytes);
  }
  return out;
}

/**
 * The SHA-256 (hex) of every file of a saved index directory by relative path, in path order, the
 * manifest without its write time ({@link readIndexTree}): `expect(await indexFileDigests(a))
 * .toEqual(await indexFileDigests(b))` checks two builds wrote the same index.
 */
export async function indexFileDigests(dir: string): Promise<Record<string, string>> {
  const tree = await readIndexTree(dir);
  const out: Record<string, string> = {};
  for (const path of [...tree.keys()].sort()) out[path] = sha256Hex(tree.get(path)!);
  return out;
}

/**
 * The manifest of the index saved in `dir` without what differs between two saves of the same
 * index in different formats: its write time (`createdAt`), `formatVersion` and file list (`files`).
 * For tests that an index saved again holds what an older fixture holds.
 */
// biome-ignore lint/suspicious/noExplicitAny: tests reach into the manifest's fields
export async function manifestContent(dir: string): Promise<Record<string, any>> {
  const {
    createdAt: _createdAt,
    formatVersion: _formatVersion,
    files: _files,
    ...rest
  } = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
  return rest;
}
