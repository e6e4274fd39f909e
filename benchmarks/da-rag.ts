/**
 * DA-RAG on the multi-hop QA slices with offline providers, next to the BM25 and dense baselines, with
 * the ablations of DA-RAG Table 3a and the subgraph measures of its Figure 5.
 *
 *   pnpm tsx benchmarks/da-rag.ts [datasets-dir] [--datasets musique,hotpotqa] [--ablation-questions 50] [--out benchmarks/results]
 *
 * One child process per (dataset, index): the baselines; DA-RAG with semantic chunks (the full method
 * and the query-time ablations w/o S, w/o C, w/o ACS, and a scoring variant, all on one index); and
 * DA-RAG with fixed chunks (w/o SC). Peak RSS is each child's.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createBuildContext, type Method, type Retrieval, type RetrieveOptions } from '@grag/core';
import {
  communityMeasures,
  type DaRagIndex,
  type DaRagRetrieveOptions,
  daRag,
  type TracedCommunity,
} from '@grag/da-rag';
import { hnswIndexFactory } from '@grag/hnsw';
import { bm25Rag, denseRag } from '@grag/naive-rag';
import { createOfflineEmbedder, createOfflineTasks } from '@grag/offline';
import { covers, loadQaDataset, machine, mean, percentile, recallAt, runInChild } from './lib.js';

/** HNSW settings of the Similarity layer's kNN (and of the dense baseline). */
const HNSW = { M: 16, efConstruction: 64 } as const;
const BUDGET = 12_000;
const SMALL_BUDGET = 2_000;

interface QueryConfig {
  label: string;
  options: DaRagRetrieveOptions;
}

/** Query-time configurations run on the semantic-chunk index; the first runs on every question. */
const SEMANTIC_CONFIGS: QueryConfig[] = [
  { label: 'da-rag', options: {} },
  { label: 'da-rag (offline model score)', options: { scoring: 'model' } },
  { label: 'w/o S', options: { similarityLayer: false } },
  { label: 'w/o C', options: { chunkLayer: false } },
  { label: 'w/o ACS (1-hop)', options: { acs: false } },
];

interface MeasureRow {
  dataset: string;
  config: string;
  layer: string;
  /** Packed communities per question. */
  perQuestion: number;
  nodes: number;
  qrScore: number;
  density: number;
  diameter: number;
  pairwiseSimilarity: number;
  /** Mean k of the packed communities (EACS only). */
  meanK: number | null;
}

interface Row {
  dataset: string;
  config: string;
  questions: number;
  passages: number;
  chunks: number;
  recallAt2: number;
  recallAt5: number;
  coverage2k: number;
  coverage12k: number;
  meanTokens12k: number;
  /** Community assessments (model calls) per question. */
  callsPerQuestion: number;
  indexSeconds: number;
  indexNote: string;
  p50Ms: number;
  p95Ms: number;
  peakRssMiB: number;
}

interface ChildResult {
  rows: Row[];
  measures: MeasureRow[];
  stats?: Record<string, unknown>;
  stages?: Record<string, number>;
}

/** Documents in context order (each item's documents, in the item's order), without repeats. */
function rankedDocs(r: Retrieval): string[] {
  return [...new Set(r.items.flatMap((item) => item.source.docIds))];
}

type Metrics = Omit<Row, 'passages' | 'chunks' | 'indexSeconds' | 'indexNote' | 'peakRssMiB'>;

/** Per-question results of one configuration, and their aggregate over the first `n` questions. */
interface Evaluation {
  r2: number[];
  r5: number[];
  cov2: number[];
  cov12: number[];
  tokens: number[];
  latencies: number[];
  calls: number[];
  summary(config: string, n?: number): Metrics;
}

