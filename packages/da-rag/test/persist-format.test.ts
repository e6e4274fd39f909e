/**
 * The index format (version 2): the chunk and entity vectors as core's lossless vector rows
 * (`*.rows`), the JSON files gzipped, and a saved-then-loaded index retrieving exactly what the
 * index in memory does (same items, scores, contexts), with a sparse (offline TF-IDF) and a dense
 * (scripted) embedder. Indexes of version 1 (float32 `*.f32` rows, plain JSON) still load and
 * retrieve the same; other versions are refused with a message saying to rebuild.
 */
import { cp, mkdtemp, readdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BuildContext, IndexFormatError, type Retrieval } from '@grag/core';
import { createBuildContext, decodeVectorRows, decompressed } from '@grag/core/kit';
import { createScriptedEmbedder } from '@grag/core/test';
import { expectIdenticalRetrievals } from '@grag/core/test/vitest';
import { createOfflineEmbedder, createOfflineTasks } from '@grag/offline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DaRagIndex, daRag } from '../src/index.js';
import { CORPUS } from './corpus.js';

const QUERIES = [
  'Who founded the Kessler Shipyard?',
  'Which ferry crosses the Veskan Strait?',
  'Meridian research vessel Veskan Strait',
  'Who directs the institute that operates the research vessel built by the Kessler Shipyard?',
];
const JSON_FILES = ['chunks.json', 'graph.json', 'update.json'];

const contexts: Record<string, () => BuildContext> = {
  sparse: () => {
    const embedder = createOfflineEmbedder('tfidf');
    return createBuildContext({ embedder, tasks: createOfflineTasks({ embedder }) });
  },
  dense: () =>
    createBuildContext({ embedder: createScriptedEmbedder({ dimensions: 16 }), tasks: createOfflineTasks() }),
};

async function retrievals(index: DaRagIndex): Promise<Retrieval[]> {
  const out: Retrieval[] = [];
  for (const q of QUERIES) out.push(await daRag.retrieve(index, q, { budgetTokens: 4000 }));
  return out;
}

/** Items (ids, kinds, sources, scores), contexts and token counts, exactly. */
let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'da-rag-format-'));
});
afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

/** Rewrite the format-2 index in `dir` as format 1 wrote it. */
async function asVersion1(dir: string, index: DaRagIndex): Promise<void> {
  const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
  manifest.formatVersion = 1;
  manifest.files = manifest.files.map((f: string) => f.replace(/\.rows$/, '.f32')).sort();
  await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest));
  for (const file of JSON_FILES) {
    await writeFile(join(dir, file), decompressed(new Uint8Array(await readFile(join(dir, file))), file));
  }
  const dimensions = index.providers.embedder.dimensions;
  for (const [name, count] of [
    ['chunk-vectors', index.chunks.length],
    ['entity-vectors', index.entities.length],
  ] as const) {
    const bytes = new Uint8Array(await readFile(join(dir, `${name}.rows`)));
    const packed = new Float32Array(count * dimensions);
    decodeVectorRows(bytes, count, dimensions, name).forEach((row, i) => {
      packed.set(row, i * dimensions);
    });
    await writeFile(join(dir, `${name}.f32`), new Uint8Array(packed.buffer));
    await unlink(join(dir, `${name}.rows`));
  }
}

describe('da-rag index format 2', () => {
  for (const [kind, context] of Object.entries(contexts)) {
    it(`${kind} vectors: a saved and loaded index retrieves exactly what the index in memory does; format 1 still loads`, async () => {
      const ctx = context();
      const index = await daRag.build(CORPUS, ctx, { chunking: 'fixed' });
      const want = await retrievals(index);
      expect(want.every((r) => r.items.length > 0)).toBe(true);
      const dir = join(root, kind);
      await daRag.save(index, dir);
      const loaded = await daRag.load(dir, ctx);
      expect(loaded.chunkVectors).toEqual(index.chunkVectors);
      expect(loaded.entityVectors).toEqual(index.entityVectors);
      expectIdenticalRetrievals(await retrievals(loaded), want);
      const files = await readdir(dir);
      expect(files.filter((f) => f.endsWith('.rows')).sort()).toEqual([
        'chunk-vectors.rows',
        'entity-vectors.rows',
      ]);
      expect(files.filter((f) => f.endsWith('.f32'))).toEqual([]);
      for (const file of JSON_FILES) expect((await readFile(join(dir, file)))[0]).toBe(0x1f); // gzip

      const v1 = join(root, `${kind}-v1`);
      await cp(dir, v1, { recursive: true });
      await asVersion1(v1, index);
      expectIdenticalRetrievals(await retrievals(await daRag.load(v1, ctx)), want);
    });
  }

  it('refuses a format it does not read, saying to rebuild', async () => {
    const ctx = contexts.dense!();
    const dir = join(root, 'v9');
    await daRag.save(await daRag.build(CORPUS.slice(0, 3), ctx, { chunking: 'fixed' }), dir);
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
    manifest.formatVersion = 9;
    await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest));
    const error = await daRag.load(dir, ctx).catch((e: unknown) => e);
    expect(IndexFormatError.isInstance(error), String(error)).toBe(true);
    expect((error as Error).message).toMatch(/Rebuild the index\.$/);
  });
});
