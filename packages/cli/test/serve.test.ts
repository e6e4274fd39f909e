/** `grag serve`: in process and as a real process, over real HTTP on 127.0.0.1. */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../src/index.js';
import { captureIO } from './helpers.js';

let root: string;
let bm25Dir: string;
let denseDir: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'grag-cli-serve-'));
  const corpus = join(root, 'corpus');
  await mkdir(corpus);
  await writeFile(
    join(corpus, 'lyon.md'),
    '# Lyon\n\nLyon is a city in France. The Rhone and the Saone meet in Lyon.',
  );
  await writeFile(
    join(corpus, 'oslo.md'),
    '# Oslo\n\nOslo is the capital of Norway. The Munch Museum is in Oslo.',
  );
  bm25Dir = join(root, 'bm25');
  denseDir = join(root, 'dense');
  for (const [method, out] of [
    ['bm25', bm25Dir],
    ['naive-dense', denseDir],
  ] as const) {
    const io = captureIO(root);
    const code = await run(
      ['index', corpus, '--method', method, '--out', out, '--vector-index', 'flat', '-q'],
      io,
    );
    expect(code, io.err()).toBe(0);
  }
}, 60_000);

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function until(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const URL_LINE = /^grag serve: (.+) at (http:\/\/127\.0\.0\.1:\d+)( \(bearer token required\))?\n$/;

describe('grag serve in process', () => {
  it('serves every index given, prints one line with the URL, and stops when aborted', async () => {
    const controller = new AbortController();
    const io = { ...captureIO(root), signal: controller.signal };
    const running = run(['serve', bm25Dir, denseDir, '--port', '0', '--no-explorer'], io);
    await until(() => URL_LINE.test(io.out()));
    const [, names, url] = URL_LINE.exec(io.out())!;
    expect(names).toBe('bm25, naive-dense');
    const indexes = (await (await fetch(`${url}/v1/indexes`)).json()) as { indexes: { name: string }[] };
    expect(indexes.indexes.map((ix) => ix.name)).toEqual(['bm25', 'naive-dense']);
    const res = await fetch(`${url}/v1/query`, {
      method: 'POST',
      body: JSON.stringify({
        question: 'Which museum is in Oslo?',
        method: 'naive-dense',
        topK: 1,
        answer: true,
      }),
    });
    const body = (await res.json()) as {
      retrieval: { items: { source: { docIds: string[] } }[] };
      answer: unknown;
    };
    expect(res.status).toBe(200);
    expect(body.retrieval.items[0]!.source.docIds).toEqual(['oslo.md']);
    expect(body.answer).toBeDefined();
    const doc = (await (await fetch(`${url}/v1/documents/oslo.md?method=bm25`)).json()) as { text: string };
    expect(doc.text).toBe('# Oslo\n\nOslo is the capital of Norway. The Munch Museum is in Oslo.');
    expect((await fetch(`${url}/`)).status).toBe(404);
    controller.abort();
    expect(await running).toBe(0);
    expect(io.err()).toContain('grag serve: SIGINT, stopping.');
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });

  it('requires the token from GRAG_TOKEN when it is set', async () => {
    const controller = new AbortController();
    const io = { ...captureIO(root, { GRAG_TOKEN: 'env-token-1' }), signal: controller.signal };
    const running = run(['serve', bm25Dir, '--port', '0', '-q'], io);
    await until(() => URL_LINE.test(io.out()));
    const [, , url, required] = URL_LINE.exec(io.out())!;
    expect(required).toBe(' (bearer token required)');
    expect(io.out()).not.toContain('env-token-1');
    expect((await fetch(`${url}/v1/indexes`)).status).toBe(401);
    expect(
      (await fetch(`${url}/v1/indexes`, { headers: { authorization: 'Bearer env-token-1' } })).status,
    ).toBe(200);
    controller.abort();
    expect(await running).toBe(0);
  });

  it('refuses a directory that is not an index in one line, with a non-zero exit', async () => {
    const io = captureIO(root);
    expect(await run(['serve', join(root, 'corpus'), '--port', '0'], io)).toBe(1);
    expect(io.err().trim().split('\n')).toHaveLength(1);
    expect(io.err()).toMatch(/^grag: .*corpus is not a grag index: it has no manifest\.json/);
    const missing = captureIO(root);
    expect(await run(['serve', join(root, 'nope'), '--port', '0'], missing)).toBe(1);
    expect(missing.err()).toMatch(/^grag: Index directory .*nope does not exist\./);
  });

  it('refuses a bad port, no directory, and two indexes of one method', async () => {
    const cases: [string[], RegExp][] = [
      [
        ['serve', bm25Dir, '--port', '70000'],
        /^grag: Bad --port: expected an integer from 0 to 65535, got "70000"\.\n$/,
      ],
      [['serve'], /^grag: Missing index directory\. Usage: grag serve <index-dir>\.\.\./],
      [
        ['serve', bm25Dir, bm25Dir, '--port', '0'],
        /both hold a 'bm25' index; serve one index per method\.\n$/,
      ],
    ];
    for (const [argv, message] of cases) {
      const io = captureIO(root);
      expect(await run(argv, io)).toBe(1);
      expect(io.err()).toMatch(message);
    }
  });

  it('lists serve and its options in --help', async () => {
    const io = captureIO(root);
    expect(await run(['serve', '--help'], io)).toBe(0);
    expect(io.out()).toContain('serve <index-dir>...');
    expect(io.out()).toContain('--no-explorer');
    expect(io.out()).toContain('$GRAG_TOKEN');
  });
});

describe('grag serve as a process', () => {
  const bin = fileURLToPath(new URL('../src/bin.ts', import.meta.url));
  const repo = fileURLToPath(new URL('../../../', import.meta.url));

  function start(args: string[]): ChildProcess & { out: () => string; err: () => string } {
    const child = spawn(process.execPath, ['--import', 'tsx', bin, 'serve', ...args], {
      cwd: repo,
      env: {
        PATH: process.env.PATH,
        TSX_TSCONFIG_PATH: join(repo, 'tsconfig.json'),
        GRAG_PROVIDER: 'offline',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout?.on('data', (c) => {
      out += c;
    });
    child.stderr?.on('data', (c) => {
      err += c;
    });
    return Object.assign(child, { out: () => out, err: () => err });
  }

  function exited(child: ChildProcess): Promise<number | null> {
    return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'answers over HTTP, then closes cleanly on %s',
    async (signal) => {
      const child = start([bm25Dir, '--port', '0', '--token', 'proc-token']);
      const exit = exited(child);
      try {
        await until(() => URL_LINE.test(child.out()), 30_000);
      } catch (error) {
        child.kill('SIGKILL');
        throw new Error(`grag serve did not start: ${child.err()}`, { cause: error });
      }
      const [, , url] = URL_LINE.exec(child.out())!;
      expect((await fetch(`${url}/v1/indexes`)).status).toBe(401);
      const res = await fetch(`${url}/v1/query`, {
        method: 'POST',
        headers: { authorization: 'Bearer proc-token' },
        body: JSON.stringify({ question: 'Where do the Rhone and the Saone meet?', topK: 1 }),
      });
      const body = (await res.json()) as { retrieval: { items: { source: { docIds: string[] } }[] } };
      expect(body.retrieval.items[0]!.source.docIds).toEqual(['lyon.md']);
      child.kill(signal);
      expect(await exit).toBe(0);
      expect(child.out().split('\n').filter(Boolean)).toHaveLength(1);
      expect(child.err()).toContain(`grag serve: ${signal}, stopping.`);
    },
    60_000,
  );
});
