/**
 * Format 3: a JSON file that would pass the part size is written in parts, so that no string (the
 * JSON written, or read back) grows with the corpus. Exercised with a part size of a few hundred
 * characters: every JSON text stays within it (one record aside), the index loads back equal and
 * retrieves the same; a missing part is refused naming it; an index whose files are whole (format
 * 2's layout, what a small index still writes) loads as format 2.
 */
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { IndexFormatError } from '@grag/core';
import { createBuildContext, decompressed, type MethodIndexFormat } from '@grag/core/kit';
import { createScriptedEmbedder } from '@grag/core/test';
import { temporaryRoot } from '@grag/core/test/vitest';
import { createOfflineTasks } from '@grag/offline';
import { beforeAll, describe, expect, it } from 'vitest';
import { DA_RAG_FORMAT_VERSION, type DaRagIndex, daRag } from '../src/index.js';
import { partName } from '../src/json-parts.js';
import { saveDaRag } from '../src/persist.js';
import { CORPUS } from './corpus.js';

const context = () =>
  createBuildContext({ embedder: createScriptedEmbedder({ dimensions: 16 }), tasks: createOfflineTasks() });
const FORMAT: MethodIndexFormat = {
  method: daRag.name,
  formatVersion: DA_RAG_FORMAT_VERSION,
  uses: daRag.capabilities.uses,
  reads: [1, 2],
  tasks: daRag.capabilities.tasks?.build ?? {},
};
const PART_CHARS = 400;
const JSON_FILES = ['chunks.json', 'graph.json', 'update.json'];
const QUERIES = ['Who founded the Kessler Shipyard?', 'Which ferry crosses the Veskan Strait?'];
const root = temporaryRoot('da-rag-parts-');

let index: DaRagIndex;
beforeAll(async () => {
  index = await daRag.build(CORPUS, context(), { chunking: 'fixed' });
});

const text = async (dir: string, file: string) =>
  new TextDecoder().decode(decompressed(new Uint8Array(await readFile(join(dir, file))), file));

/** The longest record of any array field of the JSON file `file` of a whole (unparted) save. */
async function longestRecord(dir: string, file: string): Promise<number> {
  const whole = JSON.parse(await text(dir, file)) as Record<string, unknown>;
  let longest = 0;
  for (const field of Object.values(whole)) {
    if (!Array.isArray(field)) continue;
    for (const record of field) longest = Math.max(longest, JSON.stringify(record).length);
  }
  return longest;
}

