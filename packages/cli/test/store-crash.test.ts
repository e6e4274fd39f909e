/**
 * Crash safety through the CLI with `--store`: `grag index --store` (ket-rag, against a counting
 * OpenAI-compatible server) is killed with SIGKILL after N completed model calls; the version built
 * before is still what `grag query` serves, and running the same command again repeats none of the
 * completed calls (call cache and checkpoints in the cache directory), then serves the new version.
 */
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoCorpusPath, run } from '../src/index.js';
import { CountingServer, MODEL_FLAGS } from './counting-server.js';
import { captureIO } from './helpers.js';
import { exited, type IndexChild, killAfterChats, spawnKetRagIndex } from './index-child.js';
import { PASSWORD, type SocketDb, servePglite } from './pg-harness.js';

/** Completed chat calls after which the build is killed. */
const KILL_AFTER = 6;

function env(server: CountingServer, db: SocketDb): NodeJS.ProcessEnv {
  return { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'test-key', GRAG_STORE: db.url };
}

/** `grag index <corpus> --method ket-rag --out docs` with the store in GRAG_STORE, as one node process. */
function gragIndex(server: CountingServer, db: SocketDb, corpus: string, cacheDir: string): IndexChild {
  return spawnKetRagIndex(server, { corpus, out: 'docs', cacheDir, env: { GRAG_STORE: db.url } });
}

describe('grag index --store killed with SIGKILL and run again', () => {
  const server = new CountingServer();
  let db: SocketDb;
  let root = '';
  beforeAll(async () => {
    await server.start();
    db = await servePglite();
    root = await mkdtemp(join(tmpdir(), 'grag-store-kill-'));
  }, 60_000);
  afterAll(async () => {
    await server.stop();
    await db?.stop();
    await rm(root, { recursive: true, force: true });
  });

  /** The documents of the current version (its manifest's stats) and the docs a query retrieves. */
  async function served(): Promise<{ documents: number; retrieved: string[] }> {
    const io = captureIO(root, env(server, db));
    const args = ['query', 'docs', 'Kessler Shipyard research vessel', '--json', '--no-answer'];
    expect(await run([...args, '--top-k', '20', ...MODEL_FLAGS], io), io.err()).toBe(0);
    const result = JSON.parse(io.out()) as { retrieval: { items: { source: { docIds: string[] } }[] } };
    const current = await db.db.query<{ documents: number }>(
      `SELECT (manifest->'stats'->>'documents')::int AS documents FROM grag_docs.versions WHERE current`,
    );
    return {
      documents: current.rows[0]!.documents,
      retrieved: [...new Set(result.retrieval.items.flatMap((i) => i.source.docIds))].sort(),
    };
  }

  it('keeps serving the previous version, and the rerun repeats 0 completed model calls', async () => {
    // The previous version: three of the demo documents.
    const small = join(root, 'small');
    await mkdir(small);
    const names = (await readdir(demoCorpusPath())).sort();
    const smallNames = names.slice(0, 3);
    for (const name of smallNames) await copyFile(join(demoCorpusPath(), name), join(small, name));
    const first = gragIndex(server, db, small, join(root, 'cache-small'));
    expect((await exited(first)).code, first.stderrText()).toBe(0);
    const before = await served();
    expect(before.documents).toBe(3);
    expect(before.retrieved.length).toBeGreaterThan(0);
    expect(before.retrieved.every((id) => smallNames.includes(id))).toBe(true);

    // The whole demo corpus into the same index, killed after KILL_AFTER completed chat calls;
    // later requests are held unanswered, and the pause lets the client store what it has.
    server.reset();
    server.holdAfterChat = KILL_AFTER;
    const cacheDir = join(root, 'cache');
    const killed = gragIndex(server, db, demoCorpusPath(), cacheDir);
    const completedBeforeKill = await killAfterChats(server, killed, KILL_AFTER, 90_000);
    expect(server.completedChats).toBeGreaterThanOrEqual(KILL_AFTER);

    // The previous version is still the one served.
    server.reset();
    expect(await served()).toEqual(before);

    // The same command again: no completed call is sent again, and the new version is served.
    server.reset();
    const rerun = gragIndex(server, db, demoCorpusPath(), cacheDir);
    expect((await exited(rerun)).code, rerun.stderrText()).toBe(0);
    const repeated = server.received.filter((c) => completedBeforeKill.has(c.key));
    expect(repeated).toEqual([]);
    // The kill came midway: the rerun still had model calls to make.
    expect(server.received.filter((c) => c.kind === 'chat').length).toBeGreaterThan(0);
    expect(rerun.stderrText()).toMatch(/grag: resumed: \d+ finished stages restored from checkpoints/);
    expect(rerun.stderrText()).not.toContain(PASSWORD);
    // Checkpoints live in the cache directory and are dropped once the version is stored.
    expect(existsSync(join(cacheDir, 'builds'))).toBe(false);
    server.reset();
    const after = await served();
    expect(after.documents).toBe(names.length);
    expect(after.retrieved.some((id) => !smallNames.includes(id))).toBe(true);
  }, 180_000);
});
