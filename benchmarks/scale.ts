/**
 * How each method grows with the corpus (issue 29, "Fast at every size"): a seeded invented
 * encyclopedia (benchmarks/scale-corpus.ts) at 100k, 1M and 10M cl100k tokens, every method of
 * `grag methods` built on it as `grag index` builds it (offline providers, the preset the CLI picks
 * offline, HNSW, `--no-cache`), and per (method, size):
 *
 * - build: wall time of `grag index` (run in process by a child of its own, from reading the JSONL
 *   corpus to the saved index) and the child's peak RSS (`process.resourceUsage().maxRSS`);
 * - index bytes on disk, and their ratio to naive-dense's at the same size;
 * - load: in a fresh child, the time to make the offline providers the manifest names and load the
 *   saved index (`method.load`, as `grag query` does; module import not counted);
 * - first query: in that child, the time of the first `method.retrieve` after the load (what a
 *   one-shot `grag query` adds to it, with whatever a method makes on first use);
 * - retrieval: in that child, after 5 untimed warm-up questions, the time of `method.retrieve` for
 *   each generated question (the CLI's default budget of 12,000 tokens), p50 and p95; and the share
 *   of questions whose retrieved items come from a document that states the fact asked about;
 * - growth: the least-squares slope of log(build time), log(peak RSS) and log(bytes) against
 *   log(tokens) over the sizes a method completed (1 = linear).
 *
 * A build that runs past `--timeout-min` minutes (default 12) or past `--kill-rss-mb` MB of RSS
 * (default 6144, to protect a shared machine) is killed and recorded as such; a method that fails,
 * or needs more than 2 GB, at one size is not run at the larger ones. 10M is run for bm25,
 * naive-dense and every method whose 1M build took under 3 minutes and 2 GB.
 *
 *   npx -y pnpm@10 tsx benchmarks/scale.ts [--sizes 100k,1m,10m] [--methods bm25,naive-dense,…]
 *     [--timeout-min 12] [--seed 29] [--questions 80] [--out benchmarks/results] [--render]
 *     [--set <method>:<key>=<value> ...] [--vector-precision float16] [--cache benchmarks/.cache/scale]
 *
 * `--set da-rag:searchRegion=300` builds that method with that option (`grag index --set`; a query
 * option set at build time is the index's default for its queries); the other methods as they are.
 * `--vector-precision float16` builds every method with `grag index --vector-precision float16` (the
 * vector rows a method keeps stored at half precision).
 * `--render` writes scale.md and scale.svg again from scale.json. Corpora and indexes are kept in
 * benchmarks/.cache/scale (gitignored); a corpus there is generated again and compared byte for byte.
 * Results: benchmarks/results/scale.{md,json,svg}.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { gitState } from '@grag/eval';
import { machine, percentile } from './lib.js';
import { GENERATOR_VERSION, generateScaleCorpus, type ScaleQuestion, toJsonl } from './scale-corpus.js';
import { type Cell, render, renderSvg, type ScaleReport, type SizeInfo } from './scale-report.js';

const repo = fileURLToPath(new URL('..', import.meta.url));
const SIZES: Record<string, number> = { '100k': 100_000, '1m': 1_000_000, '10m': 10_000_000 };
const ALL_METHODS = [
  'bm25',
  'naive-dense',
  'e2graphrag',
  'bridge-rag',
  'ket-rag',
  'noderag',
  'da-rag',
  'sg-rag',
];
const REFERENCES = ['bm25', 'naive-dense'];
const RSS_LIMIT_MB = 2048;
const TEN_M_BUILD_S = 180;
const WARM_UP = 5;
/** Retrieval is timed for at least MIN_TIMED questions, and no more once QUERY_BUDGET_MS passed. */
const MIN_TIMED = 20;
const QUERY_BUDGET_MS = 120_000;

/** Offline, whatever the caller's shell holds. */
const CHILD_ENV = { ...process.env, OPENAI_API_KEY: '', OPENAI_BASE_URL: '', GRAG_PROVIDER: 'offline' };

// ---- children ------------------------------------------------------------------------------------

