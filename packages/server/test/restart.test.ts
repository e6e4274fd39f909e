/**
 * Jobs across a restart: the journal in the served folder keeps the jobs and their inputs; a new
 * server on the folder serves the last saved versions and settles the jobs that had not finished —
 * done when their new version was saved whole, else run again from their journaled input (with
 * `resumeJobs: false`, or when that input cannot be read back: failed, nothing applied).
 */
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JOB_INPUTS_DIR, JOURNAL_FILE, type Job, type RunningServer } from '../src/index.js';
import { call, docIdsOf, indexFolder, jobEvents, METHODS, serveFolder, write } from './writes-fixture.js';

let dir: string;
const servers: RunningServer[] = [];

beforeEach(async () => {
  dir = await indexFolder();
}, 60_000);

afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  await rm(dir, { recursive: true, force: true });
});

async function start(resumeJobs?: boolean, methods: typeof METHODS = METHODS) {
  const started = await serveFolder(
    dir,
    { methods },
    { methods, ...(resumeJobs !== undefined ? { resumeJobs } : {}) },
  );
  servers.push(started.server);
  return started.server;
}

/** The methods of the tests, each stopped for good where it would build or update (a server "killed" there). */
function heldMethods(): typeof METHODS {
  const never = new Promise<never>(() => {});
  return METHODS.map((m) => ({ ...m, build: () => never, update: () => never })) as typeof METHODS;
}

/** The journal file of `jobs`. */
const journalText = (jobs: readonly unknown[]) =>
  JSON.stringify({ format: 'grag-server-jobs', version: 1, jobs });

/** The input file a server journals for job `id` of `index`. */
const inputText = (id: string, index: string, input: unknown) =>
  JSON.stringify({ format: 'grag-server-job-input', version: 1, id, index, input });

/** Write the input file of job `id` as the server does. */
async function putInput(id: string, index: string, input: unknown): Promise<void> {
  const { mkdir } = await import('node:fs/promises');
  await mkdir(join(dir, JOB_INPUTS_DIR), { recursive: true });
  await writeFile(join(dir, JOB_INPUTS_DIR, `${id}.json`), inputText(id, index, input));
}

/** The job `id` once it ended (followed on its event stream). */
const ended = async (server: RunningServer, id: string) =>
  (await jobEvents(server.url, id)).at(-1)?.data as Job;

const jobOf = async (server: RunningServer, id: string) =>
  (await (await call(server.url, 'GET', `/v1/jobs/${id}`)).json()) as Job;

const documentIds = async (server: RunningServer, name: string) =>
  (
    (await (await call(server.url, 'GET', `/v1/indexes/${name}/documents`)).json()).documents as {
      id: string;
    }[]
  )
    .map((d) => d.id)
    .sort();

const DREDGE = { id: 'h-dredge', text: 'The dredger Kelpie deepened the Veldt channel in 1975.' };
const PIER = [{ id: 'p-lamp', text: 'A gas lamp stands at the end of the Orsa pier.' }];

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

/**
 * Two jobs of `harbour` a stop left in the journal: `run-1` adding documents, running from version
 * `baseVersion`, and `queued-1` removing documents.
 */
function harbourJobs(baseVersion: string): Job[] {
  return [
    journaled({ id: 'run-1', kind: 'add-documents', index: 'harbour', status: 'running', baseVersion }),
    journaled({ id: 'queued-1', kind: 'remove-documents', index: 'harbour', status: 'queued' }),
  ];
}

/**
 * Start a server (`resumeJobs` as given) and stop it, then leave the journal a stop in the middle
 * of jobs leaves: {@link harbourJobs} from harbour's version then, and `more`. Returns that version.
 */
