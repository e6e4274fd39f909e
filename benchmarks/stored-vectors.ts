/**
 * Vectors in memory or in the database (issue 29, item 4): per method, one dev slice built once
 * (offline providers, the flat vector index, `chunking: 'document'` but for SG-RAG), saved to a directory and to
 * PGlite with pgvector served over a socket (`@electric-sql/pglite-socket`, reached with the `pg`
 * client) through `postgresStore({ vectors: true })`, where the method keeps the vectors it searches
 * by k-NN as collections searched in the database. Then reader processes, 1 and then READERS at
 * once (started, then released together): each loads the index from one place and asks the same
 * seeded questions, reporting its RSS before loading, after loading and after the questions, and
 * each retrieval's latency. Every reader's retrievals (items, context; not the trace) are compared
 * with those of a reader of the directory: `identical` says whether they were equal.
 *
 * PGlite runs inside this process, single-threaded: readers' queries to it take turns, so the
 * latencies with 4 readers measure that queue as much as pgvector. The machine is shared (see `load`).
 *
 *   nice -n 5 pnpm tsx benchmarks/stored-vectors.ts [datasets-dir] [--dataset hotpotqa]
 *        [--methods a,b] [--questions 50] [--out benchmarks/results]
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { METHODS } from '@grag/cli';
import type { IndexStore, Method, Retrieval } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { directoryStore } from '@grag/core/store';
import { loadDataset, seededRandom, shuffle } from '@grag/eval';
import { createOfflineProviders } from '@grag/offline';
import { postgresStore } from '@grag/postgres';
import { awaitRelease, machine, percentile, readersRound } from './lib.js';

const ORDER = ['naive-dense', 'bridge-rag', 'e2graphrag', 'noderag', 'sg-rag', 'ket-rag'];
const SEED = 1;
const READERS = 4;
const SCRIPT = fileURLToPath(import.meta.url);
const MiB = 2 ** 20;

type AnyMethod = Method<unknown, Record<string, unknown>, Record<string, unknown>>;

function methodNamed(name: string): AnyMethod {
  const entry = METHODS.find((m) => m.name === name);
  if (!entry) throw new Error(`stored-vectors benchmark: unknown method "${name}".`);
  return entry.method as unknown as AnyMethod;
}

type Place = { type: 'directory'; path: string } | { type: 'postgres'; url: string; index: string };
const storeAt = (p: Place): IndexStore =>
  p.type === 'directory'
    ? directoryStore(p.path)
    : postgresStore({ url: p.url, index: p.index, vectors: true });

/** What a reader process is given (JSON after `--reader`) and what it answers. */
interface ReaderJob {
  method: string;
  place: Place;
  questions: string[];
}
interface ReaderAnswer {
  rssMiB: { start: number; loaded: number; end: number };
  loadSeconds: number;
  times: number[];
  answers: string[];
}

const comparable = (r: Retrieval) => JSON.stringify({ context: r.context, items: r.items });
const rss = () => process.memoryUsage().rss / MiB;

/** The reader process: say `ready`, wait for a line on stdin, load, ask, print the answer. */
async function reader(job: ReaderJob): Promise<void> {
  const method = methodNamed(job.method);
  const ctx = createBuildContext(createOfflineProviders());
  await awaitRelease();
  const start = rss();
  let t = performance.now();
  const store = storeAt(job.place);
  const index = await method.load(store, ctx);
  const loadSeconds = (performance.now() - t) / 1000;
  const loaded = rss();
  const times: number[] = [];
  const answers: string[] = [];
  for (const q of job.questions) {
    t = performance.now();
    const r = await method.retrieve(index, q);
    times.push(performance.now() - t);
    answers.push(createHash('sha256').update(comparable(r)).digest('hex'));
  }
  const answer: ReaderAnswer = { rssMiB: { start, loaded, end: rss() }, loadSeconds, times, answers };
  await store.close?.();
  process.stdout.write(`${JSON.stringify(answer)}\n`);
}

