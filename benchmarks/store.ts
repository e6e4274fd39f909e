/**
 * Where an index is kept (issue 18): the same offline index saved to and loaded from each
 * `IndexStore`: a directory (a temporary one), PostgreSQL emulated by PGlite served over a socket
 * on 127.0.0.1 (`@electric-sql/pglite-socket`, reached with the `pg` client `postgresStore` uses),
 * and Debian's PostgreSQL server when `/usr/lib/postgresql/<v>/bin/initdb` is installed (started in
 * a temporary directory, as the `@grag/postgres` tests do).
 *
 * Each method (bm25, naive-dense, e2graphrag, ket-rag; offline providers, `chunking: 'document'`) is
 * built once in memory on the passages of the MuSiQue dev slice. Then, per store: one untimed
 * round, then RUNS timed rounds of `method.save` (a new version), a load (a new store object and
 * `method.load` with fresh offline providers) and `retrieve` of QUESTIONS seeded questions on the
 * loaded index. Then reader processes: 1, then READERS at once (started, then released together),
 * each loading the index from the store and asking the same questions. Every retrieval (context,
 * items, tokens, subgraph; the trace holds timings), in this process and in every reader, must
 * equal the in-memory index's: the script fails otherwise.
 *
 *   nice -n 5 pnpm tsx benchmarks/store.ts [datasets-dir] [--dataset musique] [--methods a,b]
 *        [--runs 5] [--reader-runs 2] [--out benchmarks/results]
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
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
import { debianPostgresBin, startDebianServer } from '../packages/postgres/test/debian-server.js';
import { awaitRelease, machine, percentile, readersRound } from './lib.js';

/** Methods in table order. */
const ORDER = ['bm25', 'naive-dense', 'e2graphrag', 'ket-rag'];
const SEED = 1;
const QUESTIONS = 50;
/** Reader processes of the concurrent rounds. */
const READERS = 4;
const SCRIPT = fileURLToPath(import.meta.url);

type AnyMethod = Method<unknown, Record<string, unknown>, Record<string, unknown>>;

function methodNamed(name: string): AnyMethod {
  const entry = METHODS.find((m) => m.name === name);
  if (!entry) {
    const known = METHODS.map((m) => m.name).join(', ');
    throw new Error(`store benchmark: unknown method "${name}"; known: ${known}.`);
  }
  return entry.method as unknown as AnyMethod;
}

/** Where one index lives, in a form a reader process can open. */
type Place =
  | { type: 'directory'; path: string }
  | { type: 'postgres'; url: string; index: string; vectors: boolean };
const storeAt = (p: Place): IndexStore =>
  p.type === 'directory'
    ? directoryStore(p.path)
    : postgresStore({ url: p.url, index: p.index, vectors: p.vectors });

/** One kind of store: where an index lives in it, and what that place takes. */
interface StoreKind {
  name: string;
  /** What the store is, for the page. */
  detail: string;
  place(index: string): Place;
  /** Bytes the place of `index` takes. */
  storedBytes(index: string): Promise<number>;
  stop(): Promise<void>;
  /** Whether reader processes are measured on it (PGlite serves one session at a time: no). */
  readers: boolean;
  /** The only methods measured on it (all when absent). */
  methods?: readonly string[];
}

async function directoryKind(): Promise<StoreKind> {
  const root = await mkdtemp(join(tmpdir(), 'grag-bench-store-'));
  return {
    name: 'directory',
    detail: `a directory in ${tmpdir()}`,
    place: (index) => ({ type: 'directory', path: join(root, index) }),
    async storedBytes(index) {
      let total = 0;
      for (const f of await readdir(join(root, index))) total += (await stat(join(root, index, f))).size;
      return total;
    },
    stop: () => rm(root, { recursive: true, force: true }),
    readers: true,
  };
}

/** A store kind on the PostgreSQL server at `url`; stored bytes are the schema's tables (TOAST and indexes included). */
function postgresKind(
  name: string,
  detail: string,
  url: string,
  stop: () => Promise<void>,
  vectors = false,
): StoreKind {
  return {
    readers: !name.startsWith('pglite'),
    name,
    detail,
    place: (index) => ({ type: 'postgres', url, index, vectors }),
    async storedBytes(index) {
      const { default: pg } = await import('pg');
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const r = await client.query<{ bytes: string }>(
          `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::text AS bytes FROM pg_class c
           JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'`,
          [`grag_${index}`],
        );
        return Number(r.rows[0]!.bytes);
      } finally {
        await client.end();
      }
    },
    stop,
  };
}

