/**
 * Concurrent writers (issue 25, item 1): N rounds of 2–4 simultaneous `grag add` / `grag remove`
 * processes on one index, for an index directory and for an index in PostgreSQL (`--store`; Debian's
 * PostgreSQL started with initdb in a temporary directory when installed, else PGlite served over
 * the wire). Some rounds SIGKILL one writer at a random moment. After each round the index's
 * document set must equal a serial application of the writes that exited 0 (plus the killed one's,
 * if it committed before it died); a writer that exited otherwise must have been refused in one line
 * naming the other writer. Writes benchmarks/results/concurrent-writers.{json,md}.
 *
 *   pnpm tsx benchmarks/concurrent-writers.ts [--rounds 100] [--stores directory,postgres]
 *     [--kill-rate 0.25] [--seed 1] [--minutes 20] [--out benchmarks/results] [--render]
 *
 * `--minutes` bounds each store's rounds: a store stops after the round that passes that time (the
 * report says how many rounds ran).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { seededRandom } from '@grag/eval';
import { postgresStore } from '@grag/postgres';
import pg from 'pg';
import { exited, spawnGrag } from '../packages/cli/test/index-child.js';
import { debianPostgresBin, startDebianServer } from '../packages/postgres/test/debian-server.js';
import { machine } from './lib.js';

/** The documents writers add and remove: 12 short notes, 4 of them in the first build. */
const DOCS: Record<string, string> = Object.fromEntries(
  [
    'Aldra is a fishing village on the north cape; its harbour freezes in February.',
    'Brekke has a stave church and a ferry to the islands twice a day.',
    'Corvik lies at the mouth of the Sel river and brews a dark ale.',
    'Dunmore holds a wool market every autumn in its old square.',
    'Eskvale is known for its lighthouse keeper, who kept a diary for forty years.',
    'Fennby grew around a copper mine that closed in 1911.',
    'Galtar has the oldest printing press of the coast, still working.',
    'Hollin sits on a lake where swans winter in the reeds.',
    'Ivarsund built schooners until the last yard burned down.',
    'Jorvik Minor keeps a tide table carved in stone by the quay.',
    'Kestrel Point is a bird reserve with a wooden hide.',
    'Lunde is a market town with a bridge of seven arches.',
  ].map((text, i) => [`town-${String.fromCharCode(97 + i)}.md`, text]),
);
const NAMES = Object.keys(DOCS);
const FIRST = NAMES.slice(0, 4);

/** When a round's victim is killed: once it holds the index's lock, or at a random moment. */
type KillWhen = 'holding' | 'random';

/** One writer of a round. */
interface Write {
  op: 'add' | 'remove';
  doc: string;
}

/** How one writer ended. */
interface WriterEnd {
  op: 'add' | 'remove';
  doc: string;
  code: number | null;
  signal: string | null;
  killed: boolean;
  /** Killed while it held the index's lock (else at a random moment). */
  killedHolding?: boolean;
  /** Refused in one line naming the other writer. */
  refused: boolean;
  /** stderr when it ended otherwise than 0 or a one-line refusal. */
  stderr?: string;
  ms: number;
}

/** One round. */
interface Round {
  round: number;
  writers: WriterEnd[];
  /** The document set before and after. */
  before: string[];
  after: string[];
  /** `serial`: equals a serial application of the writes that exited 0 (and the killed one's, `withKilled`). */
  outcome: 'serial' | 'serial-with-killed' | 'lost' | 'unexpected-failure';
  /** Beside an index directory after the round: what killed writers left (cleaned by the next write). */
  leftovers: string[];
  ms: number;
}

/** One store's rounds. */
interface StoreRun {
  store: 'directory' | 'postgres';
  detail: string;
  rounds: Round[];
  plannedRounds: number;
  seconds: number;
}

const REFUSAL = /^grag: .* is being written by another grag \(pid \d+(?: on \S+)?, since [^)]*\)[^\n]*\n$/;

