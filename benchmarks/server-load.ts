/**
 * Loopback load test of `grag serve`: offline indexes of a dev slice (BM25, E2GraphRAG and NodeRAG,
 * each build timed on its own), served by the `grag serve` command in a child process, and
 * `POST /v1/query` with the slice's questions from a load generator at several concurrencies for a fixed
 * duration each: retrieval (no answer) for every method, and streamed answers (`answer: true,
 * stream: true`, Server-Sent Events read to the end) for the `--answers` methods; in the same run,
 * once per `--workers` count (`grag serve --workers <n>`: 0 retrieves on the server's thread; by
 * default 1 and as many as the machine has cores) and `--processes` count (`grag serve --processes
 * <n>`: the port served by n replica processes; default 1), every pair of the two. Reports
 * requests/s, p50/p95/p99 latency, errors (connection errors and requests unanswered after 10 s)
 * and non-2xx responses, and the CPU time of the generator and of the server in each row; writes
 * benchmarks/results/server-load.{json,md}.
 *
 * The generator (`--generator`) is wrk when a `wrk` program is on PATH (Debian: `apt-get install
 * wrk`; a C program on epoll, run as a child process with one thread and a Lua script written to a
 * temporary folder), else autocannon in this process. The generator shares the cores with the
 * server: for BM25 at 32 connections autocannon used about 0.3 ms of CPU per request, wrk about
 * 0.1 ms (the server about 2.5 ms). Nothing in CI runs this benchmark or needs wrk.
 *
 *   pnpm tsx benchmarks/server-load.ts [datasets-dir] [--dataset hotpotqa] [--duration 10]
 *     [--connections 1,8,32] [--methods bm25,e2graphrag,noderag] [--answers noderag] [--workers 1,2]
 *     [--processes 1,2] [--generator wrk|autocannon] [--out benchmarks/results] [--render]
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { Document, Method } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { e2GraphRag } from '@grag/e2graphrag';
import { hnswIndexFactory } from '@grag/hnsw';
import { bm25Rag } from '@grag/naive-rag';
import { nodeRag } from '@grag/noderag';
import { createOfflineProviders } from '@grag/offline';
import { loadQaDataset, machine, percentile } from './lib.js';

const repo = fileURLToPath(new URL('..', import.meta.url));

/** The part of autocannon's API used here (it ships no types; a devDependency of @grag/server). */
type Autocannon = (options: {
  url: string;
  connections: number;
  duration: number;
  requests: { method: string; path: string; headers: Record<string, string>; body: string }[];
}) => Promise<AutocannonResult> & {
  on(event: 'response', listener: (client: unknown, status: number, bytes: number, ms: number) => void): void;
};
interface AutocannonResult {
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
  duration: number;
  requests: { total: number };
  statusCodeStats: Record<string, { count: number }>;
}

const autocannon = createRequire(join(repo, 'packages/server/package.json'))('autocannon') as Autocannon;

/** The program that sends the requests: wrk (a C program, a child process) or autocannon (in this process). */
export type Generator = 'wrk' | 'autocannon';

/** One load run: what was sent, and what came back. */
export interface LoadResult {
  /** Which program sent the requests. */
  generator: Generator;
  connections: number;
  durationS: number;
  /** Completed requests. */
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  /**
   * Connection errors (connect, read, write) and time-outs: requests unanswered after 10 s
   * (autocannon's time-out, and wrk's `--timeout 10s`).
   */
  errors: number;
  /** Of `errors`, the time-outs. */
  timeouts: number;
  /** Responses with a status other than 2xx. */
  non2xx: number;
  statusCodes: Record<string, number>;
  /**
   * CPU seconds (user + system) the generator used in the run: wrk's process (all its threads, from
   * /proc/self/stat when it is done), or this process for autocannon (`process.cpuUsage`).
   */
  generatorCpuS?: number;
  /** CPU seconds of the server's process (all its threads) in the run, from /proc (Linux only). */
  serverCpuS?: number;
  /** Of `serverCpuS`, its main thread's: HTTP, JSON, the streamed answers. */
  serverMainCpuS?: number;
  /**
   * wrk with `expectDone`: responses whose body has no `event: done` (a stream not read to its end,
   * or one that ended in an `error` event). Also counted in `errors`.
   */
  unfinished?: number;
}

