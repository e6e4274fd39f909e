/**
 * KET-RAG and its variants on the multi-hop QA slices, fully offline (hashed TF-IDF embedder, wink-nlp
 * heuristic tasks), next to the BM25 and dense baselines; then the β sweep of the paper's Figure 3.
 *
 *   npx tsx benchmarks/ket-rag.ts ../shared/datasets [--part main|sweep|all|tables] [--datasets musique,hotpotqa] [--jobs 2]
 *
 * Part `main`: one child process per (dataset, configuration), cold, so index time and peak RSS are
 * its own. Part `sweep`: one child process per dataset builds KET-RAG-P, KET-RAG-U and Skeleton-RAG at
 * β = 0.2 … 1.0; extraction, summaries and embeddings are memoized across those builds (index cost is
 * reported as extraction calls and tokens, which the memo does not change, not as time).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  type BuildContext,
  createBuildContext,
  type Embedder,
  type FittableEmbedder,
  isFittableEmbedder,
  type Method,
  type Retrieval,
  type RetrieveOptions,
  type TaskSuite,
} from '@grag/core';
import { createKetRag, type KetRagIndex, type KetRagVariant } from '@grag/ket-rag';
import { bm25Rag, denseRag } from '@grag/naive-rag';
import { createOfflineEmbedder, createOfflineTasks } from '@grag/offline';
import {
  covers,
  loadQaDataset,
  machine,
  mean,
  normalizeAnswer,
  percentile,
  type QaDataset,
  recallAt,
} from './lib.js';

const BUDGET = 12_000;
const MAIN_CONFIGS = [
  'bm25',
  'naive-dense',
  'text-rag',
  'knng-rag',
  'keyword-rag',
  'ms-graph-rag',
  'hybrid-rag',
  'skeleton-rag',
  'ket-rag-u',
  'ket-rag-p',
] as const;
type Config = (typeof MAIN_CONFIGS)[number];
const SWEEP_VARIANTS: KetRagVariant[] = ['ket-rag-p', 'ket-rag-u', 'skeleton-rag'];
const BETAS = [0.2, 0.4, 0.6, 0.8, 1.0];

/** SQuAD exact match: normalized strings equal. */
export function exactMatch(prediction: string, gold: string): number {
  return normalizeAnswer(prediction) === normalizeAnswer(gold) ? 1 : 0;
}

/** SQuAD F1: harmonic mean of token precision and recall over normalized tokens (multiset overlap). */
export function f1Score(prediction: string, gold: string): number {
  const p = normalizeAnswer(prediction).split(' ').filter(Boolean);
  const g = normalizeAnswer(gold).split(' ').filter(Boolean);
  if (p.length === 0 || g.length === 0) return p.length === g.length ? 1 : 0;
  const counts = new Map<string, number>();
  for (const t of g) counts.set(t, (counts.get(t) ?? 0) + 1);
  let same = 0;
  for (const t of p) {
    const c = counts.get(t) ?? 0;
    if (c > 0) {
      same++;
      counts.set(t, c - 1);
    }
  }
  if (same === 0) return 0;
  const precision = same / p.length;
  const recall = same / g.length;
  return (2 * precision * recall) / (precision + recall);
}

interface Quality {
  coverage: number;
  recallAt5: number;
  em: number;
  f1: number;
  meanTokens: number;
  p50Ms: number;
  /** Share of context tokens from the knowledge-graph channel (KET-RAG variants). */
  graphShare: number;
}

interface Row extends Quality {
  dataset: string;
  config: string;
  beta: number | null;
  questions: number;
  passages: number;
  extractionCalls: number;
  extractionTokens: number;
  entities: number;
  relationships: number;
  keywords: number;
  indexSeconds: number | null;
  peakRssMiB: number | null;
}

/** Documents the supporting-passage recall reads: text items (chunks, sub-chunks) in context order. */
function rankedDocs(r: Retrieval): string[] {
  const docs: string[] = [];
  for (const item of r.items) {
    if (item.kind !== 'chunk') continue;
    for (const doc of item.source.docIds) if (!docs.includes(doc)) docs.push(doc);
  }
  return docs;
}

