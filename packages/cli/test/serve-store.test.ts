/**
 * `grag serve --store <url>` without index names: every index of the PostgreSQL database (PGlite
 * over the wire), listed and served by its name as `--dir` serves a folder's; uploads saved as new
 * versions in the database, new indexes created in it over HTTP, and all of it there again after a
 * restart.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listPostgresIndexes } from '@grag/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../src/index.js';
import { captureIO, runGrag } from './helpers.js';
import { PASSWORD, type SocketDb, servePglite } from './pg-harness.js';

let db: SocketDb;
let root: string;

beforeAll(async () => {
  db = await servePglite();
  root = await mkdtemp(join(tmpdir(), 'grag-cli-serve-store-'));
  for (const [name, files] of Object.entries({
    harbour: {
      'quay.md': '# Quay\n\nPort Halvard has a stone quay built in 1881.',
      'crane.txt': 'The harbour crane of Port Halvard lifted its first container in 1962.',
    },
    strait: { 'ferry.md': '# Ferry\n\nThe ferry Sable Gull crosses the Veskan Strait twice a day.' },
  })) {
    const corpus = join(root, name);
    await mkdir(corpus);
    for (const [file, text] of Object.entries(files)) await writeFile(join(corpus, file), text);
    const built = await runGrag(root, ['index', corpus, '--method', 'bm25', '--out', name, '-q'], {
      GRAG_STORE: db.url,
    });
    expect(built.code, built.err).toBe(0);
  }
}, 120_000);

afterAll(async () => {
  await db?.stop();
  await rm(root, { recursive: true, force: true });
});

/** `grag serve` on the database (no names), until `stop()`; its URL once it listens. */
async function serving(): Promise<{ url: string; line: string; err: () => string; stop(): Promise<void> }> {
  const controller = new AbortController();
  const io = { ...captureIO(root, { GRAG_STORE: db.url }), signal: controller.signal };
  const running = run(['serve', '--port', '0', '--no-explorer', '-q'], io);
  const line = /^grag serve: (.*) at (http:\/\/127\.0\.0\.1:\d+)\n$/;
  let ended = false;
  void running.then(() => {
    ended = true;
  });
  for (let waited = 0; !line.test(io.out()); waited += 20) {
    if (ended || waited > 30_000) throw new Error(`serve did not start: ${io.err()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const [, names, url] = line.exec(io.out()) as RegExpExecArray;
  return {
    url: url as string,
    line: names as string,
    err: io.err,
    async stop() {
      controller.abort();
      expect(await running, io.err()).toBe(0);
    },
  };
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

/** Submit a write (202) and follow its job to the end. */
// biome-ignore lint/suspicious/noExplicitAny: JSON bodies
async function write(url: string, method: string, path: string, body?: unknown): Promise<any> {
  const accepted = await call(url, method, path, body);
  expect(accepted.http, JSON.stringify(accepted)).toBe(202);
  for (;;) {
    const job = await call(url, 'GET', `/v1/jobs/${accepted.id}`);
    if (job.status === 'done' || job.status === 'failed') return job;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const documentIds = async (url: string, name: string) =>
  ((await call(url, 'GET', `/v1/indexes/${name}/documents`)).documents as { id: string }[])
    .map((d) => d.id)
    .sort();

describe('grag serve --store without index names', () => {
  it('lists and serves every index of the database by name, writes to it, and creates indexes in it', async () => {
    const first = await serving();
    expect(first.line).toBe('harbour, strait');
    const listing = await call(first.url, 'GET', '/v1/indexes');
    expect(listing.indexes.map((ix: { name: string; method: string }) => [ix.name, ix.method])).toEqual([
      ['harbour', 'bm25'],
      ['strait', 'bm25'],
    ]);
    const answer = await call(first.url, 'POST', '/v1/indexes/strait/query', {
      question: 'Which ferry crosses the Veskan Strait?',
      topK: 1,
    });
    expect(answer.retrieval.items[0].source.docIds).toEqual(['ferry.md']);

    // An upload is a new version in the database.
    const added = await write(first.url, 'POST', '/v1/indexes/harbour/documents', {
      documents: [{ id: 'tug.md', text: 'The tug Corrin towed the grain barge Hesper into Port Halvard.' }],
    });
    expect(added).toMatchObject({ status: 'done', documents: { added: ['tug.md'] } });
    // A new index is built and saved in the database under its name.
    const created = await write(first.url, 'POST', '/v1/indexes', {
      name: 'pier',
      method: 'bm25',
      documents: [{ id: 'pier-lamp', text: 'A gas lamp stands at the end of the Orsa pier.' }],
    });
    expect(created.status).toBe('done');
    expect(await listPostgresIndexes({ url: db.url })).toEqual(['harbour', 'pier', 'strait']);
    // Names the database refuses, and names it holds, are refused before any job.
    const badName = await call(first.url, 'POST', '/v1/indexes', {
      name: 'Pier-2',
      method: 'bm25',
      documents: [{ id: 'a', text: 'text' }],
    });
    expect(badName.http).toBe(400);
    expect(badName.error.message).toBe(
      `"name" "Pier-2" is not a valid index name in PostgreSQL; use lower-case letters, digits and _ (starting with a letter, at most 58 characters), e.g. 'docs'.`,
    );
    expect(
      (
        await call(first.url, 'POST', '/v1/indexes', {
          name: 'strait',
          method: 'bm25',
          documents: [{ id: 'a', text: 'x' }],
        })
      ).http,
    ).toBe(409);
    expect(first.err()).not.toContain(PASSWORD);
    await first.stop();

    // Started again: the same indexes, the upload and the new index among them.
    const second = await serving();
    expect(second.line).toBe('harbour, pier, strait');
    expect(await documentIds(second.url, 'harbour')).toEqual(['crane.txt', 'quay.md', 'tug.md']);
    expect((await call(second.url, 'GET', '/v1/indexes/harbour')).version).toBe(added.version);
    expect(await documentIds(second.url, 'pier')).toEqual(['pier-lamp']);
    await second.stop();
  }, 120_000);
});
