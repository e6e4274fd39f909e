/**
 * `grag serve --dir` killed (SIGKILL) while its write jobs run, then started again on the same
 * folder: the jobs that were running are reported failed with the reason, the indexes are served
 * at the versions saved before, nothing of the killed jobs is served, nothing they left behind
 * blocks the same writes submitted again. The server is a child process (scripts/grag.mjs), its
 * models an OpenAI-compatible stub that holds every request once told to, so each job is stopped
 * mid-update at a known point, not at a time.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CountingServer, MODEL_FLAGS } from './counting-server.js';
import { exited, until } from './index-child.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const launcher = join(repo, 'scripts', 'grag.mjs');
const URL_LINE = / at (http:\/\/127\.0\.0\.1:\d+)\n/;

type ServeChild = ChildProcess & { url: string; err: () => string };

let models: CountingServer;
let root: string;
let folder: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  models = new CountingServer();
  await models.start();
  root = await mkdtemp(join(tmpdir(), 'grag-serve-restart-'));
  folder = join(root, 'indexes');
});

afterAll(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await models.stop();
  await rm(root, { recursive: true, force: true });
});

/** `grag serve --dir <folder>` as a child process, once it prints its URL. */
async function startServer(): Promise<ServeChild> {
  const child = spawn(
    process.execPath,
    [launcher, 'serve', '--dir', folder, '--port', '0', '--no-explorer', ...MODEL_FLAGS],
    {
      cwd: repo,
      env: { PATH: process.env.PATH, OPENAI_BASE_URL: models.url, OPENAI_API_KEY: 'test-key' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk) => {
    out += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    err += chunk;
  });
  try {
    await until(() => URL_LINE.test(out) || child.exitCode !== null, 60_000);
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`grag serve did not start: ${err}`, { cause: error });
  }
  if (!URL_LINE.test(out)) throw new Error(`grag serve exited: ${err}`);
  return Object.assign(child, { url: URL_LINE.exec(out)?.[1] as string, err: () => err });
}

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies
async function call(url: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${url}${path}`, {
    method,
    ...(body !== undefined
      ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }
      : {}),
  });
  return { http: res.status, ...((await res.json()) as object) };
}

/** The job `id` once it is done or failed. */
// biome-ignore lint/suspicious/noExplicitAny: JSON bodies
async function finished(url: string, id: string): Promise<any> {
  for (;;) {
    const job = await call(url, 'GET', `/v1/jobs/${id}`);
    if (job.status === 'done' || job.status === 'failed') return job;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The document ids of an index's version served now. */
async function documentIds(url: string, name: string): Promise<string[]> {
  const list = await call(url, 'GET', `/v1/indexes/${name}/documents`);
  return (list.documents as { id: string }[]).map((d) => d.id).sort();
}

const TIDES = [
  { id: 'tide-table', text: 'The Halvard tide table lists the spring tides of the Veskan Strait.' },
  { id: 'tide-gauge', text: 'A tide gauge at Orsa pier has recorded the water level since 1904.' },
];
const ADDED = [
  { id: 'tide-surge', text: 'The storm surge of 1953 flooded the lower quay of Port Halvard.' },
  { id: 'tide-moon', text: 'Neap tides at Orsa come a week after the spring tides.' },
];
const DOCKS = [{ id: 'dock-dry', text: 'The Kessler dry dock took ships of up to 90 metres.' }];

describe('grag serve --dir killed mid-job, then started again', () => {
  it('reports the running jobs failed, serves the versions saved before, and takes the writes again', async () => {
    const first = await startServer();
    const created = await call(first.url, 'POST', '/v1/indexes', {
      name: 'tides',
      method: 'naive-dense',
      documents: TIDES,
    });
    expect(created.http).toBe(202);
    const base = await finished(first.url, created.id);
    expect(base).toMatchObject({ status: 'done', error: null });

    // From now on the models answer nothing: each job below waits mid-update for its embeddings.
    models.holdAfterChat = 0;
    const held = models.received.length;
    const add = await call(first.url, 'POST', '/v1/indexes/tides/documents', { documents: ADDED });
    const create = await call(first.url, 'POST', '/v1/indexes', {
      name: 'docks',
      method: 'naive-dense',
      documents: DOCKS,
    });
    expect([add.http, create.http]).toEqual([202, 202]);
    await until(() => models.received.length >= held + 2, 30_000);
    expect((await call(first.url, 'GET', `/v1/jobs/${add.id}`)).status).toBe('running');
    const exit = exited(first);
    first.kill('SIGKILL');
    expect((await exit).signal).toBe('SIGKILL');
    models.reset();

    const second = await startServer();
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
    const cited = answer.retrieval.items.flatMap((i: { source: { docIds: string[] } }) => i.source.docIds);
    expect(cited.length).toBeGreaterThan(0);
    expect(cited.every((id: string) => id.startsWith('tide-table') || id.startsWith('tide-gauge'))).toBe(
      true,
    );
    expect((await call(second.url, 'GET', '/v1/indexes/docks')).http).toBe(404);
    // The folder holds the index and grag's two files, nothing a killed write left behind.
    const entries = (await readdir(folder)).filter((name) => !name.endsWith('.lock'));
    expect(entries.sort()).toEqual(['.grag-jobs.json', '.grag-workspaces.json', 'tides']);

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
    const docks = await finished(
      second.url,
      (
        await call(second.url, 'POST', '/v1/indexes', {
          name: 'docks',
          method: 'naive-dense',
          documents: DOCKS,
        })
      ).id,
    );
    expect(docks.status).toBe('done');
    expect(await documentIds(second.url, 'docks')).toEqual(['dock-dry']);
    second.kill('SIGTERM');
    expect((await exited(second)).code).toBe(0);
  }, 120_000);

  it('killed while a job saves, serves one whole version after the restart: the old or the new, as the job says', async () => {
    const first = await startServer();
    const before = (await call(first.url, 'GET', '/v1/indexes/tides')).version as string;
    const beforeIds = await documentIds(first.url, 'tides');
    const more = Array.from({ length: 60 }, (_, i) => ({
      id: `log-${i}`,
      text: `Harbour log ${i}: the pilot boat Marren ${i} left Orsa pier at the ${i % 12} o'clock tide.`,
    }));
    const job = await call(first.url, 'POST', '/v1/indexes/tides/documents', { documents: more });
    // The job's events: kill the server as soon as it says it is saving the new version.
    const events = await fetch(`${first.url}/v1/jobs/${job.id}/events`);
    const reader = (events.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    while (!/"stage":"save"/.test(text) && !/event: end/.test(text)) {
      const { done, value } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    const exit = exited(first);
    first.kill('SIGKILL');
    await exit;

    const second = await startServer();
    const after = await call(second.url, 'GET', `/v1/jobs/${job.id}`);
    const served = await call(second.url, 'GET', '/v1/indexes/tides');
    const ids = await documentIds(second.url, 'tides');
    if (after.status === 'done') {
      expect(served.version).toBe(after.version);
      expect(served.version).not.toBe(before);
      expect(ids).toEqual([...beforeIds, ...more.map((d) => d.id)].sort());
    } else {
      expect(after.error.code).toBe('interrupted');
      expect(served.version).toBe(before);
      expect(ids).toEqual(beforeIds);
    }
    const entries = (await readdir(folder)).filter((name) => !name.endsWith('.lock'));
    expect(entries.sort()).toEqual(['.grag-jobs.json', '.grag-workspaces.json', 'docks', 'tides']);
    second.kill('SIGTERM');
    expect((await exited(second)).code).toBe(0);
  }, 120_000);
});
