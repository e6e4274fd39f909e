/**
 * The typed client (`@grag/server/client`) against a live server: each method's answer is what
 * the route answers, streamed answers come as events, failures as `GragApiError`s with the
 * server's code; and the client is browser-safe (it bundles for the browser with nothing of Node
 * or of the server in it).
 */
import { fileURLToPath } from 'node:url';
import { type Bm25RagIndex, bm25Rag } from '@grag/naive-rag';
import {
  createGragClient,
  GragApiError,
  type QueryResponse,
  type QueryStreamPart,
} from '@grag/server/client';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { createGragServer } from '../src/index.js';
import { get, postQuery, serveForTests, streamingChat, streamingIndexes } from './helpers.js';

const TOKEN = 'client-test-token';
const auth = { authorization: `Bearer ${TOKEN}` };
const chat = streamingChat(['Ilse Marren ', 'directs the ', 'institute [lindqvist].'], { delayMs: 20 });
const slow = streamingChat(['one ', 'two ', 'three ', 'four ', 'five ', 'six '], { delayMs: 100 });
let bm25: Bm25RagIndex;

const served = serveForTests(async () => {
  const streaming = await streamingIndexes({ chat, broken: streamingChat(['It '], { failAfter: 0 }), slow });
  bm25 = streaming.bm25;
  return {
    indexes: streaming.served,
    token: TOKEN,
    onError: () => {},
  };
});

const QUESTION = 'Who directs the institute on Orsa?';

describe('createGragClient against a live server', () => {
  const client = () => createGragClient({ baseUrl: served().url, token: TOKEN });

  it('lists the indexes, reads a document and the OpenAPI document, as the routes answer them', async () => {
    const grag = client();
    expect(await grag.health()).toEqual({ ok: true });
    const listed = await (await get(served().url, '/v1/indexes', { headers: auth })).json();
    expect(await grag.indexes()).toEqual(listed.indexes);
    expect(await grag.document('orsa', { method: 'bm25' })).toEqual({
      id: 'orsa',
      title: 'Orsa',
      text: expect.stringContaining('Veskan Strait'),
      index: 'bm25',
      version: listed.indexes[0].version,
    });
    const spec = await grag.openApi();
    expect(spec.openapi).toBe('3.1.0');
  });

  it('queries: the same response as the route, with and without an answer', async () => {
    const grag = client();
    // Everything but the timings (the response's ms, a trace's ms).
    const timeless = (res: QueryResponse) => ({
      ...res,
      ms: undefined,
      retrieval: { ...res.retrieval, trace: { ...res.retrieval.trace, ms: undefined } },
    });
    for (const request of [
      { question: QUESTION, method: 'bm25', topK: 2 },
      { question: QUESTION, method: 'scripted-graph', answer: true },
    ]) {
      const direct = (await (await postQuery(served().url, request, auth)).json()) as QueryResponse;
      expect(timeless(await grag.query(request))).toEqual(timeless(direct));
    }
  });

  it('streams an answer as events: retrieval, each delta, answer, done', async () => {
    const parts: QueryStreamPart[] = [];
    for await (const part of client().streamQuery({ question: QUESTION, method: 'scripted-graph' })) {
      parts.push(part);
    }
    expect(parts.map((p) => p.event)).toEqual(['retrieval', 'delta', 'delta', 'delta', 'answer', 'done']);
    const deltas = parts.flatMap((p) => (p.event === 'delta' ? [p.data.text] : []));
    expect(deltas.join('')).toBe('Ilse Marren directs the institute [lindqvist].');
    const retrieval = parts[0]!;
    if (retrieval.event !== 'retrieval') throw new Error('first event is not retrieval');
    expect(retrieval.data.retrieval.items.map((i) => i.id)).toEqual(['orsa', 'lindqvist']);
    expect(retrieval.data.answer).toBeUndefined();
    const answer = parts[4]!;
    if (answer.event !== 'answer') throw new Error('fifth event is not answer');
    expect(answer.data.citations).toEqual(['lindqvist']);
    expect(answer.data.sources).toEqual([{ id: 'lindqvist', docIds: ['lindqvist'], label: 'lindqvist' }]);
  });

  it("throws the server's errors as GragApiError with status and code", async () => {
    const grag = client();
    const failed = async (run: () => Promise<unknown>) => {
      try {
        await run();
      } catch (error) {
        expect(GragApiError.isInstance(error)).toBe(true);
        return error as GragApiError;
      }
      throw new Error('expected a failure');
    };
    const unknown = await failed(() => grag.query({ question: QUESTION, method: 'nope' }));
    expect([unknown.status, unknown.code]).toEqual([404, 'unknown_index']);
    expect(unknown.message).toContain('available: bm25, scripted-graph');
    const missing = await failed(() => grag.document('nope'));
    expect([missing.status, missing.code]).toEqual([404, 'not_found']);
    const noToken = await failed(() => createGragClient({ baseUrl: served().url }).indexes());
    expect([noToken.status, noToken.code]).toEqual([401, 'unauthorized']);
    const badTopK = await failed(() => grag.query({ question: QUESTION, topK: 0 }));
    expect([badTopK.status, badTopK.code]).toEqual([400, 'bad_request']);
    // A failure in the middle of a stream: the error event, thrown.
    const seen: string[] = [];
    const broken = await failed(async () => {
      for await (const part of grag.streamQuery({ question: QUESTION, method: 'broken' }))
        seen.push(part.event);
    });
    expect(seen).toEqual(['retrieval']);
    expect([broken.status, broken.code]).toEqual([200, 'internal_error']);
  });

  it('closes the connection when the loop is left early, which stops the model call', async () => {
    let deltas = 0;
    for await (const part of client().streamQuery({ question: QUESTION, method: 'slow' })) {
      if (part.event === 'delta' && ++deltas === 1) break;
    }
    await expect.poll(() => slow.aborted, { timeout: 3000 }).toBe(1);
  });

  it('aborts with the signal given', async () => {
    const controller = new AbortController();
    const pending = (async () => {
      for await (const _ of client().streamQuery(
        { question: QUESTION, method: 'slow' },
        { signal: controller.signal },
      )) {
        controller.abort();
      }
    })();
    await expect(pending).rejects.toThrow(/abort/i);
  });
});