async function evaluate(
  data: QaDataset,
  retrieve: (q: string) => Promise<Retrieval>,
  tasks: TaskSuite,
): Promise<Quality> {
  const cov: number[] = [];
  const r5: number[] = [];
  const em: number[] = [];
  const f1: number[] = [];
  const tokens: number[] = [];
  const ms: number[] = [];
  const graph: number[] = [];
  await retrieve(data.questions[0]!.question); // warm-up
  for (const q of data.questions) {
    const t = performance.now();
    const r = await retrieve(q.question);
    ms.push(performance.now() - t);
    cov.push(covers(r.context, q.answers) ? 1 : 0);
    r5.push(recallAt(rankedDocs(r), q.supporting, 5));
    tokens.push(r.tokens);
    graph.push(r.tokens > 0 ? Number(r.trace.graphTokens ?? 0) / r.tokens : 0);
    const { answer } = await tasks.answer(
      q.question,
      r.items.map((i) => ({ id: i.id, text: i.text })),
    );
    em.push(Math.max(...q.answers.map((a) => exactMatch(answer, a))));
    f1.push(Math.max(...q.answers.map((a) => f1Score(answer, a))));
  }
  return {
    coverage: mean(cov),
    recallAt5: mean(r5),
    em: mean(em),
    f1: mean(f1),
    meanTokens: mean(tokens),
    p50Ms: percentile(ms, 50),
    graphShare: mean(graph),
  };
}

function contextFor(embedder: Embedder, tasks?: TaskSuite): BuildContext {
  return createBuildContext({ embedder, tasks: tasks ?? createOfflineTasks({ embedder }) });
}

async function runMain(root: string, dataset: string, config: Config): Promise<Row> {
  const data = loadQaDataset(root, dataset);
  const embedder = createOfflineEmbedder('tfidf');
  const ctx = contextFor(embedder);
  const isBaseline = config === 'bm25' || config === 'naive-dense';
  // biome-ignore lint/suspicious/noExplicitAny: baselines and KET-RAG have different index types
  const method: Method<any, any, RetrieveOptions> = isBaseline
    ? config === 'bm25'
      ? bm25Rag
      : denseRag
    : createKetRag({ variant: config as KetRagVariant });
  const t0 = performance.now();
  const index = await method.build(data.corpus, ctx, { chunking: 'document' });
  const indexSeconds = (performance.now() - t0) / 1000;
  const quality = await evaluate(data, (q) => method.retrieve(index, q, { budgetTokens: BUDGET }), ctx.tasks);
  const stats = isBaseline ? undefined : (index as KetRagIndex).stats;
  return {
    dataset,
    config,
    beta: isBaseline ? null : (index as KetRagIndex).options.beta,
    questions: data.questions.length,
    passages: data.corpus.length,
    ...quality,
    extractionCalls: stats?.extraction.calls ?? 0,
    extractionTokens: stats?.extraction.inputTokens ?? 0,
    entities: stats?.entities ?? 0,
    relationships: stats?.relationships ?? 0,
    keywords: stats?.keywords ?? 0,
    indexSeconds,
    peakRssMiB: process.resourceUsage().maxRSS / 1024,
  };
}

/** An embedder that remembers every vector it computed, and fits its inner embedder once. */
function memoEmbedder(inner: FittableEmbedder): FittableEmbedder {
  const memo = new Map<string, Float32Array>();
  return {
    specificationVersion: 'v1',
    provider: inner.provider,
    modelId: inner.modelId,
    dimensions: inner.dimensions,
    maxBatchSize: inner.maxBatchSize,
    get fitted() {
      return inner.fitted;
    },
    fit(corpus) {
      if (!inner.fitted) return inner.fit(corpus);
    },
    state: () => inner.state(),
    restore: (state) => inner.restore(state),
    async doEmbed({ values, abortSignal }) {
      const missing = [...new Set(values.filter((v) => !memo.has(v)))];
      if (missing.length > 0) {
        const { embeddings } = await inner.doEmbed({ values: missing, abortSignal });
        missing.forEach((v, i) => {
          memo.set(v, embeddings[i]!);
        });
      }
      return { embeddings: values.map((v) => memo.get(v)!) };
    },
  };
}