/** Where a round's writers write, and how its document set is read. */
interface Target {
  /** The index argument of `grag add` / `grag remove`. */
  index: string;
  env: NodeJS.ProcessEnv;
  documents(): Promise<string[]>;
  /** Files or locks killed writers left that the next round's writers did not clean (directory store). */
  leftovers(): Promise<string[]>;
  /** Whether process `pid` holds the index's writer lock now. */
  holds(pid: number): Promise<boolean>;
  close(): Promise<void>;
}

async function directoryTarget(work: string): Promise<Target> {
  const index = join(work, 'index');
  return {
    index,
    env: {},
    async documents() {
      const chunks = JSON.parse(await readFile(join(index, 'chunks.json'), 'utf8')) as {
        documents: string[];
      };
      return [...chunks.documents].sort();
    },
    async leftovers() {
      return (await readdir(work)).filter(
        (name) => !['index', 'corpus', 'docs', '.grag-cache'].includes(name),
      );
    },
    async holds(pid) {
      try {
        return (JSON.parse(await readFile(join(work, '.index.lock'), 'utf8')) as { pid: number }).pid === pid;
      } catch {
        return false;
      }
    },
    async close() {},
  };
}

function postgresTarget(url: string, name: string): Target {
  const watcher = new pg.Pool({ connectionString: url, max: 1 });
  watcher.on('error', () => {});
  return {
    index: name,
    env: { GRAG_STORE: url },
    async documents() {
      const store = postgresStore({ url, index: name });
      try {
        const snapshot = await store.open();
        try {
          const chunks = JSON.parse(new TextDecoder().decode(await snapshot.read('chunks.json'))) as {
            documents: string[];
          };
          return [...chunks.documents].sort();
        } finally {
          await snapshot.release();
        }
      } finally {
        await store.close();
      }
    },
    async leftovers() {
      return [];
    },
    async holds(pid) {
      // A grag writer's lock connection is named `grag <pid> <start> <host>` (pg_stat_activity).
      const rows = await watcher.query(
        `SELECT 1 FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
         WHERE l.locktype = 'advisory' AND l.granted AND a.application_name LIKE $1`,
        [`grag ${pid} %`],
      );
      return rows.rows.length > 0;
    },
    close: () => watcher.end(),
  };
}

/** Build the first index (4 documents) with `grag index`. */
async function build(work: string, target: Target): Promise<void> {
  const corpus = join(work, 'corpus');
  await mkdir(corpus, { recursive: true });
  for (const name of FIRST) await writeFile(join(corpus, name), DOCS[name]!);
  const child = spawnGrag(['index', corpus, '--method', 'bm25', '--out', target.index, '-q'], target.env);
  const end = await exited(child);
  if (end.code !== 0) throw new Error(`grag index failed: ${child.stderrText()}`);
}

/** Whether `after` is `before` with `applied` writes applied (distinct documents: every order gives the same set). */
function apply(before: readonly string[], writes: readonly Write[]): string[] {
  const set = new Set(before);
  for (const w of writes) {
    if (w.op === 'add') set.add(w.doc);
    else set.delete(w.doc);
  }
  return [...set].sort();
}