/**
 * PGlite served over a socket; with `vectors`, with its pgvector extension and a store that keeps
 * vector collections (`vectors: true`), measured on the methods that search them in place.
 */
async function pgliteKind(vectors = false): Promise<StoreKind> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  const { vector } = await import('@electric-sql/pglite-pgvector');
  const db = vectors ? new PGlite({ extensions: { vector } }) : new PGlite();
  await db.waitReady;
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 16 });
  await server.start();
  const url = `postgres://postgres:postgres@${server.getServerConn()}/postgres`;
  const detail = `PGlite (in-memory, one session at a time) over a socket on 127.0.0.1, \`pg\` client${vectors ? '; with pgvector and `postgresStore({ vectors: true })`: naive-dense keeps its chunk vectors as a pgvector table searched in the database (an exact scan, rescored by FlatIndex)' : ''}`;
  const kind = postgresKind(
    vectors ? 'pglite-socket-vectors' : 'pglite-socket',
    detail,
    url,
    async () => {
      await server.stop();
      await db.close();
    },
    vectors,
  );
  return vectors ? { ...kind, methods: ['naive-dense'] } : kind;
}

async function debianKind(bin: string): Promise<StoreKind> {
  const server = await startDebianServer(bin);
  const detail = `Debian PostgreSQL ${bin.split('/').at(-2)} on 127.0.0.1 (fsync=off), \`pg\` client`;
  return postgresKind('postgresql', detail, server.url, () => server.stop());
}

/** Median, minimum (and maximum) of some values, and the values. */
interface Stat {
  median: number;
  min: number;
  max: number;
  values: number[];
}
const stats = (values: number[]): Stat => ({
  median: percentile(values, 50),
  min: Math.min(...values),
  max: Math.max(...values),
  values,
});
const latency = (ms: number[]) => ({ p50: percentile(ms, 50), p95: percentile(ms, 95), count: ms.length });

/** One method on one store, in this process. */
interface Row {
  method: string;
  store: string;
  saveSeconds: Stat;
  loadSeconds: Stat;
  /** Latency of every retrieval of every run, pooled. */
  retrieveMs: { p50: number; p95: number; count: number };
  /** Bytes of the stored artifacts (manifest excluded), and how many. */
  artifactBytes: number;
  artifacts: number;
  /** What the place takes after the runs. */
  storedBytes: number;
}

/** `n` reader processes at once, over some rounds. */
interface ReadersRow {
  method: string;
  store: string;
  readers: number;
  rounds: number;
  /** Load seconds of every reader of every round. */
  loadSeconds: Stat;
  retrieveMs: { p50: number; p95: number; count: number };
  /** From releasing the readers to the last one's answer, per round. */
  wallSeconds: Stat;
}

const say = (line: string) => process.stderr.write(`store: ${line}\n`);

/** What must not change between stores: everything but the trace (which holds timings). */
const comparable = (r: Retrieval) =>
  JSON.stringify({ context: r.context, items: r.items, tokens: r.tokens, subgraph: r.subgraph });
const digest = (answers: readonly string[]) => createHash('sha256').update(answers.join('\n')).digest('hex');

/** Load `method`'s index from `place` (a new store object, fresh offline providers), then ask `questions`. */
async function loadAndAsk(method: AnyMethod, place: Place, questions: readonly string[]) {
  const ctx = createBuildContext(createOfflineProviders());
  let t = performance.now();
  const store = storeAt(place);
  const loaded = await method.load(store, ctx);
  const loadSeconds = (performance.now() - t) / 1000;
  const times: number[] = [];
  const answers: string[] = [];
  for (const q of questions) {
    t = performance.now();
    const r = await method.retrieve(loaded, q);
    times.push(performance.now() - t);
    answers.push(comparable(r));
  }
  await store.close?.();
  return { loadSeconds, times, answers };
}

const differs = (what: string) =>
  new Error(`store benchmark: ${what} retrieved something else than the in-memory index.`);