describe('createGragClient options', () => {
  it('calls the fetch it is given, e.g. an app in the same process with no server', async () => {
    const app = createGragServer({ indexes: [{ method: bm25Rag, index: bm25 }], explorerDir: false });
    const urls: string[] = [];
    const grag = createGragClient({
      baseUrl: 'http://localhost/',
      fetch: async (url, init) => {
        urls.push(url);
        return app.request(url, init);
      },
    });
    const [index] = await grag.indexes();
    expect(index?.name).toBe('bm25');
    const res = await grag.query({ question: 'Who founded the Kessler Shipyard?', topK: 1 });
    expect(res.retrieval.items.map((i) => i.id)).toEqual(['kessler']);
    expect(urls).toEqual(['http://localhost/v1/indexes', 'http://localhost/v1/query']);
  });

  it('asks for a base URL outside a browser page', async () => {
    await expect(createGragClient().indexes()).rejects.toThrow(/pass baseUrl/);
  });
});

describe('the client entry in a browser bundle', () => {
  it('bundles for the browser from the client, its event-stream parser and its upload with progress alone, in a few KiB', async () => {
    const entry = fileURLToPath(new URL('../src/client.ts', import.meta.url));
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      minify: true,
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs).map((path) => path.replace(/^.*\/src\//, 'src/'));
    // Types only from the schemas: no TypeBox, no Node module, nothing of the server.
    expect(inputs.sort()).toEqual(['src/client-upload.ts', 'src/client.ts', 'src/sse.ts']);
    const bytes = result.outputFiles[0]!.contents.byteLength;
    // (6.6 KiB minified with the upload that reports its bytes sent.)
    expect(bytes).toBeLessThan(8 * 1024);
  });
});
