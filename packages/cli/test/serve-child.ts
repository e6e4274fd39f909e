/**
 * `grag serve` as a child process (scripts/grag.mjs, so SIGKILL stops grag itself) against a
 * {@link CountingServer}, for the tests that kill a server mid-job and start it again; and the HTTP
 * calls they make of it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect } from 'vitest';
import { CountingServer, MODEL_FLAGS } from './counting-server.js';
import { exited, until, withOutput } from './index-child.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const launcher = join(repo, 'scripts', 'grag.mjs');
const URL_LINE = / at (http:\/\/127\.0\.0\.1:\d+)\n/;

/** A running `grag serve`, with its URL and what it wrote to stderr so far. */
export type ServeChild = ChildProcess & { url: string; err: () => string };

/**
 * `grag serve <args> --port 0 --no-explorer` with the models of `models`, once it prints its URL
 * (pushed onto `children`, for the caller to kill after its tests).
 */
export async function startServe(
  models: CountingServer,
  args: string[],
  children: ChildProcess[],
): Promise<ServeChild> {
  const child = withOutput(
    spawn(process.execPath, [launcher, 'serve', ...args, '--port', '0', '--no-explorer', ...MODEL_FLAGS], {
      cwd: repo,
      env: { PATH: process.env.PATH, OPENAI_BASE_URL: models.url, OPENAI_API_KEY: 'test-key' },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  children.push(child);
  try {
    await until(() => URL_LINE.test(child.out()) || child.exitCode !== null, 60_000);
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`grag serve did not start: ${child.err()}`, { cause: error });
  }
  if (!URL_LINE.test(child.out())) throw new Error(`grag serve exited: ${child.err()}`);
  return Object.assign(child, { url: URL_LINE.exec(child.out())?.[1] as string });
}

/** A JSON call; the HTTP status as `http` beside the body's fields. */
// biome-ignore lint/suspicious/noExplicitAny: JSON bodies
export async function call(url: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${url}${path}`, {
    method,
    ...(body !== undefined
      ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }
      : {}),
  });
  return { http: res.status, ...((await res.json()) as object) };
}

/** Ask the server at `url` to create index `name` of `documents` with naive-dense; returns the job (with its `http` status). */
export async function createDenseIndex(
  url: string,
  name: string,
  documents: readonly object[],
): ReturnType<typeof call> {
  return call(url, 'POST', '/v1/indexes', { name, method: 'naive-dense', documents });
}

/** The job `id` once it is done or failed. */
// biome-ignore lint/suspicious/noExplicitAny: JSON bodies
export async function finished(url: string, id: string): Promise<any> {
  for (;;) {
    const job = await call(url, 'GET', `/v1/jobs/${id}`);
    if (job.status === 'done' || job.status === 'failed') return job;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The document ids of an index's version served now. */
export async function documentIds(url: string, name: string): Promise<string[]> {
  const list = await call(url, 'GET', `/v1/indexes/${name}/documents`);
  return (list.documents as { id: string }[]).map((d) => d.id).sort();
}

/** The document ids the items of a query answer come from. */
export function citedDocs(answer: { retrieval: { items: { source: { docIds: string[] } }[] } }): string[] {
  return [...new Set(answer.retrieval.items.flatMap((i) => i.source.docIds))].sort();
}

/**
 * SIGKILL `child` once `models` has received `requests` requests (its jobs hold on them), then
 * forget the held requests.
 */
export async function killWhenHeld(
  models: CountingServer,
  child: ServeChild,
  requests: number,
): Promise<void> {
  await until(() => models.received.length >= requests, 30_000);
  const exit = exited(child);
  child.kill('SIGKILL');
  const { signal } = await exit;
  if (signal !== 'SIGKILL') throw new Error(`grag serve ended by ${signal}, not SIGKILL: ${child.err()}`);
  models.reset();
}

/**
 * The entries of the journal folder `dir` (but lock files), sorted, once the inputs of ended jobs
 * are removed: a job reads done just before its journal is written and its input removed.
 */
export async function settledDir(dir: string): Promise<string[]> {
  const entries = async () => (await readdir(dir)).filter((name) => !name.endsWith('.lock')).sort();
  for (let tries = 0; tries < 250 && (await entries()).includes('.grag-jobs'); tries++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return entries();
}

/**
 * Read the events of job `id` on the server at `url` until it says it is storing its new version
 * (stage `save`) or it ends, then SIGKILL `child` and forget the requests `models` held.
 */
export async function killWhenSaving(models: CountingServer, child: ServeChild, id: string): Promise<void> {
  const events = await fetch(`${child.url}/v1/jobs/${id}/events`);
  const reader = (events.body as ReadableStream<Uint8Array>).getReader();
  let text = '';
  while (!/"stage":"save"/.test(text) && !/event: end/.test(text)) {
    const { done, value } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  const exit = exited(child);
  child.kill('SIGKILL');
  await exit;
  models.reset();
}

/**
 * Check job `id`, killed while it stored its new version, once the server at `url` restarted: done;
 * either its version had landed (the models were asked nothing again) or it ran again, once, from
 * version `before`, adding `added`. Returns the job.
 */
export async function expectAppliedOnce(
  models: CountingServer,
  url: string,
  id: string,
  before: string,
  added: string[],
): ReturnType<typeof finished> {
  const after = await finished(url, id);
  expect(after).toMatchObject({ status: 'done', error: null });
  if (after.documents === null) {
    // The save had landed: the job is done with the saved version and nothing ran again.
    expect(models.received).toEqual([]);
  } else {
    // It had not: the job ran again, once, from the version before.
    expect(after.baseVersion).toBe(before);
    expect(after.documents).toEqual({ added, replaced: [], removed: [] });
  }
  return after;
}

/** Kill every child still running (SIGKILL): for `afterAll`. */
export function killAll(children: readonly ChildProcess[]): void {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/** A JSON body, as {@link call} answers it. */
type Json = Awaited<ReturnType<typeof call>>;

/** Documents to upload: an id and a text each. */
type Docs = readonly { id: string; text: string }[];

/**
 * With the models held, upload `added` to index `name` and create the dense index `create.name`
 * of `create.documents` on `child` (both answered 202), then kill it (SIGKILL) once both jobs wait
 * on the models. Returns the two jobs.
 */
export async function killWhileJobsWait(
  models: CountingServer,
  child: ServeChild,
  name: string,
  added: Docs,
  create: { name: string; documents: Docs },
): Promise<{ add: Json; create: Json }> {
  models.holdAfterChat = 0;
  const held = models.received.length;
  const add = await call(child.url, 'POST', `/v1/indexes/${name}/documents`, { documents: added });
  const created = await createDenseIndex(child.url, create.name, create.documents);
  expect([add.http, created.http]).toEqual([202, 202]);
  await killWhenHeld(models, child, held + 2);
  return { add, create: created };
}

/**
 * Upload `documents` to index `name` on `first`, kill it as soon as the job says it is saving the
 * new version, start the server again with `restart`, and check the change was applied exactly once
 * ({@link expectAppliedOnce}): the index served at the job's version, with the documents it had
 * before and the uploaded ones. Returns the restarted server, the version before and the job.
 */
export async function killWhileSavingThenRestart(
  models: CountingServer,
  first: ServeChild,
  restart: () => Promise<ServeChild>,
  name: string,
  documents: Docs,
): Promise<{ second: ServeChild; before: string; after: Json }> {
  const before = (await call(first.url, 'GET', `/v1/indexes/${name}`)).version as string;
  const beforeIds = await documentIds(first.url, name);
  const job = await call(first.url, 'POST', `/v1/indexes/${name}/documents`, { documents });
  await killWhenSaving(models, first, job.id);
  const second = await restart();
  const added = documents.map((d) => d.id);
  const after = await expectAppliedOnce(models, second.url, job.id, before, added);
  expect((await call(second.url, 'GET', `/v1/indexes/${name}`)).version).toBe(after.version);
  expect(await documentIds(second.url, name)).toEqual([...beforeIds, ...added].sort());
  return { second, before, after };
}

/** What a serve test file shares: the models stub, a temporary folder and the servers it started. */
export interface ServeFixture {
  models: CountingServer;
  root: string;
  /** Every server started ({@link startServe} adds to it), killed after the file's tests. */
  children: ChildProcess[];
}

/**
 * Before the file's tests, start the models stub and make a temporary folder (named from
 * `prefix`); after them, kill every server still running, stop the stub and remove the folder.
 * The fields are set once the `beforeAll` hook has run.
 */
export function serveFixture(prefix: string): ServeFixture {
  const fixture = { children: [] as ChildProcess[] } as ServeFixture;
  beforeAll(async () => {
    fixture.models = new CountingServer();
    await fixture.models.start();
    fixture.root = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    killAll(fixture.children);
    // (Unset when a set-up before this one failed: that failure is the one to report.)
    await fixture.models?.stop();
    if (fixture.root) await rm(fixture.root, { recursive: true, force: true });
  });
  return fixture;
}
