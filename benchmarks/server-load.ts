/**
 * Loopback load test of `grag serve`: offline indexes of a dev slice (BM25, E2GraphRAG and NodeRAG,
 * each build timed on its own), served by the `grag serve` command in a child process, and
 * `POST /v1/query` with the slice's questions from autocannon at several concurrencies for a fixed
 * duration each: retrieval (no answer) for every method, and streamed answers (`answer: true,
 * stream: true`, Server-Sent Events read to the end) for the `--answers` methods; in the same run,
 * once per `--workers` count (`grag serve --workers <n>`: 0 retrieves on the server's thread; by
 * default 1 and as many as the machine has cores). Reports
 * requests/s, p50/p95/p99 latency, errors (connection errors and requests unanswered after
 * autocannon's 10 s time-out) and non-2xx responses; writes benchmarks/results/server-load.{json,md}.
 *
 *   pnpm tsx benchmarks/server-load.ts [datasets-dir] [--dataset hotpotqa] [--duration 10]
 *     [--connections 1,8,32] [--methods bm25,e2graphrag,noderag] [--answers noderag] [--workers 1,2]
 *     [--out benchmarks/results] [--render]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
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

/** One load run: what was sent, and what came back. */
export interface LoadResult {
  connections: number;
  durationS: number;
  /** Completed requests. */
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  /** Connection errors, time-outs included (autocannon counts a request unanswered after 10 s as both). */
  errors: number;
  /** Of `errors`, the time-outs. */
  timeouts: number;
  /** Responses with a status other than 2xx. */
  non2xx: number;
  statusCodes: Record<string, number>;
}

/**
 * `POST /v1/query` with `bodies` (each connection sends them in turn, round and round) from
 * `connections` connections for `durationS` seconds. Latency percentiles are nearest-rank over
 * every response.
 */
export async function runLoad(
  url: string,
  options: { connections: number; durationS: number; bodies: string[]; headers?: Record<string, string> },
): Promise<LoadResult> {
  const latencies: number[] = [];
  const headers = { 'content-type': 'application/json', ...options.headers };
  const instance = autocannon({
    url,
    connections: options.connections,
    duration: options.durationS,
    requests: options.bodies.map((body) => ({ method: 'POST', path: '/v1/query', headers, body })),
  });
  instance.on('response', (_client, _status, _bytes, ms) => latencies.push(ms));
  const result = await instance;
  const completed = latencies.length;
  return {
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
  };
}

/**
 * Start `grag serve` on `dirs` in a child process (offline, port 0) with `workers` retrieval
 * workers; resolves with its URL.
 */
function startServe(dirs: string[], workers: number): Promise<{ url: string; child: ChildProcess }> {
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

/** The rows of one server, `grag serve --workers <workers>`: every method and mode at every level. */
async function loadServer(
  dirs: string[],
  workers: number,
  run: {
    methods: Method<unknown>[];
    answering: Set<string>;
    levels: number[];
    durationS: number;
    questions: { question: string }[];
  },
): Promise<LoadRow[]> {
  const { url, child } = await startServe(dirs, workers);
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
        for (let round = 0; round < 8; round++) {
          const warm = await runLoad(url, { connections: 4 * Math.max(1, workers), durationS: 2, bodies });
          if (warm.requests > 0 && warm.p99Ms <= 1000) break;
        }
        for (const connections of run.levels) {
          process.stderr.write(
            `${method.name} ${mode}, ${workers} workers: ${connections} connections for ${run.durationS} s ...\n`,
          );
          rows.push({
            method: method.name,
            mode,
            workers,
            ...(await runLoad(url, { connections, durationS: run.durationS, bodies })),
          });
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
      render: { type: 'boolean', default: false },
    },
  });
  if (values.render) {
    const saved = JSON.parse(readFileSync(join(values.out, 'server-load.json'), 'utf8')) as LoadReport;
    writeFileSync(join(values.out, 'server-load.md'), render(saved));
    return;
  }
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
  for (const workers of workerCounts) {
    process.stderr.write(`grag serve --workers ${workers} ...\n`);
    rows.push(
      ...(await loadServer(
        methods.map((m) => join(work, m.name)),
        workers,
        { methods, answering, levels, durationS, questions: dataset.questions },
      )),
    );
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
};

