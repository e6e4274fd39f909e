/**
 * Issue 25, item 1 for PostgreSQL: writers of one index in PostgreSQL (`--store`) at once, as
 * separate `grag` processes. Each run ends with the documents of one serial order of the writes
 * (every writer that exited 0 applied), or a writer refused in one line naming the other; a writer
 * killed with SIGKILL while it holds the index's lock keeps the next writer out for no longer than
 * PostgreSQL takes to end its session. On PGlite over the wire and on Debian's PostgreSQL.
 */
import { join } from 'node:path';
import { temporaryDirs } from '@grag/core/test/vitest';
import { postgresStore } from '@grag/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { debianPostgresBin, startDebianServer } from '../../postgres/test/debian-server.js';
import { run } from '../src/index.js';
import { CountingServer, MODEL_FLAGS } from './counting-server.js';
import { captureIO, TWO_CITIES, writeFiles } from './helpers.js';
import { exited, spawnGrag, threeWritersRound, until } from './index-child.js';
import { servePglite } from './pg-harness.js';

const freshDir = temporaryDirs();

const CITIES: Record<string, string> = {
  'berlin.md': 'Berlin is the capital of Germany.',
  'rome.md': 'Rome is the capital of Italy.',
  'bern.md': 'Bern is the capital of Switzerland.',
};

let made = 0;
/** A corpus of two documents (lyon.md, oslo.txt) indexed with `method` as index `name` at `url`, and the city files. */
async function indexed(
  url: string,
  method: string,
  options: { env?: NodeJS.ProcessEnv; flags?: string[] } = {},
): Promise<{ root: string; name: string }> {
  const root = await freshDir('grag-pg-writers-');
  await writeFiles(join(root, 'corpus'), TWO_CITIES);
  await writeFiles(root, CITIES);
  const name = `writers_${process.pid}_${++made}`;
  const io = captureIO(root, options.env);
  const args = ['index', join(root, 'corpus'), '--method', method, '--store', url, '--out', name, '-q'];
  expect(await run([...args, ...(options.flags ?? [])], io), io.err()).toBe(0);
  return { root, name };
}

/** The ids of the documents the index `name` (naive-rag's layout) holds. */
async function documentsOf(url: string, name: string): Promise<string[]> {
  const store = postgresStore({ url, index: name });
  try {
    const snapshot = await store.open();
    try {
      const chunks = JSON.parse(new TextDecoder().decode(await snapshot.read('chunks.json')));
      return chunks.documents as string[];
    } finally {
      await snapshot.release();
    }
  } finally {
    await store.close();
  }
}

/** Three runs of three `grag add`/`remove` processes at once on one index at `url`. */
async function threeWritersCheck(url: string): Promise<void> {
  for (let round = 0; round < 3; round++) {
    const { root, name } = await indexed(url, 'bm25');
    await threeWritersRound(round, root, name, () => documentsOf(url, name), { GRAG_STORE: url });
  }
}

/**
 * A `grag add` that holds the index's lock (stopped while embedding, its model calls unanswered)
 * is killed with SIGKILL; the next `grag add`, allowed to wait `lockWait` seconds, applies at once.
 */
async function killedWriterCheck(url: string, server: CountingServer, lockWait: number): Promise<void> {
  const env = { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'test-key', GRAG_STORE: url };
  const { root, name } = await indexed(url, 'naive-dense', { env, flags: MODEL_FLAGS });
  server.reset();
  server.holdAfterChat = 0;
  const killed = spawnGrag(['add', name, join(root, 'berlin.md'), '-q', ...MODEL_FLAGS], env);
  try {
    // It holds the lock while it waits for its embedding: a writer that may not wait is refused, naming it.
    await until(() => server.received.length > 0, 60_000);
    const probe = postgresStore({ url, index: name, lockTimeoutMs: 0 });
    const refusal = await probe
      .lock()
      .then(async (lock) => {
        await lock.release();
        return 'granted';
      })
      .catch((error: Error) => error.message)
      .finally(() => probe.close());
    expect(refusal).toMatch(new RegExp(`is being written by another grag \\(pid ${killed.pid}, since `));
    killed.kill('SIGKILL');
    expect((await exited(killed)).signal).toBe('SIGKILL');
    expect(await documentsOf(url, name)).toEqual(['lyon.md', 'oslo.txt']);

    server.reset();
    const io = captureIO(root, { ...env, GRAG_LOCK_WAIT: String(lockWait) });
    const code = await run(['add', name, join(root, 'rome.md'), '-q', ...MODEL_FLAGS], io);
    expect({ code, err: io.err() }).toEqual({ code: 0, err: '' });
    expect(await documentsOf(url, name)).toEqual(['lyon.md', 'oslo.txt', 'rome.md']);
  } finally {
    if (killed.exitCode === null && killed.signalCode === null) killed.kill('SIGKILL');
  }
}

/**
 * The writers' checks against a database `start` serves (stopped after them, with the model
 * server), within `startTimeout` ms; a writer killed holding the lock keeps the next one out for
 * at most `killed.lockWait` s (`GRAG_LOCK_WAIT`).
 */
function writerChecks(
  start: () => Promise<{ url: string; stop(): Promise<void> }>,
  startTimeout: number,
  killed: { title: string; lockWait: number },
): void {
  let db: { url: string; stop(): Promise<void> } | undefined;
  const server = new CountingServer();
  beforeAll(async () => {
    db = await start();
    await server.start();
  }, startTimeout);
  afterAll(async () => {
    await server.stop();
    await db?.stop();
  }, 60_000);

  it('three runs of three writers at once lose nothing: the index ends as one serial order of them', async () => {
    await threeWritersCheck(db!.url);
  }, 180_000);

  it(killed.title, async () => {
    await killedWriterCheck(db!.url, server, killed.lockWait);
  }, 120_000);
}

describe('simultaneous grag add / remove on one index in PGlite over the wire', () => {
  // PGlite runs every connection in one session: the next writer releases a dead holder's lock.
  writerChecks(() => servePglite(64), 60_000, {
    title:
      'a writer killed with SIGKILL while it holds the lock leaves the index as it was; the next one proceeds at once',
    lockWait: 0,
  });
});

const bin = debianPostgresBin();
const reason = bin
  ? `simultaneous grag add / remove on one index in Debian PostgreSQL (${bin})`
  : 'SKIPPED: simultaneous grag add / remove on Debian PostgreSQL: no /usr/lib/postgresql/*/bin/initdb; apt-get install -y postgresql to run it';

describe.skipIf(bin === undefined)(reason, () => {
  // PostgreSQL ends the killed writer's session (and its lock) as soon as its socket closes.
  writerChecks(() => startDebianServer(bin!), 120_000, {
    title:
      'a writer killed with SIGKILL while it holds the lock leaves the index as it was; the next one proceeds',
    lockWait: 10,
  });
});
