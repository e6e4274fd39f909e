/**
 * The index format (version 2): the label embeddings stored once (`labels.rows`; the label vector
 * index saved beside them only when the factory is not exact), `graph.json` and `update.json`
 * gzipped, and a saved-then-loaded index retrieving exactly what the index in memory does (same
 * items, scores, contexts and answers in every mode), for exact and approximate vector factories.
 * Indexes of version 1 still load and retrieve the same.
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
import { type SgRagIndex, type SgRagMode, sgRag } from '../src/index.js';

const DOCS = entityDocuments(12);
const BUILD = { chunkSize: 24, overlap: 4 };
const QUERIES = [
  'Who worked for the Kessler Shipyard?',
  'Which place did Tomas Brandt visit?',
  'Who did the Orsa Marine Institute hire?',
  'Which place did Mira Kessler visit in 1887?',
  'Who worked for the Dunmore Lighthouse in Ashford?',
];
const MODES: SgRagMode[] = ['sg-rag', 'entity', 'one-hop', 'two-hop'];
const DIMENSIONS = 16;

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

async function retrievals(index: SgRagIndex): Promise<Retrieval[]> {
  const out: Retrieval[] = [];
  for (const mode of MODES) {
    for (const q of QUERIES)
      out.push(await sgRag.retrieve(index, q, { mode, topK: 1000, budgetTokens: 100_000 }));
  }
  return out;
}

/** Items (ids, kinds, sources, scores), contexts, token counts and answers, exactly. */
/** SG-RAG's answers from its paths, compared as well. */
const answersOf = (r: Retrieval) => r.trace.answers;

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'sg-rag-format-'));
});
afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

describe('sg-rag index format 2', () => {
  for (const [kind, factory] of [
    ['exact', flatIndexFactory],
    ['saved', savedFactory],
  ] as const) {
    it(`${kind} factory: a saved and loaded index retrieves exactly what the index in memory does`, async () => {
      const index = await sgRag.build(DOCS, context(factory), BUILD);
      const want = await retrievals(index);
      expect(want.filter((r) => r.items.length > 0).length).toBeGreaterThan(want.length / 2);
      const dir = join(root, kind);
      await sgRag.save(index, dir);
      const loaded = await sgRag.load(dir, context(factory));
      expect(loaded.kept).toEqual(index.kept);
      expectIdenticalRetrievals(await retrievals(loaded), want, answersOf);
      const files = (await readdir(dir)).sort();
      // The label embeddings once: as rows, no float32 copy; the vector index only when it is not exact.
      expect(files).toEqual(
        [
          'dominance.json',
          'graph.json',
          'labels.rows',
          'manifest.json',
          'paths.bin',
          'tree.bin',
          'update.json',
          ...(kind === 'saved' ? ['labels.bin'] : []),
        ].sort(),
      );
      for (const file of ['graph.json', 'update.json']) {
        const bytes = new Uint8Array(await readFile(join(dir, file)));
        expect(bytes[0]).toBe(0x1f); // gzip
        expect(() => JSON.parse(new TextDecoder().decode(decompressed(bytes, file)))).not.toThrow();
      }
    });
  }

  it('loads an index of format 1 (float32 label embeddings beside the vector index, plain JSON) and retrieves the same', async () => {
    const index = await sgRag.build(DOCS, context(savedFactory), BUILD);
    const want = await retrievals(index);
    const v2 = join(root, 'to-v1');
    await sgRag.save(index, v2);
    // Rewrite it as format 1 wrote it.
    const v1 = join(root, 'v1');
    await cp(v2, v1, { recursive: true });
    const manifest = JSON.parse(await readFile(join(v1, 'manifest.json'), 'utf8'));
    manifest.formatVersion = 1;
    manifest.files = manifest.files
      .map((f: string) => (f === 'labels.rows' ? 'label-embeddings.f32' : f))
      .sort();
    await writeFile(join(v1, 'manifest.json'), JSON.stringify(manifest));
    for (const file of ['graph.json', 'update.json']) {
      await writeFile(join(v1, file), decompressed(new Uint8Array(await readFile(join(v1, file))), file));
    }
    const n = index.graph.ids.length;
    const rows = decodeVectorRows(
      new Uint8Array(await readFile(join(v1, 'labels.rows'))),
      n,
      DIMENSIONS,
      'labels.rows',
    );
    const packed = new Float32Array(n * DIMENSIONS);
    rows.forEach((row, i) => {
      packed.set(row, i * DIMENSIONS);
    });
    await writeFile(join(v1, 'label-embeddings.f32'), new Uint8Array(packed.buffer));
    await unlink(join(v1, 'labels.rows'));
    const loaded = await sgRag.load(v1, context(savedFactory));
    expect(loaded.kept).toEqual(index.kept);
    expectIdenticalRetrievals(await retrievals(loaded), want, answersOf);
  });

  it('refuses a format it does not read, saying to rebuild', async () => {
    const dir = join(root, 'v9');
    await sgRag.save(await sgRag.build(DOCS, context(), BUILD), dir);
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
    manifest.formatVersion = 9;
    await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest));
    const error = await sgRag.load(dir, context()).catch((e: unknown) => e);
    expect(IndexFormatError.isInstance(error), String(error)).toBe(true);
    expect((error as Error).message).toMatch(/Rebuild the index\.$/);
  });
});
