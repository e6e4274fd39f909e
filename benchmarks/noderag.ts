/**
 * NodeRAG on the multi-hop QA slices through `grag eval` (offline providers), next to the BM25 and
 * dense (Text-RAG) baselines: NodeRAG with its entry points alone (graph step off), with the paper's
 * settings, with its (measured) defaults, and with its defaults but the official code's cross-node
 * buckets, each at the default 12k-token budget and at 2k.
 *
 *   pnpm tsx benchmarks/noderag.ts [datasets-dir] [--datasets musique,hotpotqa] [--out benchmarks/results]
 *     [--budgets 12000,2000] [--only <label,...>] [--merge] [--from a.json,b.json]
 *
 * Every number is what `grag eval` prints for the command in its row (`gragEval`); this script
 * computes no metric of its own. `--only` runs some configurations; `--merge` adds the rows to the
 * results already written (keeping their run's date; with `--only`, the rerun is listed with its
 * own) and `--from` adds the rows of other result files (same slice, configuration and budget
 * replaced), so the table can be built in several runs, e.g. one slice per process, then
 * `--datasets '' --merge --from ...` to write the table.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  type EvalConfig,
  type EvalRow,
  evalTable,
  gragEval,
  machine,
  type RowsRerun,
  rerunLines,
  rowLabels,
} from './lib.js';

/**
 * NodeRAG as the paper (and, where it is silent, the official code) specifies it: none of grag's
 * measured deviations. `crossNodeSelection: 'paper'` is also the default; it is listed so the row
 * stays the paper's whatever the default.
 */
export const PAPER_SETTINGS = {
  entityLinking: false,
  entryPoints: 'dense',
  entryWeighting: 'uniform',
  queryEntityMatch: 'phrase',
  crossNodeSelection: 'paper',
  crossNodes: 10,
} as const;

const CONFIGS: EvalConfig[] = [
  { label: 'bm25', method: 'bm25' },
  { label: 'naive-dense', method: 'naive-dense' },
  { label: 'noderag (entry points only)', method: 'noderag', set: { graphSearch: false } },
  { label: 'noderag (paper settings)', method: 'noderag', set: { ...PAPER_SETTINGS } },
  { label: 'noderag (defaults)', method: 'noderag' },
  {
    label: 'noderag (official cross nodes)',
    method: 'noderag',
    set: { crossNodeSelection: 'official', crossNodes: 10 },
  },
];

interface Results {
  benchmark: string;
  date: string;
  machine: ReturnType<typeof machine>;
  /** Rows by budget (tokens). */
  budgets: Record<string, EvalRow[]>;
  /** Configurations rerun with `--merge --only` after the run of `date`. */
  reruns?: RowsRerun[];
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      datasets: { type: 'string', default: 'musique,hotpotqa,2wikimultihopqa' },
      out: { type: 'string', default: 'benchmarks/results' },
      budgets: { type: 'string', default: '12000,2000' },
      only: { type: 'string' },
      merge: { type: 'boolean', default: false },
      from: { type: 'string' },
    },
  });
  const root = positionals[0] ?? '../shared/datasets';
  const only = values.only === undefined ? undefined : rowLabels(values.only).map((s) => s.trim());
  const configs = only ? CONFIGS.filter((c) => only.includes(c.label)) : CONFIGS;
  const jsonPath = join(values.out, 'noderag.json');
  const earlier =
    values.merge && existsSync(jsonPath)
      ? (JSON.parse(readFileSync(jsonPath, 'utf8')) as Results)
      : undefined;
  const now = new Date().toISOString();
  // Merged rows keep the run's date and machine; the configurations rerun are listed with theirs.
  const results: Results = earlier ?? { benchmark: 'noderag', date: now, machine: machine(), budgets: {} };
  if (earlier && only && values.datasets !== '')
    results.reruns = [...(earlier.reruns ?? []), { date: now, labels: only, machine: machine() }];
  const put = (budget: string, row: EvalRow) => {
    results.budgets[budget] ??= [];
    const list = results.budgets[budget];
    const at = list.findIndex((r) => r.slice === row.slice && r.label === row.label);
    if (at >= 0) list[at] = row;
    else list.push(row);
  };
  for (const file of values.from?.split(',').filter(Boolean) ?? []) {
    const other = JSON.parse(readFileSync(file, 'utf8')) as Results;
    for (const [budget, rows] of Object.entries(other.budgets)) for (const row of rows) put(budget, row);
  }
  mkdirSync(values.out, { recursive: true });
  writeFileSync(jsonPath, `${JSON.stringify(results, null, 2)}\n`);
  const datasets = values.datasets.split(',').filter(Boolean);
  for (const dataset of datasets) {
    for (const config of configs) {
      for (const budget of values.budgets.split(',')) {
        process.stderr.write(`${dataset}: ${config.label} at ${budget} tokens ...\n`);
        const flags = budget === '12000' ? [] : ['--budget', budget];
        put(budget, await gragEval(join(root, dataset), config, flags));
        writeFileSync(jsonPath, `${JSON.stringify(results, null, 2)}\n`);
      }
    }
  }
  const order = (rows: EvalRow[]) =>
    [...rows].sort(
      (a, b) =>
        a.slice.localeCompare(b.slice) ||
        CONFIGS.findIndex((c) => c.label === a.label) - CONFIGS.findIndex((c) => c.label === b.label),
    );
  const m = results.machine;
  const md = [
    '# NodeRAG',
    '',
    `Run ${results.date.slice(0, 10)} on ${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB), Node ${m.node}, ${m.platform}.`,
    ...rerunLines(results.reruns),
    'Every number is what the command in its row prints (`grag eval`, offline providers, 100 questions per slice).',
    'Each corpus is indexed whole, one passage per chunk (title line + text). R@k: share of supporting passages among',
    'the first k passages the method ranks (NodeRAG: its source-text and semantic-unit items by PPR score). Coverage:',
    'the gold answer or an alias appears (SQuAD-normalized) in the packed context. Index s: wall time of the build on',
    'shared cores (other jobs ran alongside).',
    '',
    'Configurations: `noderag (entry points only)` ranks the entry points alone (`--set graphSearch=false`: the',
    'graph step off); `noderag (paper settings)` is NodeRAG without grag’s measured deviations (no entity linking,',
    'dense entry points with equal weights, phrase matching of query entities, the paper’s 10 cross nodes of each type);',
    '`noderag (defaults)` is what `grag eval --methods noderag` runs (the offline preset: the top 30 of each node',
    'type since 2026-12-05, 10 before); `noderag (official cross nodes)` is the defaults with the official code’s',
    'cross-node buckets (a shared top 10 of T, S, A and H) instead.',
    '',
    '## At the default 12k-token budget',
    '',
    evalTable(order(results.budgets['12000'] ?? [])),
    '',
    '## At a 2k-token budget',
    '',
    evalTable(order(results.budgets['2000'] ?? []), ['coverage']),
    '',
    `Reproduce the tables: \`pnpm tsx benchmarks/noderag.ts ${resolve(root) === resolve('../shared/datasets') ? '../shared/datasets' : root}\`.`,
    '',
  ].join('\n');
  writeFileSync(join(values.out, 'noderag.md'), md);
  process.stdout.write(`${md}\n`);
}

await main();
