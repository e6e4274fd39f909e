/**
 * Shared checks of the adversarial suites ("Nothing lost"): run the CLI in-process, split stderr
 * into the error line and the known informational lines, and hash a whole directory tree so a
 * case can prove that no file outside `--out` changed.
 */
import { createHash } from 'node:crypto';
import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { expect } from 'vitest';
import { run } from '../src/index.js';
import { captureIO } from './helpers.js';

/** Informational stderr lines a run may print next to (or instead of) an error. */
export const INFO_LINE =
  /^grag: (skipped .+: .+|\d+ (files?|records?) skipped \(.+; each is named above|reading .+ \(file \d+ of \d+, .+\)…|read .+ as [\w-]+ \(.+\)|no OpenAI-compatible endpoint.*|using the exact flat vector index.*|waiting for another grag writing .+)$/;

export interface CliResult {
  code: number;
  out: string;
  err: string;
  /** stderr lines that are not {@link INFO_LINE}s. */
  errorLines: string[];
  /** stderr lines that are {@link INFO_LINE}s. */
  infoLines: string[];
  ms: number;
}

/** Run `grag argv` in `cwd` with an environment free of OpenAI settings. */
export async function cli(argv: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  const io = captureIO(cwd, env);
  const t0 = performance.now();
  const code = await run(argv, io);
  const ms = performance.now() - t0;
  const lines = io.errLines();
  return {
    code,
    out: io.out(),
    err: io.err(),
    errorLines: lines.filter((line) => !INFO_LINE.test(line)),
    infoLines: lines.filter((line) => INFO_LINE.test(line)),
    ms,
  };
}

/** No stack trace and no "unexpected error", on either stream. */
export function expectNoCrash(r: CliResult): void {
  for (const text of [r.err, r.out]) {
    expect(text).not.toMatch(/\n\s+at /);
    expect(text).not.toMatch(/unexpected error/i);
  }
}

/** Exit `code` with exactly one error line on stderr, `grag: …`, matching `pattern`. */
export function expectError(r: CliResult, code: number, pattern: RegExp): void {
  expectNoCrash(r);
  expect({ code: r.code, errorLines: r.errorLines }).toEqual({
    code,
    errorLines: [expect.stringMatching(/^grag: \S/)],
  });
  expect(r.errorLines[0]).toMatch(pattern);
}

/** Exit 0 with no error line (informational lines are allowed and returned). */
export function expectOk(r: CliResult): void {
  expectNoCrash(r);
  expect({ code: r.code, errorLines: r.errorLines }).toEqual({ code: 0, errorLines: [] });
}

/**
 * Every entry under `root` (relative path → SHA-256 of a regular file, the target of a symlink,
 * `dir`, or the kind of a special file, never opened), skipping the paths in `exclude`.
 */
export async function hashTree(
  root: string,
  exclude: readonly string[] = [],
): Promise<Record<string, string>> {
  const skip = new Set(exclude.map((p) => resolve(p)));
  const out: Record<string, string> = {};
  const walk = async (dir: string): Promise<void> => {
    const names = await readdir(dir);
    await Promise.all(
      names.map(async (name) => {
        const path = join(dir, name);
        if (skip.has(path)) return;
        const rel = relative(root, path);
        const info = await lstat(path);
        if (info.isSymbolicLink()) out[rel] = `link:${await readlink(path)}`;
        else if (info.isDirectory()) {
          out[rel] = `dir:${(info.mode & 0o7777).toString(8)}`;
          await walk(path);
        } else if (info.isFile())
          out[rel] = `${(info.mode & 0o7777).toString(8)}:${createHash('sha256')
            .update(await readFile(path))
            .digest('hex')}`;
        else out[rel] = info.isFIFO() ? 'fifo' : 'special';
      }),
    );
  };
  await walk(root);
  // Sorted, so a difference reads well.
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * What a run may write: the `--out` directory (of `add` and `remove`: the index directory) and the
 * `.grag-cache` next to it.
 */
export function outputsOf(argv: readonly string[], cwd: string): string[] {
  const i = argv.findIndex((a) => a === '--out' || a.startsWith('--out='));
  const value =
    argv[0] === 'add' || argv[0] === 'remove'
      ? argv[1]
      : i < 0
        ? undefined
        : argv[i]!.startsWith('--out=')
          ? argv[i]!.slice(6)
          : argv[i + 1];
  if (value === undefined) return [];
  const out = resolve(cwd, value);
  return [out, join(dirname(out), '.grag-cache')];
}

/**
 * Run `grag argv` in `cwd` and check that nothing under `root` except the run's outputs changed,
 * and that a failed run did not leave a new `--out` behind.
 */
export async function guarded(
  argv: string[],
  cwd: string,
  root: string,
  env: NodeJS.ProcessEnv = {},
): Promise<CliResult> {
  const outputs = outputsOf(argv, cwd);
  const before = await hashTree(root, outputs);
  const existed = await Promise.all(
    outputs.map((p) =>
      lstat(p).then(
        () => true,
        () => false,
      ),
    ),
  );
  const r = await cli(argv, cwd, env);
  expect(await hashTree(root, outputs)).toEqual(before);
  if (r.code !== 0) {
    const exists = await Promise.all(
      outputs.map((p) =>
        lstat(p).then(
          () => true,
          () => false,
        ),
      ),
    );
    expect(exists, `a failed run left ${outputs.join(' / ')} behind`).toEqual(existed);
  }
  return r;
}

/** Whether the tests run as root, where file permissions do not stop reads. */
export const IS_ROOT = process.getuid?.() === 0;

/** The manifest of an index directory. */
export async function manifestOf(dir: string): Promise<{ method: string; stats?: Record<string, unknown> }> {
  return JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
}
