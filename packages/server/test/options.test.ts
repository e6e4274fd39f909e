import { InvalidArgumentError } from '@grag/core';
import { refusalOf } from '@grag/core/test/vitest';
import { bm25Rag } from '@grag/naive-rag';
import { beforeAll, describe, expect, it } from 'vitest';
import { createGragServer, serve } from '../src/index.js';
import { buildIndexes, get, scriptedIndex } from './helpers.js';

let bm25: Awaited<ReturnType<typeof buildIndexes>>['bm25'];

beforeAll(async () => {
  ({ bm25 } = await buildIndexes());
});

const refusal = (fn: () => unknown): string => refusalOf(fn, InvalidArgumentError).message;

describe('createGragServer options', () => {
  it('refuses no index, two indexes of one name, a bad name, a bad token and bad limits', () => {
    const one = { method: bm25Rag, index: bm25 };
    expect(refusal(() => createGragServer({ indexes: [] }))).toBe(
      'createGragServer: pass at least one index, e.g. { indexes: [{ method: bm25Rag, index }] }, or a folder (openIndexFolder) or methods and createContext to create indexes over HTTP.',
    );
    expect(refusal(() => createGragServer({ indexes: [one, one] }))).toBe(
      'createGragServer: two indexes are named "bm25"; serve one index per method or give each a name.',
    );
    expect(refusal(() => createGragServer({ indexes: [{ ...one, name: '../x' }] }))).toContain(
      `index name "../x" must be letters, digits`,
    );
    expect(refusal(() => createGragServer({ indexes: [one], token: '' }))).toContain(
      'token must be a non-empty string',
    );
    expect(refusal(() => createGragServer({ indexes: [one], token: 'has space' }))).toContain(
      'without spaces',
    );
    expect(refusal(() => createGragServer({ indexes: [one], bodyLimitBytes: 0 }))).toBe(
      'createGragServer: bodyLimitBytes must be a positive integer, got 0.',
    );
    expect(refusal(() => createGragServer({ indexes: [one], maxQuestionChars: 1.5 }))).toBe(
      'createGragServer: maxQuestionChars must be a positive integer, got 1.5.',
    );
  });

  it('serves two indexes of one method under names of their own', async () => {
    const app = createGragServer({
      indexes: [
        { method: bm25Rag, index: bm25, name: 'bm25-a' },
        { method: bm25Rag, index: bm25, name: 'bm25-b' },
      ],
      explorerDir: false,
    });
    const res = await app.request('/v1/query', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'Orsa', method: 'bm25-b', topK: 1 }),
    });
    expect(((await res.json()) as { index: string }).index).toBe('bm25-b');
  });

  it('answers in process through app.request, as on any runtime with web Request and Response', async () => {
    const app = createGragServer({ indexes: [{ method: bm25Rag, index: bm25 }], explorerDir: false });
    const res = await app.request('/v1/indexes');
    expect(res.status).toBe(200);
    expect(((await res.json()) as { indexes: { name: string }[] }).indexes[0]?.name).toBe('bm25');
  });

  it('refuses "answer": true with 400 answer_unavailable when answers are off', async () => {
    const app = createGragServer({
      indexes: [{ method: bm25Rag, index: bm25 }],
      answer: false,
      explorerDir: false,
    });
    const res = await app.request('/v1/query', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'q', answer: true }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: {
        code: 'answer_unavailable',
        message: 'This server gives no answers for index "bm25"; ask with "answer": false.',
      },
    });
  });

  it('refuses "answer": true for an index with nothing to answer with', async () => {
    const app = createGragServer({
      indexes: [scriptedIndex()],
      explorerDir: false,
    });
    const res = await app.request('/v1/query', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'q', answer: true }),
    });
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('answer_unavailable');
  });
});

describe('serve', () => {
  it('serves an app made by createGragServer on the host and port given', async () => {
    const app = createGragServer({ indexes: [{ method: bm25Rag, index: bm25 }], explorerDir: false });
    const server = await serve(app, { port: 0 });
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(await (await get(server.url, '/healthz')).json()).toEqual({ ok: true });
    } finally {
      await server.close();
    }
  });

  it('refuses a port in use in one line, and a port out of range', async () => {
    const first = await serve({ indexes: [{ method: bm25Rag, index: bm25 }], explorerDir: false, port: 0 });
    try {
      const port = Number(new URL(first.url).port);
      await expect(serve({ indexes: [{ method: bm25Rag, index: bm25 }], port })).rejects.toThrow(
        `serve: cannot listen on 127.0.0.1:${port} (EADDRINUSE); choose another --port or stop what uses it.`,
      );
    } finally {
      await first.close();
    }
    await expect(serve({ indexes: [{ method: bm25Rag, index: bm25 }], port: 70_000 })).rejects.toThrow(
      'serve: port must be an integer from 0 to 65535, got 70000.',
    );
  });

  it('closes with a keep-alive connection open, once for every call, then refuses connections', async () => {
    const server = await serve({ indexes: [{ method: bm25Rag, index: bm25 }], explorerDir: false, port: 0 });
    // fetch keeps the connection open for the next request; close() must not wait for it.
    expect((await get(server.url, '/healthz')).status).toBe(200);
    await server.close();
    await server.close();
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
  });
});
