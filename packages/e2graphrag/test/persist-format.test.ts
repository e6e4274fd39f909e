/**
 * The index format (version 2): the tree node embeddings stored once (`embeddings.rows`; the
 * vector index saved beside them only when the factory is not exact), `tree.json`, `graph.json`,
 * `links.json` and `update.json` gzipped, and a saved-then-loaded index retrieving exactly what the
 * index in memory does (same items, scores and contexts, local and global queries), for exact and
 * approximate vector factories. Indexes of version 1 still load and retrieve the same.
 */
import { cp, mkdtemp, readdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BuildContext, IndexFormatError, type Retrieval, type VectorIndexFactory } from '@grag/core';
import { createBuildContext, decodeVectorRows, decompressed, flatIndexFactory } from '@grag/core/kit';
import { createScriptedEmbedder, entityDocuments } from '@grag/core/test';
import { expectIdenticalRetrievals } from '@grag/core/test/vitest';
import { createOfflineProviders } from '@grag/offline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createE2GraphRag, type E2GraphRagIndex } from '../src/index.js';
import { capitalized } from './fixtures.js';

const DOCS = entityDocuments(12);
const BUILD = { chunkSize: 24, overlap: 4, preset: 'offline' } as const;
const QUERIES = [
  'Who worked for the Kessler Shipyard?',
  'Which place did Tomas Brandt visit?',
  'Who did the Orsa Marine Institute hire?',
  'Which place did Mira Kessler visit in 1887?',
  'Who worked for the Dunmore Lighthouse in Ashford?',
  'What are these documents about overall?',
];
const DIMENSIONS = 16;
const method = createE2GraphRag({ extractor: capitalized });

/** An approximate-looking factory (not exact): its indexes are saved, as HNSW's are. */
const savedFactory: VectorIndexFactory = {
  kind: 'flat',
  create: flatIndexFactory.create,
  load: flatIndexFactory.load,
};

const context = (vectorIndex: VectorIndexFactory = flatIndexFactory): BuildContext =>
  createBuildContext({
    embedder: createScriptedEmbedder({ dimensions: DIMENSIONS }),
    tasks: createOfflineProviders().tasks,
    vectorIndex,
  });

async function retrievals(index: E2GraphRagIndex): Promise<Retrieval[]> {
  const out: Retrieval[] = [];
  for (const q of QUERIES) {
    out.push(await method.retrieve(index, q, { budgetTokens: 100_000 }));
    out.push(await method.retrieve(index, q, { budgetTokens: 200 }));
  }
  return out;
}

/** Items (ids, kinds, sources, scores), contexts and token counts, exactly. */
const GZIPPED = ['tree.json', 'graph.json', 'links.json', 'update.json'];

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'e2graphrag-format-'));
});
afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

describe('e2graphrag index format 2', () => {
  for (const [kind, factory] of [
    ['exact', flatIndexFactory],
    ['saved', savedFactory],
  ] as const) {
    it(`${kind} factory: a saved and loaded index retrieves exactly what the index in memory does`, async () => {
      const index = await method.build(DOCS, context(factory), BUILD);
      expect(index.homes.length).toBeGreaterThan(0);
      const want = await retrievals(index);
      expect(want.filter((r) => r.items.length > 0).length).toBeGreaterThan(want.length / 2);
      const dir = join(root, kind);
      await method.save(index, dir);
      const loaded = await method.load(dir, context(factory));
      expect(loaded.kept).toEqual(index.kept);
      expect(loaded.tree).toEqual(index.tree);
      expect(loaded.homes).toEqual(index.homes);
      expectIdenticalRetrievals(await retrievals(loaded), want);
      const files = (await readdir(dir)).sort();
      // The embeddings once: as rows, no float32 copy; the vector index only when it is not exact.
      expect(files).toEqual(
        [
          'embeddings.rows',
          'graph.json',
          'links.json',
          'manifest.json',
          'tree.json',
          'update.json',
          ...(kind === 'saved' ? ['vectors.bin'] : []),
        ].sort(),
      );
      for (const file of GZIPPED) {
        const bytes = new Uint8Array(await readFile(join(dir, file)));
        expect(bytes[0], file).toBe(0x1f); // gzip
        expect(() => JSON.parse(new TextDecoder().decode(decompressed(bytes, file)))).not.toThrow();
      }
    });
  }

  it('loads an index of format 1 (float32 embeddings beside the vector index, plain JSON) and retrieves the same', async () => {
    const index = await method.build(DOCS, context(savedFactory), BUILD);
    const want = await retrievals(index);
    const v2 = join(root, 'to-v1');
    await method.save(index, v2);
    // Rewrite it as format 1 wrote it.
    const v1 = join(root, 'v1');
    await cp(v2, v1, { recursive: true });
    const manifest = JSON.parse(await readFile(join(v1, 'manifest.json'), 'utf8'));
    manifest.formatVersion = 1;
    manifest.files = manifest.files
      .map((f: string) => (f === 'embeddings.rows' ? 'embeddings.f32' : f))
      .sort();
    await writeFile(join(v1, 'manifest.json'), JSON.stringify(manifest));
    for (const file of GZIPPED) {
      await writeFile(join(v1, file), decompressed(new Uint8Array(await readFile(join(v1, file))), file));
    }
    const n = index.tree.nodes.length;
    const rows = decodeVectorRows(
      new Uint8Array(await readFile(join(v1, 'embeddings.rows'))),
      n,
      DIMENSIONS,
      'embeddings.rows',
    );
    const packed = new Float32Array(n * DIMENSIONS);
    rows.forEach((row, i) => {
      packed.set(row, i * DIMENSIONS);
    });
    await writeFile(join(v1, 'embeddings.f32'), new Uint8Array(packed.buffer));
    await unlink(join(v1, 'embeddings.rows'));
    const loaded = await method.load(v1, context(savedFactory));
    expect(loaded.kept).toEqual(index.kept);
    expectIdenticalRetrievals(await retrievals(loaded), want);
  });

  it('refuses a format it does not read, saying to rebuild', async () => {
    const dir = join(root, 'v9');
    await method.save(await method.build(DOCS, context(), BUILD), dir);
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
    manifest.formatVersion = 9;
    await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest));
    const error = await method.load(dir, context()).catch((e: unknown) => e);
    expect(IndexFormatError.isInstance(error), String(error)).toBe(true);
    expect((error as Error).message).toMatch(/Rebuild the index\.$/);
  });
});
