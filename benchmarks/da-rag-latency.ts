/**
 * DA-RAG query latency on a corpus of ≥ 4,000 passages, with BM25 (`bm25Rag`) timed in the same run
 * as the reference, and a digest of every retrieval so that two versions of the code can be compared
 * for identical results.
 *
 *   pnpm tsx benchmarks/da-rag-latency.ts [datasets-dir] [--warmup 10] [--rounds 1] [--queries N]
 *     [--cache benchmarks/.cache/da-rag-latency] [--out benchmarks/results] [--label current]
 *     [--baseline <checkout>] [--compare <earlier da-rag-latency.json>] [--set key=value ...]
 *
 * Corpus: the union of the MuSiQue, HotpotQA and 2Wiki dev slices of `../shared/datasets` (4,457
 * passages; passage ids carry the slice name, so none collide), indexed whole with the offline
 * providers (`createOfflineProviders`, `createBuildContext`: hashed TF-IDF embedder, heuristic task
 * suite; HNSW for the Similarity layer's kNN, as `grag index` uses when it is available) and DA-RAG's
 * defaults. Queries: the 300 questions of the three slices, in slice order. The index is built once
 * and saved under `--cache`; every run (also the one that built it) loads it from there, so every run
 * retrieves over the same stored index. The cache is keyed by nothing but its folder: delete it after
 * a change to the build.
 *
 * `--baseline <checkout>`: a checkout of an earlier commit (its `packages/`, `benchmarks/` and root
 * tsconfig files, with the `node_modules` links of this one: e.g. `git archive <commit> packages
 * benchmarks package.json pnpm-workspace.yaml tsconfig.json tsconfig.base.json | tar -x -C <dir>`, the
 * root `node_modules` symlinked, each package's `node_modules` copied with `cp -a`). This script runs
 * a second time in a child process whose working directory is the checkout, so that tsx resolves
 * `@grag/*` to the checkout's sources; the child loads the same stored index and answers the queries
 * one at a time as `da-rag (baseline)`, timing each `retrieve` itself, in turn with the methods here
 * (the two processes never run at once). Its retrievals are compared with this code's, digest by
 * digest.
 *
 * Each query is retrieved by every method in turn (the order rotating from query to query, so that
 * the machine's load falls on all alike), each `retrieve` call timed alone (default budget, default
 * options); the `--warmup` first queries are retrieved once by each method first and not timed. p50 /
 * p95 are nearest-rank percentiles over every timed call. The digest of one retrieval is the SHA-256
 * of its items' `[id, score]` pairs in order (scores as JSON writes them: the shortest string that
 * reads back to the same double); a second digest covers the context text. No question or passage
 * text is written, only question ids and digests. With `--compare`, the per-query digests are also
 * compared with an earlier run's file.
 *
 * `--set key=value` (repeatable): one more row, `da-rag (key=value, …)`, DA-RAG over the same index
 * with those retrieve options (converted as `grag --set` converts them), timed in turn with the others
 * and compared with the default row digest by digest; with `--baseline`, the baseline checkout is
 * timed with them too (`da-rag (baseline, key=value, …)`) and compared with that row.
 *
 * Writes `da-rag-latency.json` and `da-rag-latency.md` under `--out`.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseSetOptions } from '@grag/cli';
import type { Document, Retrieval } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { daRag } from '@grag/da-rag';
import { hnswAvailability, hnswIndexFactory } from '@grag/hnsw';
import { bm25Rag } from '@grag/naive-rag';
import { createOfflineProviders } from '@grag/offline';
import { loadQaDataset, machine, percentile } from './lib.js';

const SLICES = ['musique', 'hotpotqa', '2wikimultihopqa'] as const;

/** Per-query result of one method. */
interface QueryRecord {
  /** Question id (no text). */
  id: string;
  /** Milliseconds of each timed call (one per round). */
  ms: number[];
  /** SHA-256 (hex, first 16) of the items' `[id, score]` pairs. */
  items: string;
  /** SHA-256 (hex, first 16) of the context. */
  context: string;
}

interface MethodSummary {
  method: string;
  calls: number;
  p50Ms: number;
  p95Ms: number;
  meanMs: number;
  maxMs: number;
  /** SHA-256 over every query's item digest, in query order. */
  digest: string;
  contextDigest: string;
  /** Mean of the trace's stage timings (DA-RAG only). */
  stageMeanMs?: Record<string, number>;
  queries: QueryRecord[];
}

