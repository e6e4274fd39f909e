import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../src/index.js';
import { captureIO } from './helpers.js';

async function corpusDir(): Promise<string> {
  // A fresh parent, so that nothing else (e.g. another test's call cache) is written beside the corpus.
  const parent = await mkdtemp(join(tmpdir(), 'grag-set-'));
  const dir = join(parent, 'corpus');
  await mkdir(dir);
  await writeFile(join(dir, 'oslo.txt'), 'Oslo is the capital of Norway. The Munch Museum is in Oslo.');
  return dir;
}

describe('grag index --set with an unknown option key', () => {
  it('prints one line suggesting the right key, exits 1 and writes nothing', async () => {
    const dir = await corpusDir();
    const out = join(dirname(dir), 'idx');
    const io = captureIO(dir);
    const code = await run(
      ['index', dir, '--method', 'bm25', '--out', out, '--set', 'chunkSzie=600', '-q'],
      io,
    );
    expect(code).toBe(1);
    expect(io.err().trim().split('\n')).toHaveLength(1);
    expect(io.err()).toMatch(/^grag: .*unknown option "chunkSzie"; did you mean "chunkSize"\?/);
    expect(io.out()).toBe('');
    expect(existsSync(out)).toBe(false);
    expect(await readdir(dirname(dir))).toEqual(['corpus']);
  });

  it('without -q, the error is still a single line, the last one', async () => {
    const dir = await corpusDir();
    const io = captureIO(dir);
    const code = await run(
      ['index', dir, '--method', 'noderag', '--out', join(dirname(dir), 'idx'), '--set', 'chunkSzie=600'],
      io,
    );
    expect(code).toBe(1);
    const lines = io.err().trim().split('\n');
    expect(lines.filter((l) => l.includes('chunkSzie'))).toHaveLength(1);
    expect(lines.at(-1)).toMatch(
      /^grag: noderag build: unknown option "chunkSzie"; did you mean "chunkSize"\?/,
    );
  });

  it('still accepts valid keys', async () => {
    const dir = await corpusDir();
    const out = join(dirname(dir), 'idx');
    const io = captureIO(dir);
    expect(
      await run(['index', dir, '--method', 'bm25', '--out', out, '--set', 'chunkSize=600', '-q'], io),
    ).toBe(0);
    expect(existsSync(join(out, 'manifest.json'))).toBe(true);
  });
});
