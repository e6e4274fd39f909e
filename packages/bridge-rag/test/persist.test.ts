/**
 * Saved and loaded, an index retrieves exactly what the index in memory does (items, scores,
 * contexts, token counts), with an exact vector index (rebuilt from the stored rows) and an
 * approximate-looking one (saved beside them), BM25 read from its file (or, for an index saved
 * without it, built again); damaged files and another extractor are refused.
 */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IndexFormatError, type VectorIndexFactory } from '@grag/core';
import { entityExtractorFromFunction } from '@grag/core/graph';
import { createBuildContext, flatIndexFactory } from '@grag/core/kit';
import { directoryStore } from '@grag/core/store';
import { copyStoredIndex, retrieveEach } from '@grag/core/test';
import { expectIdenticalRetrievals } from '@grag/core/test/vitest';
import { createOfflineProviders } from '@grag/offline';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type BridgeRagIndex, createBridgeRag } from '../src/index.js';
import { DOCS, dictionary, QUESTION } from './fixtures.js';

const method = createBridgeRag({ extractor: dictionary });
const QUERIES = [
  QUESTION,
  'Who directs the Lindqvist Institute?',
  'Which ferry leaves Port Halvard?',
  'Where was Edda Varn born?',
];
/** Not exact: its indexes are saved as HNSW's are. */
const savedFactory: VectorIndexFactory = {
  kind: 'flat',
  create: flatIndexFactory.create,
  load: flatIndexFactory.load,
};
const ctx = (vectorIndex: VectorIndexFactory = flatIndexFactory) =>
  createBuildContext({ ...createOfflineProviders(), vectorIndex });

const retrievals = (index: BridgeRagIndex) =>
  retrieveEach(method, index, QUERIES, [{ bridgeSeeds: 2 }, { budgetTokens: 60 }]);

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'bridge-rag-persist-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe('bridge-rag save and load', () => {
  for (const [label, factory, files] of [
    ['exact factory', flatIndexFactory, false],
    ['approximate factory', savedFactory, true],
  ] as const) {
    test(`${label}: a saved and loaded index retrieves exactly what the index in memory does`, async () => {
      const built = await method.build(DOCS, ctx(factory));
      const dir = join(root, label.replace(' ', '-'));
      await method.save(built, dir);
      expect((await readdir(dir)).includes('vectors.bin')).toBe(files);
      const loaded = await method.load(dir, ctx(factory));
      expect(loaded.options).toEqual(built.options);
      expect(loaded.stats).toEqual(built.stats);
      // BM25 read from `lexical.bm25`, not built again: the same index.
      expect(loaded.lexical.toArrays()).toEqual(built.lexical.toArrays());
      expectIdenticalRetrievals(await retrievals(loaded), await retrievals(built));
    });
  }

  test('an index saved before BM25 was kept (no lexical.bm25) loads, builds it, and retrieves alike', async () => {
    const built = await method.build(DOCS, ctx());
    const dir = join(root, 'without-bm25');
    await method.save(built, dir);
    const older = await copyStoredIndex(directoryStore(dir), directoryStore(join(root, 'older')), {
      artifact: (name) => (name === 'lexical.bm25' ? null : undefined),
    });
    const loaded = await method.load(older, ctx());
    expect(loaded.lexical.toArrays()).toEqual(built.lexical.toArrays());
    expectIdenticalRetrievals(await retrievals(loaded), await retrievals(built));
  });

  test('refuses an index read with another entity extractor, and a damaged file, naming it', async () => {
    const built = await method.build(DOCS, ctx());
    const dir = join(root, 'refusals');
    await method.save(built, dir);
    const other = createBridgeRag({ extractor: entityExtractorFromFunction(() => [], { id: 'other' }) });
    await expect(other.load(dir, ctx())).rejects.toThrow(/entity extractor 'test-dictionary'/);
    await writeFile(join(dir, 'links.json'), '{"homes": [1, 2]}');
    const error = await method.load(dir, ctx()).catch((e: unknown) => e);
    expect(IndexFormatError.isInstance(error)).toBe(true);
    expect(String((error as Error).message)).toMatch(/links\.json/);
  });
});
