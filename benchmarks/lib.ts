import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { MachineInfo } from '@grag/eval';

/**
 * Helpers shared by the benchmark scripts, re-exported from `@grag/eval` (SQuAD normalization,
 * Coverage, Recall@k, nearest-rank percentiles, the dataset loader, the machine description).
 */
export {
  covers,
  loadQaDataset,
  machine,
  mean,
  normalizeAnswer,
  percentile,
  type QaDataset,
  type QaQuestion,
  recallAt,
} from '@grag/eval';

/**
 * Run a benchmark script again in a child process (so its peak RSS is its own) with `args`, and
 * return the JSON value of the last line the child writes to stdout. stderr is passed through.
 */
export function runInChild<T>(script: string, args: readonly string[]): T {
  const out = execFileSync(process.execPath, [...process.execArgv, script, ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return JSON.parse(out.trim().split('\n').at(-1)!) as T;
}

/**
 * In a reader process started by {@link readersRound}: say `ready` on stdout, then wait for the
 * line that releases every reader at once.
 */
export async function awaitRelease(): Promise<void> {
  const lines = createInterface({ input: process.stdin });
  process.stdout.write('ready\n');
  await new Promise((done) => lines.once('line', done));
  lines.close();
}

/**
 * Start `n` copies of `script --reader <job as JSON>` (each calls {@link awaitRelease} first),
 * release them together once all are ready, and collect the JSON line each then writes; `wall` is
 * the seconds from the release to the last answer. `label` names the benchmark in errors.
 */
export async function readersRound<A>(
  script: string,
  job: { method: string },
  n: number,
  label: string,
): Promise<{ wall: number; answers: A[] }> {
  const children = Array.from({ length: n }, () =>
    spawn(process.execPath, [...process.execArgv, script, '--reader', JSON.stringify(job)], {
      stdio: ['pipe', 'pipe', 'inherit'],
    }),
  );
  const outputs = children.map((c) => createInterface({ input: c.stdout })[Symbol.asyncIterator]());
  const next = async (i: number) => {
    const line = await outputs[i]!.next();
    if (line.done) throw new Error(`${label}: reader ${i} of ${job.method} ended early (see its stderr).`);
    return line.value;
  };
  await Promise.all(children.map((_, i) => next(i)));
  const t = performance.now();
  for (const c of children) c.stdin.end('go\n');
  const answers = await Promise.all(children.map(async (_, i) => JSON.parse(await next(i)) as A));
  return { wall: (performance.now() - t) / 1000, answers };
}

/** One configuration of a method, evaluated with `grag eval`. */
export interface EvalConfig {
  /** Row label, e.g. `noderag (entry points only)`. */
  label: string;
  /** Method name as `grag methods` lists it. */
  method: string;
  /** `--set key=value` options. */
  set?: Record<string, string | number | boolean>;
}

/** What one `grag eval` run reports for one configuration, and the command that reproduces it. */
export interface EvalRow {
  label: string;
  slice: string;
  /** The `grag eval` command line, to paste. */
  command: string;
  questions: number;
  metrics: Record<string, number>;
  contextTokens: number;
  indexSeconds: number;
  p50Ms: number;
  p95Ms: number;
  /** Answer-task time per question, with `--answer` (same run as retrieval). */
  answerP50Ms?: number;
  answerP95Ms?: number;
  peakRssMiB: number;
  /** Bytes of the index the run saved (`out/indexes/`), when it saved one. */
  indexBytes?: number;
}

/** Bytes of the files under `dir` (0 when it does not exist). */
async function treeBytes(dir: string): Promise<number> {
  const { readdir, stat } = await import('node:fs/promises');
  const { join } = await import('node:path');
  let total = 0;
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const e of entries) {
    const path = join(dir, e.name);
    total += e.isDirectory() ? await treeBytes(path) : (await stat(path)).size;
  }
  return total;
}

/**
 * Evaluate one configuration on a dataset slice through the `grag` command line itself (in
 * process, offline, a fresh output folder), so every number a table shows is the number
 * `grag eval` prints for the same command. `extra` adds flags such as `--budget 2000` or `--answer`.
 * With `shared`, the run goes to that folder instead, with `--restart`, and leaves it: rows of one
 * slice that differ only in query options then build the index once (`grag eval` loads the one
 * saved there); the command shown is the same.
 */
export async function gragEval(
  slicePath: string,
  config: EvalConfig,
  extra: readonly string[] = [],
  shared?: string,
): Promise<EvalRow> {
  const { mkdtemp, readFile, rm } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { basename, join } = await import('node:path');
  const { Writable } = await import('node:stream');
  const { run } = await import('@grag/cli');
  const out = shared ?? (await mkdtemp(join(tmpdir(), 'grag-bench-eval-')));
  const sets = Object.entries(config.set ?? {}).flatMap(([k, v]) => ['--set', `${k}=${v}`]);
  const args = ['eval', slicePath, '--methods', config.method, ...sets, ...extra];
  let stderr = '';
  const sink = (append: (s: string) => void) =>
    new Writable({
      write(chunk, _enc, cb) {
        append(String(chunk));
        cb();
      },
    });
  const code = await run([...args, '--out', out, '-q', ...(shared ? ['--restart'] : [])], {
    stdout: sink(() => {}),
    stderr: sink((s) => {
      stderr += s;
    }),
    env: { ...process.env, OPENAI_API_KEY: '', OPENAI_BASE_URL: '' },
    cwd: process.cwd(),
  });
  if (code !== 0) throw new Error(`grag ${args.join(' ')} exited ${code}: ${stderr.trim()}`);
  const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as {
    methods: {
      questions: number;
      metrics: Record<string, number>;
      contextTokens: number;
      latencyMs: { p50: number; p95: number };
      answerMs?: { p50: number; p95: number };
      index: { seconds: number };
      peakRssMiB: number;
    }[];
  };
  const indexBytes = await treeBytes(join(out, 'indexes'));
  if (!shared) await rm(out, { recursive: true, force: true });
  const m = report.methods[0]!;
  const { relative } = await import('node:path');
  const inRepo = relative(process.cwd(), resolve(slicePath));
  const where = inRepo.startsWith('..') ? `../shared/datasets/${basename(slicePath)}` : inRepo;
  const shown = args.map((a) => (a === slicePath ? where : a));
  return {
    label: config.label,
    slice: basename(slicePath),
    command: `grag ${shown.join(' ')}`,
    questions: m.questions,
    metrics: m.metrics,
    contextTokens: m.contextTokens,
    indexSeconds: m.index.seconds,
    p50Ms: m.latencyMs.p50,
    p95Ms: m.latencyMs.p95,
    ...(m.answerMs ? { answerP50Ms: m.answerMs.p50, answerP95Ms: m.answerMs.p95 } : {}),
    peakRssMiB: m.peakRssMiB,
    ...(indexBytes > 0 ? { indexBytes } : {}),
  };
}

/** The change from share `a` to share `b` in points, signed, one decimal (`+1.5`), `–` when either is absent. */
export const points = (a: number | undefined, b: number | undefined): string =>
  a === undefined || b === undefined ? '–' : `${b >= a ? '+' : ''}${(100 * (b - a)).toFixed(1)}`;

/** How a dev slice's questions are asked: as the dataset words them, or reworded (`benchmarks/reword.ts`). */
export type Wording = 'original' | 'reworded';

/**
 * The dataset directories of dev slice `slice` in both wordings: under `root`, and under `reworded`
 * (written by `benchmarks/reword.ts`). @throws Error naming the directory when one is missing.
 */
export function slicePaths(slice: string, root: string, reworded: string): [Wording, string][] {
  const out: [Wording, string][] = [
    ['original', resolve(root, slice)],
    ['reworded', resolve(reworded, slice)],
  ];
  for (const [, path] of out) {
    if (!existsSync(path))
      throw new Error(`${path} is missing (run benchmarks/reword.ts for the reworded sets)`);
  }
  return out;
}

/** The dataset name of the user-style corpus in {@link evalSetPaths}. */
export const USER_CORPUS = 'user';

/**
 * The directories of an evaluation set in both wordings: a dev slice's ({@link slicePaths}), or for
 * {@link USER_CORPUS} the user-style corpus's under `user` (written by `benchmarks/user-corpus.ts`).
 * @throws Error naming a missing directory and what writes it.
 */
export function evalSetPaths(
  dataset: string,
  root: string,
  reworded: string,
  user: string,
): [Wording, string][] {
  if (dataset !== USER_CORPUS) return slicePaths(dataset, root, reworded);
  const out: [Wording, string][] = [
    ['original', resolve(user, 'worded')],
    ['reworded', resolve(user, 'reworded')],
  ];
  for (const [, path] of out) {
    if (!existsSync(path)) throw new Error(`${path} is missing (run benchmarks/user-corpus.ts)`);
  }
  return out;
}

/**
 * The row labels of an `--only` list: comma-separated, a comma inside parentheses being part of its
 * label ("e2graphrag (offline preset, title bridges only)").
 */
export function rowLabels(spec: string): string[] {
  return spec.split(/,(?![^(]*\))/);
}

/** Rows of a results table rerun after the table's run (`--only`), with when and where. */
export interface RowsRerun {
  date: string;
  labels: string[];
  machine: MachineInfo;
}

/** A line per rerun, for a results page's header. */
export function rerunLines(reruns: readonly RowsRerun[] | undefined): string[] {
  return (reruns ?? []).map(
    (r) =>
      `Rerun ${r.date.slice(0, 10)} (${r.machine.cpu}, Node ${r.machine.node}): the rows ${r.labels.map((l) => `"${l}"`).join(', ')}.`,
  );
}

/** A `grag eval` row of an evaluation set in one of its wordings (see {@link evalSetPaths}). */
export interface WordedRow extends EvalRow {
  wording: Wording;
}

/** One dataset's rows of a benchmark over {@link evalSetPaths}, saved as `<dataset>.json`. */
export interface EvalPart<R extends WordedRow = WordedRow> {
  dataset: string;
  date: string;
  machine: MachineInfo;
  /** The `--set key=value` options the benchmark compares. */
  set: string[];
  rows: R[];
}

/**
 * The per-dataset result parts (`<dataset>.json`) written to `dir` by a benchmark over
 * {@link evalSetPaths}: dev slices by name, then the user-style corpus.
 */
export function readParts<R extends WordedRow>(dir: string): EvalPart<R>[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as EvalPart<R>)
    .sort((a, b) =>
      a.dataset === USER_CORPUS ? 1 : b.dataset === USER_CORPUS ? -1 : a.dataset.localeCompare(b.dataset),
    );
}

