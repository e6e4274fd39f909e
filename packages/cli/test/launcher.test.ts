/**
 * `node grag.mjs …` and `npx -y pnpm@10 grag …` in a clone run scripts/grag.mjs: the CLI from a prebuilt bundle of the
 * workspace's sources (scripts/cli-bundle.mjs), rebuilt when a source changes. These tests run the
 * launcher as the root script does, and the bundler on a small workspace of their own.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { temporaryRoot } from '@grag/core/test/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCliBundle, currentBundle, ensureCliBundle } from '../../../scripts/cli-bundle.mjs';
import { withOutput } from './index-child.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const launcher = join(repo, 'scripts', 'grag.mjs');
const run = promisify(execFile);
/** What a user's shell has: no OpenAI settings. */
const env = { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: tmpdir() };

function grag(args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, [launcher, ...args], { cwd: repo, env, timeout: 120_000 });
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

describe('the launcher behind `pnpm grag`', () => {
  const work = temporaryRoot('grag-launcher-');

  it('is what the root package.json runs for grag and demo', async () => {
    const { scripts } = JSON.parse(await readFile(join(repo, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(scripts.grag).toBe('node scripts/grag.mjs');
    expect(scripts.demo).toBe('node scripts/grag.mjs demo');
  });

  it("is what `node grag.mjs`, the README's commands, runs", async () => {
    const { version } = JSON.parse(await readFile(join(repo, 'packages', 'cli', 'package.json'), 'utf8'));
    const { stdout } = await run(process.execPath, [join(repo, 'grag.mjs'), '--version'], {
      cwd: repo,
      env,
      timeout: 120_000,
    });
    expect(stdout).toBe(`${version}\n`);
  });

  it('prints the version and the methods, and indexes and answers as the sources do', async () => {
    const { version } = JSON.parse(await readFile(join(repo, 'packages', 'cli', 'package.json'), 'utf8'));
    expect((await grag(['--version'])).stdout).toBe(`${version}\n`);
    const methods = (await grag(['methods'])).stdout;
    for (const name of [
      'naive-dense',
      'bm25',
      'e2graphrag',
      'bridge-rag',
      'noderag',
      'ket-rag',
      'da-rag',
      'sg-rag',
    ])
      expect(methods).toMatch(new RegExp(`^${name} `, 'm'));
    const index = join(work(), 'demo-index');
    const built = await grag(['index', 'packages/cli/demo', '--method', 'bm25', '--out', index, '-q']);
    expect(built.stderr).not.toMatch(/error/i);
    const { stdout } = await grag(['query', index, 'Who founded the Kessler Shipyard?', '-q']);
    expect(stdout).toMatch(/^A: Anton Kessler/m);
  }, 120_000);

  // The explorer page is built by `pnpm install` (the root postinstall, scripts/postinstall.mjs):
  // `grag serve` from the sources serves it at `/`, not the page that says it is not built.
  it('serves the explorer page that pnpm install built', async () => {
    const page = join(repo, 'packages', 'server', 'dist', 'explorer', 'index.html');
    const html = await readFile(page, 'utf8').catch(() => {
      throw new Error(`${page} is missing: run npx -y pnpm@10 install (its postinstall builds the explorer)`);
    });
    const index = join(work(), 'serve-index');
    await grag(['index', 'packages/cli/demo', '--method', 'bm25', '--out', index, '-q']);
    const child = withOutput(
      spawn(process.execPath, [launcher, 'serve', index, '--port', '0'], {
        cwd: repo,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    const exit = exited(child);
    try {
      for (let i = 0; i < 600 && !/ at http:\/\//.test(child.out()); i++)
        await new Promise((r) => setTimeout(r, 50));
      const url = / at (http:\/\/127\.0\.0\.1:\d+)/.exec(child.out())?.[1];
      expect(url, `grag serve did not start:\n${child.out()}${child.err()}`).toBeDefined();
      const res = await fetch(`${url}/`);
      expect(res.status).toBe(200);
      const served = await res.text();
      expect(served).toBe(html);
      expect(served).toContain('<title>grag explorer</title>');
      expect(served).not.toContain('not built');
      const script = /src="(assets\/explorer\.js[^"]*)"/.exec(served)?.[1];
      expect(script).toBeDefined();
      const js = await fetch(`${url}/${script}`);
      expect(js.status).toBe(200);
      expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    } finally {
      child.kill('SIGTERM');
      await exit;
    }
  }, 120_000);
});

describe('the CLI bundle (scripts/cli-bundle.mjs)', () => {
  let root: string;
  const write = async (path: string, text: string) => {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), text);
  };
  const runBundle = async (entry: string) =>
    (await run(process.execPath, [entry], { cwd: root, env, timeout: 60_000 })).stdout;

  // A workspace of two packages: the CLI's bin imports @grag/core (through tsconfig paths) and
  // prints its own import.meta.url; core imports a dependency installed only for core.
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'grag-bundle-'));
    await write('package.json', '{ "private": true, "type": "module" }\n');
    await write(
      'tsconfig.json',
      JSON.stringify({
        compilerOptions: { baseUrl: '.', paths: { '@grag/*': ['packages/*/src/index.ts'] } },
      }),
    );
    await write(
      'packages/cli/src/bin.ts',
      "import { word } from '@grag/core';\nconsole.log(word(), import.meta.url);\n",
    );
    await write(
      'packages/core/src/index.ts',
      "import { suffix } from 'only-in-core';\nexport const word = (): string => 'one' + suffix;\n",
    );
    await write(
      'packages/core/node_modules/only-in-core/package.json',
      '{ "name": "only-in-core", "type": "module", "exports": "./index.js" }\n',
    );
    await write('packages/core/node_modules/only-in-core/index.js', "export const suffix = '!';\n");
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('bundles the sources, keeps each file its own import.meta.url and each dependency where it is installed', async () => {
    expect(await currentBundle(root)).toBeUndefined();
    const entry = await buildCliBundle(root);
    expect(entry.startsWith(join(root, 'packages', 'cli', 'node_modules', '.cache', 'grag-cli'))).toBe(true);
    const bin = pathToFileURL(join(root, 'packages', 'cli', 'src', 'bin.ts')).href;
    expect(await runBundle(entry)).toBe(`one! ${bin}\n`);
    const bundled = await readFile(entry, 'utf8');
    expect(bundled).toContain(
      pathToFileURL(join(root, 'packages', 'core', 'node_modules', 'only-in-core', 'index.js')).href,
    );
    expect(await currentBundle(root)).toBe(entry);
    expect(await ensureCliBundle(root)).toBe(entry);
  }, 60_000);

  it('is stale after a source changes, and the next run uses a new build with the change', async () => {
    const before = await ensureCliBundle(root);
    await write(
      'packages/core/src/index.ts',
      "import { suffix } from 'only-in-core';\nexport const word = (): string => 'two' + suffix;\n",
    );
    expect(await currentBundle(root)).toBeUndefined();
    const after = await ensureCliBundle(root);
    expect(after).not.toBe(before);
    expect((await runBundle(after)).split(' ')[0]).toBe('two!');
    expect(await currentBundle(root)).toBe(after);
  }, 60_000);

  it('fails with the file and line of a source that does not parse, and keeps the last good build', async () => {
    const good = await ensureCliBundle(root);
    await write('packages/core/src/index.ts', 'export const word = (: string => ;\n');
    await expect(buildCliBundle(root)).rejects.toThrow(/packages\/core\/src\/index\.ts:1:/);
    expect(await runBundle(good)).toMatch(/^two! /);
  }, 60_000);
});