describe('da-rag index format 3 (JSON in parts)', () => {
  it('with a small part size, every JSON file stays within it and the index loads back equal, retrieving the same', async () => {
    const dir = join(root(), 'parts');
    const whole = join(root(), 'whole');
    await saveDaRag(index, dir, FORMAT, PART_CHARS);
    await daRag.save(index, whole);
    const files = await readdir(dir);
    for (const file of JSON_FILES) {
      // The whole file is far longer than a part: the old layout would break the bound.
      expect((await text(whole, file)).length).toBeGreaterThan(4 * PART_CHARS);
      expect(files).toContain(partName(file, 1));
      const longest = await longestRecord(whole, file);
      const parts = files.filter((f) => f === file || f.startsWith(`${file.slice(0, -5)}.part-`));
      expect(parts.length).toBeGreaterThan(2);
      for (const part of parts) {
        // A part holds records up to the bound, or one longer record, and a little framing.
        expect((await text(dir, part)).length, part).toBeLessThanOrEqual(Math.max(PART_CHARS, longest) + 200);
      }
      // Parts are numbered from 1 without a gap.
      const numbers = parts.filter((f) => f !== file).map((f) => Number(/part-(\d+)/.exec(f)![1]));
      expect(numbers.sort((a, b) => a - b)).toEqual(numbers.map((_, i) => i + 1));
    }
    expect(files.filter((f) => f.includes('.part-'))).not.toEqual([]);
    expect((await readdir(whole)).filter((f) => f.includes('.part-'))).toEqual([]);

    const loaded = await daRag.load(dir, context());
    const fromWhole = await daRag.load(whole, context());
    for (const key of [
      'chunks',
      'texts',
      'titles',
      'descriptions',
      'entities',
      'relations',
      'kept',
    ] as const) {
      expect(loaded[key], key).toEqual(index[key]);
      expect(fromWhole[key], key).toEqual(index[key]);
    }
    expect(Array.from(loaded.chunkLayer.sources)).toEqual(Array.from(index.chunkLayer.sources));
    expect(Array.from(loaded.chunkLayer.targets)).toEqual(Array.from(index.chunkLayer.targets));
    expect(Array.from(loaded.simLayer!.sources)).toEqual(Array.from(index.simLayer!.sources));
    expect(Array.from(loaded.simLayer!.targets)).toEqual(Array.from(index.simLayer!.targets));
    for (const query of QUERIES) {
      const want = await daRag.retrieve(index, query, { budgetTokens: 2000 });
      const got = await daRag.retrieve(loaded, query, { budgetTokens: 2000 });
      expect(got.items).toEqual(want.items);
      expect(got.context).toBe(want.context);
    }
  });

  it('a missing part is refused, naming it and saying to rebuild', async () => {
    const dir = join(root(), 'missing');
    await saveDaRag(index, dir, FORMAT, PART_CHARS);
    const gone = partName('graph.json', 2);
    await rm(join(dir, gone));
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
    manifest.files = manifest.files.filter((f: string) => f !== gone);
    await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest));
    const error = await daRag.load(dir, context()).catch((e: unknown) => e);
    expect(IndexFormatError.isInstance(error), String(error)).toBe(true);
    expect((error as Error).message).toContain(join(dir, gone));
    expect((error as Error).message).toMatch(/rebuild the index\.$/i);
  });

  it('checks the kept update files by the checksums chunks.json records and decodes them when first read; without checksums, at load', async () => {
    const damages = [
      ['update.json', '{"unexpected": [1, 2, 3]}'],
      [partName('update.json', 1), 'null'],
    ] as const;
    for (const [name, damage] of damages) {
      for (const formatVersion of [3, 2]) {
        const dir = join(root(), `kept-${formatVersion}-${name}`);
        await saveDaRag(index, dir, FORMAT, PART_CHARS);
        await writeFile(join(dir, name), damage);
        if (formatVersion !== 3) {
          // Format 2 recorded no checksums: the files are decoded and checked at load.
          const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
          manifest.formatVersion = formatVersion;
          await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest));
        }
        const error = await daRag.load(dir, context()).catch((e: unknown) => e);
        expect(IndexFormatError.isInstance(error), `${formatVersion} ${name}: ${String(error)}`).toBe(true);
        expect((error as Error).message).toContain(join(dir, name));
        expect((error as Error).message).toMatch(/rebuild the index\.$/i);
      }
    }
    const dir = join(root(), 'kept-lazy');
    await saveDaRag(index, dir, FORMAT, PART_CHARS);
    const loaded = await daRag.load(dir, context());
    // Not decoded yet: a property that decodes on first read, once.
    expect(Object.getOwnPropertyDescriptor(loaded, 'kept')?.get).toBeTypeOf('function');
    expect(loaded.kept).toBe(loaded.kept);
    expect(loaded.kept).toEqual(index.kept);
    // A part the checksums do not name is refused too.
    await writeFile(join(dir, partName('update.json', 99)), 'null');
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
    manifest.files.push(partName('update.json', 99));
    await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest));
    const error = await daRag.load(dir, context()).catch((e: unknown) => e);
    expect(IndexFormatError.isInstance(error), String(error)).toBe(true);
    expect((error as Error).message).toContain(partName('update.json', 99));
  });

  it('an index of format 2 (every JSON file whole) loads and retrieves the same', async () => {
    const dir = join(root(), 'v2');
    await daRag.save(index, dir);
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
    expect(manifest.formatVersion).toBe(3);
    manifest.formatVersion = 2;
    await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest));
    const loaded = await daRag.load(dir, context());
    expect(loaded.relations).toEqual(index.relations);
    const want = await daRag.retrieve(index, QUERIES[1]!, { budgetTokens: 2000 });
    const got = await daRag.retrieve(loaded, QUERIES[1]!, { budgetTokens: 2000 });
    expect(got.items).toEqual(want.items);
    expect(got.context).toBe(want.context);
  });
});