async function journalHarbourJobs(resumeJobs: boolean | undefined, more: Job): Promise<string> {
  const first = await start(resumeJobs);
  const current = await versionOf(first, 'harbour');
  await first.close();
  await writeFile(join(dir, JOURNAL_FILE), journalText([...harbourJobs(current), more]));
  return current;
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

  it('with resumeJobs: false, reports a job that was running failed when its version was not saved, and a queued one too; the index is as it was', async () => {
    const current = await journalHarbourJobs(
      false,
      journaled({ id: 'create-1', kind: 'create-index', index: 'pier', status: 'running' }),
    );
    // Inputs that would let them resume: not used, and removed.
    await putInput('run-1', 'harbour', { kind: 'add-documents', documents: [DREDGE] });
    await putInput('queued-1', 'harbour', { kind: 'remove-documents', ids: ['h-lamp'] });
    const second = await start(false);
    expect(await versionOf(second, 'harbour')).toBe(current);
    expect(await documentIds(second, 'harbour')).toEqual(['h-crane', 'h-lamp', 'h-pilot']);
    expect(await readdir(dir)).not.toContain(JOB_INPUTS_DIR);
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

  it('reports a running job done, not run again, when its new version was saved before the server stopped', async () => {
    const first = await start();
    const before = await versionOf(first, 'orchard');
    const job = await write(first.url, 'DELETE', '/v1/indexes/orchard/documents/o-frost');
    await first.close();
    // The journal as it was between the save and the job's end: running, from the old version,
    // with its input still there.
    const jobs = [
      { ...job, status: 'running', version: null, documents: null, finishedAt: null, baseVersion: before },
    ];
    await writeFile(join(dir, JOURNAL_FILE), journalText(jobs));
    await putInput(job.id, 'orchard', { kind: 'remove-documents', ids: ['o-frost'] });
    const second = await start();
    expect(await jobOf(second, job.id)).toMatchObject({ status: 'done', version: job.version, error: null });
    // Not applied twice: settled when the folder was opened (nothing queued to run), the version
    // saved before the stop is the one served.
    expect(await versionOf(second, 'orchard')).toBe(job.version);
    expect(await documentIds(second, 'orchard')).toEqual(['o-cider', 'o-quince']);
    expect(await readdir(dir)).not.toContain(JOB_INPUTS_DIR);
  });

  it('resumes the jobs a stop interrupted, with their ids, from their journaled input; each ends done', async () => {
    const first = await start(true, heldMethods());
    const before = await versionOf(first, 'harbour');
    const accepted = async (method: string, path: string, body?: unknown) => {
      const res = await call(first.url, method, path, body);
      expect(res.status).toBe(202);
      return (await res.json()) as Job;
    };
    const add = await accepted('POST', '/v1/indexes/harbour/documents', { documents: [DREDGE] });
    const queued = await accepted('DELETE', '/v1/indexes/harbour/documents/h-lamp');
    const remove = await accepted('DELETE', '/v1/indexes/orchard/documents/o-frost');
    const create = await accepted('POST', '/v1/indexes', { name: 'pier', method: 'bm25', documents: PIER });
    // Acknowledged: each job's input is in the journal folder already.
    const inputs = (await readdir(join(dir, JOB_INPUTS_DIR))).sort();
    expect(inputs).toEqual([add, queued, remove, create].map((j) => `${j.id}.json`).sort());
    for (const job of [add, remove, create]) {
      for (let s = await jobOf(first, job.id); s.status !== 'running'; s = await jobOf(first, job.id)) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
    expect((await jobOf(first, queued.id)).status).toBe('queued');
    // The server "stops" here: its jobs never go on (held methods), a new server opens the folder.
    await first.close();
    const second = await start();
    const finals = await Promise.all([add, queued, remove, create].map((j) => ended(second, j.id)));
    expect(finals.map((j) => [j.id, j.status, j.error])).toEqual(
      [add, queued, remove, create].map((j) => [j.id, 'done', null]),
    );
    // Each ran once, one after the other on harbour: the add from the version before, the removal after.
    const [addDone, queuedDone, removeDone, createDone] = finals as [Job, Job, Job, Job];
    expect(addDone).toMatchObject({ baseVersion: before, documents: { added: ['h-dredge'], replaced: [] } });
    expect(queuedDone).toMatchObject({ baseVersion: addDone.version, documents: { removed: ['h-lamp'] } });
    expect(removeDone.documents).toMatchObject({ removed: ['o-frost'] });
    expect(createDone.documents).toEqual({ added: ['p-lamp'], replaced: [], removed: [] });
    expect(await versionOf(second, 'harbour')).toBe(queuedDone.version);
    expect(await documentIds(second, 'harbour')).toEqual(['h-crane', 'h-dredge', 'h-pilot']);
    expect(await documentIds(second, 'orchard')).toEqual(['o-cider', 'o-quince']);
    const answer = await (
      await call(second.url, 'POST', '/v1/indexes/pier/query', { question: 'gas lamp Orsa pier' })
    ).json();
    expect(docIdsOf(answer)).toEqual(['p-lamp']);
    // Their inputs are removed once they ended, and the journal says done.
    expect(await readdir(dir)).not.toContain(JOB_INPUTS_DIR);
    const saved = JSON.parse(await readFile(join(dir, JOURNAL_FILE), 'utf8')).jobs as Job[];
    expect(saved.map((j) => j.status)).toEqual(['done', 'done', 'done', 'done']);
  });

  it('resumes an upload of files from the documents the loaders read, their locations kept', async () => {
    const first = await start(true, heldMethods());
    const form = new FormData();
    form.append(
      'file',
      new Blob(['# Breakwater\n\nThe Veldt breakwater was rebuilt of basalt in 1930.\n']),
      'breakwater.md',
    );
    const res = await fetch(new URL('/v1/indexes/harbour/documents', first.url), {
      method: 'POST',
      body: form,
    });
    expect(res.status).toBe(202);
    const job = (await res.json()) as Job;
    await first.close();
    const second = await start();
    expect(await ended(second, job.id)).toMatchObject({
      status: 'done',
      documents: { added: ['breakwater.md'] },
    });
    const answer = await (
      await call(second.url, 'POST', '/v1/indexes/harbour/query', { question: 'breakwater basalt', topK: 1 })
    ).json();
    expect(answer.retrieval.items[0].source).toMatchObject({
      docIds: ['breakwater.md'],
      locations: [{ path: 'breakwater.md', section: ['Breakwater'] }],
    });
  });

  it('reports a job failed, with one line naming its input, when that input is missing or damaged', async () => {
    const current = await journalHarbourJobs(
      undefined,
      journaled({ id: 'queued-2', kind: 'add-documents', index: 'orchard', status: 'queued' }),
    );
    await putInput('queued-1', 'harbour', { kind: 'remove-documents', ids: ['h-lamp'] });
    // Cut short, as a disk that lost its end would leave it.
    const cut = join(dir, JOB_INPUTS_DIR, 'queued-1.json');
    await writeFile(cut, (await readFile(cut, 'utf8')).slice(0, 30));
    await putInput('queued-2', 'orchard', { kind: 'remove-documents', ids: ['o-frost'] });
    // The input of a job the journal does not know: removed.
    await putInput('stray-1', 'orchard', { kind: 'delete-index' });
    const second = await start();
    const state = `(the index "harbour" is at version ${current}). Submit it again.`;
    const input = (id: string) => join(dir, JOB_INPUTS_DIR, `${id}.json`);
    expect((await jobOf(second, 'run-1')).error).toEqual({
      code: 'interrupted',
      message: `The server stopped before this job finished and cannot resume it: its journaled input ${input('run-1')} is missing; nothing of it was applied ${state}`,
    });
    expect((await jobOf(second, 'queued-1')).error).toEqual({
      code: 'interrupted',
      message: `The server stopped before this job started and cannot resume it: its journaled input ${input('queued-1')} is not JSON (cut short or damaged); nothing of it was applied ${state}`,
    });
    expect((await jobOf(second, 'queued-2')).error?.message).toContain(
      `its journaled input ${input('queued-2')} is the input of a remove-documents job, not of this add-documents job;`,
    );
    for (const id of ['run-1', 'queued-1', 'queued-2']) {
      expect((await jobOf(second, id)).error?.message).not.toContain('\n');
    }
    expect(await versionOf(second, 'harbour')).toBe(current);
    expect(await documentIds(second, 'orchard')).toEqual(['o-cider', 'o-frost', 'o-quince']);
    expect(await readdir(dir)).not.toContain(JOB_INPUTS_DIR);
  });

  it('does not acknowledge or run a job whose input cannot be journaled', async () => {
    // A file where the inputs' folder goes: no input can be written.
    await writeFile(join(dir, JOB_INPUTS_DIR), 'not a folder');
    const server = await start();
    const before = await versionOf(server, 'harbour');
    const res = await call(server.url, 'POST', '/v1/indexes/harbour/documents', { documents: [DREDGE] });
    expect(res.status).toBe(500);
    const journal = JSON.parse(await readFile(join(dir, JOURNAL_FILE), 'utf8')).jobs as Job[];
    expect(journal).toEqual([]);
    expect(await readFile(join(dir, JOB_INPUTS_DIR), 'utf8')).toBe('not a folder');
    // Once inputs can be written, the next write runs from the version before: the upload is in none.
    await rm(join(dir, JOB_INPUTS_DIR));
    const removal = await write(server.url, 'DELETE', '/v1/indexes/harbour/documents/h-lamp');
    expect(removal).toMatchObject({ status: 'done', baseVersion: before });
    expect(await documentIds(server, 'harbour')).toEqual(['h-crane', 'h-pilot']);
  });

  it('refuses to start on a journal that is not one, naming the file', async () => {
    await writeFile(join(dir, JOURNAL_FILE), '{"jobs": 3}');
    await expect(start()).rejects.toThrow(
      `${join(dir, JOURNAL_FILE)} is not a grag job journal; move it away to start with no job history.`,
    );
  });
});