const same = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/** One round: 2–4 writers on distinct documents (adds of absent ones, removes of present ones). */
async function round(
  n: number,
  target: Target,
  docsDir: string,
  rand: () => number,
  killRate: number,
): Promise<Round> {
  const before = await target.documents();
  const count = 2 + Math.floor(rand() * 3);
  const present = before.filter((d) => NAMES.includes(d));
  const absent = NAMES.filter((d) => !before.includes(d));
  const writes: Write[] = [];
  const pick = (list: string[]) => list.splice(Math.floor(rand() * list.length), 1)[0]!;
  for (let i = 0; i < count; i++) {
    // Keep at least one document in the index (a remove of the last one is refused by grag).
    const canRemove = present.length > 1;
    const add = absent.length > 0 && (!canRemove || rand() < 0.6);
    writes.push(add ? { op: 'add', doc: pick(absent) } : { op: 'remove', doc: pick(present) });
  }
  const victim = rand() < killRate ? Math.floor(rand() * count) : -1;
  // Half the kills hit a writer while it holds the index's lock; the others at a random moment.
  const killWhen: KillWhen = rand() < 0.5 ? 'holding' : 'random';
  const killAfterMs = 300 + rand() * 2500;
  const started = performance.now();
  const children = writes.map((w) =>
    spawnGrag(
      w.op === 'add'
        ? ['add', target.index, join(docsDir, w.doc), '-q']
        : ['remove', target.index, w.doc, '-q'],
      target.env,
    ),
  );
  const timers: NodeJS.Timeout[] = [];
  let killedHolding = false;
  let watching = true;
  if (victim >= 0 && killWhen === 'random') {
    timers.push(setTimeout(() => children[victim]!.kill('SIGKILL'), killAfterMs));
  } else if (victim >= 0) {
    const child = children[victim]!;
    void (async () => {
      while (watching && child.exitCode === null && child.signalCode === null) {
        if (await target.holds(child.pid!)) {
          killedHolding = child.kill('SIGKILL');
          return;
        }
        await new Promise((done) => setTimeout(done, 5));
      }
    })();
  }
  const ends = await Promise.all(
    children.map(async (child, i) => {
      const end = await exited(child);
      return { ...end, i, ms: performance.now() - started };
    }),
  );
  watching = false;
  for (const timer of timers) clearTimeout(timer);
  const writers: WriterEnd[] = ends.map((end) => {
    const w = writes[end.i]!;
    const stderr = children[end.i]!.stderrText();
    const killed = end.signal === 'SIGKILL';
    const refused = end.code === 1 && REFUSAL.test(stderr);
    return {
      op: w.op,
      doc: w.doc,
      code: end.code,
      signal: end.signal,
      killed,
      ...(killed ? { killedHolding } : {}),
      refused,
      ...(end.code !== 0 && !killed && !refused ? { stderr } : {}),
      ms: Math.round(end.ms),
    };
  });
  const after = await target.documents();
  const applied = writes.filter((_, i) => writers[i]!.code === 0);
  const killedWrite = writes.filter((_, i) => writers[i]!.killed);
  let outcome: Round['outcome'];
  if (writers.some((w) => w.stderr !== undefined)) outcome = 'unexpected-failure';
  else if (same(after, apply(before, applied))) outcome = 'serial';
  else if (killedWrite.length > 0 && same(after, apply(before, [...applied, ...killedWrite])))
    outcome = 'serial-with-killed';
  else outcome = 'lost';
  const leftovers = await target.leftovers();
  return {
    round: n,
    writers,
    before,
    after,
    outcome,
    leftovers,
    ms: Math.round(performance.now() - started),
  };
}

