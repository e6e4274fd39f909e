/**
 * Retrieval on worker threads (`workers`): the same items as on the server's thread for every
 * method served, errors as the same JSON, a crashed worker replaced.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Method } from '@grag/core';
import { e2GraphRag } from '@grag/e2graphrag';
import { bm25Rag, denseRag } from '@grag/naive-rag';
import { nodeRag } from '@grag/noderag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openIndexFolder, type RunningServer, serve } from '../src/index.js';
import { DOCS, offlineContext } from './helpers.js';
import { call } from './writes-fixture.js';

// biome-ignore lint/suspicious/noExplicitAny: indexes of every method
const METHODS = [bm25Rag, denseRag, e2GraphRag, nodeRag] as Method<any, any>[];
const SETUP = new URL('./fixtures/worker-setup.ts', import.meta.url);
const QUESTIONS = [
  'Who founded the Kessler Shipyard?',
  'Who directs the institute that owns the research vessel Aurora?',
  'Which island lies across the Veskan Strait?',
];

let dir: string;
let inProcess: RunningServer;
let pooled: RunningServer;

async function open() {
  return openIndexFolder(dir, { methods: METHODS, context: () => offlineContext() });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'grag-server-workers-'));
  for (const method of METHODS) {
    await method.save(await method.build(DOCS, offlineContext()), join(dir, method.name));
  }
  inProcess = await serve({ folder: await open(), explorerDir: false, port: 0, onError: () => {} });
  pooled = await serve({
    folder: await open(),
    explorerDir: false,
    port: 0,
    onError: () => {},
    workers: { count: 2, setup: SETUP },
  });
}, 120_000);

afterAll(async () => {
  await inProcess?.close();
  await pooled?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function query(server: RunningServer, name: string, body: Record<string, unknown>) {
  const res = await call(server.url, 'POST', `/v1/indexes/${name}/query`, body);
  return { status: res.status, body: await res.json() };
}

describe('retrieval workers', () => {
  it('answer the same items, context and version as the server thread, for every method', async () => {
    for (const method of METHODS) {
      for (const question of QUESTIONS) {
        for (const extra of [{}, { topK: 2, budget: 300 }]) {
          const a = await query(inProcess, method.name, { question, ...extra });
          const b = await query(pooled, method.name, { question, ...extra });
          expect(a.status, JSON.stringify(a.body)).toBe(200);
          expect(b.status, JSON.stringify(b.body)).toBe(200);
          expect(b.body.version).toBe(a.body.version);
          expect(b.body.retrieval.items, `${method.name}: ${question}`).toEqual(a.body.retrieval.items);
          expect(b.body.retrieval.context).toBe(a.body.retrieval.context);
          expect(b.body.retrieval.subgraph).toEqual(a.body.retrieval.subgraph);
        }
      }
    }
  }, 120_000);

  it('send the bytes the server thread sends, the retrieval serialised on the worker (all but timings)', async () => {
    for (const method of METHODS) {
      const body = { question: QUESTIONS[1], topK: 3 };
      const a = await call(inProcess.url, 'POST', `/v1/indexes/${method.name}/query`, body);
      const b = await call(pooled.url, 'POST', `/v1/indexes/${method.name}/query`, body);
      expect(b.headers.get('content-type')).toBe(a.headers.get('content-type'));
      // Timings (the trace's, after the items, and the response's) differ from run to run; the
      // bytes before the trace are the same, and so is the trace's shape.
      const withoutMs = (text: string) => {
        const at = text.indexOf('"trace":');
        return text.slice(0, at) + text.slice(at).replace(/-?[0-9][0-9.e+-]*/g, '0');
      };
      const [textA, textB] = [await a.text(), await b.text()];
      expect(withoutMs(textB), method.name).toBe(withoutMs(textA));
      expect(JSON.parse(textB).ms).toBeGreaterThanOrEqual(0);
    }
  });

  it('report a method option the method refuses as the same 400', async () => {
    const body = { question: QUESTIONS[0], options: { topK: -3 } };
    const a = await query(inProcess, 'noderag', body);
    const b = await query(pooled, 'noderag', body);
    expect(b.status).toBe(a.status);
    expect(b.body).toEqual(a.body);
  });

  it('answer chats from the workers too', async () => {
    const res = await call(pooled.url, 'POST', '/v1/indexes/bm25/chat', {
      messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: QUESTIONS[0] }] }],
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('kessler');
  });
});

describe('a crashed worker', () => {
  it('fails its request with a 500 and is replaced', async () => {
    const server = await serve({
      folder: await open(),
      explorerDir: false,
      port: 0,
      onError: () => {},
      workers: { count: 1, setup: SETUP, data: { crashOn: 'crash now' } },
    });
    try {
      const ok = await query(server, 'bm25', { question: QUESTIONS[0] });
      expect(ok.status).toBe(200);
      const crashed = await query(server, 'bm25', { question: 'crash now' });
      expect(crashed.status).toBe(500);
      expect(crashed.body.error.code).toBe('internal_error');
      const again = await query(server, 'bm25', { question: QUESTIONS[0] });
      expect(again.status).toBe(200);
      expect(again.body.retrieval.items).toEqual(ok.body.retrieval.items);
    } finally {
      await server.close();
    }
  }, 60_000);
});
