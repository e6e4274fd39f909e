/**
 * E2GraphRAG on the multi-hop QA slices through `grag eval` (offline providers: extractive
 * `summarize`, hashed TF-IDF embedder, wink entity extractor), next to the BM25 and dense (Text-RAG)
 * baselines of the same run: the paper's configuration, grag's offline defaults (entity linking,
 * hybrid entry points, title and mention bridge chunks), the same with title bridges only, and the
 * entry points alone (the paper's "Dense Retrieval Only" ablation with the same entry points), each
 * at the default 12k-token budget and at 2k.
 *
 *   pnpm tsx benchmarks/e2graphrag.ts [datasets-dir] [--datasets musique,hotpotqa] [--out benchmarks/results]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { type EvalConfig, type EvalRow, evalTable, gragEval, machine } from './lib.js';

const CONFIGS: EvalConfig[] = [
  { label: 'bm25', method: 'bm25' },
  { label: 'naive-dense (Text-RAG)', method: 'naive-dense' },
  { label: 'e2graphrag entry points only', method: 'e2graphrag', set: { denseOnly: true } },
  {
    label: 'e2graphrag (paper defaults)',
    method: 'e2graphrag',
    set: { entityLinking: false, entryPoints: 'dense', fuseEntryPoints: false, bridges: 0 },
  },
  {
    label: 'e2graphrag (title bridges only)',
    method: 'e2graphrag',
    set: { mentionBridges: 0 },
  },
  { label: 'e2graphrag (offline defaults)', method: 'e2graphrag' },
];

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      datasets: { type: 'string', default: 'musique,hotpotqa,2wikimultihopqa' },
      out: { type: 'string', default: 'benchmarks/results' },
    },
  });
  const root = positionals[0] ?? '../shared/datasets';
  const rows: EvalRow[] = [];
  const at2k: EvalRow[] = [];
  for (const dataset of values.datasets.split(',')) {
    const slice = join(root, dataset);
    for (const config of CONFIGS) {
      process.stderr.write(`${dataset}: ${config.label} ...\n`);
      rows.push(await gragEval(slice, config));
      at2k.push(await gragEval(slice, config, ['--budget', '2000']));
    }
  }
  const meta = { benchmark: 'e2graphrag', date: new Date().toISOString(), machine: machine() };
  mkdirSync(values.out, { recursive: true });
  writeFileSync(
    join(values.out, 'e2graphrag.json'),
    `${JSON.stringify({ ...meta, rows, budget2k: at2k }, null, 2)}\n`,
  );
  const m = meta.machine;
  const latency = [
    '| slice | configuration | index s | p50 ms | p95 ms | peak RSS MiB |',
    '|---|---|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.slice} | ${r.label} | ${r.indexSeconds.toFixed(1)} | ${r.p50Ms.toFixed(1)} | ${r.p95Ms.toFixed(1)} | ${Math.round(r.peakRssMiB)} |`,
    ),
  ].join('\n');
  const md = [
    '# E2GraphRAG',
    '',
    `Run ${meta.date.slice(0, 10)} on ${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB), Node ${m.node}, ${m.platform}; the cores are shared with other jobs, so times are noisy.`,
    'Every number is what the command in its row prints (`grag eval`, offline providers, 100 questions per slice).',
    'Each corpus is indexed whole, one passage per chunk (title line + text). R@k: share of supporting passages',
    'among the first k passages the method ranks (chunk items in context order). Coverage: the gold answer or an',
    'alias appears (SQuAD-normalized) in the packed context.',
    '',
    '- **entry points only**: the paper\'s "Dense Retrieval Only" ablation (`denseOnly`) with the offline default entry points (BM25 + dense, RRF).',
    "- **paper defaults**: Algorithm 1 as published: no entity linking, dense retrieval, Algorithm 1's selection alone.",
    '- **title bridges only**: the offline defaults without mention bridges (`mentionBridges: 0`, the configuration before them).',
    "- **offline defaults**: entity linking, hybrid entry points, Algorithm 1's chunks behind them, title and mention bridge chunks.",
    '',
    '## At the default 12k-token budget',
    '',
    evalTable(rows),
    '',
    '## At a 2k-token budget',
    '',
    evalTable(at2k, ['coverage']),
    '',
    '## Index time and latency (12k runs)',
    '',
    "Peak RSS is the process's peak so far: every run shares one process, so it only grows.",
    '',
    latency,
    '',
    `Reproduce: \`pnpm tsx benchmarks/e2graphrag.ts ${resolve(root) === resolve('../shared/datasets') ? '../shared/datasets' : root}\`.`,
    '',
  ].join('\n');
  writeFileSync(join(values.out, 'e2graphrag.md'), md);
  process.stdout.write(`${md}\n`);
}

await main();
