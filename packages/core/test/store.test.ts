import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  IndexFormatError,
  type IndexStore,
  InvalidArgumentError,
  indexVectors,
  type TaskSuite,
} from '../src/index.js';
import {
  createBuildContext,
  flatIndexFactory,
  indexProviders,
  MANIFEST_FILE,
  openMethodIndex,
  v,
  writeMethodIndex,
} from '../src/kit.js';
import { directoryStore, memoryStore, toIndexStore } from '../src/store/index.js';
import { createScriptedEmbedder } from '../src/test/index.js';
import { runIndexStoreSpec, temporaryRoot } from '../src/test/vitest.js';

const root = temporaryRoot('grag-store-');
let n = 0;

runIndexStoreSpec('directoryStore', () => directoryStore(join(root(), `spec-${++n}`)), {
  async makeForeign() {
    const dir = join(root(), `foreign-${++n}`);
    await mkdir(dir);
    await writeFile(join(dir, 'thesis.tex'), 'a user file');
    return directoryStore(dir);
  },
  reopen: (store) => directoryStore(store.location),
});
runIndexStoreSpec('memoryStore', () => memoryStore(), { pinsVersions: true });

const context = () =>
  createBuildContext({
    embedder: createScriptedEmbedder({ dimensions: 2, modelId: 'e1' }),
    tasks: { id: 't1' } as TaskSuite,
  });
const rows = [Float32Array.from([1, 0]), Float32Array.from([0, 1]), Float32Array.from([0.6, 0.8])];
const format = { method: 'demo', formatVersion: 1 };
const params = (saved: Record<string, unknown>) => saved as { k: number };

/** Save the demo index to `target`; returns what the writer counted as written. */
async function save(target: string | IndexStore): Promise<number> {
  const ctx = context();
  let written = 0;
  await writeMethodIndex(
    target,
    { ...format, providers: indexProviders(ctx), params: { k: 2 }, stats: { units: 3 } },
    async (out) => {
      await out.json('units.json', { ids: ['a', 'b', 'c'] });
      await out.float32Rows('rows.f32', rows, 2);
      await out.vectors('vectors.bin', indexVectors(flatIndexFactory, rows));
      written = out.bytesWritten();
    },
  );
  return written;
}

