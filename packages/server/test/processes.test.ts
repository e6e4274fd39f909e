/**
 * `serve({ processes: 2 })`: two replica processes behind one port, the writes and jobs in the
 * primary. Each route answers through a replica exactly as a one-process server on the same
 * folder does (workspace tokens, Host checks, bodies); a job is read from any process; a replica
 * that dies is reported and replaced; `close()` leaves no process behind; and what replicas cannot
 * serve is refused in one line. (`consistency.test.ts` runs its 32 clients against two processes.)
 */
import { execFileSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { bm25Rag } from '@grag/naive-rag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, serve } from '../src/index.js';
import { offlineContext } from './helpers.js';
import { rawRequest } from './http.js';
import { bearer, call, indexFolder, serveFolder, TOKENS, WORKSPACES, write } from './writes-fixture.js';

const SETUP = new URL('./fixtures/worker-setup.ts', import.meta.url);

/** The replica processes of this test process (their pids). */
function replicaPids(): number[] {
  const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((line) => line.includes('replica-entry'))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

interface Side {
  dir: string;
  server: RunningServer;
  /** A job of the `port` workspace. */
  job: string;
}

const errors: string[] = [];
const one = {} as Side;
const two = {} as Side;

async function start(side: Side, processes: number) {
  side.dir = await indexFolder();
  ({ server: side.server } = await serveFolder(side.dir, {
    tokens: TOKENS,
    workspaces: WORKSPACES,
    ...(processes > 1
      ? { processes: { count: processes, setup: SETUP }, onError: (e) => errors.push(String(e)) }
      : {}),
  }));
  const upload = { documents: [{ id: 'h-gull', text: 'Gulls circle the Veldt harbour fish market.' }] };
  side.job = (
    await write(side.server.url, 'POST', '/v1/indexes/harbour/documents', upload, bearer('a-write'))
  ).id;
}

beforeAll(async () => {
  await Promise.all([start(one, 1), start(two, 2)]);
}, 120_000);

afterAll(async () => {
  await Promise.all([one.server?.close(), two.server?.close()]);
  await Promise.all([one, two].map((side) => side.dir && rm(side.dir, { recursive: true, force: true })));
});

/** Requests as `[method, path, body, headers]`, for the job `job`. */
function requests(job: string): [string, string, string | undefined, Record<string, string>][] {
  const json = { 'content-type': 'application/json' };
  const b = { ...json, ...bearer('b-write') };
  const query = JSON.stringify({ question: 'harbour' });
  return [
    ['GET', '/v1/indexes', undefined, bearer('b-write')],
    ['GET', '/v1/indexes/harbour', undefined, bearer('b-write')],
    ['POST', '/v1/indexes/harbour/query', query, b],
    ['POST', '/v1/query', JSON.stringify({ question: 'harbour', method: 'harbour' }), b],
    ['GET', '/v1/indexes/harbour/documents/h-lamp', undefined, bearer('b-write')],
    ['POST', '/v1/indexes/harbour/documents', JSON.stringify({ documents: [{ id: 'x', text: 'x' }] }), b],
    ['DELETE', '/v1/indexes/harbour/documents/h-lamp', undefined, bearer('b-write')],
    ['DELETE', '/v1/indexes/harbour', undefined, bearer('b-write')],
    ['GET', `/v1/jobs/${job}`, undefined, bearer('b-write')],
    ['GET', `/v1/jobs/${job}/events`, undefined, bearer('b-write')],
    ['DELETE', '/v1/indexes/harbour', undefined, bearer('a-read')],
    [
      'POST',
      '/v1/indexes',
      JSON.stringify({ name: 'dock', method: 'bm25', documents: [] }),
      { ...json, ...bearer('a-read') },
    ],
    ['GET', '/v1/indexes', undefined, {}],
    ['GET', '/v1/indexes', undefined, { ...bearer('admin-key'), host: 'attacker.example:80' }],
    ['POST', '/v1/indexes/orchard/query', query, { ...bearer('b-write'), 'content-type': 'text/plain' }],
    ['POST', '/v1/indexes/orchard/documents', 'x', { ...bearer('b-write'), 'content-type': 'text/plain' }],
    ['GET', '/v1/methods', undefined, bearer('b-write')],
  ];
}

describe('serve with processes: 2', () => {
  it('answers each route through a replica as one process does (workspaces, tokens, Host, bodies)', async () => {
    expect(replicaPids()).toHaveLength(2);
    const mine = requests(one.job);
    const theirs = requests(two.job);
    for (const [i, [method, path, body, headers]] of mine.entries()) {
      const a = await rawRequest(one.server.url, path, { method, ...(body ? { body } : {}), headers });
      const [m2, p2, b2, h2] = theirs[i]!;
      const b = await rawRequest(two.server.url, p2, {
        method: m2,
        ...(b2 ? { body: b2 } : {}),
        headers: h2,
      });
      expect(b.status, `${method} ${path}`).toBe(a.status);
      const same = (text: string, job: string) =>
        text.replaceAll(job, 'JOB').replace(/"(version|baseVersion)":"[0-9a-f]{12}"/g, '"$1":"V"');
      expect(same(b.body, two.job), `${method} ${path}`).toBe(same(a.body, one.job));
      expect(a.status === 200 || a.status >= 400, `${method} ${path}`).toBe(true);
    }
  });

  it("reads a job's status and events from every process", async () => {
    const seen = new Set<string>();
    // Each raw request opens its own connection: the primary hands them to the replicas in turn.
    for (let i = 0; i < 6; i++) {
      const res = await rawRequest(two.server.url, `/v1/jobs/${two.job}`, { headers: bearer('a-read') });
      expect(res.status).toBe(200);
      seen.add(JSON.parse(res.body).status);
      const events = await rawRequest(two.server.url, `/v1/jobs/${two.job}/events`, {
        headers: bearer('a-read'),
      });
      expect(events.status).toBe(200);
      expect(events.body).toContain('event: end');
    }
    expect([...seen]).toEqual(['done']);
  });

  it('reports a replica that dies and starts another; the port keeps answering', async () => {
    const [victim] = replicaPids();
    process.kill(victim!, 'SIGKILL');
    for (let i = 0; i < 100 && !(replicaPids().length === 2 && !replicaPids().includes(victim!)); i++)
      await new Promise((r) => setTimeout(r, 100));
    const now = replicaPids();
    expect(now).toHaveLength(2);
    expect(now).not.toContain(victim);
    expect(errors.some((e) => e.includes(`replica process ${victim} exited`))).toBe(true);
    for (let i = 0; i < 6; i++) {
      const res = await call(
        two.server.url,
        'POST',
        '/v1/indexes/harbour/query',
        { question: 'gulls' },
        bearer('a-read'),
      );
      expect(res.status).toBe(200);
    }
  }, 30_000);

  it('refuses what replicas cannot serve, in one line', async () => {
    const index = await bm25Rag.build([{ id: 'm', text: 'A pier of invented stone.' }], offlineContext(), {});
    const inMemory = serve({
      indexes: [{ method: bm25Rag, index }],
      port: 0,
      processes: { count: 2, setup: SETUP },
    });
    await expect(inMemory).rejects.toThrow(
      'serve: processes > 1 serves only indexes saved in directories ("bm25" is kept in memory); serve it with one process.',
    );
    const store = { location: 'postgres://db/x#bm25' } as never;
    const stored = serve({
      indexes: [{ method: bm25Rag, index, target: store }],
      port: 0,
      processes: { count: 2, setup: SETUP },
    });
    await expect(stored).rejects.toThrow('is in a store such as PostgreSQL');
    await expect(serve({ indexes: [{ method: bm25Rag, index }], port: 0, processes: 2 })).rejects.toThrow(
      'needs a setup module',
    );
  });

  it('refuses a port in use as one process does, and reports replicas that cannot start, leaving none', async () => {
    const taken = Number(new URL(two.server.url).port);
    await expect(
      serveFolder(one.dir, { processes: { count: 2, setup: SETUP }, port: taken }),
    ).rejects.toThrow(
      `serve: cannot listen on 127.0.0.1:${taken} (EADDRINUSE); choose another --port or stop what uses it.`,
    );
    const missing = new URL('./fixtures/no-such-setup.ts', import.meta.url);
    await expect(serveFolder(one.dir, { processes: { count: 2, setup: missing } })).rejects.toThrow(
      /no-such-setup/,
    );
    for (let i = 0; i < 50 && replicaPids().length > 2; i++) await new Promise((r) => setTimeout(r, 100));
    expect(replicaPids()).toHaveLength(2);
  }, 30_000);

  it('stops every replica on close()', async () => {
    expect(replicaPids()).toHaveLength(2);
    await two.server.close();
    expect(replicaPids()).toEqual([]);
  });
});