/** `--child build`: `grag index <corpus> --method <m> --out <dir> --no-cache -q [--set k=v …]`, timed; JSON on stdout. */
async function childBuild(
  method: string,
  corpus: string,
  out: string,
  sets: readonly string[],
  precision: string | undefined,
): Promise<void> {
  const { run } = await import('@grag/cli');
  const { Writable } = await import('node:stream');
  let stderr = '';
  const sink = (append: (s: string) => void) =>
    new Writable({
      write(chunk, _enc, cb) {
        append(String(chunk));
        cb();
      },
    });
  const t0 = performance.now();
  const setArgs = [
    ...sets.flatMap((kv) => ['--set', kv]),
    ...(precision ? ['--vector-precision', precision] : []),
  ];
  const code = await run(
    ['index', corpus, '--method', method, '--out', out, '--no-cache', '-q', ...setArgs],
    {
      stdout: sink(() => {}),
      stderr: sink((s) => {
        stderr += s;
      }),
      env: CHILD_ENV,
      cwd: process.cwd(),
    },
  );
  const seconds = (performance.now() - t0) / 1000;
  if (code !== 0) throw new Error(`grag index --method ${method} exited ${code}: ${stderr.trim()}`);
  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as {
    params: Record<string, unknown>;
    stats: Record<string, unknown>;
    providers: Record<string, unknown>;
  };
  const maxRssMiB = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(
    `\n${JSON.stringify({ seconds, maxRssMiB, params: manifest.params, stats: manifest.stats, providers: manifest.providers })}\n`,
  );
}

/** `--child query`: load the saved index with the providers its manifest names, then time retrieval. */
async function childQuery(dir: string, questionsFile: string): Promise<void> {
  const { CONFIG_DEFAULTS, createProviders, findMethod } = await import('@grag/cli');
  const { directoryStore } = await import('@grag/core/store');
  const questions = JSON.parse(readFileSync(questionsFile, 'utf8')) as ScaleQuestion[];
  const t0 = performance.now();
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
  const entry = findMethod(manifest.method)!;
  const { ctx } = createProviders({ ...CONFIG_DEFAULTS, provider: 'offline' }, { manifest });
  const index = await entry.method.load(directoryStore(dir), ctx);
  const loadSeconds = (performance.now() - t0) / 1000;
  const ask = (q: string) => entry.method.retrieve(index, q, { budgetTokens: CONFIG_DEFAULTS.budget });
  // The first question alone: what a one-shot `grag query` waits for after the load, including what
  // a method makes on its first retrieval and keeps for the next ones.
  const tFirst = performance.now();
  for (const q of questions.slice(0, 1)) await ask(q.question);
  const firstMs = performance.now() - tFirst;
  for (const q of questions.slice(1, WARM_UP)) await ask(q.question);
  const ms: number[] = [];
  let hits = 0;
  const started = performance.now();
  for (const q of questions) {
    // A slow method is timed on fewer questions rather than for an hour (at least MIN_TIMED).
    if (ms.length >= MIN_TIMED && performance.now() - started > QUERY_BUDGET_MS) break;
    const t = performance.now();
    const r = await ask(q.question);
    ms.push(performance.now() - t);
    const gold = new Set(q.docIds);
    if (r.items.some((item: { source: { docIds: string[] } }) => item.source.docIds.some((d) => gold.has(d))))
      hits += 1;
  }
  const maxRssMiB = process.resourceUsage().maxRSS / 1024;
  const result = {
    loadSeconds,
    firstMs,
    p50Ms: percentile(ms, 50),
    p95Ms: percentile(ms, 95),
    hitRate: hits / ms.length,
    questionsTimed: ms.length,
    queryRssMiB: maxRssMiB,
  };
  process.stdout.write(`\n${JSON.stringify(result)}\n`);
}

// ---- the parent ----------------------------------------------------------------------------------

interface ChildOutcome<T> {
  value?: T;
  /** Why there is no value: `timeout`, `rss`, or the child's last stderr lines. */
  failure?: { kind: 'timeout' | 'rss' | 'error'; detail: string };
  peakMiB: number;
}

