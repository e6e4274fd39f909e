/** A check shared by the server tests: a writer killed with SIGKILL midway leaves the old version served. */
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { expect } from 'vitest';
import { postgresStore } from '../src/index.js';
import { runFixture } from './fixture-child.js';

const child = fileURLToPath(new URL('./fixtures/killed-writer.ts', import.meta.url));
const encode = (text: string) => new TextEncoder().encode(text);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Store version `old` of `index` at `url`, start a writer process, SIGKILL it midway, and check
 * that the old version is still served whole and that the next write (which needs the advisory
 * lock a dead writer may have held) completes.
 * - `'callback'`: killed inside its write callback (artifacts written, nothing committed);
 * - `'commit'`: killed while its commit transaction holds the index's advisory lock, seen in
 *   `pg_locks` from another connection (a server with several sessions only).
 */
export async function killedWriterCheck(
  url: string,
  index: string,
  when: 'callback' | 'commit',
): Promise<void> {
  const store = postgresStore({ url, index });
  const watcher = when === 'commit' ? new pg.Pool({ connectionString: url, max: 1 }) : undefined;
  try {
    await store.writeVersion(
      { method: 'crash', formatVersion: 1, params: { version: 'old' }, providers: {} },
      async (out) => {
        await out.write('a.txt', encode('old a'));
      },
    );
    const writer = runFixture(child, [url, index, when]);
    await writer.printed('written', 'the writer did not write', 5);
    if (watcher) {
      // Its commit has begun once another session holds an advisory lock.
      for (let waited = 0; ; waited += 2) {
        const locks = await watcher.query(
          "SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()",
        );
        if (locks.rows.length > 0) break;
        if (writer.process.exitCode !== null || waited > 60_000)
          throw new Error(`no commit was seen: ${writer.stdout()} ${writer.stderr()}`);
        await sleep(2);
      }
    }
    writer.process.kill('SIGKILL');
    expect(await writer.exited).toBe('SIGKILL');
    expect(writer.stdout()).not.toContain('committed');
    const snapshot = await store.open();
    expect(snapshot.manifest.params).toEqual({ version: 'old' });
    expect(snapshot.names).toEqual(['a.txt']);
    expect(new TextDecoder().decode(await snapshot.read('a.txt'))).toBe('old a');
    await snapshot.release();
    await store.writeVersion(
      { method: 'crash', formatVersion: 1, params: { version: 'next' }, providers: {} },
      async (out) => {
        await out.write('c.txt', encode('next c'));
      },
    );
    const next = await store.open();
    expect([next.manifest.params, next.names]).toEqual([{ version: 'next' }, ['c.txt']]);
    await next.release();
  } finally {
    await watcher?.end();
    await store.close();
  }
}