async function evaluate(
  dataset: string,
  questions: ReturnType<typeof loadQaDataset>['questions'],
  retrieve: (q: string) => Promise<Retrieval>,
  onRetrieval?: (r: Retrieval, i: number) => void,
): Promise<Evaluation> {
  const { getTokenizer } = await import('@grag/core');
  const tokenizer = getTokenizer();
  const e: Omit<Evaluation, 'summary'> = {
    r2: [],
    r5: [],
    cov2: [],
    cov12: [],
    tokens: [],
    latencies: [],
    calls: [],
  };
  await retrieve(questions[0]!.question); // warm-up: lazy truss indexes, JIT
  for (const [i, q] of questions.entries()) {
    const t = performance.now();
    const r = await retrieve(q.question);
    e.latencies.push(performance.now() - t);
    const ranked = rankedDocs(r);
    e.r2.push(recallAt(ranked, q.supporting, 2));
    e.r5.push(recallAt(ranked, q.supporting, 5));
    e.cov12.push(covers(r.context, q.answers) ? 1 : 0);
    // Packing is greedy in a fixed order, so the 2k context is the head of the 12k one.
    e.cov2.push(covers(tokenizer.truncate(r.context, SMALL_BUDGET), q.answers) ? 1 : 0);
    e.tokens.push(r.tokens);
    e.calls.push(typeof r.trace.assessCalls === 'number' ? r.trace.assessCalls : 0);
    onRetrieval?.(r, i);
  }
  return {
    ...e,
    summary(config, n = questions.length) {
      const head = (xs: number[]) => xs.slice(0, n);
      return {
        dataset,
        config,
        questions: Math.min(n, questions.length),
        recallAt2: mean(head(e.r2)),
        recallAt5: mean(head(e.r5)),
        coverage2k: mean(head(e.cov2)),
        coverage12k: mean(head(e.cov12)),
        meanTokens12k: mean(head(e.tokens)),
        callsPerQuestion: mean(head(e.calls)),
        p50Ms: percentile(head(e.latencies), 50),
        p95Ms: percentile(head(e.latencies), 95),
      };
    },
  };
}

/** Figure 5 measures of the packed communities of every retrieval, per layer. */
function measureCollector(index: DaRagIndex, dataset: string, config: string) {
  const per = new Map<
    string,
    { n: number; nodes: number[]; qr: number[]; d: number[]; diam: number[]; sim: number[]; k: number[] }
  >();
  let retrievals = 0;
  return {
    add(r: Retrieval) {
      retrievals++;
      for (const c of r.trace.communities as TracedCommunity[]) {
        if (!c.packed) continue;
        const m = communityMeasures(index, c);
        const acc = per.get(c.layer) ?? { n: 0, nodes: [], qr: [], d: [], diam: [], sim: [], k: [] };
        acc.n++;
        acc.nodes.push(m.nodes);
        acc.qr.push(m.qrScore);
        acc.d.push(m.density);
        acc.diam.push(m.diameter);
        if (!Number.isNaN(m.pairwiseSimilarity)) acc.sim.push(m.pairwiseSimilarity);
        if (c.k.length > 0) acc.k.push(Math.min(...c.k));
        per.set(c.layer, acc);
      }
    },
    rows(): MeasureRow[] {
      return ['chunk', 'kg', 'sim']
        .filter((layer) => per.has(layer))
        .map((layer) => {
          const a = per.get(layer)!;
          return {
            dataset,
            config,
            layer,
            perQuestion: a.n / retrievals,
            nodes: mean(a.nodes),
            qrScore: mean(a.qr),
            density: mean(a.d),
            diameter: mean(a.diam),
            pairwiseSimilarity: mean(a.sim),
            meanK: a.k.length > 0 ? mean(a.k) : null,
          };
        });
    },
  };
}

function offlineContext() {
  const embedder = createOfflineEmbedder('tfidf');
  return createBuildContext({
    embedder,
    tasks: createOfflineTasks({ embedder }),
    vectorIndex: hnswIndexFactory(HNSW),
  });
}

/** A dataset, its questions cut to `limit` (for smoke runs). */
function load(root: string, dataset: string, limit: number | undefined) {
  const data = loadQaDataset(root, dataset);
  return limit === undefined ? data : { ...data, questions: data.questions.slice(0, limit) };
}

async function runBaseline(
  root: string,
  dataset: string,
  which: 'bm25' | 'naive-dense',
  limit: number | undefined,
): Promise<ChildResult> {
  const data = load(root, dataset, limit);
  const ctx = offlineContext();
  // biome-ignore lint/suspicious/noExplicitAny: either baseline
  const method: Method<any, any, RetrieveOptions> = which === 'bm25' ? bm25Rag : denseRag;
  const t0 = performance.now();
  const index = await method.build(data.corpus, ctx, { chunking: 'document' });
  const indexSeconds = (performance.now() - t0) / 1000;
  const evaluation = await evaluate(dataset, data.questions, (q) =>
    method.retrieve(index, q, { budgetTokens: BUDGET }),
  );
  const row = evaluation.summary(which === 'bm25' ? 'bm25' : 'naive-dense (tfidf)');
  return {
    rows: [
      {
        ...row,
        passages: data.corpus.length,
        chunks: data.corpus.length,
        indexSeconds,
        indexNote: '',
        peakRssMiB: process.resourceUsage().maxRSS / 1024,
      },
    ],
    measures: [],
  };
}