/** One method, one place, `readers` reader processes at once. */
interface Row {
  method: string;
  vectors: 'memory' | 'database';
  readers: number;
  /** Median over the readers. */
  rssMiB: { start: number; loaded: number; end: number };
  loadSeconds: number;
  retrieveMs: { p50: number; p95: number; count: number };
  /** Every reader's retrievals equal those of the first directory reader. */
  identical: boolean;
  /** 1-minute load average when the round started. */
  load: number;
}

const median = (values: number[]) => percentile(values, 50);

function rowOf(
  method: string,
  vectors: Row['vectors'],
  answers: ReaderAnswer[],
  expected: string[],
  load: number,
): Row {
  const times = answers.flatMap((a) => a.times);
  return {
    method,
    vectors,
    readers: answers.length,
    rssMiB: {
      start: median(answers.map((a) => a.rssMiB.start)),
      loaded: median(answers.map((a) => a.rssMiB.loaded)),
      end: median(answers.map((a) => a.rssMiB.end)),
    },
    loadSeconds: median(answers.map((a) => a.loadSeconds)),
    retrieveMs: { p50: percentile(times, 50), p95: percentile(times, 95), count: times.length },
    identical: answers.every((a) => a.answers.join() === expected.join()),
    load,
  };
}

interface Result {
  benchmark: 'stored-vectors';
  date: string;
  machine: ReturnType<typeof machine>;
  dataset: string;
  corpus: number;
  questions: number;
  builds: { method: string; seconds: number; collections: string[] }[];
  rows: Row[];
  command: string;
}

const say = (line: string) => process.stderr.write(`stored-vectors: ${line}\n`);

async function servePglite() {
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  const { vector } = await import('@electric-sql/pglite-pgvector');
  const db = new PGlite({ extensions: { vector } });
  await db.waitReady;
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 32 });
  await server.start();
  const url = `postgres://postgres:postgres@${server.getServerConn()}/postgres`;
  return {
    url,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}

/** Build `method` on the corpus, save it to both places, and measure readers of each. */
async function measureMethod(
  method: AnyMethod,
  corpus: Parameters<AnyMethod['build']>[0],
  questions: string[],
  places: { dir: string; url: string },
  result: Result,
): Promise<void> {
  const t = performance.now();
  // One chunk per passage, as the other store benchmarks build (SG-RAG has no `chunking`: its default).
  const options = method.name === 'sg-rag' ? {} : { chunking: 'document' };
  const index = await method.build([...corpus], createBuildContext(createOfflineProviders()), options);
  const seconds = (performance.now() - t) / 1000;
  const name = method.name.replace(/-/g, '_');
  const file: Place = { type: 'directory', path: join(places.dir, name) };
  const db: Place = { type: 'postgres', url: places.url, index: name };
  await method.save(index, storeAt(file));
  const writer = storeAt(db);
  await method.save(index, writer);
  const snapshot = await writer.open();
  const collections = [...(snapshot.collections ?? [])];
  await snapshot.release();
  await writer.close?.();
  result.builds.push({ method: method.name, seconds, collections });
  say(`${method.name}: built in ${seconds.toFixed(1)} s; collections ${collections.join(', ')}`);
  let expected: string[] | undefined;
  for (const n of [1, READERS]) {
    for (const [vectors, place] of [
      ['memory', file],
      ['database', db],
    ] as const) {
      const load = loadavg()[0]!;
      const job: ReaderJob = { method: method.name, place, questions };
      const { answers } = await readersRound<ReaderAnswer>(SCRIPT, job, n, 'stored-vectors');
      expected ??= answers[0]!.answers;
      const row = rowOf(method.name, vectors, answers, expected, load);
      result.rows.push(row);
      say(
        `${method.name} ${vectors} x${n}: RSS ${row.rssMiB.end.toFixed(0)} MiB, p50 ${row.retrieveMs.p50.toFixed(1)} ms, p95 ${row.retrieveMs.p95.toFixed(1)} ms, identical ${row.identical}`,
      );
    }
  }
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      dataset: { type: 'string', default: 'hotpotqa' },
      methods: { type: 'string' },
      questions: { type: 'string', default: '50' },
      out: { type: 'string', default: 'benchmarks/results' },
      reader: { type: 'string' },
    },
  });
  if (values.reader !== undefined) return reader(JSON.parse(values.reader) as ReaderJob);
  const root = positionals[0] ?? '../shared/datasets';
  const methods = (values.methods?.split(',').filter(Boolean) ?? ORDER).map(methodNamed);
  const dataset = loadDataset(join(root, values.dataset));
  const questions = shuffle(
    seededRandom(SEED),
    dataset.questions.map((q) => q.question),
  ).slice(0, Number(values.questions));
  const shownRoot = resolve(root) === resolve('../shared/datasets') ? '../shared/datasets' : root;
  const result: Result = {
    benchmark: 'stored-vectors',
    date: new Date().toISOString(),
    machine: machine(),
    dataset: values.dataset,
    corpus: dataset.corpus.length,
    questions: questions.length,
    builds: [],
    rows: [],
    command: `nice -n 5 pnpm tsx benchmarks/stored-vectors.ts ${shownRoot} --dataset ${values.dataset}${values.methods ? ` --methods ${values.methods}` : ''} --questions ${questions.length}`,
  };
  const dir = await mkdtemp(join(tmpdir(), 'grag-bench-stored-'));
  const server = await servePglite();
  try {
    for (const method of methods) {
      await measureMethod(method, dataset.corpus, questions, { dir, url: server.url }, result);
      write(values.out, result); // after each method, so that a failure keeps what was measured
    }
  } finally {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
  process.stdout.write(render(result));
}

