import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { modelFingerprint } from '@grag/core';
import { citedSources } from '@grag/core/kit';
import { bm25Rag, denseRag } from '@grag/naive-rag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, serve } from '../src/index.js';
import {
  buildIndexes,
  DOCS,
  get,
  type JsonResponse,
  postQuery,
  scriptedIndex,
  streamingChat,
} from './helpers.js';

let server: RunningServer;
let explorerDir: string;
let indexes: Awaited<ReturnType<typeof buildIndexes>>;

beforeAll(async () => {
  indexes = await buildIndexes();
  explorerDir = await mkdtemp(join(tmpdir(), 'grag-server-explorer-'));
  await mkdir(join(explorerDir, 'assets'));
  await writeFile(join(explorerDir, 'index.html'), '<!doctype html><title>explorer</title>');
  await writeFile(join(explorerDir, 'assets', 'explorer.js'), 'console.log("explorer");');
  await writeFile(join(explorerDir, 'assets', 'explorer.css'), 'body { margin: 0 }');
  server = await serve({
    indexes: [
      { method: bm25Rag, index: indexes.bm25 },
      { method: denseRag, index: indexes.dense },
      scriptedIndex(streamingChat(['Ilse Marren ', 'directs it [lindqvist].'])),
    ],
    explorerDir,
    port: 0,
  });
});

afterAll(async () => {
  await server?.close();
  await rm(explorerDir, { recursive: true, force: true });
});

async function json(path: string, init?: RequestInit) {
  const res = await get(server.url, path, init);
  return { status: res.status, body: (await res.json()) as Awaited<ReturnType<JsonResponse['json']>> };
}