/** Two sets of retrievals compared query by query. */
interface Comparison {
  /** What the current code's DA-RAG retrievals are compared with. */
  against: string;
  /** Queries whose items (ids and scores, in order) are identical. */
  sameItems: number;
  /** Queries whose context text is identical. */
  sameContext: number;
  /** Ids of the queries that differ in either. */
  differing: string[];
  total: number;
}

interface Report {
  benchmark: 'da-rag-latency';
  label: string;
  date: string;
  machine: ReturnType<typeof machine>;
  loadAverage: { start: number; end: number };
  git: { commit: string; dirty: boolean } | null;
  corpus: {
    slices: readonly string[];
    passages: number;
    chunks: number;
    entities: number;
    relations: number;
  };
  layers: { chunkEdges: number; kgEdges: number; simEdges: number };
  index: { built: boolean; buildSeconds: number | null; loadSeconds: number };
  warmup: number;
  rounds: number;
  /** The checkout timed as `da-rag (baseline)`, when one was given. */
  baseline?: string;
  methods: MethodSummary[];
  comparisons: Comparison[];
  /** p50 / p95 of the earlier run given with `--compare`. */
  earlier?: { file: string; label: string; methods: { method: string; p50Ms: number; p95Ms: number }[] };
}

/** One timed retrieval: its time, its digests, and the trace's stage timings. */
interface Run {
  ms: number;
  items: string;
  context: string;
  stages?: Record<string, number>;
}

/** A method as this benchmark times it. */
interface Timed {
  name: string;
  run: (query: string) => Promise<Run>;
}

const short = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 16);
const itemsDigest = (r: Retrieval) => short(JSON.stringify(r.items.map((i) => [i.id, i.score])));

function gitState(): Report['git'] {
  try {
    const git = (args: string[]) =>
      execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const commit = git(['rev-parse', 'HEAD']);
    const dirty = git(['status', '--porcelain', '--', 'packages/da-rag', 'packages/ktruss']) !== '';
    return { commit, dirty };
  } catch {
    return null;
  }
}

function compare(
  against: string,
  earlier: readonly QueryRecord[],
  current: readonly QueryRecord[],
): Comparison {
  const byId = new Map(earlier.map((q) => [q.id, q]));
  const differing = current
    .filter((q) => byId.get(q.id)?.items !== q.items || byId.get(q.id)?.context !== q.context)
    .map((q) => q.id);
  return {
    against,
    sameItems: current.filter((q) => byId.get(q.id)?.items === q.items).length,
    sameContext: current.filter((q) => byId.get(q.id)?.context === q.context).length,
    differing,
    total: current.length,
  };
}

/** Time one `retrieve` call in this process. */
async function timed(retrieve: () => Promise<Retrieval>): Promise<Run> {
  const start = performance.now();
  const r = await retrieve();
  const ms = performance.now() - start;
  return {
    ms,
    items: itemsDigest(r),
    context: short(r.context),
    stages: (r.trace.ms ?? undefined) as Record<string, number> | undefined,
  };
}

/**
 * The child process of `--baseline`: DA-RAG as the working directory's checkout resolves it, over the
 * stored index; one query per stdin line, one {@link Run} per stdout line.
 */
async function serveBaseline(cacheDir: string, sets: readonly string[]): Promise<void> {
  const index = await daRag.load(cacheDir, createBuildContext(createOfflineProviders()));
  const variant = parseSetOptions([...sets]);
  process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
  for await (const line of createInterface({ input: process.stdin })) {
    const { query, withSets } = JSON.parse(line) as { query: string; withSets?: boolean };
    const options = withSets ? variant : {};
    process.stdout.write(`${JSON.stringify(await timed(() => daRag.retrieve(index, query, options)))}\n`);
  }
}

/**
 * DA-RAG of a baseline checkout in a child process (see `--baseline`), and how to stop it: with
 * defaults, and with the `--set` options when there are any.
 */
