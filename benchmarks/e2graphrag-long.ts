/**
 * E2GraphRAG on one book-length text, the setting of the paper (NovelQA, InfiniteBench: ~200k-token
 * books): a seeded chronicle from `e2graphrag-chronicle.ts` (no network, nothing shipped) and ~50
 * questions whose answers the generator knows, written as a single-book dataset directory
 * (`book.txt` + `questions.jsonl`, read by `@grag/eval`'s `loadBookDataset`) and evaluated with
 * `grag eval` itself. Measures the summary tree (depth, nodes per level), the offline build by
 * stage, the calls and tokens a paid build would make (`grag index --estimate`), and retrieval
 * Coverage and latency next to BM25 and Text-RAG on the same book.
 *
 *   pnpm tsx benchmarks/e2graphrag-long.ts [--seed 16] [--chapters 150] [--out benchmarks/results] [--data <dir>]
 *
 * `--data <dir>` keeps the generated dataset in `<dir>/chronicle` (by default it goes to a
 * temporary directory, removed at the end).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { MeterSnapshot } from '@grag/core';
import { getTokenizer } from '@grag/core/kit';
import { generateChronicle } from './e2graphrag-chronicle.js';
import { type LongEstimate, type LongResult, type LongRow, longMarkdown } from './e2graphrag-long-report.js';
import { type EvalConfig, machine } from './lib.js';

/** The configurations evaluated, each a `grag eval` run of its own (its own build), presets named. */
export const LONG_CONFIGS: EvalConfig[] = [
  { label: 'bm25', method: 'bm25' },
  { label: 'naive-dense (Text-RAG)', method: 'naive-dense' },
  { label: 'e2graphrag (paper preset)', method: 'e2graphrag', set: { preset: 'paper' } },
  { label: 'e2graphrag (paper preset, h = 3)', method: 'e2graphrag', set: { preset: 'paper', hops: 3 } },
  {
    label: 'e2graphrag (paper preset, dense retrieval only)',
    method: 'e2graphrag',
    set: { preset: 'paper', denseOnly: true },
  },
  {
    label: 'e2graphrag (offline preset) entry points only',
    method: 'e2graphrag',
    set: { preset: 'offline', denseOnly: true },
  },
  { label: 'e2graphrag (offline preset)', method: 'e2graphrag', set: { preset: 'offline' } },
  {
    label: 'e2graphrag (offline preset, graphWeight = 1)',
    method: 'e2graphrag',
    set: { preset: 'offline', graphWeight: 1 },
  },
  { label: "bridge-rag (grag's own)", method: 'bridge-rag' },
];

/** The `grag` command line's entry point. */
const GRAG_BIN = fileURLToPath(new URL('../packages/cli/src/bin.ts', import.meta.url));

/**
 * Run the `grag` command line offline in a child process of its own, as a user runs it: each
 * configuration starts cold (no tokenizer or model state left by the runs before it, which would
 * make the later runs' latencies look lower), and its peak RSS is its own. Returns its stdout.
 */
function grag(args: readonly string[]): string {
  const result = spawnSync(process.execPath, [...process.execArgv, GRAG_BIN, ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    env: { ...process.env, OPENAI_API_KEY: '', OPENAI_BASE_URL: '' },
  });
  if (result.status !== 0) {
    throw new Error(`grag ${args.join(' ')} exited ${result.status}: ${(result.stderr ?? '').trim()}`);
  }
  return result.stdout;
}

const count = (values: readonly string[]) => {
  const out: Record<string, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
};

/**
 * Hop distance of the closest pair of query entities a trace records: `single` (fewer than two
 * entities in the graph), `none` (no pair within h), `–` (the graph filter did not run).
 */
function closestPair(trace: Record<string, unknown> | undefined): string {
  if (trace?.branch === 'dense-only') return '–';
  const pairs = (trace?.pairs ?? []) as { hops: number | null }[];
  if (pairs.length === 0) return 'single';
  const within = pairs.flatMap((p) => (p.hops === null ? [] : [p.hops]));
  return within.length === 0 ? 'none' : String(Math.min(...within));
}