/** What a load run is given: `bodies` are sent in turn; `headers` go with every request. */
export interface LoadOptions {
  connections: number;
  durationS: number;
  bodies: string[];
  headers?: Record<string, string>;
  /** The default is autocannon, which every machine with the workspace installed has. */
  generator?: Generator;
  /** wrk only: count a response without an `event: done` (streamed answers) as unfinished. */
  expectDone?: boolean;
}

/**
 * `POST /v1/query` with `bodies` from `connections` connections for `durationS` seconds, with
 * autocannon (each connection sends the bodies in turn, from the first) or wrk (one thread; the
 * connections take the bodies in turn between them). Latency percentiles are nearest-rank over every
 * response (wrk: over its microsecond histogram).
 */
export async function runLoad(url: string, options: LoadOptions): Promise<LoadResult> {
  return options.generator === 'wrk' ? runWrk(url, options) : runAutocannon(url, options);
}

async function runAutocannon(url: string, options: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  const headers = { 'content-type': 'application/json', ...options.headers };
  const cpu = process.cpuUsage();
  const instance = autocannon({
    url,
    connections: options.connections,
    duration: options.durationS,
    requests: options.bodies.map((body) => ({ method: 'POST', path: '/v1/query', headers, body })),
  });
  instance.on('response', (_client, _status, _bytes, ms) => latencies.push(ms));
  const result = await instance;
  const used = process.cpuUsage(cpu);
  const completed = latencies.length;
  return {
    generator: 'autocannon',
    connections: options.connections,
    durationS: options.durationS,
    requests: completed,
    requestsPerSecond: completed / Math.max(result.duration, 1e-9),
    p50Ms: percentile(latencies, 50),
    p95Ms: percentile(latencies, 95),
    p99Ms: percentile(latencies, 99),
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    statusCodes: Object.fromEntries(
      Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count]),
    ),
    generatorCpuS: (used.user + used.system) / 1e6,
  };
}

/** A Lua string literal of `text`: its UTF-8 bytes, every one outside printable ASCII (and `"`, `\`) escaped. */
function luaString(text: string): string {
  let out = '"';
  for (const byte of Buffer.from(text, 'utf8')) {
    out +=
      byte >= 0x20 && byte < 0x7f && byte !== 0x22 && byte !== 0x5c
        ? String.fromCharCode(byte)
        : `\\${String(byte).padStart(3, '0')}`;
  }
  return `${out}"`;
}

/** The prefix of the one line the wrk script's `done()` prints, a JSON object after it. */
const WRK_MARK = 'grag-wrk ';

/**
 * The wrk script of a run: `POST <path>` with `bodies` in turn (shared by the thread's connections)
 * and `headers`; `response()` counts status codes, non-2xx responses and, with `expectDone`, bodies
 * without an `event: done`; `done()` prints one line, {@link WRK_MARK} and a JSON object: the summary,
 * the 50th, 95th and 99th latency percentiles (µs), the counts of every thread, and wrk's own CPU
 * time (utime + stime of /proc/self/stat, in clock ticks, after its threads were joined).
 */
