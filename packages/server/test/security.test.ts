/**
 * The server's safe defaults over real HTTP: the bearer token, the body and question limits, one-line
 * 400s, JSON 404s, no stack traces, and no file outside the served data reachable by `../` in any
 * field of a request.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Method } from '@grag/core';
import { bm25Rag } from '@grag/naive-rag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadIndexes, type RunningServer, serve } from '../src/index.js';
import { buildIndexes, get, offlineContext, postQuery, rawRequest } from './helpers.js';

const TOKEN = 'tok-3f9c2a7e';
const SECRET = 'TOP-SECRET-7d41c9-do-not-serve';

let root: string;
let server: RunningServer;
const logged: string[] = [];

/** A method whose retrieval fails with a message and a stack that must not reach the client. */
const failing: Method<object> = {
  name: 'failing',
  description: 'fails',
  capabilities: { uses: [] },
  formatVersion: 1,
  build: async () => ({}),
  retrieve: async () => {
    throw new Error(`cannot open /srv/${SECRET}/chunks.json\n    at retrieve (/srv/app/method.ts:12:3)`);
  },
  save: async () => {},
  load: async () => ({}),
};

beforeAll(async () => {
  // root/secret sits next to the index directory and the explorer directory.
  root = await mkdtemp(join(tmpdir(), 'grag-server-security-'));
  await writeFile(join(root, 'secret'), SECRET);
  await writeFile(join(root, 'secret.js'), SECRET);
  const { bm25 } = await buildIndexes();
  await bm25Rag.save(bm25, join(root, 'index'));
  await mkdir(join(root, 'explorer', 'assets'), { recursive: true });
  await writeFile(join(root, 'explorer', 'index.html'), '<!doctype html><title>explorer</title>');
  await writeFile(join(root, 'explorer', 'assets', 'explorer.js'), '/* explorer */');
  const loaded = await loadIndexes([join(root, 'index')], {
    methods: [bm25Rag],
    context: () => offlineContext(),
  });
  server = await serve({
    indexes: [...loaded, { method: failing, index: {} }],
    token: TOKEN,
    bodyLimitBytes: 4096,
    maxQuestionChars: 200,
    explorerDir: join(root, 'explorer'),
    onError: (error, where) => logged.push(`${where}: ${(error as Error).message}`),
    port: 0,
  });
});

afterAll(async () => {
  await server?.close();
  await rm(root, { recursive: true, force: true });
});

const auth = { authorization: `Bearer ${TOKEN}` };

async function query(body: unknown, headers: Record<string, string> = auth) {
  const res = await postQuery(server.url, body, headers);
  return { status: res.status, body: (await res.json()) as { error?: { code: string; message: string } } };
}

describe('bearer token', () => {
  it('refuses every API route without the token with 401 and a JSON error', async () => {
    for (const [path, init] of [
      ['/v1/indexes', {}],
      ['/v1/documents/kessler', {}],
      ['/v1/query', { method: 'POST', body: JSON.stringify({ question: 'q' }) }],
    ] as const) {
      const res = await get(server.url, path, init);
      expect(res.status, path).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect(await res.json()).toEqual({
        error: {
          code: 'unauthorized',
          message: 'Missing or wrong bearer token: send Authorization: Bearer <token>.',
        },
      });
    }
  });

  it('refuses a wrong token, another scheme and the token with a suffix', async () => {
    for (const authorization of [`Bearer ${TOKEN}x`, 'Bearer tok', `Basic ${TOKEN}`, TOKEN, `Bearer  `]) {
      const res = await get(server.url, '/v1/indexes', { headers: { authorization } });
      expect(res.status, authorization).toBe(401);
    }
  });

  it('answers with the token (the scheme in any case)', async () => {
    expect((await get(server.url, '/v1/indexes', { headers: auth })).status).toBe(200);
    const lower = await get(server.url, '/v1/indexes', {
      headers: { authorization: `bearer ${TOKEN}` },
    });
    expect(lower.status).toBe(200);
    expect((await query({ question: 'Who founded the shipyard?' })).status).toBe(200);
  });

  it('leaves /healthz and the explorer files open', async () => {
    expect((await get(server.url, '/healthz')).status).toBe(200);
    expect((await get(server.url, '/')).status).toBe(200);
    expect((await get(server.url, '/assets/explorer.js')).status).toBe(200);
  });
});