describe('writeMethodIndex / openMethodIndex on any store', () => {
  it('writes through a directory store exactly the files a path writes', async () => {
    const byPath = join(root(), 'by-path');
    const byStore = join(root(), 'by-store');
    const written = await save(byPath);
    await save(directoryStore(byStore));
    const files = (await readdir(byPath)).sort();
    expect(files).toEqual(['manifest.json', 'rows.f32', 'units.json', 'vectors.bin']);
    // {"ids":["a","b","c"]} is 21 bytes, 3 rows of 2 float32 are 24, plus the vector file.
    const vectorBytes = (await readFile(join(byPath, 'vectors.bin'))).byteLength;
    expect(written).toBe(21 + 24 + vectorBytes);
    // The layout grag has always written: compact JSON, little-endian float32 rows, a flat index file.
    expect(await readFile(join(byPath, 'units.json'), 'utf8')).toBe('{"ids":["a","b","c"]}');
    expect(new Float32Array(new Uint8Array(await readFile(join(byPath, 'rows.f32'))).buffer)).toEqual(
      Float32Array.from([1, 0, 0, 1, 0.6, 0.8]),
    );
    const manifest = JSON.parse(await readFile(join(byPath, MANIFEST_FILE), 'utf8'));
    expect(manifest).toMatchObject({
      manifestVersion: 1,
      method: 'demo',
      formatVersion: 1,
      params: { k: 2 },
    });
    expect((await readdir(byStore)).sort()).toEqual(files);
    for (const file of files.filter((f) => f !== MANIFEST_FILE)) {
      expect(await readFile(join(byStore, file)), file).toEqual(await readFile(join(byPath, file)));
    }
  });

  it('reads the same index back from a memory store as from a directory', async () => {
    const memory = memoryStore({ name: 'demo' });
    const dir = join(root(), 'compare');
    await save(memory);
    await save(dir);
    for (const target of [memory, dir]) {
      const opened = await openMethodIndex(target, context(), { ...format, params });
      expect(opened.params).toEqual({ k: 2 });
      expect(opened.names).toEqual(['rows.f32', 'units.json', 'vectors.bin']);
      expect(await opened.json('units.json', v.object({ ids: v.array(v.string()) }))).toEqual({
        ids: ['a', 'b', 'c'],
      });
      expect(await opened.float32Rows('rows.f32', 3)).toEqual(rows);
      const vectors = await opened.vectors('vectors.bin', 3);
      // Cosine to [0.8, 0.6]: c = 0.96, a = 0.8, b = 0.6.
      expect(vectors.search([0.8, 0.6], 3).map((h) => h.id)).toEqual([2, 0, 1]);
    }
    const opened = await openMethodIndex(memory, context(), { ...format, params });
    expect(opened.location).toBe('memory:demo');
    expect(opened.locate('units.json')).toBe('memory:demo/units.json');
  });

  it('names the artifact in every error, never a scratch file', async () => {
    const store = memoryStore({ name: 'broken' });
    const ctx = context();
    await writeMethodIndex(store, { ...format, providers: indexProviders(ctx), params: {} }, async (out) => {
      await out.bytes('vectors.bin', new Uint8Array([1, 2, 3]));
      await out.bytes('units.json', new TextEncoder().encode('{"ids": [1]}'));
    });
    const opened = await openMethodIndex(store, context(), { ...format, params });
    await expect(opened.vectors('vectors.bin', 1)).rejects.toThrow(
      'FlatIndex.load: memory:broken/vectors.bin is too short',
    );
    const vectorsError = await opened.vectors('vectors.bin', 1).catch((e: unknown) => e);
    expect(IndexFormatError.isInstance(vectorsError)).toBe(true);
    expect((vectorsError as Error).message).not.toMatch(/grag-vectors-/);
    await expect(opened.json('units.json', v.object({ ids: v.array(v.string()) }))).rejects.toThrow(
      'memory:broken/units.json: ids[0] is not a string (got 1); rebuild the index.',
    );
    await expect(opened.bytes('links.json')).rejects.toThrow(
      'memory:broken/links.json: is missing; rebuild the index.',
    );
  });

  it('refuses another method from a memory store as from a directory', async () => {
    const store = memoryStore({ name: 'other' });
    await save(store);
    await expect(
      openMethodIndex(store, context(), { method: 'else', formatVersion: 1, params }),
    ).rejects.toThrow(
      "memory:other holds a 'demo' index, not 'else'. Query it with --method demo or rebuild it.",
    );
  });

  it('keeps a fitted embedder’s state in the store', async () => {
    let state = { vocabulary: ['x'] };
    const fitted = {
      ...createScriptedEmbedder({ dimensions: 2, modelId: 'fit' }),
      fit: async () => {},
      state: () => state,
      restore: (s: Record<string, unknown>) => {
        state = s as typeof state;
      },
    };
    const ctx = createBuildContext({
      embedder: fitted,
      tasks: { id: 't1' } as TaskSuite,
      meterEmbedder: false,
    });
    const store = memoryStore();
    await writeMethodIndex(store, { ...format, providers: indexProviders(ctx), params: {} }, async () => {});
    state = { vocabulary: [] };
    await openMethodIndex(store, ctx, { ...format, params });
    expect(state).toEqual({ vocabulary: ['x'] });
  });

  it('takes a path or a store as a target and refuses anything else', () => {
    expect(toIndexStore('/tmp/x').kind).toBe('directory');
    const memory = memoryStore();
    expect(toIndexStore(memory)).toBe(memory);
    expect(() => toIndexStore(5 as never)).toThrow(InvalidArgumentError);
    expect(() => directoryStore('')).toThrow(InvalidArgumentError);
  });
});
