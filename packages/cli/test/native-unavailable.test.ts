import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../src/index.js';
import { captureIO } from './helpers.js';

const tmp = () => mkdtemp(join(tmpdir(), 'grag-cli-native-'));
const disabled = process.env.GRAG_DISABLE_NATIVE;

async function corpus(): Promise<string> {
  const dir = await tmp();
  await writeFile(join(dir, 'oslo.txt'), 'Oslo is the capital of Norway. The Munch Museum is in Oslo.');
  await writeFile(join(dir, 'lyon.md'), '# Lyon\n\nLyon is a city in France. The Rhone meets the Saone.');
  return dir;
}

describe('grag without the HNSW native addon (GRAG_DISABLE_NATIVE=1)', () => {
  let dir: string;
  let outs: string;
  let hnswIndex: string;
  beforeAll(async () => {
    dir = await corpus();
    outs = await tmp();
    // An index built while HNSW is available, to query later without it.
    hnswIndex = join(outs, 'idx-hnsw');
    const io = captureIO(dir);
    expect(await run(['index', dir, '--method', 'naive-dense', '--out', hnswIndex, '-q'], io)).toBe(0);
  });
  afterEach(() => {
    if (disabled === undefined) delete process.env.GRAG_DISABLE_NATIVE;
    else process.env.GRAG_DISABLE_NATIVE = disabled;
  });

  it('builds with the exact flat index and says so in one line, with how to enable HNSW', async () => {
    process.env.GRAG_DISABLE_NATIVE = '1';
    const out = join(outs, 'idx-flat');
    let io = captureIO(dir);
    expect(await run(['index', dir, '--method', 'naive-dense', '--out', out], io)).toBe(0);
    const notices = io.errLines((line) => /HNSW/.test(line));
    expect(notices).toEqual([
      expect.stringMatching(
        /^grag: using the exact flat vector index instead of HNSW: .*pnpm add -g @grag\/cli --allow-build=hnswlib-node --force/,
      ),
    ]);
    const manifest = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8'));
    expect(manifest.providers.vectorIndex).toBe('flat');
    io = captureIO(dir);
    expect(await run(['query', out, 'Which museum is in Oslo?', '--json'], io)).toBe(0);
    expect(JSON.parse(io.out()).retrieval.items[0].source.docIds).toEqual(['oslo.txt']);
  });

  it('refuses to query an HNSW-built index in one line that says how to enable HNSW', async () => {
    process.env.GRAG_DISABLE_NATIVE = '1';
    const io = captureIO(dir);
    expect(await run(['query', hnswIndex, 'Which museum is in Oslo?'], io)).toBe(1);
    expect(io.err().trim().split('\n')).toEqual([
      expect.stringMatching(/^grag: HNSW is unavailable: .*--allow-build=hnswlib-node.*pnpm install --force/),
    ]);
  });

  it('builds NodeRAG on the flat index it announces, queries and updates it, and the demo runs it', async () => {
    process.env.GRAG_DISABLE_NATIVE = '1';
    const out = join(outs, 'idx-noderag');
    let io = captureIO(dir);
    expect(await run(['index', dir, '--method', 'noderag', '--out', out], io), io.err()).toBe(0);
    expect(io.errLines((line) => /HNSW/.test(line))).toEqual([
      expect.stringMatching(/^grag: using the exact flat vector index instead of HNSW: /),
    ]);
    expect(io.err()).not.toMatch(/HNSW is unavailable/);
    const manifest = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8'));
    expect(manifest.providers.vectorIndex).toBe('flat');
    expect(manifest.stats.build.hnsw.added).toBeGreaterThan(0);
    io = captureIO(dir);
    expect(await run(['query', out, 'Which museum is in Oslo?', '--json', '--no-answer'], io), io.err()).toBe(
      0,
    );
    expect(JSON.stringify(JSON.parse(io.out()).retrieval.items)).toContain('oslo.txt');
    await writeFile(
      join(dir, 'bergen.txt'),
      'Bergen is a city in Norway. The Hanseatic Museum is in Bergen.',
    );
    try {
      io = captureIO(dir);
      expect(await run(['add', out, join(dir, 'bergen.txt'), '-q'], io), io.err()).toBe(0);
    } finally {
      await rm(join(dir, 'bergen.txt'), { force: true });
    }
    io = captureIO(dir);
    expect(await run(['demo', '--methods', 'bm25,noderag'], io), io.err()).toBe(0);
    expect(io.out()).toMatch(/== noderag ==/);
    expect(io.out()).not.toMatch(/skipped/);
    expect(io.out()).toMatch(/demo: 2 methods/);
    expect(io.errLines((line) => /HNSW/.test(line))).toHaveLength(1);
  }, 120_000);
});

describe('grag binary when hnswlib-node has no compiled binding', () => {
  const bin = fileURLToPath(new URL('../src/bin.ts', import.meta.url));
  const tsx = fileURLToPath(new URL('../../../node_modules/.bin/tsx', import.meta.url));
  const tsconfig = fileURLToPath(new URL('../../../tsconfig.json', import.meta.url));
  const block = fileURLToPath(new URL('./fixtures/no-hnswlib.cjs', import.meta.url));
  const grag = async (args: string[], cwd: string) =>
    promisify(execFile)(tsx, ['--tsconfig', tsconfig, bin, ...args], {
      cwd,
      env: { PATH: process.env.PATH, NODE_OPTIONS: `--require ${block}` },
    }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (e: { code: number; stdout: string; stderr: string }) => e,
    );

  it('--help, --version and methods never load it', async () => {
    const cwd = await tmp();
    for (const args of [['--help'], ['--version'], ['methods']]) {
      const result = await grag(args, cwd);
      expect(result.code, args.join(' ')).toBe(0);
      expect(result.stderr, args.join(' ')).toBe('');
    }
  }, 60_000);

  it('index falls back to the flat index with one line and no stack trace', async () => {
    const cwd = await corpus();
    const out = join(await tmp(), 'o');
    const result = await grag(['index', cwd, '--method', 'naive-dense', '--out', out], cwd);
    expect(result.code).toBe(0);
    const lines = result.stderr.split('\n').filter((line) => /HNSW|bindings|at /.test(line));
    expect(lines).toEqual([
      expect.stringMatching(
        /^grag: using the exact flat vector index instead of HNSW: the hnswlib-node native addon is not built/,
      ),
    ]);
  }, 60_000);
});