/** Tasks whose graph extractions and summaries are memoized by input. */
function memoTasks(inner: TaskSuite): TaskSuite {
  const extractions = new Map<string, ReturnType<TaskSuite['extractGraph']>>();
  const summaries = new Map<string, Promise<string>>();
  return {
    ...inner,
    id: inner.id,
    extractGraph(text, options) {
      let hit = extractions.get(text);
      if (!hit) {
        hit = inner.extractGraph(text, options);
        extractions.set(text, hit);
      }
      return hit;
    },
    summarize(texts, options) {
      const key = JSON.stringify([texts, options?.maxTokens, options?.purpose]);
      let hit = summaries.get(key);
      if (!hit) {
        hit = inner.summarize(texts, options);
        summaries.set(key, hit);
      }
      return hit;
    },
    answer: (q, c, o) => inner.answer(q, c, o),
  };
}

async function runSweep(root: string, dataset: string): Promise<Row[]> {
  const data = loadQaDataset(root, dataset);
  const inner = createOfflineEmbedder('tfidf');
  if (!isFittableEmbedder(inner)) throw new Error('the tfidf embedder is fittable');
  const embedder = memoEmbedder(inner);
  const tasks = memoTasks(createOfflineTasks({ embedder }));
  const rows: Row[] = [];
  for (const beta of BETAS) {
    for (const variant of SWEEP_VARIANTS) {
      const sameAsP = rows.find((r) => r.beta === 1 && r.config === 'ket-rag-p');
      if (beta === 1 && variant === 'ket-rag-u' && sameAsP) {
        rows.push({ ...sameAsP, config: variant }); // every chunk is a core chunk: the same index
        continue;
      }
      const ctx = contextFor(embedder, tasks);
      const method = createKetRag({ variant });
      const index = await method.build(data.corpus, ctx, { chunking: 'document', beta });
      const quality = await evaluate(data, (q) => method.retrieve(index, q, { budgetTokens: BUDGET }), tasks);
      const { stats } = index;
      rows.push({
        dataset,
        config: variant,
        beta,
        questions: data.questions.length,
        passages: data.corpus.length,
        ...quality,
        extractionCalls: stats.extraction.calls,
        extractionTokens: stats.extraction.inputTokens,
        entities: stats.entities,
        relationships: stats.relationships,
        keywords: stats.keywords,
        indexSeconds: null,
        peakRssMiB: null,
      });
      process.stderr.write(
        `  ${dataset} ${variant} β=${beta}: Cov ${quality.coverage.toFixed(3)} F1 ${quality.f1.toFixed(3)} extraction ${stats.extraction.inputTokens} tokens\n`,
      );
    }
  }
  return rows;
}

const f = (x: number, d = 3) => (Number.isFinite(x) ? x.toFixed(d) : '–');

function mainTable(rows: Row[]): string {
  const lines = [
    '| dataset | method | β | Coverage | R@5 | EM | F1 | ctx tokens | graph share | extraction calls | extraction tokens | entities | relations | keywords | index s | p50 ms | peak RSS MiB |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.dataset} | ${r.config} | ${r.beta ?? '–'} | ${f(r.coverage)} | ${f(r.recallAt5)} | ${f(r.em)} | ${f(r.f1)} | ${Math.round(r.meanTokens)} | ${f(r.graphShare, 2)} | ${r.extractionCalls} | ${r.extractionTokens} | ${r.entities} | ${r.relationships} | ${r.keywords} | ${r.indexSeconds === null ? '–' : f(r.indexSeconds, 1)} | ${f(r.p50Ms, 1)} | ${r.peakRssMiB === null ? '–' : Math.round(r.peakRssMiB)} |`,
    );
  }
  return lines.join('\n');
}

function sweepTable(rows: Row[]): string {
  const lines = [
    '| dataset | method | β | Coverage | R@5 | EM | F1 | ctx tokens | graph share | extraction calls | extraction tokens | entities | relations |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.dataset} | ${r.config} | ${r.beta} | ${f(r.coverage)} | ${f(r.recallAt5)} | ${f(r.em)} | ${f(r.f1)} | ${Math.round(r.meanTokens)} | ${f(r.graphShare, 2)} | ${r.extractionCalls} | ${r.extractionTokens} | ${r.entities} | ${r.relationships} |`,
    );
  }
  return lines.join('\n');
}

