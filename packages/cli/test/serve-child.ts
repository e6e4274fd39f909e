/**
 * `grag serve` as a child process (scripts/grag.mjs, so SIGKILL stops grag itself) against a
 * {@link CountingServer}, for the tests that kill a server mid-job and start it again; and the HTTP
 * calls they make of it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CountingServer, MODEL_FLAGS } from './counting-server.js';
import { exited, until } from './index-child.js';

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
  const child = spawn(
    process.execPath,
    [launcher, 'serve', ...args, '--port', '0', '--no-explorer', ...MODEL_FLAGS],
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