/** Save, load and ask `runs` times (after one untimed round) on `kind`. */
async function measureStore(
  method: AnyMethod,
  index: unknown,
  kind: StoreKind,
  questions: readonly string[],
  expected: string,
  runs: number,
): Promise<Row> {
  const name = method.name.replace(/-/g, '_');
  const [save, load, times]: [number[], number[], number[]] = [[], [], []];
  for (let run = 0; run <= runs; run++) {
    const writer = storeAt(kind.place(name));
    const t = performance.now();
    await method.save(index, writer);
    const saved = (performance.now() - t) / 1000;
    await writer.close?.();
    const got = await loadAndAsk(method, kind.place(name), questions);
    if (digest(got.answers) !== expected) throw differs(`${method.name} loaded from ${kind.name}`);
    if (run === 0) continue; // the untimed round
    save.push(saved);
    load.push(got.loadSeconds);
    times.push(...got.times);
  }
  const probe = storeAt(kind.place(name));
  const snap = await probe.open();
  let artifactBytes = 0;
  for (const n of snap.names) artifactBytes += (await snap.read(n)).byteLength;
  await snap.release();
  await probe.close?.();
  return {
    method: method.name,
    store: kind.name,
    saveSeconds: stats(save),
    loadSeconds: stats(load),
    retrieveMs: latency(times),
    artifactBytes,
    artifacts: snap.names.length,
    storedBytes: await kind.storedBytes(name),
  };
}

/** What a reader process is given (as JSON, after `--reader`) and what it answers. */
interface ReaderJob {
  method: string;
  place: Place;
  questions: string[];
}
interface ReaderAnswer {
  loadSeconds: number;
  times: number[];
  digest: string;
}

/** The reader process: say `ready`, wait for a line on stdin, load and ask, print the answer. */
async function reader(job: ReaderJob): Promise<void> {
  const method = methodNamed(job.method);
  await awaitRelease();
  const got = await loadAndAsk(method, job.place, job.questions);
  const answer: ReaderAnswer = {
    loadSeconds: got.loadSeconds,
    times: got.times,
    digest: digest(got.answers),
  };
  process.stdout.write(`${JSON.stringify(answer)}\n`);
}

async function measureReaders(job: ReaderJob, store: string, n: number, rounds: number, expected: string) {
  const [loads, times, walls]: [number[], number[], number[]] = [[], [], []];
  for (let round = 0; round < rounds; round++) {
    const { wall, answers } = await readersRound<ReaderAnswer>(SCRIPT, job, n, 'store benchmark');
    for (const a of answers) {
      if (a.digest !== expected) throw differs(`a reader process of ${job.method} on ${store}`);
      loads.push(a.loadSeconds);
      times.push(...a.times);
    }
    walls.push(wall);
  }
  const row: ReadersRow = {
    ...{ method: job.method, store, readers: n, rounds },
    ...{ loadSeconds: stats(loads), retrieveMs: latency(times), wallSeconds: stats(walls) },
  };
  return row;
}

/** The whole result file. */
interface Result {
  benchmark: 'store';
  date: string;
  machine: ReturnType<typeof machine>;
  dataset: string;
  corpus: number;
  questions: number;
  runs: number;
  stores: { name: string; detail: string }[];
  /** Stores that were not measured, with why. */
  skipped: { name: string; reason: string }[];
  builds: { method: string; seconds: number }[];
  rows: Row[];
  readers: ReadersRow[];
  command: string;
}