/** `grag eval` of one configuration on the book directory, reading its report, results and index. */
function evalBook(
  dataDir: string,
  config: EvalConfig,
  kinds: ReadonlyMap<string, string>,
  extra: readonly string[] = [],
): LongRow {
  const out = mkdtempSync(join(tmpdir(), 'grag-long-eval-'));
  const sets = Object.entries(config.set ?? {}).flatMap(([k, v]) => ['--set', `${k}=${v}`]);
  const args = ['eval', dataDir, '--methods', config.method, ...sets, ...extra];
  try {
    grag([...args, '--out', out, '-q']);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as {
      methods: {
        questions: number;
        metrics: Record<string, number>;
        contextTokens: number;
        latencyMs: { p50: number; p95: number };
        index: { seconds: number; usage: MeterSnapshot };
      }[];
    };
    const m = report.methods[0]!;
    const results = readFileSync(join(out, 'results.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map(
        (l) =>
          JSON.parse(l) as {
            questionId: string;
            metrics: Record<string, number>;
            trace?: Record<string, unknown>;
          },
      );
    const byKind = new Map<string, number[]>();
    for (const r of results) {
      const kind = kinds.get(r.questionId) ?? '?';
      byKind.set(kind, [...(byKind.get(kind) ?? []), r.metrics.coverage ?? 0]);
    }
    const row: LongRow = {
      label: config.label,
      command: `grag ${args.map((a) => (a === dataDir ? '<book>' : a)).join(' ')}`,
      questions: m.questions,
      coverage: m.metrics.coverage ?? Number.NaN,
      coverageByKind: Object.fromEntries(
        [...byKind].map(([k, v]) => [k, v.reduce((a, b) => a + b, 0) / v.length]),
      ),
      contextTokens: m.contextTokens,
      indexSeconds: m.index.seconds,
      stages: Object.fromEntries(Object.entries(m.index.usage.stages).map(([s, u]) => [s, u.wallMs / 1000])),
      p50Ms: m.latencyMs.p50,
      p95Ms: m.latencyMs.p95,
    };
    if (config.method === 'e2graphrag') {
      row.modes = count(results.map((r) => String(r.trace?.mode)));
      row.branches = count(results.map((r) => String(r.trace?.branch)));
      row.closestPair = count(results.map((r) => closestPair(r.trace)));
      const manifest = JSON.parse(
        readFileSync(join(out, 'indexes', 'e2graphrag', 'manifest.json'), 'utf8'),
      ) as {
        stats: { chunks: number; summaries: number; levels: number[]; entities: number; edges: number };
      };
      const { chunks, summaries, levels, entities, edges } = manifest.stats;
      row.index = { chunks, summaries, levels, entities, edges };
    }
    return row;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** `grag index <book> --method <method> --estimate --json`: the calls and tokens a paid build would make. */
function estimate(bookFile: string, method: string): LongEstimate {
  const args = ['index', bookFile, '--method', method, '--estimate', '--json', '-q'];
  const snapshot = JSON.parse(grag(args)) as MeterSnapshot;
  return {
    method,
    command: `grag ${args.map((a) => (a === bookFile ? '<book>/book.txt' : a)).join(' ')}`,
    stages: snapshot.stages,
    total: snapshot.total,
  };
}

function main(): void {
  const started = performance.now();
  const loadAtStart = loadavg()[0]!;
  const { values } = parseArgs({
    options: {
      seed: { type: 'string', default: '16' },
      chapters: { type: 'string', default: '150' },
      out: { type: 'string', default: 'benchmarks/results' },
      data: { type: 'string' },
    },
  });
  const seed = Number(values.seed);
  const chapters = Number(values.chapters);
  const book = generateChronicle({ seed, chapters });
  const missing = book.questions.find((q) => !book.text.includes(q.answers[0]!));
  if (missing) throw new Error(`chronicle: the answer of ${missing.id} is not in the book.`);
  const tokens = getTokenizer().count(book.text);
  // The loader names the book after its directory, and the name is written on the first chunk:
  // the directory is always `chronicle`, so the index does not depend on a temporary name.
  const parent = values.data ?? mkdtempSync(join(tmpdir(), 'grag-e2graphrag-long-'));
  const dataDir = join(parent, 'chronicle');
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(join(dataDir, 'book.txt'), book.text);
  writeFileSync(
    join(dataDir, 'questions.jsonl'),
    `${book.questions.map((q) => JSON.stringify(q)).join('\n')}\n`,
  );
  process.stderr.write(`chronicle: ${tokens} tokens, ${book.questions.length} questions in ${dataDir}\n`);
  const kinds = new Map(book.questions.map((q) => [q.id, q.type]));

  const estimates: LongEstimate[] = [];
  for (const method of ['e2graphrag', 'da-rag']) {
    process.stderr.write(`estimate ${method} ...\n`);
    estimates.push(estimate(join(dataDir, 'book.txt'), method));
  }
  const rows: LongRow[] = [];
  const budget2k: LongRow[] = [];
  for (const config of LONG_CONFIGS) {
    process.stderr.write(`${config.label} ...\n`);
    rows.push(evalBook(dataDir, config, kinds));
    budget2k.push(evalBook(dataDir, config, kinds, ['--budget', '2000']));
  }
  if (values.data === undefined) rmSync(parent, { recursive: true, force: true });

  const result: LongResult = {
    benchmark: 'e2graphrag-long',
    date: new Date().toISOString(),
    machine: machine(),
    seconds: (performance.now() - started) / 1000,
    load: [loadAtStart, loadavg()[0]!],
    book: {
      seed,
      ...book.stats,
      tokens,
      title: book.title,
      questions: count(book.questions.map((q) => q.type)),
    },
    estimates,
    rows,
    budget2k,
  };
  mkdirSync(values.out, { recursive: true });
  writeFileSync(join(values.out, 'e2graphrag-long.json'), `${JSON.stringify(result, null, 2)}\n`);
  const md = longMarkdown(result);
  writeFileSync(join(values.out, 'e2graphrag-long.md'), md);
  process.stdout.write(`${md}\n`);
}

main();