/** VmHWM of a running process (peak RSS), MiB; 0 when it cannot be read. */
function vmHwmMiB(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Run this script as a child with `args`; kill it past `timeoutMs` or `killRssMiB` of RSS. */
function child<T>(args: string[], timeoutMs: number, killRssMiB: number): Promise<ChildOutcome<T>> {
  const script = fileURLToPath(import.meta.url);
  const proc = spawn(process.execPath, [...process.execArgv, script, ...args], {
    cwd: repo,
    env: CHILD_ENV,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let peakMiB = 0;
  let killed: 'timeout' | 'rss' | undefined;
  proc.stdout.on('data', (d) => {
    stdout += String(d);
  });
  proc.stderr.on('data', (d) => {
    stderr = (stderr + String(d)).slice(-4000);
  });
  const watch = setInterval(() => {
    if (proc.pid === undefined) return;
    peakMiB = Math.max(peakMiB, vmHwmMiB(proc.pid));
    if (peakMiB > killRssMiB && !killed) {
      killed = 'rss';
      proc.kill('SIGKILL');
    }
  }, 1000);
  const timer = setTimeout(() => {
    killed = 'timeout';
    proc.kill('SIGKILL');
  }, timeoutMs);
  return new Promise((done) => {
    proc.on('close', (code) => {
      clearInterval(watch);
      clearTimeout(timer);
      if (killed === 'timeout')
        return done({
          failure: { kind: 'timeout', detail: `killed after ${timeoutMs / 60_000} min` },
          peakMiB,
        });
      if (killed === 'rss')
        return done({
          failure: { kind: 'rss', detail: `killed at ${Math.round(peakMiB)} MiB RSS` },
          peakMiB,
        });
      if (code !== 0) {
        const lines = stderr.trim().split('\n').slice(-3).join(' / ');
        return done({ failure: { kind: 'error', detail: `exit ${code}: ${lines}` }, peakMiB });
      }
      done({ value: JSON.parse(stdout.trim().split('\n').at(-1)!) as T, peakMiB });
    });
  });
}

function bytesOf(dir: string): number {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    total += e.isDirectory() ? bytesOf(p) : statSync(p).size;
  }
  return total;
}

/** The corpus of one size in the cache: generated, compared with a cached copy, written. */
function prepareCorpus(cache: string, label: string, seed: number, questions: number): SizeInfo {
  const t0 = performance.now();
  const corpus = generateScaleCorpus(seed, SIZES[label]!, questions);
  const jsonl = toJsonl(corpus.documents);
  const sha256 = createHash('sha256').update(jsonl).digest('hex');
  const base = join(cache, `corpus-${label}-seed${seed}-v${GENERATOR_VERSION}`);
  if (existsSync(`${base}.jsonl`)) {
    const cached = createHash('sha256')
      .update(readFileSync(`${base}.jsonl`))
      .digest('hex');
    if (cached !== sha256)
      throw new Error(
        `scale: ${base}.jsonl differs from the corpus generated again with seed ${seed}: the generator is not deterministic, or changed without a GENERATOR_VERSION bump; delete the file to make it again`,
      );
  } else writeFileSync(`${base}.jsonl`, jsonl);
  writeFileSync(`${base}.questions.json`, JSON.stringify(corpus.questions));
  process.stderr.write(
    `scale: corpus ${label}: ${corpus.documents.length} documents, ${corpus.tokens} tokens, ${corpus.questions.length} questions (${((performance.now() - t0) / 1000).toFixed(1)} s)\n`,
  );
  return {
    label,
    targetTokens: SIZES[label]!,
    tokens: corpus.tokens,
    documents: corpus.documents.length,
    questions: corpus.questions.length,
    bytes: Buffer.byteLength(jsonl),
    sha256,
    corpus: `${base}.jsonl`,
    questionsFile: `${base}.questions.json`,
  };
}

/** Same seed, same bytes: the 100k corpus generated twice; another seed differs. */
function assertDeterministic(seed: number): void {
  const a = toJsonl(generateScaleCorpus(seed, 20_000).documents);
  const b = toJsonl(generateScaleCorpus(seed, 20_000).documents);
  const c = toJsonl(generateScaleCorpus(seed + 1, 20_000).documents);
  if (a !== b) throw new Error('scale: the corpus generator gave two corpora for one seed');
  if (a === c) throw new Error('scale: the corpus generator gave one corpus for two seeds');
}

/** Why `method` is not run at `size`, given what it did at the smaller sizes; undefined to run it. */
function skipReason(method: string, size: string, done: Cell[]): string | undefined {
  const mine = done.filter((c) => c.method === method);
  const failed = mine.find((c) => c.status !== 'ok');
  if (failed) return `not run: ${failed.status} at ${failed.size}`;
  const big = mine.find((c) => (c.build?.maxRssMiB ?? 0) > RSS_LIMIT_MB);
  if (big) return `not run: over 2 GB at ${big.size}`;
  if (size === '10m' && !REFERENCES.includes(method)) {
    const at1m = mine.find((c) => c.size === '1m');
    if (!at1m) return 'not run: no 1M run';
    if (at1m.build!.seconds > TEN_M_BUILD_S)
      return `not run: 1M build took ${Math.round(at1m.build!.seconds)} s (> ${TEN_M_BUILD_S} s)`;
  }
  return undefined;
}

async function measure(
  method: string,
  size: SizeInfo,
  cache: string,
  opts: { timeoutMin: number; killRssMb: number; sets: readonly string[]; precision: string | undefined },
): Promise<Cell> {
  const dir = join(cache, 'indexes', `${size.label}-${method}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(cache, 'indexes'), { recursive: true });
  const loadStart = loadavg()[0]!;
  const build = await child<NonNullable<Cell['build']>>(
    [
      ...['--child', 'build', '--method', method, '--corpus', size.corpus, '--index', dir],
      ...opts.sets
        .filter((kv) => kv.startsWith(`${method}:`))
        .flatMap((kv) => ['--set', kv.slice(method.length + 1)]),
      ...(opts.precision ? ['--vector-precision', opts.precision] : []),
    ],
    opts.timeoutMin * 60_000,
    opts.killRssMb,
  );
  const cell: Cell = { method, size: size.label, tokens: size.tokens, status: 'ok', loadAverage: loadStart };
  if (!build.value) {
    const f = build.failure!;
    cell.status =
      f.kind === 'timeout'
        ? `did not finish in ${opts.timeoutMin} min`
        : f.kind === 'rss'
          ? `over ${opts.killRssMb} MB RSS`
          : 'failed';
    cell.detail = f.detail;
    cell.peakSeenMiB = Math.round(build.peakMiB);
    rmSync(dir, { recursive: true, force: true });
    return cell;
  }
  cell.build = build.value;
  cell.indexBytes = bytesOf(dir);
  const query = await child<NonNullable<Cell['query']>>(
    ['--child', 'query', '--index', dir, '--questions', size.questionsFile],
    opts.timeoutMin * 60_000,
    opts.killRssMb,
  );
  if (query.value) cell.query = query.value;
  else {
    cell.status = 'query failed';
    cell.detail = query.failure!.detail;
  }
  return cell;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      child: { type: 'string' },
      method: { type: 'string' },
      corpus: { type: 'string' },
      index: { type: 'string' },
      questions: { type: 'string', default: '80' },
      sizes: { type: 'string', default: '100k,1m,10m' },
      methods: { type: 'string', default: ALL_METHODS.join(',') },
      'timeout-min': { type: 'string', default: '12' },
      'kill-rss-mb': { type: 'string', default: '6144' },
      seed: { type: 'string', default: '29' },
      out: { type: 'string', default: 'benchmarks/results' },
      cache: { type: 'string', default: 'benchmarks/.cache/scale' },
      render: { type: 'boolean', default: false },
      set: { type: 'string', multiple: true, default: [] },
      'vector-precision': { type: 'string' },
    },
  });
  // A build child gets its method's options as key=value; the parent's are <method>:<key>=<value>.
  const sets = values.set ?? [];
  const precision = values['vector-precision'];
  if (values.child === 'build')
    return childBuild(values.method!, values.corpus!, values.index!, sets, precision);
  if (values.child === 'query') return childQuery(values.index!, values.questions!);
  for (const kv of sets) {
    if (!/^[a-z0-9-]+:[A-Za-z]+=/.test(kv))
      throw new Error(`scale: --set ${kv}: expected <method>:<key>=<value>.`);
  }
  const out = resolve(repo, values.out);
  if (values.render) {
    const saved = JSON.parse(readFileSync(join(out, 'scale.json'), 'utf8')) as ScaleReport;
    writeFileSync(join(out, 'scale.md'), render(saved));
    writeFileSync(join(out, 'scale.svg'), renderSvg(saved));
    return;
  }
  const sizes = values.sizes.split(',').map((s) => s.trim().toLowerCase());
  const methods = values.methods.split(',').map((s) => s.trim());
  for (const s of sizes)
    if (!SIZES[s]) throw new Error(`scale: --sizes ${s} is not one of ${Object.keys(SIZES).join(', ')}`);
  for (const m of methods)
    if (!ALL_METHODS.includes(m))
      throw new Error(`scale: --methods ${m} is not one of ${ALL_METHODS.join(', ')}`);
  const opts = {
    timeoutMin: Number(values['timeout-min']),
    killRssMb: Number(values['kill-rss-mb']),
    sets,
    precision,
  };
  const seed = Number(values.seed);
  const cache = resolve(repo, values.cache);
  mkdirSync(cache, { recursive: true });
  assertDeterministic(seed);
  const report: ScaleReport = {
    benchmark: 'scale',
    date: new Date().toISOString(),
    machine: machine(),
    git: gitState(repo),
    loadAverage: { start: loadavg()[0]!, end: 0 },
    seed,
    generatorVersion: GENERATOR_VERSION,
    timeoutMin: opts.timeoutMin,
    command: `npx -y pnpm@10 tsx benchmarks/scale.ts --sizes ${sizes.join(',')} --methods ${methods.join(',')}${sets.map((kv) => ` --set ${kv}`).join('')}${precision ? ` --vector-precision ${precision}` : ''}${values.out === 'benchmarks/results' ? '' : ` --out ${values.out}`}`,
    ...(sets.length > 0 ? { sets } : {}),
    ...(precision ? { vectorPrecision: precision } : {}),
    sizes: [],
    cells: [],
  };
  const ordered = Object.keys(SIZES).filter((s) => sizes.includes(s));
  for (const label of ordered) {
    const size = prepareCorpus(cache, label, seed, Number(values.questions));
    report.sizes.push({ ...size, corpus: size.corpus.replace(repo, ''), questionsFile: '' });
    for (const method of methods) {
      const skip = skipReason(method, label, report.cells);
      if (skip) {
        report.cells.push({
          method,
          size: label,
          tokens: size.tokens,
          status: skip,
          loadAverage: loadavg()[0]!,
        });
        continue;
      }
      process.stderr.write(`scale: ${label} ${method} …\n`);
      const cell = await measure(method, size, cache, opts);
      report.cells.push(cell);
      process.stderr.write(`scale: ${label} ${method}: ${JSON.stringify(cell)}\n`);
      report.loadAverage.end = loadavg()[0]!;
      mkdirSync(out, { recursive: true });
      writeFileSync(join(out, 'scale.json'), `${JSON.stringify(report, null, 2)}\n`);
    }
  }
  report.loadAverage.end = loadavg()[0]!;
  report.finished = new Date().toISOString();
  writeFileSync(join(out, 'scale.json'), `${JSON.stringify(report, null, 2)}\n`);
  const md = render(report);
  writeFileSync(join(out, 'scale.md'), md);
  writeFileSync(join(out, 'scale.svg'), renderSvg(report));
  process.stdout.write(md);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().catch((error) => {
    // The script's own errors (bad flags, a changed cached corpus) are one line; others keep their stack.
    const message = error instanceof Error ? error.message : String(error);
    console.error(
      message.startsWith('scale: ') ? message : error instanceof Error ? (error.stack ?? message) : message,
    );
    process.exitCode = 1;
  });
}