const positiveInt = (flag: string, v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0)
    throw new Error(`store benchmark: ${flag} must be an integer >= 0, got ${v}.`);
  return n;
};

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      dataset: { type: 'string', default: 'musique' },
      methods: { type: 'string' },
      runs: { type: 'string', default: '5' },
      'reader-runs': { type: 'string', default: '2' },
      out: { type: 'string', default: 'benchmarks/results' },
      reader: { type: 'string' },
    },
  });
  if (values.reader !== undefined) return reader(JSON.parse(values.reader) as ReaderJob);
  const root = positionals[0] ?? '../shared/datasets';
  const runs = Math.max(1, positiveInt('--runs', values.runs));
  const readerRuns = positiveInt('--reader-runs', values['reader-runs']);
  const methods = (values.methods?.split(',').filter(Boolean) ?? ORDER).map(methodNamed);
  const dataset = loadDataset(join(root, values.dataset));
  const questions = shuffle(
    seededRandom(SEED),
    dataset.questions.map((q) => q.question),
  ).slice(0, QUESTIONS);

  const kinds: StoreKind[] = [await directoryKind(), await pgliteKind(), await pgliteKind(true)];
  const skipped: Result['skipped'] = [];
  const bin = debianPostgresBin();
  if (bin) kinds.push(await debianKind(bin));
  else
    skipped.push({
      name: 'postgresql',
      reason: 'no /usr/lib/postgresql/*/bin/initdb (apt-get install postgresql)',
    });

  const builds: Result['builds'] = [];
  const rows: Row[] = [];
  const readers: ReadersRow[] = [];
  try {
    for (const method of methods) {
      const ctx = createBuildContext(createOfflineProviders());
      const t = performance.now();
      const index = await method.build([...dataset.corpus], ctx, { chunking: 'document' });
      builds.push({ method: method.name, seconds: (performance.now() - t) / 1000 });
      say(`${method.name}: built in ${builds.at(-1)!.seconds.toFixed(1)} s`);
      const answers: string[] = [];
      for (const q of questions) answers.push(comparable(await method.retrieve(index, q)));
      const expected = digest(answers);
      for (const kind of kinds) {
        if (kind.methods && !kind.methods.includes(method.name)) continue;
        const row = await measureStore(method, index, kind, questions, expected, runs);
        rows.push(row);
        say(
          `${method.name} on ${kind.name}: save ${row.saveSeconds.median.toFixed(3)} s, load ${row.loadSeconds.median.toFixed(3)} s, retrieve p50 ${row.retrieveMs.p50.toFixed(2)} ms`,
        );
        if (readerRuns === 0 || !kind.readers) continue;
        const job: ReaderJob = {
          method: method.name,
          place: kind.place(method.name.replace(/-/g, '_')),
          questions,
        };
        for (const n of [1, READERS]) {
          const r = await measureReaders(job, kind.name, n, readerRuns, expected);
          readers.push(r);
          say(
            `${method.name} on ${kind.name}, ${n} readers: load ${r.loadSeconds.median.toFixed(3)} s, wall ${r.wallSeconds.median.toFixed(2)} s`,
          );
        }
      }
    }
  } finally {
    for (const kind of kinds) await kind.stop();
  }
  const shownRoot = resolve(root) === resolve('../shared/datasets') ? '../shared/datasets' : root;
  const flags = [
    values.dataset === 'musique' ? '' : ` --dataset ${values.dataset}`,
    values.methods ? ` --methods ${values.methods}` : '',
    runs === 5 ? '' : ` --runs ${runs}`,
    readerRuns === 2 ? '' : ` --reader-runs ${readerRuns}`,
  ].join('');
  const result: Result = {
    benchmark: 'store',
    date: new Date().toISOString(),
    machine: machine(),
    dataset: values.dataset,
    corpus: dataset.corpus.length,
    questions: questions.length,
    runs,
    stores: kinds.map((k) => ({ name: k.name, detail: k.detail })),
    skipped,
    builds,
    rows,
    readers,
    command: `nice -n 5 pnpm tsx benchmarks/store.ts ${shownRoot}${flags}`,
  };
  mkdirSync(values.out, { recursive: true });
  const file = join(values.out, 'store.json');
  if (values.methods && existsSync(file)) {
    // A run of some methods keeps the earlier rows of the others.
    const earlier = JSON.parse(readFileSync(file, 'utf8')) as Result;
    const ran = new Set(methods.map((m) => m.name));
    const keep = <T extends { method: string }>(rows: T[]) => rows.filter((r) => !ran.has(r.method));
    result.rows = [...keep(earlier.rows), ...result.rows].sort(byOrder);
    result.readers = [...keep(earlier.readers), ...result.readers].sort(byOrder);
    result.builds = [...keep(earlier.builds), ...result.builds].sort(byOrder);
    result.command = earlier.command;
  }
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  const md = render(result);
  writeFileSync(join(values.out, 'store.md'), md);
  process.stdout.write(md);
}

