import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IndexFormatError } from '@grag/core';
import { createBuildContext, flatIndexFactory } from '@grag/core/kit';
import { hnswIndexFactory } from '@grag/hnsw';
import { GragRetriever, loadGragIndex } from '@grag/langchain';
import { denseRag } from '@grag/naive-rag';
import { createOfflineProviders } from '@grag/offline';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

const DOCS = [
  { id: 'kessler', text: 'The Kessler Shipyard in Port Halvard was founded in 1881 by Anton Kessler.' },
  { id: 'nordlys', text: 'The Nordlys is a ferry that crosses the Veskan Strait from Port Halvard to Orsa.' },
  { id: 'institute', text: 'The Orsa Marine Institute studies the seals of the Veskan Strait.' },
  { id: 'falls', text: 'Merrow Falls lies upriver from Port Halvard; its old mill grinds barley.' },
];
const QUESTION = 'Which ferry crosses the Veskan Strait?';

let root: string;
const flatCtx = () => createBuildContext(createOfflineProviders());
const hnswCtx = () => createBuildContext({ ...createOfflineProviders(), vectorIndex: hnswIndexFactory() });

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'grag-langchain-load-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** What `promise` rejects with (a test failure when it resolves). */
async function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => expect.unreachable('expected a rejection') as never,
    (error: unknown) => error as Error,
  );
}

/** A dense index built and saved with `ctx`'s vector index; what it retrieves before saving. */
async function saved(name: string, ctx: ReturnType<typeof flatCtx>) {
  const dir = join(root, name);
  const index = await denseRag.build(DOCS, ctx, { chunking: 'document' });
  await denseRag.save(index, dir);
  const before = await denseRag.retrieve(index, QUESTION, { topK: 3 });
  return { dir, ids: before.items.map((item) => item.id) };
}

describe('loadGragIndex', () => {
  it('loads an index built with HNSW with hnswIndexFactory(), though the context holds the flat index', async () => {
    const { dir, ids } = await saved('hnsw', hnswCtx());
    expect(ids[0]).toBe('nordlys');
    // The method's own load, with createBuildContext's default (flat), refuses it and names the call.
    const refused = await rejection(denseRag.load(dir, flatCtx()));
    expect(IndexFormatError.isInstance(refused)).toBe(true);
    expect(refused.message).toContain("built with vectorIndex 'hnsw' (now 'flat')");
    expect(refused.message).toContain('hnswIndexFactory()');

    const index = await loadGragIndex(denseRag, dir, flatCtx());
    const docs = await new GragRetriever({ index, method: denseRag, topK: 3 }).invoke(QUESTION);
    expect(docs.map((doc) => doc.id)).toEqual(ids);
  });

  it('loads an index built with the flat index with the flat index, though the context holds HNSW', async () => {
    const { dir, ids } = await saved('flat', flatCtx());
    const refused = await rejection(denseRag.load(dir, hnswCtx()));
    expect(refused.message).toContain("built with vectorIndex 'flat' (now 'hnsw')");
    const index = await loadGragIndex(denseRag, dir, hnswCtx());
    const retrieval = await denseRag.retrieve(index, QUESTION, { topK: 3 });
    expect(retrieval.items.map((item) => item.id)).toEqual(ids);
  });

  it('leaves a matching context as it is, and the other providers to the method to check', async () => {
    const { dir, ids } = await saved('same', flatCtx());
    const load = vi.spyOn(denseRag, 'load');
    try {
      const ctx = flatCtx();
      const index = await loadGragIndex(denseRag, dir, ctx);
      expect(load).toHaveBeenCalledWith(dir, ctx);
      expect((await denseRag.retrieve(index, QUESTION, { topK: 3 })).items.map((i) => i.id)).toEqual(ids);
    } finally {
      load.mockRestore();
    }
    // Another embedder is not the loader's to fix: the method's message says which differs.
    const other = createBuildContext({
      ...createOfflineProviders(),
      embedder: { ...createOfflineProviders().embedder, modelId: 'another-model' },
      vectorIndex: flatIndexFactory,
    });
    await expect(loadGragIndex(denseRag, dir, other)).rejects.toThrow(/built with embedder/);
  });

  it('refuses what is not a grag method', async () => {
    await expect(loadGragIndex({} as typeof denseRag, join(root, 'none'), flatCtx())).rejects.toThrow(
      '@grag/langchain: loadGragIndex needs a grag Method such as `nodeRag` from @grag/noderag (got an object (no keys)).',
    );
  });
});

describe('loadGragIndex without @grag/hnsw', () => {
  it('names the package to install and the call to pass', async () => {
    const { dir } = await saved('no-hnsw', hnswCtx());
    vi.resetModules();
    vi.doMock('@grag/hnsw', () => {
      throw Object.assign(new Error("Cannot find package '@grag/hnsw' imported from load.js"), {
        code: 'ERR_MODULE_NOT_FOUND',
      });
    });
    try {
      const { loadGragIndex: fresh } = await import('../src/load.js');
      const error = await rejection(fresh(denseRag, dir, flatCtx()));
      expect(IndexFormatError.isInstance(error)).toBe(true);
      expect(error.message).toBe(
        `${dir} was built with vectorIndex 'hnsw', and @grag/hnsw is not installed: install it ` +
          '(`npm install @grag/hnsw`) to load the index, or pass `vectorIndex: hnswIndexFactory()` from @grag/hnsw in the context.',
      );
    } finally {
      vi.doUnmock('@grag/hnsw');
    }
  });
});