async function runDaRag(
  root: string,
  dataset: string,
  chunking: 'semantic' | 'fixed',
  ablationQuestions: number,
  limit: number | undefined,
): Promise<ChildResult> {
  const data = load(root, dataset, limit);
  const ctx = offlineContext();
  const t0 = performance.now();
  const index = await daRag.build(data.corpus, ctx, { chunking });
  const indexSeconds = (performance.now() - t0) / 1000;
  const stages = Object.fromEntries(
    Object.entries(ctx.meter.snapshot().stages).map(([k, v]) => [k, v.wallMs / 1000]),
  );
  const base = { passages: data.corpus.length, chunks: index.chunks.length };
  const rows: Row[] = [];
  const measures: MeasureRow[] = [];
  const configs =
    chunking === 'semantic' ? SEMANTIC_CONFIGS : [{ label: 'w/o SC (fixed 1200/100)', options: {} }];
  for (const [i, config] of configs.entries()) {
    // The full method answers every question; the variants and ablations the first `ablationQuestions`.
    const subset =
      i === 0 && chunking === 'semantic' ? data.questions : data.questions.slice(0, ablationQuestions);
    const collector = measureCollector(index, dataset, config.label);
    process.stderr.write(`  ${config.label} (${subset.length} questions) ...\n`);
    const evaluation = await evaluate(
      dataset,
      subset,
      (q) => daRag.retrieve(index, q, { budgetTokens: BUDGET, ...config.options }),
      // Figure 5 measures over the first `ablationQuestions` questions of every configuration.
      (r, q) => {
        if (q < ablationQuestions) collector.add(r);
      },
    );
    const withoutSimilarity = indexSeconds - (stages.similarity ?? 0);
    rows.push({
      ...evaluation.summary(config.label),
      ...base,
      indexSeconds: config.options.similarityLayer === false ? withoutSimilarity : indexSeconds,
      indexNote:
        config.options.similarityLayer === false ? 'without the similarity stage' : i > 0 ? 'same index' : '',
      peakRssMiB: process.resourceUsage().maxRSS / 1024,
    });
    measures.push(...collector.rows());
    if (i === 0 && configs.length > 1 && subset.length > ablationQuestions) {
      // The full method on the variants' questions, for a like-for-like comparison.
      rows.push({
        ...evaluation.summary(`da-rag (first ${ablationQuestions})`, ablationQuestions),
        ...base,
        indexSeconds,
        indexNote: 'same index',
        peakRssMiB: process.resourceUsage().maxRSS / 1024,
      });
    }
  }
  return { rows, measures, stats: { ...index.stats }, stages };
}

const f = (x: number | null, d = 3) => (x === null || Number.isNaN(x) ? '–' : x.toFixed(d));

function mainTable(rows: Row[]): string {
  const lines = [
    '| dataset | configuration | questions | chunks | R@2 | R@5 | Cov@2k | Cov@12k | ctx tokens | calls/q | index s | p50 ms | p95 ms | peak RSS MiB |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.dataset} | ${r.config} | ${r.questions} | ${r.chunks} | ${f(r.recallAt2)} | ${f(r.recallAt5)} | ${f(r.coverage2k)} | ${f(r.coverage12k)} | ${Math.round(r.meanTokens12k)} | ${f(r.callsPerQuestion, 1)} | ${f(r.indexSeconds, 1)}${r.indexNote ? `¹` : ''} | ${f(r.p50Ms, 0)} | ${f(r.p95Ms, 0)} | ${Math.round(r.peakRssMiB)} |`,
    );
  }
  return lines.join('\n');
}