/** Write `result` as JSON and markdown into `out`. */
function write(out: string, result: Result): void {
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'stored-vectors.json'), `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(join(out, 'stored-vectors.md'), render(result));
}

/** The markdown page of a result. */
function render(r: Result): string {
  const m = r.machine;
  const head =
    '| method | vectors | readers | RSS start / loaded / end MiB | load s | p50 / p95 ms | identical | load avg |';
  const rule = '|---|---|---:|---:|---:|---:|---|---:|';
  const rows = r.rows.map(
    (row) =>
      `| ${row.method} | ${row.vectors} | ${row.readers} | ${row.rssMiB.start.toFixed(0)} / ${row.rssMiB.loaded.toFixed(0)} / ${row.rssMiB.end.toFixed(0)} | ${row.loadSeconds.toFixed(2)} | ${row.retrieveMs.p50.toFixed(1)} / ${row.retrieveMs.p95.toFixed(1)} | ${row.identical ? 'yes' : 'no'} | ${row.load.toFixed(1)} |`,
  );
  const builds = r.builds.map((b) => `${b.method} (${b.collections.join(', ') || 'none'})`).join('; ');
  return [
    '# Vectors in memory or in the database (pgvector)',
    '',
    `${r.dataset} dev slice (${r.corpus} passages), ${r.questions} seeded questions per reader, offline providers, flat vector index, \`chunking: 'document'\` (SG-RAG: its default chunking). "memory": the index loaded from a directory (every vector in the reader); "database": loaded from PGlite with pgvector served over a socket by the benchmark process, \`postgresStore({ vectors: true })\`, the collections searched there: ${builds}.`,
    '',
    `RSS is each reader's resident set (median over the readers) before loading, after loading and after its questions; latency pools every retrieval of every reader. "identical": every reader's items and context equal those of the first directory reader. PGlite is one single-threaded database inside the benchmark process: with 4 readers their queries take turns there, so the database rows with 4 readers measure that queue too (a PostgreSQL server serves each connection in its own process). Machine: ${m.cores} × ${m.cpu}, ${m.memoryGiB} GiB, Node ${m.node}, shared with other work (the 1-minute load average at the start of each round is in the last column); read the ratios more than the absolute times.`,
    '',
    head,
    rule,
    ...rows,
    '',
    `Run ${r.date.slice(0, 16).replace('T', ' ')} UTC: \`${r.command}\``,
    '',
  ].join('\n');
}

await main();
