/**
 * Retrieval baselines on the multi-hop QA slices through `grag eval` (the one measurement every
 * table shares): dense top-k with each offline embedder, BM25, and dense + BM25 fused by reciprocal
 * rank fusion (`--set entryPoints=hybrid`), each at the default 12k-token budget and at 2k.
 *
 *   pnpm tsx benchmarks/retrieval-baselines.ts [datasets-dir] [--datasets musique,hotpotqa] [--out benchmarks/results]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { type EvalConfig, type EvalRow, evalTable, gragEval, machine } from './lib.js';

/** A configuration and the extra flags it runs with. */
const CONFIGS: (EvalConfig & { flags?: string[] })[] = [
  { label: 'naive-dense (tfidf)', method: 'naive-dense' },
  { label: 'naive-dense (glove)', method: 'naive-dense', flags: ['--offline-embedder', 'glove'] },
  { label: 'bm25', method: 'bm25' },
  { label: 'naive-dense hybrid (tfidf + BM25, RRF)', method: 'naive-dense', set: { entryPoints: 'hybrid' } },
];

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      datasets: { type: 'string', default: 'musique,2wikimultihopqa,hotpotqa' },
      out: { type: 'string', default: 'benchmarks/results' },
    },
  });
  const root = positionals[0] ?? '../shared/datasets';
  const rows: EvalRow[] = [];
  const at2k: EvalRow[] = [];
  for (const dataset of values.datasets.split(',')) {
    for (const config of CONFIGS) {
      const slice = join(root, dataset);
      process.stderr.write(`${dataset}: ${config.label} ...\n`);
      rows.push(await gragEval(slice, config, config.flags));
      at2k.push(await gragEval(slice, config, [...(config.flags ?? []), '--budget', '2000']));
    }
  }
  const meta = { benchmark: 'retrieval-baselines', date: new Date().toISOString(), machine: machine() };
  mkdirSync(values.out, { recursive: true });
  writeFileSync(
    join(values.out, 'retrieval-baselines.json'),
    `${JSON.stringify({ ...meta, rows, budget2k: at2k }, null, 2)}\n`,
  );
  const m = meta.machine;
  const md = [
    '# Retrieval baselines',
    '',
    `Run ${meta.date.slice(0, 10)} on ${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB), Node ${m.node}, ${m.platform}.`,
    'Every number is what the command in its row prints (`grag eval`, offline providers, 100 questions per slice).',
    'Each corpus is indexed whole, one passage per unit (title line + text). R@k: share of supporting passages',
    'among the first k passages the method ranks. Coverage: the gold answer or an alias appears (SQuAD-normalized)',
    'in the packed context. Quality numbers are deterministic; index and latency times were taken while other',
    'jobs shared the 2 cores, so read them as rough.',
    '',
    '## At the default 12k-token budget',
    '',
    evalTable(rows),
    '',
    '## At a 2k-token budget',
    '',
    evalTable(at2k, ['coverage']),
    '',
    `Reproduce the tables: \`pnpm tsx benchmarks/retrieval-baselines.ts ${resolve(root) === resolve('../shared/datasets') ? '../shared/datasets' : root}\`.`,
    '',
  ].join('\n');
  writeFileSync(join(values.out, 'retrieval-baselines.md'), md);
  process.stdout.write(`${md}\n`);
}

await main();