/** The β sweep as an SVG line chart (KET-RAG Figure 3): one row per dataset, one panel per metric. */
export function sweepChart(rows: Row[]): string {
  const datasets = [...new Set(rows.map((r) => r.dataset))];
  const panels: { key: keyof Row; label: string; scale: number }[] = [
    { key: 'coverage', label: 'Coverage', scale: 1 },
    { key: 'f1', label: 'F1 (offline answerer)', scale: 1 },
    { key: 'extractionTokens', label: 'Extraction input tokens (k)', scale: 1e-3 },
  ];
  const colors: Record<string, string> = {
    'ket-rag-p': '#d62728',
    'ket-rag-u': '#1f77b4',
    'skeleton-rag': '#7f7f7f',
  };
  const W = 260;
  const H = 190;
  const m = { left: 46, right: 12, top: 26, bottom: 34 };
  const width = panels.length * W + 20;
  const height = datasets.length * H + 40;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
  ];
  datasets.forEach((dataset, di) => {
    panels.forEach((panel, pi) => {
      const x0 = 10 + pi * W;
      const y0 = di * H;
      const pw = W - m.left - m.right;
      const ph = H - m.top - m.bottom;
      const data = rows.filter((r) => r.dataset === dataset);
      const values = data.map((r) => Number(r[panel.key]) * panel.scale);
      let lo = Math.min(...values);
      let hi = Math.max(...values);
      if (hi - lo < 1e-9) {
        lo -= 0.5;
        hi += 0.5;
      }
      const pad = (hi - lo) * 0.08;
      lo -= pad;
      hi += pad;
      const decimals = hi - lo >= 20 ? 0 : hi - lo >= 0.2 ? 2 : 3;
      const sx = (beta: number) => x0 + m.left + ((beta - 0.2) / 0.8) * pw;
      const sy = (v: number) => y0 + m.top + ph - ((v - lo) / (hi - lo)) * ph;
      parts.push(
        `<text x="${x0 + m.left + pw / 2}" y="${y0 + 16}" text-anchor="middle" font-weight="bold">${dataset}: ${panel.label}</text>`,
        `<rect x="${x0 + m.left}" y="${y0 + m.top}" width="${pw}" height="${ph}" fill="none" stroke="#999"/>`,
      );
      for (const beta of BETAS) {
        parts.push(
          `<text x="${sx(beta)}" y="${y0 + m.top + ph + 14}" text-anchor="middle">${beta.toFixed(1)}</text>`,
        );
      }
      parts.push(
        `<text x="${x0 + m.left + pw / 2}" y="${y0 + m.top + ph + 28}" text-anchor="middle">β</text>`,
      );
      for (let t = 0; t <= 4; t++) {
        const v = lo + ((hi - lo) * t) / 4;
        parts.push(
          `<text x="${x0 + m.left - 4}" y="${sy(v) + 4}" text-anchor="end">${v.toFixed(decimals)}</text>`,
          `<line x1="${x0 + m.left}" x2="${x0 + m.left + pw}" y1="${sy(v)}" y2="${sy(v)}" stroke="#eee"/>`,
        );
      }
      // Skeleton-RAG first, so the KET-RAG lines stay visible where they coincide with it.
      for (const variant of [...SWEEP_VARIANTS].reverse()) {
        const points = data
          .filter((r) => r.config === variant)
          .sort((a, b) => a.beta! - b.beta!)
          .map((r) => `${sx(r.beta!).toFixed(1)},${sy(Number(r[panel.key]) * panel.scale).toFixed(1)}`);
        parts.push(
          `<polyline points="${points.join(' ')}" fill="none" stroke="${colors[variant]}" stroke-width="2"/>`,
          ...points.map((p) => {
            const [cx, cy] = p.split(',');
            return `<circle cx="${cx}" cy="${cy}" r="3" fill="${colors[variant]}"/>`;
          }),
        );
      }
    });
  });
  SWEEP_VARIANTS.forEach((variant, i) => {
    const x = 20 + i * 150;
    const y = height - 14;
    parts.push(
      `<line x1="${x}" x2="${x + 24}" y1="${y - 4}" y2="${y - 4}" stroke="${colors[variant]}" stroke-width="3"/>`,
      `<text x="${x + 30}" y="${y}">${variant.toUpperCase()}</text>`,
    );
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

/** The markdown of the main table. */
function mainMarkdown(runOn: string, rows: Row[]): string {
  return [
    '# KET-RAG and its variants (offline)',
    '',
    runOn,
    'Providers: hashed TF-IDF embedder (1024 dims) and the wink-nlp heuristic tasks of `@grag/offline`',
    '(graph extraction, description summaries, answers); flat vector indexes. Each corpus is indexed whole,',
    'one chunk per passage (`chunking: document`, title line + text); KET-RAG variants split passages into',
    '150-token sub-chunks; context budget L = 12,000 tokens (cl100k_base); KET-RAG defaults otherwise',
    '(k = 1 + 1, β = 0.8, λ = 0.5, 10 seed entities, 2× keyword collection).',
    '',
    '- Coverage: the gold answer or an alias appears (SQuAD-normalized) in the context (KET-RAG §6.1).',
    '- R@5: share of supporting passages among the first five distinct passages of the text items',
    '  (chunks, sub-chunks, text units) in context order; entity and relation items are not counted.',
    '- EM / F1: SQuAD exact match and token F1 of the offline extractive answerer (`tasks.answer`, up to',
    '  three context sentences) against the gold answer and its aliases. The answerer returns sentences, not',
    '  spans, so EM is near zero for every method; F1 still ranks contexts.',
    '- graph share: share of the context tokens written by the knowledge-graph channel.',
    '- Index cost: graph-extraction calls and the cl100k tokens of the texts sent to extraction (the',
    '  offline tasks report no model usage; with an LLM the Meter stage `extract` counts prompt tokens).',
    '  Index seconds and peak RSS are per child process, cold. The machine was shared with other jobs',
    '  (load average 5–15 on 2 cores during the run): compare times within this table only.',
    '',
    mainTable(rows),
    '',
    'Reproduce: `npx tsx benchmarks/ket-rag.ts ../shared/datasets --part main`.',
    '',
  ].join('\n');
}

/** The markdown of the β sweep. */
function sweepMarkdown(runOn: string, rows: Row[]): string {
  return [
    '# KET-RAG: the β sweep (the paper’s Figure 3, offline)',
    '',
    runOn,
    'Same providers and settings as [ket-rag.md](ket-rag.md); β (the fraction of chunks whose graph is',
    'extracted) from 0.2 to 1.0 for KET-RAG-P (PageRank core chunks), KET-RAG-U (uniform sample, seed 42) and',
    'Skeleton-RAG (the skeleton alone, λ = 1). At β = 1 KET-RAG-P and KET-RAG-U coincide (the row is shared)',
    'and Skeleton-RAG is MS-Graph-RAG. Extraction, summaries and embeddings are memoized across the builds of one dataset, so',
    'no index time is reported; the cost is the extraction calls and tokens.',
    '',
    'Reading it: coverage of KET-RAG stays near its β = 1 value down to β = 0.2 while the skeleton alone',
    'falls with β, as in the paper. R@5 reads passages in context order and the local search writes its',
    'text units first; at small β those come from few core chunks and push the keyword channel’s passages',
    'down, so R@5 falls while coverage holds. At equal β, PageRank picks longer chunks than the uniform',
    'sample (they share more keywords), so KET-RAG-P sends more extraction tokens for the same calls.',
    '',
    '![β sweep](ket-rag-beta.svg)',
    '',
    sweepTable(rows),
    '',
    'Reproduce: `npx tsx benchmarks/ket-rag.ts ../shared/datasets --part sweep`.',
    '',
  ].join('\n');
}

function child(self: string, root: string, args: string[]): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    execFile(
      process.execPath,
      [...process.execArgv, self, root, ...args],
      { encoding: 'utf8', maxBuffer: 1 << 26 },
      (error, stdout, stderr) => {
        process.stderr.write(
          stderr
            .split('\n')
            .filter((l) => l.trim() !== '' && !l.startsWith('npm warn'))
            .map((l) => `${l}\n`)
            .join(''),
        );
        if (error) reject(error);
        else resolvePromise(stdout);
      },
    );
  });
}