async function runStore(
  store: 'directory' | 'postgres',
  options: { rounds: number; killRate: number; seed: number; minutes: number },
): Promise<StoreRun> {
  const work = await mkdtemp(join(tmpdir(), `grag-writers-${store}-`));
  const docsDir = join(work, 'docs');
  await mkdir(docsDir);
  for (const [name, text] of Object.entries(DOCS)) await writeFile(join(docsDir, name), text);
  let stop: (() => Promise<void>) | undefined;
  let target: Target;
  let detail: string;
  if (store === 'directory') {
    target = await directoryTarget(work);
    detail = 'an index directory (lock file beside it)';
  } else {
    const pgBin = debianPostgresBin();
    if (pgBin) {
      const server = await startDebianServer(pgBin);
      stop = () => server.stop();
      target = postgresTarget(server.url, 'writers');
      detail = `Debian PostgreSQL ${pgBin.split('/').at(-2)} (initdb into a temporary directory, fsync=off), \`--store\``;
    } else {
      const { servePglite } = await import('../packages/postgres/test/pglite.js');
      const server = await servePglite(64, { pgvector: false });
      stop = () => server.stop();
      target = postgresTarget(server.url, 'writers');
      detail = 'PGlite served over the wire (pglite-socket; one shared session), `--store`';
    }
  }
  const rand = seededRandom(options.seed + (store === 'directory' ? 0 : 1000));
  const rounds: Round[] = [];
  const started = performance.now();
  try {
    await build(work, target);
    for (let n = 1; n <= options.rounds; n++) {
      const r = await round(n, target, docsDir, rand, options.killRate);
      const leftovers = r.leftovers;
      rounds.push(r);
      const kills = r.writers.filter((w) => w.killed).length;
      process.stderr.write(
        `${store} round ${n}: ${r.writers.map((w) => `${w.op} ${w.doc}=${w.killed ? 'KILLED' : w.refused ? 'refused' : w.code}`).join(', ')} -> ${r.outcome}${kills ? ' (kill)' : ''}${leftovers.length ? ` leftovers: ${leftovers.join(' ')}` : ''} ${r.ms} ms\n`,
      );
      if ((performance.now() - started) / 60_000 > options.minutes) break;
    }
  } finally {
    await target.close();
    await stop?.();
    await rm(work, { recursive: true, force: true });
  }
  return {
    store,
    detail,
    rounds,
    plannedRounds: options.rounds,
    seconds: (performance.now() - started) / 1000,
  };
}

/** What `concurrent-writers.json` holds. */
interface Report {
  benchmark: 'concurrent-writers';
  date: string;
  machine: ReturnType<typeof machine>;
  loadAverage: { start: number; end: number };
  killRate: number;
  seed: number;
  runs: StoreRun[];
}

