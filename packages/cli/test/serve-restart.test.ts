/**
 * `grag serve --dir` killed (SIGKILL) while its write jobs run, then started again on the same
 * folder: the jobs that were running run again from their journaled input, under their ids, and
 * end done with one whole new version (with `--no-resume-jobs`: reported failed with the reason,
 * the indexes served at the versions saved before, nothing of the killed jobs served, nothing they
 * left behind blocking the same writes submitted again). The server is a child process
 * (scripts/grag.mjs), its models an OpenAI-compatible stub that holds every request once told to,
 * so each job is stopped mid-update at a known point, not at a time.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exited, until } from './index-child.js';
import {
  call,
  citedDocs,
  createDenseIndex,
  documentIds,
  finished,
  killWhenHeld,
  killWhileJobsWait,
  killWhileSavingThenRestart,
  type ServeChild,
  serveFixture,
  settledDir,
  startServe,
} from './serve-child.js';

const f = serveFixture('grag-serve-restart-');
/** The indexes folder of every server of this file. */
const folder = (): string => join(f.root, 'indexes');

/** The journal folder once every job of the three indexes has ended. */
const SETTLED_ALL = ['.grag-jobs.json', '.grag-workspaces.json', 'docks', 'quays', 'tides'];

/** `grag serve --dir <folder>` (plus `flags`) as a child process, once it prints its URL. */
const startServer = (...flags: string[]): Promise<ServeChild> =>
  startServe(f.models, ['--dir', folder(), ...flags], f.children);

/** The folder's entries (but lock files) once the ended jobs' inputs are removed. */
const settledEntries = () => settledDir(folder());

const TIDES = [
  { id: 'tide-table', text: 'The Halvard tide table lists the spring tides of the Veskan Strait.' },
  { id: 'tide-gauge', text: 'A tide gauge at Orsa pier has recorded the water level since 1904.' },
];
const ADDED = [
  { id: 'tide-surge', text: 'The storm surge of 1953 flooded the lower quay of Port Halvard.' },
  { id: 'tide-moon', text: 'Neap tides at Orsa come a week after the spring tides.' },
];
const DOCKS = [{ id: 'dock-dry', text: 'The Kessler dry dock took ships of up to 90 metres.' }];
const MORE = [
  { id: 'tide-bore', text: 'A tidal bore runs up the Merrow river at the equinox.' },
  { id: 'tide-mill', text: 'The Sable Gull tide mill ground grain until 1931.' },
];
const QUAYS = [{ id: 'quay-crane', text: 'Ilse Marren drove the steam crane on the west quay.' }];

