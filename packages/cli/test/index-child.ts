/**
 * `grag index … --method ket-rag` as a child process against a {@link CountingServer}, for the
 * tests that kill a build with SIGKILL midway and run it again.
 *
 * Children run `node scripts/grag.mjs` (what `pnpm grag` runs): the workspace's sources as one
 * esbuild bundle, rebuilt first when a source changed since (scripts/cli-bundle.mjs), loaded in
 * that one process. A child starts in a fraction of the CPU time the tsx loader takes to compile
 * the sources it imports, and SIGKILL still stops grag itself, not a wrapper.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { type CountingServer, MODEL_FLAGS } from './counting-server.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const launcher = join(repo, 'scripts', 'grag.mjs');

/** A running build, with what it has written to stderr so far. */
export type IndexChild = ChildProcess & { stderrText: () => string };

/**
 * `grag index <corpus> --method ket-rag --out <out> --cache-dir <cacheDir> --concurrency 2` with
 * the server as its OpenAI-compatible endpoint, plus `env`. One process (scripts/grag.mjs loads
 * the bundle in itself), so SIGKILL stops the build itself, not a wrapper.
 */
export function spawnKetRagIndex(
  server: CountingServer,
  settings: { corpus: string; out: string; cacheDir: string; env?: NodeJS.ProcessEnv },
): IndexChild {
  const child = spawn(
    process.execPath,
    [
      launcher,
      'index',
      settings.corpus,
      '--method',
      'ket-rag',
      '--out',
      settings.out,
      '--cache-dir',
      settings.cacheDir,
      '--concurrency',
      '2',
      ...MODEL_FLAGS,
    ],
    {
      cwd: repo,
      env: {
        PATH: process.env.PATH,
        OPENAI_BASE_URL: server.url,
        OPENAI_API_KEY: 'test-key',
        ...settings.env,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  return Object.assign(child, { stderrText: () => stderr });
}

/**
 * `grag <args>` as a child process (scripts/grag.mjs, so SIGKILL stops grag itself; paths in
 * `args` absolute), with `env` over an environment free of OpenAI settings.
 */
export function spawnGrag(args: string[], env: NodeJS.ProcessEnv = {}): IndexChild {
  const child = spawn(process.execPath, [launcher, ...args], {
    cwd: repo,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  return Object.assign(child, { stderrText: () => stderr });
}

/** `child`, collecting what it writes to stdout and stderr: so far as `out()` and `err()`. */
export function withOutput<C extends ChildProcess>(child: C): C & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk) => {
    out += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    err += chunk;
  });
  return Object.assign(child, { out: () => out, err: () => err });
}

/** How `child` ended. */
export function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/**
 * Wait until `server` has completed `chats` chat calls (up to `timeoutMs`), let the build run half
 * a second more, then kill `child` with SIGKILL and expect it to end by it; the keys of the calls
 * completed by then.
 */
export async function killAfterChats(
  server: CountingServer,
  child: ChildProcess,
  chats: number,
  timeoutMs: number,
): Promise<Set<string>> {
  await until(() => server.completedChats >= chats, timeoutMs);
  await new Promise((resolve) => setTimeout(resolve, 500));
  child.kill('SIGKILL');
  expect((await exited(child)).signal).toBe('SIGKILL');
  return new Set(server.completed.map((c) => c.key));
}

/** Resolves once `condition()` holds, polling every 20 ms; throws after `timeoutMs`. */
export async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * One round of three `grag` writers at once on the index `index` of the corpus lyon.md + oslo.txt
 * (berlin.md, rome.md and bern.md beside it in `root`): two adds and an add, or (round 2) a remove
 * of oslo.txt. Every writer exits 0 with nothing on stderr, or 1 with the one-line refusal naming
 * the other writer; at least one succeeds; the index ends with the writes that succeeded applied.
 */
export async function threeWritersRound(
  round: number,
  root: string,
  index: string,
  documentsOf: () => Promise<string[]>,
  env: NodeJS.ProcessEnv = {},
): Promise<void> {
  const writes: { args: string[]; add?: string; remove?: string }[] = [
    { args: ['add', index, join(root, 'berlin.md')], add: 'berlin.md' },
    { args: ['add', index, join(root, 'rome.md')], add: 'rome.md' },
    round === 2
      ? { args: ['remove', index, 'oslo.txt'], remove: 'oslo.txt' }
      : { args: ['add', index, join(root, 'bern.md')], add: 'bern.md' },
  ];
  const children = writes.map((w) => spawnGrag([...w.args, '-q'], env));
  const ends = await Promise.all(children.map((child) => exited(child)));
  const expected = new Set(['lyon.md', 'oslo.txt']);
  for (const [i, end] of ends.entries()) {
    const write = writes[i]!;
    const stderr = children[i]!.stderrText();
    if (end.code === 0) {
      expect(stderr).toBe('');
      if (write.add) expected.add(write.add);
      if (write.remove) expected.delete(write.remove);
    } else {
      // A loser is refused in one line that names the writer it waited for.
      expect(end.code).toBe(1);
      expect(stderr).toMatch(/^grag: .* is being written by another grag \(pid \d+, since .*\n$/);
    }
  }
  expect(ends.filter((e) => e.code === 0).length).toBeGreaterThanOrEqual(1);
  expect(new Set(await documentsOf())).toEqual(expected);
}