async function baselineMethods(
  checkout: string,
  cacheDir: string,
  sets: readonly string[],
): Promise<{ methods: Timed[]; stop: () => void }> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      fileURLToPath(import.meta.url),
      '--serve-baseline',
      '--cache',
      cacheDir,
      ...sets.flatMap((set) => ['--set', set]),
    ],
    { cwd: checkout, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => {
    const { value, done } = await lines.next();
    if (done) throw new Error(`the baseline process in ${checkout} ended`);
    return JSON.parse(value as string) as Run & { ready?: boolean };
  };
  await next();
  const method = (name: string, withSets: boolean): Timed => ({
    name,
    run: async (query) => {
      child.stdin.write(`${JSON.stringify({ query, withSets })}\n`);
      return next();
    },
  });
  const methods = [method('da-rag (baseline)', false)];
  if (sets.length > 0) methods.push(method(`da-rag (baseline, ${sets.join(', ')})`, true));
  return { methods, stop: () => child.stdin.end() };
}

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      warmup: { type: 'string', default: '10' },
      rounds: { type: 'string', default: '1' },
      queries: { type: 'string' },
      cache: { type: 'string', default: 'benchmarks/.cache/da-rag-latency' },
      out: { type: 'string', default: 'benchmarks/results' },
      label: { type: 'string', default: 'current' },
      baseline: { type: 'string' },
      compare: { type: 'string' },
      'profile-only': { type: 'boolean', default: false },
      'serve-baseline': { type: 'boolean', default: false },
      set: { type: 'string', multiple: true, default: [] },
    },
  });
  const root = resolve(positionals[0] ?? '../shared/datasets');
  const warmup = Number(values.warmup);
  const rounds = Number(values.rounds);
  const cacheDir = resolve(values.cache!);
  if (values['serve-baseline']) return serveBaseline(cacheDir, values.set ?? []);
  const loadStart = loadavg()[0]!;

  const docs: Document[] = [];
  const queries: { id: string; question: string }[] = [];
  for (const slice of SLICES) {
    const data = loadQaDataset(root, slice);
    docs.push(...data.corpus);
    for (const q of data.questions) queries.push({ id: q.id, question: q.question });
  }
  const limit = values.queries === undefined ? queries.length : Number(values.queries);
  const timedQueries = queries.slice(0, limit);

  // Build once (saved), then always load: every run retrieves over the same stored index.
  let built = false;
  let buildSeconds: number | null = null;
  if (!existsSync(join(cacheDir, 'manifest.json'))) {
    const { tasks, embedder } = createOfflineProviders();
    // The Similarity layer's kNN through HNSW, as `grag index` does (the flat index is O(n²) here).
    const vectorIndex = hnswAvailability().available ? hnswIndexFactory() : undefined;
    const ctx = createBuildContext({ embedder, tasks, ...(vectorIndex ? { vectorIndex } : {}) });
    process.stderr.write(`building DA-RAG over ${docs.length} passages (once; cached in ${cacheDir})\n`);
    const t = performance.now();
    const built0 = await daRag.build(docs, ctx, { preset: 'offline' });
    buildSeconds = (performance.now() - t) / 1000;
    mkdirSync(cacheDir, { recursive: true });
    await daRag.save(built0, cacheDir);
    built = true;
    process.stderr.write(`built in ${buildSeconds.toFixed(1)} s\n`);
  }
  let t = performance.now();
  const index = await daRag.load(cacheDir, createBuildContext(createOfflineProviders()));
  const loadSeconds = (performance.now() - t) / 1000;

  const bm25Index = await bm25Rag.build(docs, createBuildContext(createOfflineProviders()));
  const methods: Timed[] = [
    { name: 'da-rag', run: (q) => timed(() => daRag.retrieve(index, q)) },
    { name: 'bm25', run: (q) => timed(() => bm25Rag.retrieve(bm25Index, q)) },
  ];
  const sets = values.set ?? [];
  const variantName = sets.length > 0 ? `da-rag (${sets.join(', ')})` : undefined;
  if (variantName) {
    const variant = parseSetOptions(sets);
    methods.push({ name: variantName, run: (q) => timed(() => daRag.retrieve(index, q, variant)) });
  }
  const baseline = values.baseline
    ? await baselineMethods(resolve(values.baseline), cacheDir, sets)
    : undefined;
  if (baseline) methods.push(...baseline.methods);

  // Warm-up: the first queries once with each method (caches of the index: truss indexes, BM25).
  for (const m of methods) for (const q of queries.slice(0, warmup)) await m.run(q.question);
  if (values['profile-only']) {
    t = performance.now();
    for (const q of timedQueries) await methods[0]!.run(q.question);
    process.stderr.write(`profile run: ${(performance.now() - t).toFixed(0)} ms\n`);
    baseline?.stop();
    return;
  }

  const records = new Map<string, QueryRecord[]>(
    methods.map((m) => [m.name, timedQueries.map((q) => ({ id: q.id, ms: [], items: '', context: '' }))]),
  );
  const stages = new Map<string, Map<string, number>>();
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < timedQueries.length; i++) {
      for (let j = 0; j < methods.length; j++) {
        const m = methods[(i + j) % methods.length]!;
        const { ms, items, context, stages: traced } = await m.run(timedQueries[i]!.question);
        const rec = records.get(m.name)![i]!;
        rec.ms.push(ms);
        if (round > 0 && (items !== rec.items || context !== rec.context)) {
          throw new Error(`${m.name}: query ${rec.id} retrieved differently in round ${round + 1}`);
        }
        rec.items = items;
        rec.context = context;
        if (m.name.startsWith('da-rag') && traced) {
          const sums = stages.get(m.name) ?? new Map<string, number>();
          stages.set(m.name, sums);
          for (const [k, v] of Object.entries(traced)) sums.set(k, (sums.get(k) ?? 0) + v);
        }
      }
    }
    process.stderr.write(`round ${round + 1} of ${rounds} done\n`);
  }
  baseline?.stop();

  const summaries: MethodSummary[] = methods.map((m) => {
    const recs = records.get(m.name)!;
    const all = recs.flatMap((r) => r.ms);
    const summary: MethodSummary = {
      method: m.name,
      calls: all.length,
      p50Ms: percentile(all, 50),
      p95Ms: percentile(all, 95),
      meanMs: all.reduce((a, b) => a + b, 0) / all.length,
      maxMs: Math.max(...all),
      digest: short(recs.map((r) => r.items).join('\n')),
      contextDigest: short(recs.map((r) => r.context).join('\n')),
      queries: recs,
    };
    const sums = stages.get(m.name);
    if (sums) {
      summary.stageMeanMs = Object.fromEntries(
        [...sums].map(([k, v]) => [k, Number((v / all.length).toFixed(2))]),
      );
    }
    return summary;
  });
  const current = records.get('da-rag')!;
  const comparisons: Comparison[] = [];
  if (values.baseline) {
    comparisons.push(
      compare(`da-rag (baseline): ${values.baseline}`, records.get('da-rag (baseline)')!, current),
    );
  }
  const baselineVariant = baseline?.methods[1]?.name;
  if (baselineVariant && variantName) {
    comparisons.push(
      compare(
        `${baselineVariant}: ${values.baseline}`,
        records.get(baselineVariant)!,
        records.get(variantName)!,
      ),
    );
  }
  if (variantName) comparisons.push(compare('da-rag (defaults)', current, records.get(variantName)!));
  let earlier: Report['earlier'];
  if (values.compare) {
    const file = JSON.parse(readFileSync(values.compare, 'utf8')) as Report;
    comparisons.push(
      compare(
        `${values.compare} (${file.label})`,
        file.methods.find((m) => m.method === 'da-rag')!.queries,
        current,
      ),
    );
    earlier = {
      file: values.compare,
      label: file.label,
      methods: file.methods.map((m) => ({ method: m.method, p50Ms: m.p50Ms, p95Ms: m.p95Ms })),
    };
  }

  const report: Report = {
    benchmark: 'da-rag-latency',
    label: values.label!,
    date: new Date().toISOString(),
    machine: machine(),
    loadAverage: { start: loadStart, end: loadavg()[0]! },
    git: gitState(),
    corpus: {
      slices: SLICES,
      passages: docs.length,
      chunks: index.chunks.length,
      entities: index.entities.length,
      relations: index.relations.length,
    },
    layers: { chunkEdges: index.chunkLayer.m, kgEdges: index.kgLayer.m, simEdges: index.simLayer?.m ?? 0 },
    index: { built, buildSeconds, loadSeconds },
    warmup,
    rounds,
    ...(values.baseline ? { baseline: values.baseline } : {}),
    methods: summaries,
    comparisons,
    ...(earlier ? { earlier } : {}),
  };

  const outDir = resolve(values.out!);
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'da-rag-latency.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(outDir, 'da-rag-latency.md'), markdown(report));
  for (const s of summaries) {
    process.stderr.write(
      `${s.method}: p50 ${s.p50Ms.toFixed(1)} ms, p95 ${s.p95Ms.toFixed(1)} ms, digest ${s.digest}\n`,
    );
  }
  for (const c of comparisons) {
    process.stderr.write(
      `vs ${c.against}: items identical for ${c.sameItems} of ${c.total}, context for ${c.sameContext}\n`,
    );
  }
}

