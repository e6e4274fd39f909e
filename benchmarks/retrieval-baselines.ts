/**
 * Retrieval baselines on the multi-hop QA slices: dense top-k (with each offline embedder) and
 * BM25, each corpus indexed whole with one passage per chunk.
 *
 *   pnpm tsx benchmarks/retrieval-baselines.ts [datasets-dir] [--datasets musique,hotpotqa] [--out benchmarks/results]
 *
 * Each (dataset, configuration) runs in a child process so peak RSS is its own.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createBuildContext, flatIndexFactory, type Method, type RetrieveOptions } from '@grag/core';
import { hnswIndexFactory } from '@grag/hnsw';
import { bm25Rag, denseRag } from '@grag/naive-rag';
import { createOfflineEmbedder, createOfflineTasks } from '@grag/offline';
import { covers, loadQaDataset, machine, mean, percentile, recallAt, runInChild } from './lib.js';

interface Config {
  method: 'naive-dense' | 'bm25';
  embedder?: 'tfidf' | 'glove';
}

const CONFIGS: Config[] = [
  { method: 'naive-dense', embedder: 'tfidf' },
  { method: 'naive-dense', embedder: 'glove' },
  { method: 'bm25' },
];
const BUDGETS = [2000, 12000] as const;

interface Row {
  dataset: string;
  method: string;
  embedder: string;
  questions: number;
  passages: number;
  recallAt2: number;
  recallAt5: number;
  coverage2k: number;
  coverage12k: number;
  meanTokens12k: number;
  indexSeconds: number;
  p50Ms: number;
  p95Ms: number;
  peakRssMiB: number;
}

async function runOne(root: string, dataset: string, config: Config): Promise<Row> {
  const data = loadQaDataset(root, dataset);
  const embedder = createOfflineEmbedder(config.embedder ?? 'tfidf');
  const ctx = createBuildContext({
    embedder,
    tasks: createOfflineTasks({ embedder }),
    vectorIndex: config.method === 'naive-dense' ? hnswIndexFactory() : flatIndexFactory,
  });
  // biome-ignore lint/suspicious/noExplicitAny: either baseline
  const method: Method<any, any, RetrieveOptions> = config.method === 'bm25' ? bm25Rag : denseRag;
  const t0 = performance.now();
  const index = await method.build(data.corpus, ctx, { chunking: 'document' });
  const indexSeconds = (performance.now() - t0) / 1000;
  const r2: number[] = [];
  const r5: number[] = [];
  const cov: Record<number, number[]> = { 2000: [], 12000: [] };
  const tokens: number[] = [];
  const latencies: number[] = [];
  // Warm-up query so lazy initialisation is not timed.
  await method.retrieve(index, data.questions[0]!.question, { budgetTokens: 2000 });
  for (const q of data.questions) {
    for (const budget of BUDGETS) {
      const t = performance.now();
      const r = await method.retrieve(index, q.question, { budgetTokens: budget });
      const ms = performance.now() - t;
      cov[budget]!.push(covers(r.context, q.answers) ? 1 : 0);
      if (budget === 12000) {
        latencies.push(ms);
        tokens.push(r.tokens);
        const ranked = r.items.map((i) => i.source.docIds[0]!);
        r2.push(recallAt(ranked, q.supporting, 2));
        r5.push(recallAt(ranked, q.supporting, 5));
      }
    }
  }
  return {
    dataset,
    method: config.method,
    embedder: config.embedder ?? '-',
    questions: data.questions.length,
    passages: data.corpus.length,
    recallAt2: mean(r2),
    recallAt5: mean(r5),
    coverage2k: mean(cov[2000]!),
    coverage12k: mean(cov[12000]!),
    meanTokens12k: mean(tokens),
    indexSeconds,
    p50Ms: percentile(latencies, 50),
    p95Ms: percentile(latencies, 95),
    peakRssMiB: process.resourceUsage().maxRSS / 1024,
  };
}

function table(rows: Row[]): string {
  const f = (x: number, d = 3) => x.toFixed(d);
  const lines = [
    '| dataset | method | embedder | R@2 | R@5 | Cov@2k | Cov@12k | ctx tokens @12k | index s | p50 ms | p95 ms | peak RSS MiB |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.dataset} | ${r.method} | ${r.embedder} | ${f(r.recallAt2)} | ${f(r.recallAt5)} | ${f(r.coverage2k)} | ${f(r.coverage12k)} | ${Math.round(r.meanTokens12k)} | ${f(r.indexSeconds, 2)} | ${f(r.p50Ms, 2)} | ${f(r.p95Ms, 2)} | ${Math.round(r.peakRssMiB)} |`,
    );
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      datasets: { type: 'string', default: 'musique,2wikimultihopqa,hotpotqa' },
      out: { type: 'string', default: 'benchmarks/results' },
      single: { type: 'string' },
      configs: { type: 'string' },
    },
  });
  const root = resolve(positionals[0] ?? '../shared/datasets');
  if (values.single) {
    const [dataset, method, embedder] = values.single.split(':');
    const row = await runOne(root, dataset!, {
      method: method as Config['method'],
      ...(embedder ? { embedder: embedder as Config['embedder'] } : {}),
    });
    process.stdout.write(`${JSON.stringify(row)}\n`);
    return;
  }
  const configs = values.configs
    ? CONFIGS.filter((c) =>
        values.configs!.split(',').includes(`${c.method}:${c.embedder ?? ''}`.replace(/:$/, '')),
      )
    : CONFIGS;
  const rows: Row[] = [];
  const self = fileURLToPath(import.meta.url);
  for (const dataset of values.datasets.split(',')) {
    for (const config of configs) {
      const arg = `${dataset}:${config.method}${config.embedder ? `:${config.embedder}` : ''}`;
      process.stderr.write(`running ${arg} ...\n`);
      const row = runInChild<Row>(self, [root, '--single', arg]);
      rows.push(row);
      process.stderr.write(
        `  R@5 ${row.recallAt5.toFixed(3)} Cov@12k ${row.coverage12k.toFixed(3)} index ${row.indexSeconds.toFixed(1)} s\n`,
      );
    }
  }
  const meta = {
    benchmark: 'retrieval-baselines',
    date: new Date().toISOString(),
    machine: machine(),
    datasetsRoot: 'shared/datasets',
  };
  mkdirSync(values.out, { recursive: true });
  writeFileSync(
    join(values.out, 'retrieval-baselines.json'),
    `${JSON.stringify({ ...meta, rows }, null, 2)}\n`,
  );
  const m = meta.machine;
  const md = [
    '# Retrieval baselines',
    '',
    `Run ${meta.date.slice(0, 10)} on ${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB), Node ${m.node}, ${m.platform}.`,
    'Each corpus indexed whole, one passage per chunk (title line + text); dense uses HNSW (M 16, efSearch 64).',
    'R@k: share of supporting passages among the first k retrieved. Cov: gold answer or alias appears',
    '(SQuAD-normalized) in the context packed to 2k / 12k tokens (cl100k_base). Latency: one retrieval at 12k',
    'tokens, query embedding included. Peak RSS: the whole child process (dataset load, model, index).',
    '',
    table(rows),
    '',
    'Reproduce: `pnpm tsx benchmarks/retrieval-baselines.ts ../shared/datasets`.',
    '',
  ].join('\n');
  writeFileSync(join(values.out, 'retrieval-baselines.md'), md);
  process.stdout.write(`${md}\n`);
}

await main();
