/**
 * Issue 3's resume contract, end to end: `grag index` against a local OpenAI-compatible server is
 * killed with SIGKILL midway, the same command runs again, and the test checks that no model call
 * the first run had completed is sent again and that the index equals an uninterrupted build's.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { indexFileDigests } from '@grag/core/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoCorpusPath, run } from '../src/index.js';
import { CountingServer, MODEL_FLAGS } from './counting-server.js';
import { captureIO } from './helpers.js';
import { exited, type IndexChild, killAfterChats, spawnKetRagIndex } from './index-child.js';

function grag(server: CountingServer, out: string, cacheDir: string): IndexChild {
  return spawnKetRagIndex(server, { corpus: demoCorpusPath(), out, cacheDir });
}

describe('grag index killed with SIGKILL and run again', () => {
  const server = new CountingServer();
  let root = '';
  beforeAll(async () => {
    await server.start();
    root = await mkdtemp(join(tmpdir(), 'grag-kill-'));
  });
  afterAll(async () => {
    await server.stop();
    await rm(root, { recursive: true, force: true });
  });

  it('repeats no completed model call, writes the index an uninterrupted build writes, and a rebuild calls nothing', async () => {
    // Uninterrupted reference build, with its own cache.
    const reference = grag(server, join(root, 'reference'), join(root, 'cache-reference'));
    expect((await exited(reference)).code, reference.stderrText()).toBe(0);
    const referenceCalls = new Set(server.received.map((c) => c.key));
    const referenceChats = server.received.filter((c) => c.kind === 'chat').length;
    expect(referenceChats).toBeGreaterThan(10);

    // The same build, killed once a third of its chat calls have completed. Requests after that
    // point are held unanswered; the pause lets the client store the answers it has.
    server.reset();
    const stopAt = Math.floor(referenceChats / 3);
    server.holdAfterChat = stopAt;
    const out = join(root, 'index');
    const cacheDir = join(root, 'cache');
    const first = grag(server, out, cacheDir);
    const completedBeforeKill = await killAfterChats(server, first, stopAt, 60_000);
    expect(completedBeforeKill.size).toBeGreaterThanOrEqual(stopAt);
    expect(existsSync(join(out, 'manifest.json'))).toBe(false);

    // Run the same command again.
    server.reset();
    const second = grag(server, out, cacheDir);
    expect((await exited(second)).code, second.stderrText()).toBe(0);
    const resumedCalls = server.received.map((c) => c.key);
    const repeated = resumedCalls.filter((key) => completedBeforeKill.has(key));
    expect(repeated).toEqual([]);
    // Together the two runs made exactly the reference build's calls.
    expect(new Set([...completedBeforeKill, ...resumedCalls])).toEqual(referenceCalls);
    // Stages finished before the kill were restored, not redone.
    expect(second.stderrText()).toMatch(
      /grag: resumed: \d+ finished stages restored from checkpoints \(chunk, .*embed-chunks/,
    );

    expect(await indexFileDigests(out)).toEqual(await indexFileDigests(join(root, 'reference')));
    // Checkpoints (and their folder) are dropped once the index is written; the call cache stays.
    expect(existsSync(join(cacheDir, 'builds'))).toBe(false);
    expect((await readdir(join(cacheDir, 'calls'))).length).toBeGreaterThan(0);

    // Rebuilding with the same inputs makes no model call at all.
    server.reset();
    const rebuild = grag(server, join(root, 'rebuilt'), cacheDir);
    expect((await exited(rebuild)).code, rebuild.stderrText()).toBe(0);
    expect(server.received).toEqual([]);
    expect(await indexFileDigests(join(root, 'rebuilt'))).toEqual(
      await indexFileDigests(join(root, 'reference')),
    );

    // An estimate over the warm cache finds every call there: nothing left to pay.
    const io = captureIO(root, { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'test-key' });
    const args = ['index', demoCorpusPath(), '--method', 'ket-rag', '--estimate', '--json', '-q'];
    expect(await run([...args, '--cache-dir', cacheDir, ...MODEL_FLAGS], io), io.err()).toBe(0);
    const estimate = JSON.parse(io.out()) as {
      total: { chatCalls: number; embeddedValues: number; cacheHits: number; usd: number };
    };
    expect(estimate.total).toMatchObject({ chatCalls: 0, embeddedValues: 0, usd: 0 });
    expect(estimate.total.cacheHits).toBeGreaterThanOrEqual(referenceChats);
    expect(server.received).toEqual([]);
  }, 120_000);
});