function markdown(r: Report): string {
  const m = r.machine;
  const f = (x: number) => x.toFixed(1);
  const n = (x: number) => x.toLocaleString('en-US');
  const lines = [
    '# DA-RAG query latency (offline providers, 4,457 passages)',
    '',
    `Run ${r.date.slice(0, 10)} on ${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB), Node ${m.node}, ${m.platform};`,
    `load average ${r.loadAverage.start.toFixed(2)} at the start, ${r.loadAverage.end.toFixed(2)} at the end (a machine shared with other jobs).`,
    `Code: ${r.git ? `${r.git.commit.slice(0, 10)}${r.git.dirty ? ' with uncommitted changes in packages/da-rag or packages/ktruss' : ''}` : 'unknown'} (label \`${r.label}\`).`,
    '',
    `Corpus: the union of the ${r.corpus.slices.join(', ')} dev slices (${n(r.corpus.passages)} passages), one DA-RAG index with the offline`,
    `providers and DA-RAG's defaults: ${n(r.corpus.chunks)} chunks, ${n(r.corpus.entities)} entities, ${n(r.corpus.relations)} relations;`,
    `layer edges: chunk ${n(r.layers.chunkEdges)}, KG ${n(r.layers.kgEdges)}, Similarity ${n(r.layers.simEdges)}.`,
    `Index ${r.index.built ? `built in ${f(r.index.buildSeconds!)} s and saved` : 'loaded from the cache'} (load ${r.index.loadSeconds.toFixed(2)} s).`,
    `Queries: the ${r.methods[0]!.queries.length} questions of the three slices, ${r.rounds} round(s) after ${r.warmup} warm-up queries; each query`,
    'retrieved by every method in turn (rotating order), each `retrieve` call timed alone (default budget',
    '12,000 tokens, default options). BM25 (`bm25Rag` of `@grag/naive-rag`) is the reference timed in the same run' +
      (r.baseline
        ? `; \`da-rag (baseline)\` is the code of \`${r.baseline}\` over the same stored index.`
        : '.') +
      (r.methods.some((m) => m.method.startsWith('da-rag (') && m.method !== 'da-rag (baseline)')
        ? ' A `da-rag (key=value)` row is DA-RAG over the same index with those retrieve options (`--set`).'
        : ''),
    "Digest: SHA-256 of every retrieval's items (`[id, score]`, in order), and of its context.",
    '',
    '| method | calls | p50 ms | p95 ms | mean ms | max ms | items digest | context digest |',
    '|---|---:|---:|---:|---:|---:|---|---|',
    ...r.methods.map(
      (s) =>
        `| ${s.method} | ${s.calls} | ${f(s.p50Ms)} | ${f(s.p95Ms)} | ${f(s.meanMs)} | ${f(s.maxMs)} | \`${s.digest}\` | \`${s.contextDigest}\` |`,
    ),
  ];
  for (const s of r.methods) {
    if (!s.stageMeanMs) continue;
    lines.push(
      '',
      `${s.method}, stage timings of the trace (\`ms\`, mean per query): ` +
        Object.entries(s.stageMeanMs)
          .map(([k, v]) => `${k} ${v.toFixed(1)}`)
          .join(', ') +
        '.',
    );
  }
  for (const c of r.comparisons) {
    lines.push(
      '',
      `Compared with ${c.against}: ${c.sameItems} of ${c.total} retrievals have identical items and scores, ${c.sameContext} an identical context` +
        (c.differing.length === 0
          ? '.'
          : c.differing.length <= 12
            ? `; differing: ${c.differing.join(', ')}.`
            : ` (the ${c.differing.length} differing question ids are in the JSON).`),
    );
  }
  if (r.earlier) {
    lines.push(
      '',
      `The run of \`${r.earlier.file}\` (\`${r.earlier.label}\`) had p50 / p95: ${r.earlier.methods
        .map((e) => `${e.method} ${f(e.p50Ms)} / ${f(e.p95Ms)} ms`)
        .join(', ')}.`,
    );
  }
  lines.push(
    '',
    'Reproduce: `npx tsx benchmarks/da-rag-latency.ts` (builds the index into `benchmarks/.cache/da-rag-latency` on first run);',
    'add `--baseline <checkout>` to time an earlier commit beside it, `--set key=value` to time DA-RAG with other retrieve options beside it.',
    '',
  );
  return lines.join('\n');
}

await main();