/** A share as a percentage with one decimal (`0.845` → `84.5`), `–` when absent or NaN. */
export const pct = (v: number | undefined): string =>
  v === undefined || Number.isNaN(v) ? '–' : (100 * v).toFixed(1);

/** A markdown table of `grag eval` rows: one line per slice and configuration, with the command. */
export function evalTable(
  rows: readonly EvalRow[],
  metrics = ['recall@2', 'recall@5', 'recall@10', 'coverage'],
): string {
  const head = [
    'slice',
    'configuration',
    ...metrics.map((m) => m.replace('recall@', 'R@')),
    'ctx tokens',
    'index s',
    'p50 ms',
    'command',
  ];
  const lines = [
    `| ${head.join(' | ')} |`,
    `|${head.map((_, i) => (i < 2 || i === head.length - 1 ? '---' : '---:')).join('|')}|`,
  ];
  for (const r of rows) {
    lines.push(
      `| ${[
        r.slice,
        r.label,
        ...metrics.map((m) => pct(r.metrics[m])),
        Math.round(r.contextTokens).toLocaleString('en-US'),
        r.indexSeconds.toFixed(1),
        r.p50Ms.toFixed(1),
        `\`${r.command}\``,
      ].join(' | ')} |`,
    );
  }
  return lines.join('\n');
}
