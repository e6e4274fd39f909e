/**
 * Jobs across a restart: the journal in the served folder keeps the jobs; a new server on the
 * folder serves the last saved versions and tells what became of the jobs that had not finished —
 * done when their new version was saved whole, failed (nothing applied) otherwise.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JOURNAL_FILE, type Job, type RunningServer } from '../src/index.js';
import { call, docIdsOf, indexFolder, serveFolder, write } from './writes-fixture.js';

let dir: string;
const servers: RunningServer[] = [];

beforeEach(async () => {
  dir = await indexFolder();
}, 60_000);

afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  await rm(dir, { recursive: true, force: true });
});

async function start() {
  const started = await serveFolder(dir);
  servers.push(started.server);
  return started.server;
}

const versionOf = async (server: RunningServer, name: string) =>
  (await (await call(server.url, 'GET', `/v1/indexes/${name}`)).json()).version as string;

/** A job as a journal holds it, `status` and `baseVersion` as given. */
function journaled(fields: Partial<Job> & Pick<Job, 'id' | 'kind' | 'index' | 'status'>): Job {
  return {
    progress: null,
    baseVersion: null,
    version: null,
    documents: null,
    error: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    startedAt: fields.status === 'running' ? '2026-01-01T00:00:01.000Z' : null,
    finishedAt: null,
    ...fields,
  };
}

describe('a restart', () => {
  it('serves the saved version a job swapped in, under the same version id, and still knows the job', async () => {
    const first = await start();
    const job = await write(first.url, 'POST', '/v1/indexes/harbour/documents', {
      documents: [{ id: 'h-dredge', text: 'The dredger Kelpie deepened the Veldt channel in 1975.' }],
    });
    expect(job.status).toBe('done');
    await first.close();
    const second = await start();
    expect(await versionOf(second, 'harbour')).toBe(job.version);
    const body = await (
      await call(second.url, 'POST', '/v1/indexes/harbour/query', { question: 'dredger Kelpie channel' })
    ).json();
    expect(docIdsOf(body)).toContain('h-dredge');
    expect(await (await call(second.url, 'GET', `/v1/jobs/${job.id}`)).json()).toEqual(job);
  });

  it('reports a job that was running failed when its version was not saved, and a queued one too; the index is as it was', async () => {
    const first = await start();
    const current = await versionOf(first, 'harbour');
    await first.close();
    const jobs = [
      journaled({
        id: 'run-1',
        kind: 'add-documents',
        index: 'harbour',
        status: 'running',
        baseVersion: current,
      }),
      journaled({ id: 'queued-1', kind: 'remove-documents', index: 'harbour', status: 'queued' }),
      journaled({ id: 'create-1', kind: 'create-index', index: 'pier', status: 'running' }),
    ];
    await writeFile(
      join(dir, JOURNAL_FILE),
      JSON.stringify({ format: 'grag-server-jobs', version: 1, jobs }),
    );
    const second = await start();
    expect(await versionOf(second, 'harbour')).toBe(current);
    const run = await (await call(second.url, 'GET', '/v1/jobs/run-1')).json();
    expect(run).toMatchObject({ status: 'failed', version: null, error: { code: 'interrupted' } });
    expect(run.error.message).toBe(
      `The server stopped before this job finished; nothing of it was applied (the index "harbour" is at version ${current}). Submit it again.`,
    );
    expect(await (await call(second.url, 'GET', '/v1/jobs/queued-1')).json()).toMatchObject({
      status: 'failed',
      error: {
        code: 'interrupted',
        message: expect.stringMatching(/^The server stopped before this job started;/),
      },
    });
    expect((await (await call(second.url, 'GET', '/v1/jobs/create-1')).json()).status).toBe('failed');
    expect((await call(second.url, 'GET', '/v1/indexes/pier')).status).toBe(404);
    // The journal now says so too.
    const saved = JSON.parse(await readFile(join(dir, JOURNAL_FILE), 'utf8')).jobs as Job[];
    expect(saved.map((j) => j.status)).toEqual(['failed', 'failed', 'failed']);
  });

  it('reports a running job done when its new version was saved before the server stopped', async () => {
    const first = await start();
    const before = await versionOf(first, 'orchard');
    const job = await write(first.url, 'DELETE', '/v1/indexes/orchard/documents/o-frost');
    await first.close();
    // The journal as it was between the save and the job's end: running, from the old version.
    const jobs = [
      { ...job, status: 'running', version: null, documents: null, finishedAt: null, baseVersion: before },
    ];
    await writeFile(
      join(dir, JOURNAL_FILE),
      JSON.stringify({ format: 'grag-server-jobs', version: 1, jobs }),
    );
    const second = await start();
    expect(await (await call(second.url, 'GET', `/v1/jobs/${job.id}`)).json()).toMatchObject({
      status: 'done',
      version: job.version,
      error: null,
    });
  });

  it('refuses to start on a journal that is not one, naming the file', async () => {
    await writeFile(join(dir, JOURNAL_FILE), '{"jobs": 3}');
    await expect(start()).rejects.toThrow(
      `${join(dir, JOURNAL_FILE)} is not a grag job journal; move it away to start with no job history.`,
    );
  });
});
