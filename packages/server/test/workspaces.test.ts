/**
 * Workspaces and scoped tokens: a token of one workspace sees only that workspace's indexes and
 * jobs. Every route tried with another workspace's token answers exactly as for an index or job
 * that does not exist (404, naming only its own indexes), so it reveals nothing; a read token
 * cannot write (403); an admin token reaches everything.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, WORKSPACES_FILE } from '../src/index.js';
import {
  bearer,
  call,
  indexFolder,
  jobEvents,
  serveFolder,
  TOKENS,
  WORKSPACES,
  write,
} from './writes-fixture.js';

let dir: string;
let server: RunningServer;
/** A job of the `port` workspace (an upload to harbour). */
let portJob: string;

async function start() {
  ({ server } = await serveFolder(dir, { tokens: TOKENS, workspaces: WORKSPACES }));
}

beforeAll(async () => {
  dir = await indexFolder();
  await start();
  portJob = (
    await write(
      server.url,
      'POST',
      '/v1/indexes/harbour/documents',
      { documents: [{ id: 'h-gull', text: 'Gulls circle the Veldt harbour fish market.' }] },
      bearer('a-write'),
    )
  ).id;
}, 60_000);

afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Every route that names an index or a job, as `[method, path, body]`, for the index `name` and the job `job`. */
function routes(name: string, job: string): [string, string, unknown][] {
  return [
    ['GET', `/v1/indexes/${name}`, undefined],
    ['POST', `/v1/indexes/${name}/query`, { question: 'harbour' }],
    [
      'POST',
      `/v1/indexes/${name}/chat`,
      { messages: [{ role: 'user', parts: [{ type: 'text', text: 'harbour' }] }] },
    ],
    ['POST', '/v1/query', { question: 'harbour', method: name }],
    ['GET', `/v1/indexes/${name}/documents`, undefined],
    ['GET', `/v1/indexes/${name}/documents/h-lamp`, undefined],
    ['GET', `/v1/documents/h-lamp?method=${name}`, undefined],
    ['GET', `/v1/indexes/${name}/graph?q=lamp`, undefined],
    ['GET', `/v1/indexes/${name}/graph/nodes/h-lamp`, undefined],
    ['POST', `/v1/indexes/${name}/documents`, { documents: [{ id: 'x', text: 'x' }] }],
    ['DELETE', `/v1/indexes/${name}/documents/h-lamp`, undefined],
    ['DELETE', `/v1/indexes/${name}`, undefined],
    ['GET', `/v1/jobs/${job}`, undefined],
    ['GET', `/v1/jobs/${job}/events`, undefined],
  ];
}