export function wrkScript(options: {
  bodies: readonly string[];
  headers: Record<string, string>;
  path?: string;
  expectDone?: boolean;
}): string {
  const headers = Object.entries(options.headers)
    .map(([name, value]) => `  [${luaString(name)}] = ${luaString(value)},`)
    .join('\n');
  return `-- Written by benchmarks/server-load.ts for one run.
local bodies = {
${options.bodies.map((b) => `  ${luaString(b)},`).join('\n')}
}
local headers = {
${headers}
}
local path = ${luaString(options.path ?? '/v1/query')}
local expect_done = ${options.expectDone ? 'true' : 'false'}
local next_body = 0

-- Per thread (each thread runs its own copy of this script); done() reads them with thread:get.
codes = {}
non2xx = 0
unfinished = 0

function request()
  next_body = next_body % #bodies + 1
  return wrk.format("POST", path, headers, bodies[next_body])
end

function response(status, response_headers, body)
  codes[status] = (codes[status] or 0) + 1
  if status < 200 or status > 299 then
    non2xx = non2xx + 1
  elseif expect_done and not string.find(body or "", "event: done", 1, true) then
    unfinished = unfinished + 1
  end
end

local threads = {}
function setup(thread)
  table.insert(threads, thread)
end

function done(summary, latency, requests)
  local total_non2xx, total_unfinished, merged = 0, 0, {}
  for _, thread in ipairs(threads) do
    total_non2xx = total_non2xx + thread:get("non2xx")
    total_unfinished = total_unfinished + thread:get("unfinished")
    for status, count in pairs(thread:get("codes")) do
      merged[status] = (merged[status] or 0) + count
    end
  end
  local parts = {}
  for status, count in pairs(merged) do
    table.insert(parts, string.format('"%d":%d', status, count))
  end
  local cpu_ticks = -1
  local file = io.open("/proc/self/stat", "r")
  if file then
    local stat = file:read("*a")
    file:close()
    local fields = {}
    for field in string.gmatch(string.match(stat, "%) (.*)$") or "", "%S+") do
      table.insert(fields, field)
    end
    -- Fields 14 and 15 of proc(5) (utime, stime); the list starts at field 3.
    if fields[13] then cpu_ticks = tonumber(fields[12]) + tonumber(fields[13]) end
  end
  local e = summary.errors
  io.write(string.format(
    '${WRK_MARK}{"durationUs":%d,"requests":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,' ..
    '"p50Us":%d,"p95Us":%d,"p99Us":%d,"non2xx":%d,"unfinished":%d,"statusCodes":{%s},"cpuTicks":%d}\\n',
    summary.duration, summary.requests, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(95), latency:percentile(99),
    total_non2xx, total_unfinished, table.concat(parts, ","), cpu_ticks))
end
`;
}

/** What the wrk script's `done()` prints (see {@link wrkScript}). */
interface WrkDone {
  durationUs: number;
  requests: number;
  connect: number;
  read: number;
  write: number;
  /** wrk's own count of responses with a status over 399. */
  status: number;
  timeout: number;
  p50Us: number;
  p95Us: number;
  p99Us: number;
  non2xx: number;
  unfinished: number;
  statusCodes: Record<string, number>;
  /** -1 when /proc/self/stat could not be read. */
  cpuTicks: number;
}

/** The load result in wrk's output (`wrk --latency -s <the script of wrkScript>`); throws without the script's line. */
export function parseWrkOutput(
  stdout: string,
  run: { connections: number; durationS: number; clockTicks?: number },
): LoadResult {
  const line = stdout.split('\n').find((l) => l.startsWith(WRK_MARK));
  if (!line) throw new Error(`wrk printed no "${WRK_MARK.trim()}" line:\n${stdout}`);
  const d = JSON.parse(line.slice(WRK_MARK.length)) as WrkDone;
  const ticks = run.clockTicks ?? 100;
  return {
    generator: 'wrk',
    connections: run.connections,
    durationS: run.durationS,
    requests: d.requests,
    requestsPerSecond: d.requests / Math.max(d.durationUs / 1e6, 1e-9),
    p50Ms: d.p50Us / 1000,
    p95Ms: d.p95Us / 1000,
    p99Ms: d.p99Us / 1000,
    errors: d.connect + d.read + d.write + d.timeout + d.unfinished,
    timeouts: d.timeout,
    non2xx: d.non2xx,
    statusCodes: d.statusCodes,
    ...(d.cpuTicks >= 0 ? { generatorCpuS: d.cpuTicks / ticks } : {}),
    ...(d.unfinished > 0 ? { unfinished: d.unfinished } : {}),
  };
}