/** Requests/s of `workers` over those of 1 worker, per method and mode at the highest connection level. */
function speedups(rows: LoadRow[]): string[] {
  const top = Math.max(...rows.map((r) => r.connections));
  const at = rows.filter((r) => r.connections === top);
  const counts = [...new Set(at.map((r) => r.workers ?? 0))].filter((n) => n > 1);
  const lines: string[] = [];
  for (const one of at.filter((r) => r.workers === 1)) {
    for (const n of counts) {
      const many = at.find((r) => r.method === one.method && r.mode === one.mode && r.workers === n);
      if (!many) continue;
      lines.push(
        `| ${one.method} | ${one.mode ?? 'retrieval'} | ${top} | ${one.requestsPerSecond.toFixed(1)} | ${n} | ${many.requestsPerSecond.toFixed(1)} | ${(many.requestsPerSecond / one.requestsPerSecond).toFixed(2)}x |`,
      );
    }
  }
  return lines;
}

/** The markdown table of a report. */
function render(report: LoadReport): string {
  const { machine: m, loadAverage: load, dataset: slice, durationS, builds, rows } = report;
  const fixed = (v: number | null, d = 1) =>
    typeof v === 'number' && Number.isFinite(v) ? v.toFixed(d) : '–';
  return [
    '# grag serve under load',
    '',
    `Run ${report.date.slice(0, 10)} on ${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB), Node ${m.node}, ${m.platform};`,
    `1-minute load average ${fixed(load.start, 2)} at the start and ${fixed(load.end, 2)} at the end. The server (\`grag serve\`,`,
    'a child process) and the load generator (autocannon, this process) share those cores, and other jobs ran on',
    'the machine too: read the numbers as a floor, not a capacity.',
    '',
    `Indexes: the ${slice} dev slice (${report.passages} passages), built offline (\`@grag/offline\`: hashed TF-IDF`,
    'embedder, heuristic tasks, exact flat vector index; NodeRAG with its HNSW graph) and saved; `grag serve` loads them',
    `once. Each request is \`POST /v1/query {"question", "method"}\` with one of the slice's ${report.questions} questions in turn`,
    '(every connection starts with the first): `retrieval` rows at the default 12k-token budget, no answer; `streamed answer`',
    'rows add `"answer": true, "stream": true` (the offline reader answers; Server-Sent Events read to the end). Over',
    `keep-alive loopback connections, for ${durationS} s per row after a warm-up (rounds of 2 s until one has no response over 1 s: each worker loads an index when first asked). Latency percentiles are nearest-rank over`,
    "every response of the row; `errors` counts connection errors and requests unanswered after 10 s (autocannon's time-out).",
    '',
    '| method | build s |',
    '|---|---:|',
    ...builds.map((b) => `| ${b.method} | ${fixed(b.buildSeconds)} |`),
    '',
    '| method | request | workers | connections | requests | req/s | p50 ms | p95 ms | p99 ms | errors | non-2xx |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.method} | ${r.mode ?? 'retrieval'} | ${r.workers ?? 0} | ${r.connections} | ${r.requests} | ${fixed(r.requestsPerSecond)} | ${fixed(r.p50Ms)} | ${fixed(r.p95Ms)} | ${fixed(r.p99Ms)} | ${r.errors} | ${r.non2xx} |`,
    ),
    '',
    "`workers` is `grag serve --workers <n>`: 0 runs each retrieval on the server's thread (the default, as before),",
    "n > 0 on n worker threads, each with its own copy of the indexes; the server's thread keeps HTTP, the checks,",
    'the JSON and the streamed answers (the offline reader answers there). All servers of a run are started one after',
    'the other in the same run, on the same indexes.',
    '',
    '| method | request | connections | req/s, 1 worker | workers | req/s | ratio |',
    '|---|---|---:|---:|---:|---:|---:|',
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
    `Reproduce: \`pnpm tsx benchmarks/server-load.ts ../shared/datasets --dataset ${slice} --duration ${durationS} --workers ${[...new Set(rows.map((r) => r.workers ?? 0))].join(',')}\` from the repository root`,
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
