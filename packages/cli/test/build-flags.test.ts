import { existsSync } from 'node:fs';
import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { defaultCacheDir, demoCorpusPath, run } from '../src/index.js';
import { captureIO } from './helpers.js';

const tmp = () => mkdtemp(join(tmpdir(), 'grag-flags-'));

describe('grag index: cache, interruption and prices', () => {
  it('a Ctrl-C (aborted signal) stops with exit 130 and one line saying how to resume; the rerun finishes', async () => {
    const dir = await tmp();
    const out = join(dir, 'idx');
    const controller = new AbortController();
    const captured = captureIO(dir);
    // Aborted once the corpus is read, before the first stage ends: when the line that starts the build is written.
    const stderr = new Writable({
      write(chunk, encoding, done) {
        if (String(chunk).startsWith('grag: indexing ')) controller.abort();
        captured.stderr.write(chunk, encoding, done);
      },
    });
    const io = { ...captured, stderr, signal: controller.signal };
    const args = ['index', demoCorpusPath(), '--method', 'naive-dense', '--out', out];
    expect(await run(args, io)).toBe(130);
    const lines = io.err().trim().split('\n');
    expect(lines.at(-1)).toMatch(
      new RegExp(
        `^grag: interrupted during stage "[\\w-]+"; completed model calls are cached in ${defaultCacheDir(out).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} and finished stages are kept; run the same command again to resume\\.$`,
      ),
    );
    const again = captureIO(dir);
    expect(await run(args, again)).toBe(0);
    expect(await readdir(out)).toContain('manifest.json');
  });

  it('a Ctrl-C while the corpus is read stops with exit 130 and one line; nothing is written', async () => {
    const dir = await tmp();
    const out = join(dir, 'idx');
    const controller = new AbortController();
    const io = { ...captureIO(dir), signal: controller.signal };
    const pending = run(['index', demoCorpusPath(), '--method', 'bm25', '--out', out], io);
    controller.abort();
    expect(await pending).toBe(130);
    expect(io.err().trim().split('\n').at(-1)).toBe(
      'grag: interrupted while reading the corpus; nothing was built or written. Run the same command again.',
    );
    expect(existsSync(out)).toBe(false);
  });

  it('writes the call cache and checkpoints where --cache-dir says, and --no-cache writes neither', async () => {
    const dir = await tmp();
    const cacheDir = join(dir, 'my-cache');
    const io = captureIO(dir);
    const base = ['index', demoCorpusPath(), '--method', 'bm25', '-q'];
    expect(await run([...base, '--out', join(dir, 'a'), '--cache-dir', cacheDir], io)).toBe(0);
    // The build finished: its checkpoints are gone, and so is the builds folder they were in.
    expect(existsSync(join(cacheDir, 'builds'))).toBe(false);
    expect(await run([...base, '--out', join(dir, 'b'), '--no-cache'], io)).toBe(0);
    expect(await readdir(dir)).not.toContain('.grag-cache');
  });

  it('rejects a malformed --prices file in one line naming it', async () => {
    const dir = await tmp();
    const prices = join(dir, 'prices.json');
    await writeFile(prices, JSON.stringify({ 'gpt-4o-mini': { input: 'cheap' } }));
    const io = captureIO(dir);
    const code = await run(
      ['index', demoCorpusPath(), '--method', 'ket-rag', '--estimate', '--prices', prices],
      io,
    );
    expect(code).toBe(1);
    expect(io.err().trim().split('\n').at(-1)).toBe(
      `grag: The price table ${prices} must map model ids to {"input": usd, "output": usd} per 1M tokens, e.g. {"gpt-4o-mini": {"input": 0.15, "output": 0.6}}.`,
    );
  });

  it('prices the estimate with a --prices override (hand-computed from the printed tokens)', async () => {
    const dir = await tmp();
    const prices = join(dir, 'prices.json');
    await writeFile(
      prices,
      JSON.stringify({ 'gpt-4o-mini': { input: 1000, output: 0 }, 'text-embedding-3-small': { input: 0 } }),
    );
    const io = captureIO(dir);
    const code = await run(
      ['index', demoCorpusPath(), '--method', 'ket-rag', '--estimate', '--json', '-q', '--prices', prices],
      io,
    );
    expect(code, io.err()).toBe(0);
    const estimate = JSON.parse(io.out()) as { total: { inputTokens: number; usd: number } };
    // $1000 per 1M input tokens = $0.001 per token; output and embeddings are free here.
    expect(estimate.total.usd).toBeCloseTo(estimate.total.inputTokens / 1000, 9);
  });
});