describe('request limits and bad requests', () => {
  it('answers 413 payload_too_large for a body over the limit, with or without Content-Length', async () => {
    const body = JSON.stringify({ question: 'q', method: 'x'.repeat(5000) });
    for (const chunked of [false, true]) {
      const res = await rawRequest(server.url, '/v1/query', {
        method: 'POST',
        body,
        chunked,
        headers: { ...auth, 'content-type': 'application/json' },
      });
      expect(res.status, `chunked: ${chunked}`).toBe(413);
      expect(JSON.parse(res.body)).toEqual({
        error: { code: 'payload_too_large', message: 'The request body is over the limit of 4096 bytes.' },
      });
    }
  });

  it('answers 400 with a one-line message for a missing, empty, non-string or too long question', async () => {
    const cases: [unknown, string][] = [
      [{}, 'Missing "question": send {"question": "<your question>"}.'],
      [{ question: '   ' }, '"question" is empty: send the text of your question.'],
      [{ question: 42 }, '"question" must be a string, got a number.'],
      [{ question: null }, '"question" must be a string, got null.'],
      [{ question: 'x'.repeat(201) }, '"question" has 201 characters; the limit is 200.'],
      [['question'], 'The body must be a JSON object like {"question": "..."}, got an array.'],
      [{ question: 'q', topK: 0 }, '"topK" must be a positive integer, got 0.'],
      [{ question: 'q', budget: 1.5 }, '"budget" must be a positive integer, got 1.5.'],
      [{ question: 'q', answer: 'yes' }, '"answer" must be true or false, got "yes".'],
      [
        { question: 'q', options: [1] },
        '"options" must be an object of the method\'s retrieve options, e.g. {"topK": 20}, got an array.',
      ],
      [
        { question: 'q', topk: 3 },
        'Unknown field "topk"; a query takes question, method, budget, topK, options, answer, stream.',
      ],
    ];
    for (const [body, message] of cases) {
      const res = await query(body);
      expect(res, JSON.stringify(body)).toEqual({
        status: 400,
        body: { error: { code: 'bad_request', message } },
      });
      expect(message).not.toContain('\n');
    }
  });

  it('counts the question limit in characters, not bytes', async () => {
    expect((await query({ question: `${'é'.repeat(199)}?` })).status).toBe(200);
  });

  it('answers 400 for a body that is not JSON', async () => {
    const res = await rawRequest(server.url, '/v1/query', {
      method: 'POST',
      body: '{"question": ',
      headers: { ...auth, 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).error).toEqual({
      code: 'bad_request',
      message: 'The body is not valid JSON; send {"question": "<your question>"}.',
    });
  });

  it('answers 404 unknown_index listing the available indexes', async () => {
    expect(await query({ question: 'q', method: 'noderag' })).toEqual({
      status: 404,
      body: {
        error: { code: 'unknown_index', message: 'No index named "noderag"; available: bm25, failing.' },
      },
    });
  });
});

describe('errors', () => {
  it('answers a failure inside a method with a JSON 500 that carries no message, path or stack', async () => {
    const res = await postQuery(server.url, { question: 'q', method: 'failing' }, auth);
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({
      error: {
        code: 'internal_error',
        message: 'The server failed to answer this request; see the server log.',
      },
    });
    expect(text).not.toContain(SECRET);
    expect(text).not.toMatch(/\bat \S+ \(/);
    expect(logged.at(-1)).toContain('POST /v1/query: cannot open');
  });
});

describe('no path from a request reaches the file system', () => {
  const attempts: [string, () => Promise<{ status: number; body: string }>][] = [
    ['method ../secret', () => rawQuery({ question: 'q', method: '../secret' })],
    ['method ../../secret', () => rawQuery({ question: 'q', method: '../../secret' })],
    ['method absolute', () => rawQuery({ question: 'q', method: join(root, 'secret') })],
    ['document ..%2Fsecret', () => getRaw('/v1/documents/..%2Fsecret')],
    ['document raw ../', () => getRaw('/v1/documents/../../secret')],
    ['document %2e%2e', () => getRaw('/v1/documents/%2e%2e%2f%2e%2e%2fsecret')],
    ['document id with ?method=../', () => getRaw('/v1/documents/kessler?method=../secret')],
    ['document id ../index/manifest.json', () => getRaw('/v1/documents/..%2Findex%2Fmanifest.json')],
    ['asset ..%2F', () => getRaw('/assets/..%2F..%2Fsecret')],
    ['asset raw ../', () => getRaw('/assets/../../secret.js')],
    ['asset encoded dots', () => getRaw('/assets/%2e%2e/%2e%2e/secret.js')],
    ['asset backslash', () => getRaw('/assets/..%5C..%5Csecret.js')],
    ['root ../', () => getRaw('/../secret')],
    ['assets dir itself', () => getRaw('/assets/')],
  ];

  function getRaw(path: string) {
    return rawRequest(server.url, path, { headers: auth });
  }
  function rawQuery(body: unknown) {
    return rawRequest(server.url, '/v1/query', {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { ...auth, 'content-type': 'application/json' },
    });
  }

  it.each(attempts)('%s answers 404 and never the secret', async (_name, attempt) => {
    const res = await attempt();
    expect(res.status).toBe(404);
    expect(res.body).not.toContain(SECRET);
    expect(() => JSON.parse(res.body)).not.toThrow();
  });

  it('does not serve the index files either', async () => {
    const res = await getRaw('/v1/documents/manifest.json');
    expect(res.status).toBe(404);
    expect(res.body).not.toContain('"formatVersion"');
  });
});
