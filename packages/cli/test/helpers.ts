import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { tinyQuestions } from '@grag/core/test';
import { type CliIO, run } from '../src/index.js';

/** A CLI IO that captures stdout and stderr; environment without any OpenAI settings. */
export function captureIO(
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): CliIO & {
  out: () => string;
  err: () => string;
  errLines: (keep?: (line: string) => boolean) => string[];
} {
  let out = '';
  let err = '';
  const sink = (append: (s: string) => void) =>
    new Writable({
      write(chunk, _enc, cb) {
        append(String(chunk));
        cb();
      },
    });
  return {
    stdout: sink((s) => {
      out += s;
    }),
    stderr: sink((s) => {
      err += s;
    }),
    env,
    cwd,
    out: () => out,
    err: () => err,
    // The lines written to stderr that `keep` keeps (by default, every non-empty line).
    errLines: (keep = (line: string) => line !== '') => err.split('\n').filter(keep),
  };
}

/** A `grag serve` running in this process (see {@link serveInProcess}). */
export interface InProcessServer {
  /** Where it serves, as it printed it. */
  url: string;
  /** What it printed so far. */
  io: ReturnType<typeof captureIO>;
  /** Stop it (abort its signal); resolves to its exit code. */
  stop(): Promise<number>;
}

/** Run `grag serve <argv> --port 0 --no-explorer -q` in this process in `cwd` with `env`, once it prints its URL. */
export async function serveInProcess(
  cwd: string,
  env: NodeJS.ProcessEnv,
  argv: string[],
): Promise<InProcessServer> {
  const controller = new AbortController();
  const io = { ...captureIO(cwd, env), signal: controller.signal };
  const running = run(['serve', ...argv, '--port', '0', '--no-explorer', '-q'], io);
  const line = /^grag serve: served at (http:\/\/127\.0\.0\.1:\d+)\n$/;
  for (let waited = 0; !line.test(io.out()); waited += 20) {
    if (waited > 20_000) throw new Error(`serve did not start: ${io.err()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    url: line.exec(io.out())![1]!,
    io,
    stop: () => {
      controller.abort();
      return running;
    },
  };
}

/** Run `grag args` in `cwd` with `env`; returns the exit code and what it printed. */
export async function runGrag(
  cwd: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; out: string; err: string }> {
  const io = captureIO(cwd, env);
  const code = await run(args, io);
  return { code, out: io.out(), err: io.err() };
}

/**
 * A temporary directory holding `mini/`: a three-passage corpus (`corpus.jsonl`) and a question on
 * each passage (`questions.jsonl`), the dataset the `grag eval` tests run on.
 */
export function miniDataset(prefix = 'grag-cli-eval-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const data = join(dir, 'mini');
  const rows = (r: unknown[]) => `${r.map((x) => JSON.stringify(x)).join('\n')}\n`;
  mkdirSync(data);
  writeFileSync(
    join(data, 'corpus.jsonl'),
    rows([
      { id: 'p1', title: 'Ada', text: 'Ada Lovelace was born in London in 1815.' },
      { id: 'p2', title: 'Babbage', text: 'Charles Babbage designed the Analytical Engine.' },
      { id: 'p3', title: 'Paris', text: 'Paris is the capital of France.' },
    ]),
  );
  writeFileSync(join(data, 'questions.jsonl'), rows(tinyQuestions()));
  return dir;
}

/** The note on Oslo the CLI tests index (as `oslo.txt`, or under a `# Oslo` heading as `oslo.md`). */
export const OSLO_NOTE = 'Oslo is the capital of Norway. The Munch Museum is in Oslo.';
/** The note on Lyon the CLI tests index (as `lyon.txt`, or under a `# Lyon` heading as `lyon.md`). */
export const LYON_NOTE = 'Lyon is a city in France. The Rhone and the Saone meet in Lyon.';

/** The two-document corpus of the concurrent-writer tests (file name → text). */
export const TWO_CITIES: Record<string, string> = {
  'lyon.md': '# Lyon\n\nLyon is a city in France on the Rhone.',
  'oslo.txt': 'Oslo is the capital of Norway.',
};

/** Write `files` (file name → text) into the folder `dir`, made first. */
export async function writeFiles(dir: string, files: Record<string, string>): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
}