describe('workspaces', () => {
  it("answers every route with another workspace's index or job exactly as for one that does not exist", async () => {
    const theirs = routes('harbour', portJob);
    const none = routes('nowhere', 'no-such-job');
    for (const [i, [method, path, body]] of theirs.entries()) {
      const res = await call(server.url, method, path, body, bearer('b-write'));
      const missing = await call(server.url, none[i]![0], none[i]![1], none[i]![2], bearer('b-write'));
      expect(res.status, `${method} ${path}`).toBe(404);
      const text = await res.text();
      const expected = (await missing.text())
        .replaceAll('nowhere', 'harbour')
        .replaceAll('no-such-job', portJob);
      expect(text, `${method} ${path}`).toBe(expected);
      expect(text).not.toContain('h-lamp"');
    }
    // Nothing was written through them.
    const admin = await (
      await call(server.url, 'GET', '/v1/indexes/harbour/documents/h-lamp', undefined, bearer('admin-key'))
    ).json();
    expect(admin.id).toBe('h-lamp');
  });

  it("lists only the workspace's indexes, and asks its first index by default", async () => {
    const list = async (token: string) =>
      (
        (await (await call(server.url, 'GET', '/v1/indexes', undefined, bearer(token))).json()).indexes as {
          name: string;
        }[]
      ).map((ix) => ix.name);
    expect(await list('b-write')).toEqual(['orchard']);
    expect(await list('a-read')).toEqual(['harbour']);
    expect(await list('admin-key')).toEqual(['harbour', 'orchard']);
    const body = await (
      await call(server.url, 'POST', '/v1/query', { question: 'harbour quince' }, bearer('b-write'))
    ).json();
    expect(body.index).toBe('orchard');
    const unknown = await call(server.url, 'GET', '/v1/indexes/harbour', undefined, bearer('b-write'));
    expect((await unknown.json()).error.message).toBe('No index named "harbour"; available: orchard.');
  });

  it('lets a read token read its workspace but not write it (403)', async () => {
    expect(
      (await call(server.url, 'POST', '/v1/indexes/harbour/query', { question: 'lamp' }, bearer('a-read')))
        .status,
    ).toBe(200);
    expect((await call(server.url, 'GET', `/v1/jobs/${portJob}`, undefined, bearer('a-read'))).status).toBe(
      200,
    );
    for (const [method, path, body] of [
      ['POST', '/v1/indexes/harbour/documents', { documents: [{ id: 'x', text: 'x' }] }],
      ['DELETE', '/v1/indexes/harbour/documents/h-lamp', undefined],
      ['DELETE', '/v1/indexes/harbour', undefined],
      ['POST', '/v1/indexes', { name: 'dock', method: 'bm25', documents: [{ id: 'x', text: 'x' }] }],
    ] as const) {
      const res = await call(server.url, method, path, body, bearer('a-read'));
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(await res.json()).toEqual({
        error: {
          code: 'forbidden',
          message: 'This token may only read workspace "port"; writes need a write token of the workspace.',
        },
      });
    }
    expect((await call(server.url, 'GET', '/v1/indexes', undefined, bearer('wrong'))).status).toBe(401);
  });

  it('puts an index a workspace creates in that workspace, kept across a restart', async () => {
    const job = await write(
      server.url,
      'POST',
      '/v1/indexes',
      {
        name: 'barn',
        method: 'bm25',
        documents: [{ id: 'b-hay', text: 'Hay bales fill the Brannock barn loft.' }],
      },
      bearer('b-write'),
    );
    expect(job.status).toBe('done');
    expect(JSON.parse(await readFile(join(dir, WORKSPACES_FILE), 'utf8')).indexes.barn).toBe('farm');
    await server.close();
    await start();
    expect((await call(server.url, 'GET', '/v1/indexes/barn', undefined, bearer('b-write'))).status).toBe(
      200,
    );
    expect((await call(server.url, 'GET', '/v1/indexes/barn', undefined, bearer('a-write'))).status).toBe(
      404,
    );
    expect((await call(server.url, 'GET', `/v1/jobs/${job.id}`, undefined, bearer('a-write'))).status).toBe(
      404,
    );
    expect((await call(server.url, 'GET', `/v1/jobs/${job.id}`, undefined, bearer('admin-key'))).status).toBe(
      200,
    );
  });

  it('keeps every index two workspaces create at once in the workspace map', async () => {
    const create = (name: string, token: string) =>
      call(
        server.url,
        'POST',
        '/v1/indexes',
        {
          name,
          method: 'bm25',
          documents: [{ id: `${name}-1`, text: `The ${name} of Veldt keeps records.` }],
        },
        bearer(token),
      );
    const responses = await Promise.all([
      create('quay', 'a-write'),
      create('silo', 'b-write'),
      create('wharf', 'a-write'),
    ]);
    expect(responses.map((r) => r.status)).toEqual([202, 202, 202]);
    for (const res of responses) await jobEvents(server.url, (await res.json()).id, bearer('admin-key'));
    const saved = JSON.parse(await readFile(join(dir, WORKSPACES_FILE), 'utf8')).indexes;
    expect(saved).toMatchObject({ quay: 'port', silo: 'farm', wharf: 'port' });
  });

  it('refuses bad token settings in one line', async () => {
    await expect(serveFolder(dir, { tokens: [{ token: 'x', access: 'write' }] })).rejects.toThrow(
      'createGragServer: tokens[0].workspace must name the workspace',
    );
    await expect(
      serveFolder(dir, { tokens: [{ token: 'x', access: 'admin', workspace: 'port' }] }),
    ).rejects.toThrow('an admin token has no workspace');
  });
});
