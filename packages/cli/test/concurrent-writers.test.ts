/**
 * Issue 25, item 1: writers of one directory index at once, as separate `grag` processes. Each run
 * ends with the documents of one serial order of the writes (every writer that exited 0 applied,
 * on top of the others), or a writer refused in one line naming the other; a writer killed with
 * SIGKILL while it holds the index's lock leaves a stale lock that the next writer takes over.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { temporaryDirs } from '@grag/core/test/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../src/index.js';
import { CountingServer, MODEL_FLAGS } from './counting-server.js';
import { captureIO, TWO_CITIES, writeFiles } from './helpers.js';
import { exited, spawnGrag, threeWritersRound, until } from './index-child.js';

const freshDir = temporaryDirs();

/** A corpus of two documents (lyon.md, oslo.txt), an index of it built with `method`, and `extra` files beside it. */
async function indexed(
  method: string,
  extra: Record<string, string>,
  options: { env?: NodeJS.ProcessEnv; flags?: string[] } = {},
): Promise<{ root: string; index: string }> {
  const root = await freshDir('grag-writers-');
  await writeFiles(join(root, 'corpus'), TWO_CITIES);
  await writeFiles(root, extra);
  const index = join(root, 'index');
  const io = captureIO(root, options.env);
  const args = [
    'index',
    join(root, 'corpus'),
    '--method',
    method,
    '--out',
    index,
    '-q',
    ...(options.flags ?? []),
  ];
  expect(await run(args, io), io.err()).toBe(0);
  return { root, index };
}

/** The ids of the documents an index of naive-rag's layout holds. */
async function documentsOf(index: string): Promise<string[]> {
  return (JSON.parse(await readFile(join(index, 'chunks.json'), 'utf8')) as { documents: string[] })
    .documents;
}

const CITIES: Record<string, string> = {
  'berlin.md': 'Berlin is the capital of Germany.',
  'rome.md': 'Rome is the capital of Italy.',
  'bern.md': 'Bern is the capital of Switzerland.',
};

describe('simultaneous grag add / remove on one directory index', () => {
  it('three runs of three writers at once lose nothing: the index ends as one serial order of them', async () => {
    for (let round = 0; round < 3; round++) {
      const { root, index } = await indexed('bm25', CITIES);
      // Two adds and, in the last round, a remove of a document the index holds.
      await threeWritersRound(round, root, index, () => documentsOf(index));
      // No lock, temporary or old directory is left.
      expect((await readdir(root)).sort()).toEqual(
        ['.grag-cache', 'corpus', 'index', ...Object.keys(CITIES)].sort(),
      );
    }
  }, 120_000);
});

describe('a writer killed with SIGKILL while it holds the lock', () => {
  const server = new CountingServer();
  beforeAll(() => server.start());
  afterAll(() => server.stop());

  it('leaves the index as it was, and the next writer takes the stale lock over at once', async () => {
    const env = { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'test-key' };
    const { root, index } = await indexed('naive-dense', CITIES, { env, flags: MODEL_FLAGS });
    const lockFile = join(root, '.index.lock');
    // Every model call from now on is held unanswered: the add stops while embedding its chunk.
    server.reset();
    server.holdAfterChat = 0;
    const killed = spawnGrag(['add', index, join(root, 'berlin.md'), '-q', ...MODEL_FLAGS], env);
    await until(() => server.received.length > 0 && existsSync(lockFile), 60_000);
    expect(JSON.parse(await readFile(lockFile, 'utf8')).pid).toBe(killed.pid);
    killed.kill('SIGKILL');
    expect((await exited(killed)).signal).toBe('SIGKILL');
    expect(existsSync(lockFile)).toBe(true);
    expect(await documentsOf(index)).toEqual(['lyon.md', 'oslo.txt']);

    server.reset();
    // No waiting allowed: the dead writer's lock must be recognised as stale.
    const io = captureIO(root, { ...env, GRAG_LOCK_WAIT: '0' });
    const code = await run(['add', index, join(root, 'rome.md'), '-q', ...MODEL_FLAGS], io);
    expect({ code, err: io.err() }).toEqual({ code: 0, err: '' });
    expect(await documentsOf(index)).toEqual(['lyon.md', 'oslo.txt', 'rome.md']);
    expect((await readdir(root)).sort()).toEqual(
      ['.grag-cache', 'corpus', 'index', ...Object.keys(CITIES)].sort(),
    );
  }, 120_000);
});