/** Clock ticks per second of /proc's CPU times (`getconf CLK_TCK`; 100 when that fails). */
const clockTicks = (() => {
  let ticks: number | undefined;
  return (): number => {
    if (ticks === undefined) {
      try {
        ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
      } catch {
        ticks = 100;
      }
    }
    return ticks;
  };
})();

async function runWrk(url: string, options: LoadOptions): Promise<LoadResult> {
  const dir = await mkdtemp(join(tmpdir(), 'grag-wrk-'));
  try {
    const script = join(dir, 'load.lua');
    await writeFile(
      script,
      wrkScript({
        bodies: options.bodies,
        headers: { 'content-type': 'application/json', ...options.headers },
        expectDone: options.expectDone,
      }),
    );
    const args = [
      '--threads',
      '1',
      '--connections',
      String(options.connections),
      '--duration',
      `${options.durationS}s`,
      '--timeout',
      '10s',
      '--latency',
      '--script',
      script,
      url,
    ];
    const stdout = await new Promise<string>((resolvePromise, reject) => {
      const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (chunk) => {
        out += chunk;
      });
      child.stderr.on('data', (chunk) => {
        err += chunk;
      });
      child.once('error', reject);
      child.once('close', (code) =>
        code === 0 ? resolvePromise(out) : reject(new Error(`wrk exited with ${code}: ${err}${out}`)),
      );
    });
    return parseWrkOutput(stdout, {
      connections: options.connections,
      durationS: options.durationS,
      clockTicks: clockTicks(),
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The version of `generator`: the first line of `wrk -v` (without its copyright), or autocannon's package version. */
function versionOf(generator: Generator): string {
  if (generator === 'autocannon') {
    const pkg = createRequire(join(repo, 'packages/server/package.json'))('autocannon/package.json') as {
      version: string;
    };
    return `autocannon ${pkg.version}`;
  }
  // `wrk -v` prints its version and usage and exits with 1.
  const out = spawnSync('wrk', ['-v'], { encoding: 'utf8' });
  return `${out.stdout}${out.stderr}`
    .split('\n')[0]!
    .replace(/\s*Copyright.*$/, '')
    .trim();
}

/** Whether an executable named `name` is in one of PATH's folders. */
function onPath(name: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * CPU seconds (user + system) of process `pid` (all its threads), or of its thread `tid`, from
 * /proc; undefined where there is no /proc.
 */
function procCpuSeconds(pid: number, tid?: number): number | undefined {
  try {
    const stat = readFileSync(
      tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`,
      'utf8',
    );
    // After the command's name in parentheses: field 3 on; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTicks();
  } catch {
    return undefined;
  }
}

/** The processes of a server: the `grag serve` process and its replica processes (`--processes`). */
function serverPids(pid: number): number[] {
  const out = spawnSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' }).stdout ?? '';
  return [
    pid,
    ...out
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => Number(l.trim())),
  ];
}

/** CPU seconds of `pids` (all their threads, or their main threads), or undefined without /proc. */
function pidsCpuSeconds(pids: number[], mainOnly: boolean): number | undefined {
  let sum = 0;
  for (const pid of pids) {
    const cpu = procCpuSeconds(pid, mainOnly ? pid : undefined);
    if (cpu === undefined) return undefined;
    sum += cpu;
  }
  return sum;
}

/**
 * Start `grag serve` on `dirs` in a child process (offline, port 0) with `workers` retrieval
 * workers and `processes` processes; resolves with its URL.
 */
function startServe(
  dirs: string[],
  workers: number,
  processes: number,
): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(repo, 'packages/cli/src/bin.ts'),
      'serve',
      ...dirs,
      '--port',
      '0',
      '--no-explorer',
      '--workers',
      String(workers),
      '--processes',
      String(processes),
      '-q',
    ],
    {
      cwd: repo,
      env: {
        PATH: process.env.PATH,
        TSX_TSCONFIG_PATH: join(repo, 'tsconfig.json'),
        GRAG_PROVIDER: 'offline',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return new Promise((resolvePromise, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk) => {
      out += chunk;
      const url = / at (http:\/\/\S+)/.exec(out)?.[1];
      if (url) resolvePromise({ url, child });
    });
    child.once('exit', (code) => reject(new Error(`grag serve exited with ${code} before it listened`)));
  });
}

interface BuildRow {
  method: string;
  documents: number;
  buildSeconds: number;
}

async function buildIndex(method: Method<unknown>, docs: Document[], dir: string): Promise<BuildRow> {
  // NodeRAG on HNSW, as `grag index` builds it (its paper's semantic edges are HNSW's base layer).
  const ctx = createBuildContext({
    ...createOfflineProviders(),
    ...(method.name === 'noderag' ? { vectorIndex: hnswIndexFactory() } : {}),
  });
  const started = performance.now();
  const index = await method.build(docs, ctx);
  const buildSeconds = (performance.now() - started) / 1000;
  await method.save(index, dir);
  return { method: method.name, documents: docs.length, buildSeconds };
}

/**
 * The rows of one server, `grag serve --workers <workers> --processes <processes>`: every method
 * and mode at every level.
 */
async function loadServer(
  dirs: string[],
  { workers, processes }: { workers: number; processes: number },
  run: {
    methods: Method<unknown>[];
    answering: Set<string>;
    levels: number[];
    durationS: number;
    questions: { question: string }[];
    generator: Generator;
  },
): Promise<LoadRow[]> {
  const { url, child } = await startServe(dirs, workers, processes);
  const rows: LoadRow[] = [];
  try {
    for (const method of run.methods) {
      const modes: LoadRow['mode'][] = [
        'retrieval',
        ...(run.answering.has(method.name) ? ['streamed answer' as const] : []),
      ];
      for (const mode of modes) {
        const bodies = run.questions.map((q) =>
          JSON.stringify({
            question: q.question,
            method: method.name,
            ...(mode === 'streamed answer' ? { answer: true, stream: true } : {}),
          }),
        );
        // Warm-up, until every worker has loaded the index (each loads it when first asked, which
        // takes seconds for the larger ones): rounds of 2 s until one has no response over 1 s.
        const load = { bodies, generator: run.generator, expectDone: mode === 'streamed answer' };
        for (let round = 0; round < 8; round++) {
          const connections = 4 * Math.max(1, workers) * processes;
          const warm = await runLoad(url, { ...load, connections, durationS: 2 });
          if (warm.requests > 0 && warm.p99Ms <= 1000) break;
        }
        for (const connections of run.levels) {
          process.stderr.write(
            `${method.name} ${mode}, ${workers} workers, ${processes} processes: ${connections} connections for ${run.durationS} s (${run.generator}) ...\n`,
          );
          // The server's CPU: its process and its replicas (their main threads: HTTP, JSON, answers).
          const pids = serverPids(child.pid!);
          const server = pidsCpuSeconds(pids, false);
          const main = pidsCpuSeconds(pids, true);
          const result = await runLoad(url, { ...load, connections, durationS: run.durationS });
          const serverAfter = pidsCpuSeconds(pids, false);
          const mainAfter = pidsCpuSeconds(pids, true);
          rows.push({
            method: method.name,
            mode,
            workers,
            processes,
            ...result,
            ...(server !== undefined && serverAfter !== undefined
              ? { serverCpuS: serverAfter - server }
              : {}),
            ...(main !== undefined && mainAfter !== undefined ? { serverMainCpuS: mainAfter - main } : {}),
          });
          const row = rows.at(-1)!;
          process.stderr.write(
            `  ${row.requestsPerSecond.toFixed(1)} req/s, p50 ${row.p50Ms.toFixed(1)} ms, p99 ${row.p99Ms.toFixed(1)} ms; CPU/s: generator ${cores(row.generatorCpuS, row)}, server ${cores(row.serverCpuS, row)} (main thread ${cores(row.serverMainCpuS, row)})\n`,
          );
        }
      }
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
  return rows;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      dataset: { type: 'string', default: 'hotpotqa' },
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '1,8,32' },
      methods: { type: 'string', default: 'bm25,e2graphrag,noderag' },
      answers: { type: 'string', default: 'noderag' },
      out: { type: 'string', default: 'benchmarks/results' },
      workers: { type: 'string', default: `1,${availableParallelism()}` },
      processes: { type: 'string', default: '1' },
      generator: { type: 'string', default: onPath('wrk') ? 'wrk' : 'autocannon' },
      render: { type: 'boolean', default: false },
    },
  });
  if (values.generator !== 'wrk' && values.generator !== 'autocannon') {
    throw new Error(`--generator: expected wrk or autocannon, got ${values.generator}`);
  }
  const generator: Generator = values.generator;
  if (values.render) {
    const saved = JSON.parse(readFileSync(join(values.out, 'server-load.json'), 'utf8')) as LoadReport;
    writeFileSync(join(values.out, 'server-load.md'), render(saved));
    return;
  }
  const generatorVersion = versionOf(generator);
  const root = resolve(positionals[0] ?? '../shared/datasets');
  const durationS = Number(values.duration);
  const levels = values.connections.split(',').map(Number);
  const dataset = loadQaDataset(root, values.dataset);
  const work = await mkdtemp(join(tmpdir(), 'grag-server-load-'));
  const load: { start: number; end?: number } = { start: loadavg()[0]! };
  const known = [bm25Rag, e2GraphRag, nodeRag] as unknown as Method<unknown>[];
  const methods = values.methods.split(',').map((name) => {
    const method = known.find((m) => m.name === name);
    if (!method) throw new Error(`--methods: unknown method ${name}`);
    return method;
  });
  const answering = new Set(values.answers.split(',').filter((name) => name !== ''));
  const builds: BuildRow[] = [];
  for (const method of methods) {
    process.stderr.write(`building ${method.name} on ${dataset.corpus.length} passages ...\n`);
    builds.push(await buildIndex(method, dataset.corpus, join(work, method.name)));
  }
  const rows: LoadRow[] = [];
  const workerCounts = values.workers.split(',').map(Number);
  const processCounts = values.processes.split(',').map(Number);
  for (const processes of processCounts) {
    for (const workers of workerCounts) {
      process.stderr.write(`grag serve --workers ${workers} --processes ${processes} ...\n`);
      rows.push(
        ...(await loadServer(
          methods.map((m) => join(work, m.name)),
          { workers, processes },
          { methods, answering, levels, durationS, questions: dataset.questions, generator },
        )),
      );
    }
  }
  await rm(work, { recursive: true, force: true });
  load.end = loadavg()[0]!;
  const report: LoadReport = {
    benchmark: 'server-load',
    date: new Date().toISOString(),
    machine: machine(),
    loadAverage: { start: load.start, end: load.end },
    dataset: values.dataset,
    passages: dataset.corpus.length,
    questions: dataset.questions.length,
    durationS,
    cores: availableParallelism(),
    generator,
    generatorVersion,
    builds,
    rows,
  };
  mkdirSync(values.out, { recursive: true });
  writeFileSync(join(values.out, 'server-load.json'), `${JSON.stringify(report, null, 2)}\n`);
  const md = render(report);
  writeFileSync(join(values.out, 'server-load.md'), md);
  process.stdout.write(md);
}

/** What `server-load.json` holds. */
interface LoadReport {
  benchmark: 'server-load';
  date: string;
  machine: ReturnType<typeof machine>;
  /** 1-minute load average at the start and the end of the run. */
  loadAverage: { start: number; end: number };
  dataset: string;
  passages: number;
  questions: number;
  durationS: number;
  /** `os.availableParallelism()` of the machine. */
  cores?: number;
  /** The load generator of every row (reports before it was recorded: autocannon). */
  generator?: Generator;
  /** Its version: the first line of `wrk -v`, or autocannon's package version. */
  generatorVersion?: string;
  builds: BuildRow[];
  rows: LoadRow[];
  /** Paragraphs added by hand after the run (what the numbers mean on that machine). */
  notes?: string[];
}

/** One row: a method, what was asked of it (retrieval, or a streamed answer), and the load result. */
type LoadRow = LoadResult & {
  method: string;
  mode?: 'retrieval' | 'streamed answer';
  /** `grag serve --workers`: retrieval worker threads (0: on the server's thread). */
  workers?: number;
  /** `grag serve --processes`: processes serving the port (reports before it was recorded: 1). */
  processes?: number;
};

/** The processes of a row (1 before the dimension was recorded). */
const processesOf = (r: LoadRow) => r.processes ?? 1;

/**
 * Requests/s of every server that adds workers or processes over a one-process server, per method
 * and mode at the highest connection level: over 1 worker thread in 1 process, the servers with more
 * worker threads or more processes; over 0 workers in 1 process (one thread does everything), the
 * servers of more processes with 0 workers each.
 */
function speedups(rows: LoadRow[]): string[] {
  const top = Math.max(...rows.map((r) => r.connections));
  const at = rows.filter((r) => r.connections === top);
  const lines: string[] = [];
  for (const one of at.filter((r) => (r.workers ?? 0) <= 1 && processesOf(r) === 1)) {
    const base = one.workers ?? 0;
    const many = at.filter(
      (r) =>
        r.method === one.method &&
        r.mode === one.mode &&
        ((processesOf(r) > 1 && (r.workers ?? 0) === base) ||
          (base === 1 && processesOf(r) === 1 && (r.workers ?? 0) > 1)),
    );
    for (const other of many) {
      lines.push(
        `| ${one.method} | ${one.mode ?? 'retrieval'} | ${top} | ${base} | ${one.requestsPerSecond.toFixed(1)} | ${other.workers ?? 0} | ${processesOf(other)} | ${other.requestsPerSecond.toFixed(1)} | ${(other.requestsPerSecond / one.requestsPerSecond).toFixed(2)}x |`,
      );
    }
  }
  return lines;
}

/** CPU seconds per second of the row's run (cores busy on average), or – when not measured. */
function cores(cpuS: number | undefined, row: { durationS: number }): string {
  return cpuS === undefined ? '–' : (cpuS / row.durationS).toFixed(2);
}

/** The markdown table of a report. */
function render(report: LoadReport): string {
  const { machine: m, loadAverage: load, dataset: slice, durationS, builds, rows } = report;
  const fixed = (v: number | null, d = 1) =>
    typeof v === 'number' && Number.isFinite(v) ? v.toFixed(d) : '–';
  const generator = report.generator ?? 'autocannon';
  const wrk = generator === 'wrk';
  const cpuKnown = rows.some((r) => r.generatorCpuS !== undefined);
  return [
    '# grag serve under load',
    '',
    `Run ${report.date.slice(0, 10)} on ${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB), Node ${m.node}, ${m.platform};`,
    `1-minute load average ${fixed(load.start, 2)} at the start and ${fixed(load.end, 2)} at the end. The server (\`grag serve\`,`,
    wrk
      ? `a child process) and the load generator (${report.generatorVersion ?? 'wrk'}, a C program, one thread, in a child process) share`
      : `a child process) and the load generator (${report.generatorVersion ?? 'autocannon'}, in the benchmark's own Node process) share`,
    'those cores, and other jobs may have run on the machine too: read the numbers as a floor, not a capacity.',
    ...(cpuKnown
      ? [
          'The CPU columns say how many of the cores each took on average in the row: CPU seconds (user + system) over the',
          `row's seconds, ${wrk ? "wrk's process" : "the benchmark's process (autocannon)"} for the generator, the server's process (all its threads, from /proc) and, in`,
          'parentheses, its main thread (HTTP, JSON, the streamed answers).',
        ]
      : []),
    '',
    `Indexes: the ${slice} dev slice (${report.passages} passages), built offline (\`@grag/offline\`: hashed TF-IDF`,
    'embedder, heuristic tasks, exact flat vector index; NodeRAG with its HNSW graph) and saved; `grag serve` loads them',
    `once. Each request is \`POST /v1/query {"question", "method"}\` with one of the slice's ${report.questions} questions in turn`,
    wrk
      ? '(the connections take them in turn between them): `retrieval` rows at the default 12k-token budget, no answer; `streamed answer`'
      : '(every connection starts with the first): `retrieval` rows at the default 12k-token budget, no answer; `streamed answer`',
    `rows add \`"answer": true, "stream": true\` (the offline reader answers; Server-Sent Events read to the end${wrk ? ', a body without the `done` event counted as an error' : ''}). Over`,
    `keep-alive loopback connections, for ${durationS} s per row after a warm-up (rounds of 2 s until one has no response over 1 s: each worker loads an index when first asked). Latency percentiles are nearest-rank over`,
    `every response of the row${wrk ? " (wrk's microsecond histogram)" : ''}; \`errors\` counts connection errors and requests unanswered after 10 s (${wrk ? "wrk's `--timeout 10s`" : "autocannon's time-out"}).`,
    '',
    '| method | build s |',
    '|---|---:|',
    ...builds.map((b) => `| ${b.method} | ${fixed(b.buildSeconds)} |`),
    '',
    `| method | request | workers | processes | connections | requests | req/s | p50 ms | p95 ms | p99 ms | errors | non-2xx |${cpuKnown ? ' generator CPU | server CPU (main) |' : ''}`,
    `|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|${cpuKnown ? '---:|---:|' : ''}`,
    ...rows.map(
      (r) =>
        `| ${r.method} | ${r.mode ?? 'retrieval'} | ${r.workers ?? 0} | ${processesOf(r)} | ${r.connections} | ${r.requests} | ${fixed(r.requestsPerSecond)} | ${fixed(r.p50Ms)} | ${fixed(r.p95Ms)} | ${fixed(r.p99Ms)} | ${r.errors} | ${r.non2xx} |${cpuKnown ? ` ${cores(r.generatorCpuS, r)} | ${cores(r.serverCpuS, r)} (${cores(r.serverMainCpuS, r)}) |` : ''}`,
    ),
    '',
    "`workers` is `grag serve --workers <n>`: 0 runs each retrieval on the server's thread (the default, as before),",
    "n > 0 on n worker threads, each with its own copy of the indexes; the server's thread keeps HTTP, the checks,",
    'the JSON and the streamed answers (the offline reader answers there). All servers of a run are started one after',
    'the other in the same run, on the same indexes. `processes` is `grag serve --processes <n>`: the port served by n',
    'replica processes (node:cluster), each with its own copy of the indexes and its own `workers`; the first process',
    'accepts the connections and hands them out, and keeps the writes (none here). With several processes the CPU',
    "columns add up the server's process and its replicas (main: the main thread of each).",
    '',
    '| method | request | connections | workers, 1 process | its req/s | workers | processes | req/s | ratio |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
    ...speedups(rows),
    '',
    `${
      rows.every((r) => r.errors + r.non2xx === 0)
        ? 'No row had an error or a non-2xx response.'
        : 'Rows with errors or non-2xx responses are failures of the server under that load.'
    }`,
    '',
    ...(report.notes ?? []),
    '',
    `Reproduce: \`pnpm tsx benchmarks/server-load.ts ../shared/datasets --dataset ${slice} --duration ${durationS} --workers ${[...new Set(rows.map((r) => r.workers ?? 0))].join(',')} --processes ${[...new Set(rows.map(processesOf))].join(',')} --generator ${generator}\` from the repository root`,
    '(`--render` rewrites this table from `server-load.json` without running).',
    '',
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().catch((error) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  });
}