function measureTable(rows: MeasureRow[]): string {
  const lines = [
    '| dataset | configuration | layer | subgraphs/q | nodes | QRScore | density | diameter | pairwise sim | min k |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.dataset} | ${r.config} | ${r.layer} | ${f(r.perQuestion, 2)} | ${f(r.nodes, 1)} | ${f(r.qrScore)} | ${f(r.density)} | ${f(r.diameter, 2)} | ${f(r.pairwiseSimilarity)} | ${f(r.meanK, 1)} |`,
    );
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      datasets: { type: 'string', default: 'musique,hotpotqa' },
      out: { type: 'string', default: 'benchmarks/results' },
      'ablation-questions': { type: 'string', default: '50' },
      questions: { type: 'string' },
      single: { type: 'string' },
    },
  });
  const root = resolve(positionals[0] ?? '../shared/datasets');
  const ablationQuestions = Number(values['ablation-questions']);
  const limit = values.questions === undefined ? undefined : Number(values.questions);
  if (values.single) {
    const [dataset, kind] = values.single.split(':') as [string, string];
    const result =
      kind === 'bm25' || kind === 'naive-dense'
        ? await runBaseline(root, dataset, kind, limit)
        : await runDaRag(root, dataset, kind === 'fixed' ? 'fixed' : 'semantic', ablationQuestions, limit);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  const self = fileURLToPath(import.meta.url);
  const rows: Row[] = [];
  const measures: MeasureRow[] = [];
  const indexStats: Record<string, unknown> = {};
  const started = performance.now();
  for (const dataset of values.datasets.split(',')) {
    for (const kind of ['bm25', 'naive-dense', 'semantic', 'fixed']) {
      process.stderr.write(`${dataset}: ${kind} ...\n`);
      const t = performance.now();
      const result = runInChild<ChildResult>(self, [
        root,
        '--single',
        `${dataset}:${kind}`,
        '--ablation-questions',
        String(ablationQuestions),
        ...(limit === undefined ? [] : ['--questions', String(limit)]),
      ]);
      rows.push(...result.rows);
      measures.push(...result.measures);
      if (result.stats)
        indexStats[`${dataset}:${kind}`] = { stats: result.stats, stageSeconds: result.stages };
      process.stderr.write(`  done in ${((performance.now() - t) / 1000).toFixed(0)} s\n`);
    }
  }
  const meta = {
    benchmark: 'da-rag',
    date: new Date().toISOString(),
    machine: machine(),
    datasetsRoot: 'shared/datasets',
    budgetTokens: BUDGET,
    ablationQuestions,
    hnsw: HNSW,
    wallSeconds: (performance.now() - started) / 1000,
  };
  mkdirSync(values.out, { recursive: true });
  writeFileSync(
    join(values.out, 'da-rag.json'),
    `${JSON.stringify({ ...meta, rows, measures, indexStats }, null, 2)}\n`,
  );
  const m = meta.machine;
  const stageLines = Object.entries(indexStats).map(([key, value]) => {
    const v = value as { stats: Record<string, number>; stageSeconds: Record<string, number> };
    const stages = Object.entries(v.stageSeconds)
      .map(([s, sec]) => `${s} ${sec.toFixed(1)}`)
      .join(', ');
    return `- ${key}: ${v.stats.chunks} chunks, ${v.stats.entities} entities, ${v.stats.relations} relations, ${v.stats.chunkLayerEdges} chunk-layer edges (${v.stats.hubEntities} hub entities not linking), ${v.stats.similarityLayerEdges} similarity edges; stages (s): ${stages}`;
  });
  const md = [
    '# DA-RAG on multi-hop QA (offline providers)',
    '',
    `Run ${meta.date.slice(0, 10)} on ${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB), Node ${m.node}, ${m.platform}; whole run ${(meta.wallSeconds / 60).toFixed(1)} min.`,
    'Offline providers: `@grag/offline` wink-nlp task heuristics and the hashed TF-IDF embedder (fitted on the corpus).',
    'The machine was shared with other jobs during the run, so absolute times are inflated; compare rows of one run.',
    '',
    'Each corpus indexed whole. Baselines index one passage per chunk (title line + text); DA-RAG chunks each passage',
    '(semantic chunks; fixed 1200/100 for w/o SC) and writes the title line into every chunk. Context budget 12,000',
    'tokens (cl100k_base). R@k: share of supporting passages among the first k documents of the context, in order',
    '(for a community, the documents of its members: member chunks by relevance, or the chunks that mention its entities,',
    'most entities first). Cov: the gold answer or an alias appears (SQuAD-normalized) in the context, at 12k and in its',
    'first 2k tokens (packing is greedy in a fixed order, so that is the 2k context). calls/q: community assessments',
    `(one model call each). Latency: one retrieval at 12k, query embedding and assessments included. The full method runs on`,
    `all questions; the scoring variant and the ablations on the first ${ablationQuestions} (the row "da-rag (first ${ablationQuestions})" is the full`,
    'method on those). ¹ same index as the full method; for w/o S the index time leaves out the similarity stage.',
    `Similarity layer kNN and the dense baseline: HNSW (M ${HNSW.M}, efConstruction ${HNSW.efConstruction}).`,
    '',
    mainTable(rows),
    '',
    '## Subgraph measures (DA-RAG appendix B.3, Figure 5)',
    '',
    `Averages over every packed community (DA-RAG) or 1-hop subgraph (w/o ACS) of the first ${ablationQuestions} questions, per layer: QRScore (mean cosine of the`,
    "query and the nodes), density (2|E|/(|V|(|V|−1)) over the subgraph's own edges; a 1-hop subgraph's edges are those at",
    'its seeds), diameter (longest shortest path, in the whole layer, between two of its nodes), pairwise similarity (mean',
    'cosine over node pairs), min k (smallest k that found the community).',
    '',
    measureTable(measures),
    '',
    '## Indexes',
    '',
    ...stageLines,
    '',
    'Reproduce: `pnpm tsx benchmarks/da-rag.ts ../shared/datasets`.',
    '',
  ].join('\n');
  writeFileSync(join(values.out, 'da-rag.md'), md);
  process.stdout.write(`${md}\n`);
}

await main();