describe('grag server routes over HTTP', () => {
  it('listens on 127.0.0.1 by default', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('GET /healthz answers ok', async () => {
    expect(await json('/healthz')).toEqual({ status: 200, body: { ok: true } });
  });

  it('GET /v1/indexes lists each index with its method, counts, providers, passage ranking and options', async () => {
    const { status, body } = await json('/v1/indexes');
    expect(status).toBe(200);
    const providers = indexes.bm25.providers;
    expect(body.indexes[0]).toEqual({
      name: 'bm25',
      method: 'bm25',
      description: bm25Rag.description,
      documents: 3,
      chunks: 3,
      providers: {
        embedder: modelFingerprint(providers.embedder),
        tasks: providers.tasks.id,
        vectorIndex: 'flat',
      },
      passageRanking: { kinds: ['chunk'], order: 'context' },
      options: ['topK'],
      version: expect.stringMatching(/^m-[0-9a-f]{10}$/),
      writable: true,
    });
    expect(body.indexes[2].writable).toBe(false);
    expect(body.indexes.map((ix: { name: string }) => ix.name)).toEqual([
      'bm25',
      'naive-dense',
      'scripted-graph',
    ]);
    expect(body.indexes[2]).toMatchObject({
      documents: 0,
      chunks: null,
      providers: {},
      passageRanking: null,
      options: null,
    });
  });

  it('POST /v1/query retrieves from the first index by default, as the method itself does', async () => {
    const res = await postQuery(server.url, { question: 'Who founded the shipyard?', options: { topK: 1 } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = await res.json();
    const direct = await bm25Rag.retrieve(indexes.bm25, 'Who founded the shipyard?', { topK: 1 });
    expect(body.index).toBe('bm25');
    expect(body.method).toBe('bm25');
    // The same retrieval, but for the trace's own timing.
    const { ms: _a, ...trace } = body.retrieval.trace;
    const { ms: _b, ...directTrace } = direct.trace;
    expect({ ...body.retrieval, trace }).toEqual(
      JSON.parse(JSON.stringify({ ...direct, trace: directTrace })),
    );
    expect(body.retrieval.items.map((i: { id: string }) => i.id)).toEqual(['kessler']);
    expect(body.answer).toBeUndefined();
    expect(typeof body.ms).toBe('number');
  });

  it('passes budget and the options to the method', async () => {
    const res = await postQuery(server.url, {
      question: 'research vessel Aurora',
      method: 'naive-dense',
      options: { topK: 3 },
      budget: 30,
    });
    const body = await res.json();
    const direct = await denseRag.retrieve(indexes.dense, 'research vessel Aurora', {
      topK: 3,
      budgetTokens: 30,
    });
    expect(body.retrieval.items).toEqual(JSON.parse(JSON.stringify(direct.items)));
    expect(body.retrieval.tokens).toBeLessThanOrEqual(30);
  });

  it('answers with citations as the offline answer task does', async () => {
    const res = await postQuery(server.url, {
      question: 'Who founded the Kessler Shipyard?',
      topK: 2,
      answer: true,
    });
    const body = await res.json();
    const items = body.retrieval.items.map((i: { id: string; text: string }) => ({ id: i.id, text: i.text }));
    const expected = await indexes.bm25.providers.tasks.answer('Who founded the Kessler Shipyard?', items);
    expect(body.answer).toEqual({
      text: expected.answer,
      citations: expected.citations,
      sources: citedSources(expected.citations, body.retrieval.items),
    });
    expect(body.answer.text).toMatch(/Anton/);
    expect(body.answer.citations).toEqual(['kessler']);
  });

  it('returns the subgraph with the extras the method gives, and its entry points that are nodes', async () => {
    const res = await postQuery(server.url, {
      question: 'Who directs the institute on Orsa?',
      method: 'scripted-graph',
    });
    const body = await res.json();
    expect(body.retrieval.subgraph).toEqual({
      nodes: ['entity:orsa', 'entity:lindqvist institute', 'chunk:orsa'],
      edges: [
        ['entity:orsa', 'entity:lindqvist institute'],
        ['entity:orsa', 'chunk:orsa'],
      ],
      edgeLabels: ['located on', null],
    });
    expect(body.retrieval.entryPoints).toEqual(['entity:orsa']);
    expect(body.retrieval.trace).toEqual({ branch: 'local' });
  });

  it('answers through a chat model given as the answer source, parsing its citations', async () => {
    const res = await postQuery(server.url, {
      question: 'Who directs it?',
      method: 'scripted-graph',
      answer: true,
    });
    expect((await res.json()).answer).toEqual({
      text: 'Ilse Marren directs it [lindqvist].',
      citations: ['lindqvist'],
      sources: [{ id: 'lindqvist', docIds: ['lindqvist'], label: 'lindqvist' }],
    });
  });

  it('GET /v1/documents/:id returns the source document, title and text as given', async () => {
    for (const doc of DOCS) {
      const { status, body } = await json(`/v1/documents/${doc.id}?method=naive-dense`);
      expect(status).toBe(200);
      expect(body).toEqual({
        id: doc.id,
        title: doc.title,
        text: doc.text,
        index: 'naive-dense',
        version: expect.any(String),
      });
    }
    // The first index when no method is named.
    expect((await json('/v1/documents/orsa')).body.index).toBe('bm25');
  });

  it('GET /v1/documents/:id answers 404 not_found for an unknown id', async () => {
    const { status, body } = await json('/v1/documents/atlantis?method=bm25');
    expect(status).toBe(404);
    expect(body).toEqual({
      error: { code: 'not_found', message: 'No document "atlantis" in index "bm25".' },
    });
  });

  it('serves the explorer page at / and its assets under /assets/', async () => {
    const page = await get(server.url, '/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toBe('<!doctype html><title>explorer</title>');
    const js = await get(server.url, '/assets/explorer.js?v=abc');
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await js.text()).toBe('console.log("explorer");');
    const css = await get(server.url, '/assets/explorer.css');
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
  });

  it('serves only the asset names listed at startup', async () => {
    await writeFile(join(explorerDir, 'assets', 'late.js'), 'late');
    const late = await get(server.url, '/assets/late.js');
    expect(late.status).toBe(404);
    expect(await late.json()).toEqual({ error: { code: 'not_found', message: 'No such asset.' } });
  });

  it('answers an unknown route with a JSON 404', async () => {
    const { status, body } = await json('/v2/nothing');
    expect(status).toBe(404);
    expect(body.error.code).toBe('not_found');
  });
});

describe('explorer assets missing or off', () => {
  it('says at / how to build the explorer when its directory is missing', async () => {
    const missing = await serve({
      indexes: [{ method: bm25Rag, index: indexes.bm25 }],
      explorerDir: join(tmpdir(), 'grag-no-such-explorer-dir'),
      port: 0,
    });
    try {
      const res = await get(missing.url, '/');
      expect(res.status).toBe(200);
      const html = await res.text();
      expect(html).toContain('assets are not built');
      expect(html).toContain('npx -y pnpm@10 --filter @grag/server run build:explorer');
      expect(html).not.toContain('grag-no-such-explorer-dir');
      expect((await get(missing.url, '/assets/explorer.js')).status).toBe(404);
    } finally {
      await missing.close();
    }
  });

  it('serves no page with explorerDir: false', async () => {
    const off = await serve({
      indexes: [{ method: bm25Rag, index: indexes.bm25 }],
      explorerDir: false,
      port: 0,
    });
    try {
      const res = await get(off.url, '/');
      expect(res.status).toBe(404);
      expect((await res.json()).error.code).toBe('not_found');
    } finally {
      await off.close();
    }
  });
});