describe('grag serve --dir killed mid-job, then started again', () => {
  it('with --no-resume-jobs, reports the running jobs failed, serves the versions saved before, and takes the writes again', async () => {
    const first = await startServer('--no-resume-jobs');
    const created = await createDenseIndex(first.url, 'tides', TIDES);
    expect(created.http).toBe(202);
    const base = await finished(first.url, created.id);
    expect(base).toMatchObject({ status: 'done', error: null });

    // From now on the models answer nothing: each job below waits mid-update for its embeddings.
    f.models.holdAfterChat = 0;
    const held = f.models.received.length;
    const add = await call(first.url, 'POST', '/v1/indexes/tides/documents', { documents: ADDED });
    const create = await createDenseIndex(first.url, 'docks', DOCKS);
    expect([add.http, create.http]).toEqual([202, 202]);
    await until(() => f.models.received.length >= held + 2, 30_000);
    expect((await call(first.url, 'GET', `/v1/jobs/${add.id}`)).status).toBe('running');
    await killWhenHeld(f.models, first, held + 2);

    const second = await startServer('--no-resume-jobs');
    const addAfter = await call(second.url, 'GET', `/v1/jobs/${add.id}`);
    expect(addAfter).toMatchObject({ status: 'failed', version: null, baseVersion: base.version });
    expect(addAfter.error).toEqual({
      code: 'interrupted',
      message: `The server stopped before this job finished; nothing of it was applied (the index "tides" is at version ${base.version}). Submit it again.`,
    });
    const createAfter = await call(second.url, 'GET', `/v1/jobs/${create.id}`);
    expect(createAfter).toMatchObject({
      status: 'failed',
      error: { code: 'interrupted', message: expect.stringContaining('the index does not exist') },
    });
    // The index is served at the version saved before the kill, with its documents only.
    expect((await call(second.url, 'GET', '/v1/indexes/tides')).version).toBe(base.version);
    expect(await documentIds(second.url, 'tides')).toEqual(['tide-gauge', 'tide-table']);
    const answer = await call(second.url, 'POST', '/v1/indexes/tides/query', {
      question: 'Which storm flooded the lower quay?',
    });
    expect(answer.version).toBe(base.version);
    const cited = citedDocs(answer);
    expect(cited.length).toBeGreaterThan(0);
    expect(cited.every((id: string) => id.startsWith('tide-table') || id.startsWith('tide-gauge'))).toBe(
      true,
    );
    expect((await call(second.url, 'GET', '/v1/indexes/docks')).http).toBe(404);
    // The folder holds the index and grag's two files, nothing a killed write left behind (the
    // jobs' journaled inputs included).
    expect(await settledEntries()).toEqual(['.grag-jobs.json', '.grag-workspaces.json', 'tides']);

    // The same writes, submitted again, run to the end.
    const again = await finished(
      second.url,
      (await call(second.url, 'POST', '/v1/indexes/tides/documents', { documents: ADDED })).id,
    );
    expect(again).toMatchObject({ status: 'done', baseVersion: base.version });
    expect(await documentIds(second.url, 'tides')).toEqual([
      'tide-gauge',
      'tide-moon',
      'tide-surge',
      'tide-table',
    ]);
    const docks = await finished(second.url, (await createDenseIndex(second.url, 'docks', DOCKS)).id);
    expect(docks.status).toBe('done');
    expect(await documentIds(second.url, 'docks')).toEqual(['dock-dry']);
    second.kill('SIGTERM');
    expect((await exited(second)).code).toBe(0);
  }, 120_000);

  it('resumes an upload and an index creation killed while they waited on the models: both end done under their ids, one whole version served', async () => {
    const first = await startServer();
    const before = (await call(first.url, 'GET', '/v1/indexes/tides')).version as string;
    const beforeIds = await documentIds(first.url, 'tides');
    const { add, create } = await killWhileJobsWait(f.models, first, 'tides', MORE, {
      name: 'quays',
      documents: QUAYS,
    });

    // Started again with the models held once more: the client polling the job sees it running
    // under its id, then done.
    f.models.holdAfterChat = 0;
    const second = await startServer();
    await until(() => f.models.received.length >= 2, 30_000);
    expect((await call(second.url, 'GET', `/v1/jobs/${add.id}`)).status).toBe('running');
    expect((await call(second.url, 'GET', '/v1/indexes/tides')).version).toBe(before);
    f.models.release();
    const addAfter = await finished(second.url, add.id);
    expect(addAfter).toMatchObject({
      id: add.id,
      status: 'done',
      error: null,
      baseVersion: before,
      documents: { added: ['tide-bore', 'tide-mill'], replaced: [], removed: [] },
    });
    const createAfter = await finished(second.url, create.id);
    expect(createAfter).toMatchObject({ id: create.id, status: 'done', error: null });
    // One whole version: the job's, with the documents before and the uploaded ones, once each.
    expect((await call(second.url, 'GET', '/v1/indexes/tides')).version).toBe(addAfter.version);
    expect(await documentIds(second.url, 'tides')).toEqual([...beforeIds, 'tide-bore', 'tide-mill'].sort());
    const answer = await call(second.url, 'POST', '/v1/indexes/tides/query', {
      question: 'Where does the tidal bore of the Merrow river run?',
      topK: 1,
    });
    expect(answer.version).toBe(addAfter.version);
    expect(citedDocs(answer)).toEqual(['tide-bore']);
    expect(await documentIds(second.url, 'quays')).toEqual(['quay-crane']);
    expect((await call(second.url, 'GET', '/v1/indexes/quays')).version).toBe(createAfter.version);
    // Their inputs are gone with them.
    expect(await settledEntries()).toEqual(SETTLED_ALL);
    second.kill('SIGTERM');
    expect((await exited(second)).code).toBe(0);
  }, 120_000);

  it('killed while a job saves, applies its change exactly once after the restart, and serves one whole version', async () => {
    const more = Array.from({ length: 60 }, (_, i) => ({
      id: `log-${i}`,
      text: `Harbour log ${i}: the pilot boat Marren ${i} left Orsa pier at the ${i % 12} o'clock tide.`,
    }));
    // Killed as soon as the job says it is saving the new version.
    const { second, before, after } = await killWhileSavingThenRestart(
      f.models,
      await startServer(),
      startServer,
      'tides',
      more,
    );
    expect(after.version).not.toBe(before);
    expect(await settledEntries()).toEqual(SETTLED_ALL);
    second.kill('SIGTERM');
    expect((await exited(second)).code).toBe(0);
  }, 120_000);
});
