/**
 * A client that disconnects cancels the retrieval it asked for: on a retrieval worker (which
 * computes without a pause, and stops at its next check of the signal; the worker is kept) and on
 * the server's own thread. The retrieval says when it starts and when it stops (slow-method.ts);
 * after each disconnect the server answers the next queries, logs nothing, and keeps its worker.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { bm25Rag } from '@grag/naive-rag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type IndexFolder,
  openIndexFolder,
  type RunningServer,
  type ServeOptions,
  serve,
} from '../src/index.js';
import { type SlowEvent, slowOn } from './fixtures/slow-method.js';
import { DOCS, offlineContext } from './helpers.js';
import { call } from './writes-fixture.js';

const SETUP = new URL('./fixtures/worker-setup.ts', import.meta.url);
const SLOW = 'Which harbour log never ends?';
const channelName = `grag-cancel-${randomUUID()}`;
const heard: SlowEvent[] = [];
const channel = new BroadcastChannel(channelName);
channel.onmessage = (message: { data: SlowEvent }) => {
  heard.push(message.data);
};

let dir: string;
const errors: string[] = [];
const servers: RunningServer[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'grag-server-cancel-'));
  await bm25Rag.save(await bm25Rag.build(DOCS, offlineContext()), join(dir, 'bm25'));
}, 60_000);

afterAll(async () => {
  for (const server of servers) await server.close();
  channel.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Resolves once the slow retrieval has said `event` `count` times in all. */
async function heardTimes(event: SlowEvent['event'], count: number): Promise<SlowEvent[]> {
  while (heard.filter((e) => e.event === event).length < count) {
    if (heard.some((e) => e.event === 'finished')) throw new Error('the slow retrieval ran to its end');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return heard.filter((e) => e.event === event);
}

/** POST the slow question and leave the request open; `close()` drops the connection. */
function askAndHang(url: string): { close(): void } {
  const req = request(`${url}/v1/indexes/bm25/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
  });
  req.on('error', () => {});
  req.end(JSON.stringify({ question: SLOW }));
  return { close: () => req.destroy() };
}

/** `folder` served on a free port without the explorer, its errors kept in `errors`, closed after the tests. */
async function serveFolder(folder: IndexFolder, options: Partial<ServeOptions> = {}): Promise<RunningServer> {
  const server = await serve({
    folder,
    explorerDir: false,
    port: 0,
    onError: (error) => errors.push(String(error)),
    ...options,
  });
  servers.push(server);
  return server;
}

/** Two slow queries dropped in turn, each stopped; the server answers after each. */
async function dropTwice(server: RunningServer): Promise<SlowEvent[]> {
  heard.length = 0;
  for (let round = 1; round <= 2; round++) {
    const hanging = askAndHang(server.url);
    await heardTimes('started', round);
    hanging.close();
    await heardTimes('aborted', round);
    const res = await call(server.url, 'POST', '/v1/indexes/bm25/query', {
      question: 'Who founded the Kessler Shipyard?',
      topK: 1,
    });
    expect(res.status).toBe(200);
    expect((await res.json()).retrieval.items[0].source.docIds).toEqual(['kessler']);
  }
  expect((await call(server.url, 'GET', '/healthz')).status).toBe(200);
  expect(heard.some((e) => e.event === 'finished')).toBe(false);
  expect(errors).toEqual([]);
  return heard;
}

describe('a client that disconnects', () => {
  it('stops its retrieval on a worker thread, and the same worker answers on', async () => {
    const folder = await openIndexFolder(dir, { methods: [bm25Rag], context: () => offlineContext() });
    const server = await serveFolder(folder, {
      workers: { count: 1, setup: SETUP, data: { slow: { question: SLOW, channel: channelName } } },
    });
    const events = await dropTwice(server);
    expect(events.map((e) => e.event)).toEqual(['started', 'aborted', 'started', 'aborted']);
    // One worker thread, never replaced (piscina's own abort would have ended it), and not the server's.
    const threads = new Set(events.map((e) => e.thread));
    expect(threads.size).toBe(1);
    expect(threads.has(threadId)).toBe(false);
  }, 120_000);

  it("stops its retrieval on the server's own thread", async () => {
    const slow = slowOn(bm25Rag, SLOW, channelName, true);
    const folder = await openIndexFolder(dir, { methods: [slow], context: () => offlineContext() });
    const server = await serveFolder(folder);
    const events = await dropTwice(server);
    expect(events.map((e) => [e.event, e.thread])).toEqual([
      ['started', threadId],
      ['aborted', threadId],
      ['started', threadId],
      ['aborted', threadId],
    ]);
  }, 120_000);
});