function summary(run: StoreRun) {
  const rounds = run.rounds;
  const writers = rounds.flatMap((r) => r.writers);
  return {
    rounds: rounds.length,
    writers: writers.length,
    applied: writers.filter((w) => w.code === 0).length,
    refused: writers.filter((w) => w.refused).length,
    killed: writers.filter((w) => w.killed).length,
    killRounds: rounds.filter((r) => r.writers.some((w) => w.killed)).length,
    killedHolding: writers.filter((w) => w.killedHolding).length,
    serial: rounds.filter((r) => r.outcome === 'serial').length,
    serialWithKilled: rounds.filter((r) => r.outcome === 'serial-with-killed').length,
    lost: rounds.filter((r) => r.outcome === 'lost').length,
    unexpected: rounds.filter((r) => r.outcome === 'unexpected-failure').length,
    sizes: [2, 3, 4].map((k) => rounds.filter((r) => r.writers.length === k).length),
    /** Rounds without a kill after which something a writer left was still beside the index. */
    leftoverRounds: rounds.filter((r) => r.leftovers.length > 0 && !r.writers.some((w) => w.killed)).length,
    p50RoundS: median(rounds.map((r) => r.ms / 1000)),
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : sorted[Math.floor((sorted.length - 1) / 2)]!;
}

function render(report: Report): string {
  const m = report.machine;
  const rows = report.runs.map((run) => ({ run, s: summary(run) }));
  const allGood = rows.every(({ s }) => s.lost === 0 && s.unexpected === 0);
  const short = rows.filter(({ run, s }) => s.rounds < run.plannedRounds);
  return [
    '# Concurrent writers: simultaneous `grag add` / `grag remove` on one index',
    '',
    `Run ${report.date.slice(0, 10)} on ${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB), Node ${m.node}, ${m.platform};`,
    `1-minute load average ${report.loadAverage.start.toFixed(2)} at the start and ${report.loadAverage.end.toFixed(2)} at the end (other jobs shared the machine).`,
    '',
    'Each round starts 2–4 `grag` processes at once on one bm25 index (`grag add <index> <file>` of a document',
    'the index lacks, or `grag remove <index> <id>` of one it holds; distinct documents, so every serial order of',
    `the writes gives the same set), and in about ${Math.round(report.killRate * 100)}% of the rounds kills one of them with SIGKILL: half of`,
    "those kills as soon as the writer is seen holding the index's lock (the lock file names its pid; in PostgreSQL its",
    'lock connection, named `grag <pid> …`, holds the advisory lock), the others 0.3–2.8 s after the start (while it',
    'starts, loads, waits for the lock, holds it, or after it committed). After the round,',
    "the index's documents must equal the round's starting set with every write that exited 0 applied (`serial`),",
    "or with the killed writer's write applied too when it had committed before it died (`serial + killed`);",
    'a writer that exited otherwise must have been refused in one line naming the other writer',
    '(`grag: … is being written by another grag (pid N, since …)`). Anything else is `lost` or `unexpected`.',
    `Writers wait for the lock up to 60 s (the default \`lockWait\`). Random choices from seed ${report.seed}.`,
    '',
    '| store | rounds | writers (rounds of 2/3/4) | applied | refused | killed (of them holding the lock) | serial | serial + killed | lost | unexpected | leftovers | median round s |',
    '|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      ({ run, s }) =>
        `| ${run.store}: ${run.detail} | ${s.rounds} | ${s.writers} (${s.sizes.join('/')}) | ${s.applied} | ${s.refused} | ${s.killed} (${s.killedHolding}) | ${s.serial} | ${s.serialWithKilled} | ${s.lost} | ${s.unexpected} | ${s.leftoverRounds} | ${s.p50RoundS.toFixed(1)} |`,
    ),
    '',
    '`leftovers`: rounds without a kill after which a lock file or a temporary directory of an earlier killed',
    "writer was still beside the index directory (the next write removes them; a killed writer's own leftovers",
    'stay until the next round).',
    '',
    allGood
      ? 'No round lost a write or ended a writer otherwise than applied, refused in one line, or killed: every round ended as a serial application of its writes.'
      : 'Rounds marked `lost` or `unexpected` are failures; `concurrent-writers.json` lists each writer of each round.',
    ...(short.length > 0
      ? [
          '',
          `Stopped early by the time bound: ${short.map(({ run, s }) => `${run.store} ran ${s.rounds} of ${run.plannedRounds} rounds`).join('; ')}.`,
        ]
      : []),
    '',
    'Reproduce: `pnpm tsx benchmarks/concurrent-writers.ts --rounds 100` from the repository root (`--render`',
    'rewrites this page from `concurrent-writers.json` without running).',
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rounds: { type: 'string', default: '100' },
      stores: { type: 'string', default: 'directory,postgres' },
      'kill-rate': { type: 'string', default: '0.25' },
      seed: { type: 'string', default: '1' },
      minutes: { type: 'string', default: '20' },
      out: { type: 'string', default: 'benchmarks/results' },
      render: { type: 'boolean', default: false },
    },
  });
  if (values.render) {
    const saved = JSON.parse(readFileSync(join(values.out, 'concurrent-writers.json'), 'utf8')) as Report;
    writeFileSync(join(values.out, 'concurrent-writers.md'), render(saved));
    return;
  }
  const options = {
    rounds: Number(values.rounds),
    killRate: Number(values['kill-rate']),
    seed: Number(values.seed),
    minutes: Number(values.minutes),
  };
  const start = loadavg()[0]!;
  const runs: StoreRun[] = [];
  for (const store of values.stores.split(',') as ('directory' | 'postgres')[]) {
    runs.push(await runStore(store, options));
  }
  const report: Report = {
    benchmark: 'concurrent-writers',
    date: new Date().toISOString(),
    machine: machine(),
    loadAverage: { start, end: loadavg()[0]! },
    killRate: options.killRate,
    seed: options.seed,
    runs,
  };
  mkdirSync(values.out, { recursive: true });
  writeFileSync(join(values.out, 'concurrent-writers.json'), `${JSON.stringify(report, null, 2)}\n`);
  const md = render(report);
  writeFileSync(join(values.out, 'concurrent-writers.md'), md);
  process.stdout.write(md);
  if (runs.some((run) => summary(run).lost + summary(run).unexpected > 0)) process.exitCode = 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().catch((error) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exitCode = 1;
  });
}