/** Rows in table order: by method, then store (directory first, as the stores were measured). */
const STORES = ['directory', 'pglite-socket', 'pglite-socket-vectors', 'postgresql'];
const byOrder = (a: { method: string; store?: string }, b: { method: string; store?: string }) =>
  ORDER.indexOf(a.method) - ORDER.indexOf(b.method) ||
  STORES.indexOf(a.store ?? '') - STORES.indexOf(b.store ?? '');

const int = (v: number) => Math.round(v).toLocaleString('en-US');
const secs = (s: Stat) => `${s.median.toFixed(3)} / ${s.min.toFixed(3)}`;
const ms = (l: { p50: number; p95: number }) => `${l.p50.toFixed(2)} / ${l.p95.toFixed(2)}`;
/** A markdown table: `head` is the header row's cells joined by `|`, `rows` the rows' cells. */
const table = (head: string, rows: string[]) => {
  const cells = head.split('|');
  const rule = cells.map((_, i) => (i < 2 ? '---' : '---:')).join('|');
  return [`| ${cells.join(' | ')} |`, `|${rule}|`, ...rows.map((row) => `| ${row} |`)].join('\n');
};

/** The markdown page of a result. */
function render(r: Result): string {
  const m = r.machine;
  const main = table(
    'method|store|save s (median / min)|load s (median / min)|retrieve ms p50 / p95|artifacts|artifact bytes|stored bytes',
    r.rows.map(
      (x) =>
        `${x.method} | ${x.store} | ${secs(x.saveSeconds)} | ${secs(x.loadSeconds)} | ${ms(x.retrieveMs)} | ${x.artifacts} | ${int(x.artifactBytes)} | ${int(x.storedBytes)}`,
    ),
  );
  const readers = table(
    'method|store|reader processes|load s (median / max)|retrieve ms p50 / p95|wall s (median)',
    r.readers.map(
      (x) =>
        `${x.method} | ${x.store} | ${x.readers} | ${x.loadSeconds.median.toFixed(3)} / ${x.loadSeconds.max.toFixed(3)} | ${ms(x.retrieveMs)} | ${x.wallSeconds.median.toFixed(2)}`,
    ),
  );
  const rounds = r.readers[0]?.rounds ?? 0;
  return [
    '# Index stores: save, load and query',
    '',
    `Run ${r.date.slice(0, 10)} on ${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB), Node ${m.node}, ${m.platform}; the cores were shared with other jobs, so seconds are rough.`,
    '',
    `Corpus: the ${r.dataset} slice's ${r.corpus} passages, one document each (\`chunking: 'document'\`), offline providers (hashed TF-IDF embedder, heuristic tasks). Each method is built once in memory (${r.builds.map((b) => `${b.method} ${b.seconds.toFixed(1)} s`).join(', ')}).`,
    `Then, per store, one untimed round and ${r.runs} timed rounds of **save** (\`method.save\`, a new version of the same index), **load** (a new store object and \`method.load\` with fresh offline providers) and **retrieve**`,
    `(the ${r.questions} questions of a seeded shuffle, seed ${SEED}, on the loaded index; p50 / p95 over all ${r.runs * r.questions} calls). **Every retrieval on every store equalled the in-memory index's**`,
    '(context, items, tokens and subgraph; the trace holds timings): the script asserts it, here and in every reader process, and stops otherwise.',
    "**Artifact bytes**: the stored artifacts (manifest excluded), the same on every store. **Stored bytes**: what the place takes after the rounds: the directory's files, or",
    "the tables of the index's schema with TOAST and indexes (`pg_total_relation_size`; `postgresStore` keeps the current and the previous version).",
    '',
    'Stores:',
    '',
    ...r.stores.map((s) => `- **${s.name}**: ${s.detail}`),
    ...r.skipped.map((s) => `- **${s.name}**: not measured: ${s.reason}`),
    '',
    main,
    '',
    ...(r.readers.length > 0
      ? [
          '## Reader processes',
          '',
          `Separate Node processes, each loading the index from the store (cold: a new process) and asking the same ${r.questions} questions; 1 alone, then ${READERS} released together once all`,
          `were started (${rounds} rounds each). Load s over every reader of every round; wall s from the release to the last answer. The machine has ${m.cores} cores, so ${READERS} readers share them.`,
          '',
          readers,
          '',
        ]
      : []),
    `Reproduce: \`${r.command}\``,
    '',
  ].join('\n');
}

await main();