/** Run `jobs` at a time, results in input order. */
async function pool<T, R>(items: T[], jobs: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(jobs, items.length)) }, worker));
  return out;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      part: { type: 'string', default: 'all' },
      datasets: { type: 'string', default: 'musique,hotpotqa' },
      configs: { type: 'string' },
      out: { type: 'string', default: 'benchmarks/results' },
      single: { type: 'string' },
      sweep: { type: 'string' },
      jobs: { type: 'string', default: '1' },
    },
  });
  const root = resolve(positionals[0] ?? '../shared/datasets');
  if (values.single) {
    const [dataset, config] = values.single.split(':');
    process.stdout.write(`${JSON.stringify(await runMain(root, dataset!, config as Config))}\n`);
    return;
  }
  if (values.sweep) {
    process.stdout.write(`${JSON.stringify(await runSweep(root, values.sweep))}\n`);
    return;
  }
  const self = fileURLToPath(import.meta.url);
  const datasets = values.datasets.split(',');
  const jobs = Math.max(1, Number(values.jobs) || 1);
  const meta = { date: new Date().toISOString(), machine: machine(), budgetTokens: BUDGET };
  const m = meta.machine;
  const runOn = `Run ${meta.date.slice(0, 10)} on ${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB), Node ${m.node}, ${m.platform}.`;
  mkdirSync(values.out, { recursive: true });

  if (values.part === 'main' || values.part === 'all') {
    const configs = values.configs ? (values.configs.split(',') as Config[]) : [...MAIN_CONFIGS];
    const runs = datasets.flatMap((dataset) => configs.map((config) => ({ dataset, config })));
    const rows = await pool(runs, jobs, async ({ dataset, config }) => {
      process.stderr.write(`running ${dataset}:${config} ...\n`);
      const out = await child(self, root, ['--single', `${dataset}:${config}`]);
      const row = JSON.parse(out.trim().split('\n').at(-1)!) as Row;
      process.stderr.write(
        `  ${dataset}:${config} Cov ${f(row.coverage)} R@5 ${f(row.recallAt5)} F1 ${f(row.f1)} extraction ${row.extractionTokens} tokens, index ${f(row.indexSeconds ?? 0, 1)} s\n`,
      );
      return row;
    });
    writeFileSync(
      join(values.out, 'ket-rag.json'),
      `${JSON.stringify({ benchmark: 'ket-rag', ...meta, rows }, null, 2)}\n`,
    );
    const md = mainMarkdown(runOn, rows);
    writeFileSync(join(values.out, 'ket-rag.md'), md);
    process.stdout.write(`${md}\n`);
  }

  if (values.part === 'tables') {
    // Rewrite the markdown and the chart from the stored results.
    for (const [file, render] of [
      ['ket-rag', mainMarkdown],
      ['ket-rag-beta', sweepMarkdown],
    ] as const) {
      const stored = JSON.parse(readFileSync(join(values.out, `${file}.json`), 'utf8')) as {
        date: string;
        machine: ReturnType<typeof machine>;
        rows: Row[];
      };
      const sm = stored.machine;
      const storedRunOn = `Run ${stored.date.slice(0, 10)} on ${sm.cpu} (${sm.cores} cores, ${sm.memoryGiB} GiB), Node ${sm.node}, ${sm.platform}.`;
      writeFileSync(join(values.out, `${file}.md`), render(storedRunOn, stored.rows));
      if (file === 'ket-rag-beta') writeFileSync(join(values.out, `${file}.svg`), sweepChart(stored.rows));
    }
    return;
  }

  if (values.part === 'sweep' || values.part === 'all') {
    const rows = (
      await pool(datasets, jobs, async (dataset) => {
        process.stderr.write(`sweeping ${dataset} ...\n`);
        return JSON.parse(
          (await child(self, root, ['--sweep', dataset])).trim().split('\n').at(-1)!,
        ) as Row[];
      })
    ).flat();
    writeFileSync(
      join(values.out, 'ket-rag-beta.json'),
      `${JSON.stringify({ benchmark: 'ket-rag-beta', ...meta, betas: BETAS, rows }, null, 2)}\n`,
    );
    writeFileSync(join(values.out, 'ket-rag-beta.svg'), sweepChart(rows));
    const md = sweepMarkdown(runOn, rows);
    writeFileSync(join(values.out, 'ket-rag-beta.md'), md);
    process.stdout.write(`${md}\n`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
