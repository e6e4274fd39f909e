/**
 * `grag serve --store <url> --jobs-dir <folder>` killed (SIGKILL) while an upload and an index
 * creation wait on the models, then started again: the jobs, journaled with their inputs in the
 * jobs folder, run again under their ids and end done, each index in the database at one whole new
 * version. The database is PGlite served over the wire in this process (it outlives the server);
 * the server a child process, its models an OpenAI-compatible stub that holds requests.
 */
import { join } from 'node:path';
import { listPostgresIndexes } from '@grag/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exited } from './index-child.js';
import { PASSWORD, type SocketDb, servePglite } from './pg-harness.js';
import {
  call,
  citedDocs,
  createDenseIndex,
  documentIds,
  finished,
  killWhileJobsWait,
  killWhileSavingThenRestart,
  serveFixture,
  settledDir,
  startServe,
} from './serve-child.js';

let db: SocketDb;
// PGlite's start takes seconds on a loaded machine: a bound for a hang, as the other PGlite suites.
beforeAll(async () => {
  db = await servePglite();
}, 60_000);
afterAll(async () => {
  await db?.stop();
});
const f = serveFixture('grag-serve-restart-pg-');

const LOCKS = [
  { id: 'lock-gate', text: 'The Merrow Falls lock gate was rebuilt in oak in 1907.' },
  { id: 'lock-keeper', text: 'Ilse Marren kept the upper lock at Merrow Falls for thirty years.' },
];
const ADDED = [{ id: 'lock-flood', text: 'The flood of 1936 tore the lower gate of the Merrow lock away.' }];
const BARGES = [{ id: 'barge-gull', text: 'The barge Sable Gull carried slate down the Merrow canal.' }];

describe('grag serve --store --jobs-dir killed mid-job, then started again', () => {
  it('resumes the upload and the index creation from the jobs folder: both end done, the database holds one whole version of each', async () => {
    const jobsDir = join(f.root, 'jobs');
    const args = ['--store', db.url, '--jobs-dir', jobsDir];
    const first = await startServe(f.models, args, f.children);
    const created = await createDenseIndex(first.url, 'locks', LOCKS);
    const base = await finished(first.url, created.id);
    expect(base).toMatchObject({ status: 'done', error: null });

    const { add, create } = await killWhileJobsWait(f.models, first, 'locks', ADDED, {
      name: 'barges',
      documents: BARGES,
    });
    // Killed before either saved: the database holds the first index only, at its first version.
    expect(await listPostgresIndexes({ url: db.url })).toEqual(['locks']);

    const second = await startServe(f.models, args, f.children);
    const addAfter = await finished(second.url, add.id);
    expect(addAfter).toMatchObject({
      id: add.id,
      status: 'done',
      error: null,
      baseVersion: base.version,
      documents: { added: ['lock-flood'], replaced: [], removed: [] },
    });
    const createAfter = await finished(second.url, create.id);
    expect(createAfter).toMatchObject({ id: create.id, status: 'done', error: null });
    expect(await listPostgresIndexes({ url: db.url })).toEqual(['barges', 'locks']);
    expect((await call(second.url, 'GET', '/v1/indexes/locks')).version).toBe(addAfter.version);
    expect(await documentIds(second.url, 'locks')).toEqual(['lock-flood', 'lock-gate', 'lock-keeper']);
    const answer = await call(second.url, 'POST', '/v1/indexes/locks/query', {
      question: 'Which flood tore the lower gate away?',
      topK: 1,
    });
    expect(citedDocs(answer)).toEqual(['lock-flood']);
    expect(await documentIds(second.url, 'barges')).toEqual(['barge-gull']);
    // The jobs folder holds the journal only once the jobs ended; no password anywhere in it or on stderr.
    expect(await settledDir(jobsDir)).toEqual(['.grag-jobs.json']);
    expect(second.err()).not.toContain(PASSWORD);
    second.kill('SIGTERM');
    expect((await exited(second)).code).toBe(0);

    // Started again: the same versions, read from the database; the jobs known from the journal.
    const third = await startServe(f.models, args, f.children);
    expect((await call(third.url, 'GET', '/v1/indexes/locks')).version).toBe(addAfter.version);
    expect(await call(third.url, 'GET', `/v1/jobs/${create.id}`)).toMatchObject({ status: 'done' });
    third.kill('SIGTERM');
    expect((await exited(third)).code).toBe(0);
  }, 120_000);

  it('killed while a job stores its new version, applies the change exactly once after the restart', async () => {
    const jobsDir = join(f.root, 'jobs');
    const args = ['--store', db.url, '--jobs-dir', jobsDir];
    const start = () => startServe(f.models, args, f.children);
    const more = Array.from({ length: 60 }, (_, i) => ({
      id: `ledger-${i}`,
      text: `Lock ledger ${i}: the barge Sable Gull ${i} passed the Merrow Falls lock at ${i % 12} o'clock.`,
    }));
    // Killed as soon as the job says it is storing the new version.
    const { second } = await killWhileSavingThenRestart(f.models, await start(), start, 'locks', more);
    expect(await settledDir(jobsDir)).toEqual(['.grag-jobs.json']);
    second.kill('SIGTERM');
    expect((await exited(second)).code).toBe(0);
  }, 120_000);
});
