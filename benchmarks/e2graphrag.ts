/**
 * E2GraphRAG on the multi-hop QA slices through `grag eval` (offline providers: extractive
 * `summarize`, hashed TF-IDF embedder, wink entity extractor), next to the BM25 and dense (Text-RAG)
 * baselines of the same run: the paper's configuration, grag's offline defaults (entity linking,
 * hybrid entry points, title and mention bridge chunks), the same with title bridges only, and the
 * entry points alone (the paper's "Dense Retrieval Only" ablation with the same entry points), each
 * at the default 12k-token budget and at 2k.
 *
 *   pnpm tsx benchmarks/e2graphrag.ts [datasets-dir] [--datasets musique,hotpotqa] [--out benchmarks/results]
 *
 * `--only <labels>` (comma-separated row labels; a comma inside parentheses is part of its label)
 * reruns only those rows and keeps the others from the `e2graphrag.json` already in `--out`; the
 * header then names the rows rerun and when.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
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

const CONFIGS: EvalConfig[] = [
  { label: 'bm25', method: 'bm25' },
  { label: 'naive-dense (Text-RAG)', method: 'naive-dense' },
  {
    label: 'e2graphrag (offline preset) entry points only',
    method: 'e2graphrag',
    set: { preset: 'offline', denseOnly: true },
  },
  { label: 'e2graphrag (paper preset)', method: 'e2graphrag', set: { preset: 'paper' } },
  {
    label: 'e2graphrag (offline preset, title bridges only)',
    method: 'e2graphrag',
    set: { preset: 'offline', mentionBridges: 0 },
  },
  { label: 'e2graphrag (offline preset)', method: 'e2graphrag', set: { preset: 'offline' } },
  { label: "bridge-rag (grag's own)", method: 'bridge-rag' },
];

/** What the script writes to `e2graphrag.json`. */
interface Results {
  benchmark: 'e2graphrag';
  /** When the whole table was run, and on what. */
  date: string;
  machine: ReturnType<typeof machine>;
  /** Rows rerun since with `--only`. */
  reruns?: RowsRerun[];
  rows: EvalRow[];
  budget2k: EvalRow[];
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      datasets: { type: 'string', default: 'musique,hotpotqa,2wikimultihopqa' },
      out: { type: 'string', default: 'benchmarks/results' },
      only: { type: 'string' },
    },
  });
  const root = positionals[0] ?? '../shared/datasets';
  const only = values.only === undefined ? undefined : rowLabels(values.only);
  const unknown = only?.find((label) => !CONFIGS.some((c) => c.label === label));
  if (unknown !== undefined) {
    throw new Error(`--only: no row "${unknown}"; rows: ${CONFIGS.map((c) => c.label).join(', ')}.`);
  }
  const jsonPath = join(values.out, 'e2graphrag.json');
  const earlier: Results | undefined =
    only && existsSync(jsonPath) ? (JSON.parse(readFileSync(jsonPath, 'utf8')) as Results) : undefined;
  if (only && !earlier) throw new Error(`--only needs the earlier results in ${jsonPath}.`);
  const rows: EvalRow[] = [];
  const at2k: EvalRow[] = [];
  const requested = values.datasets.split(',');
  // With --only, every slice of the earlier table stays in it; only the requested ones are rerun.
  const datasets = earlier ? [...new Set([...earlier.rows.map((r) => r.slice), ...requested])] : requested;
  for (const dataset of datasets) {
    const slice = join(root, dataset);
    for (const config of CONFIGS) {
      const kept = (list: readonly EvalRow[]) =>
        list.find((r) => r.slice === basename(slice) && r.label === config.label);
      if (earlier && only && (!only.includes(config.label) || !requested.includes(dataset))) {
        const [row, row2k] = [kept(earlier.rows), kept(earlier.budget2k)];
        if (!row || !row2k)
          throw new Error(`${jsonPath} has no row "${config.label}" of ${dataset}; run it too.`);
        rows.push(row);
        at2k.push(row2k);
        continue;
      }
      process.stderr.write(`${dataset}: ${config.label} ...\n`);
      rows.push(await gragEval(slice, config));
      at2k.push(await gragEval(slice, config, ['--budget', '2000']));
    }
  }
  const now = new Date().toISOString();
  const meta: Omit<Results, 'rows' | 'budget2k'> = earlier
    ? {
        benchmark: 'e2graphrag',
        date: earlier.date,
        machine: earlier.machine,
        reruns: [...(earlier.reruns ?? []), { date: now, labels: only!, machine: machine() }],
      }
    : { benchmark: 'e2graphrag', date: now, machine: machine() };
  mkdirSync(values.out, { recursive: true });
  writeFileSync(jsonPath, `${JSON.stringify({ ...meta, rows, budget2k: at2k }, null, 2)}\n`);
  const m = meta.machine;
  const reruns = rerunLines(meta.reruns);
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
    ...reruns,
    'Every number is what the command in its row prints (`grag eval`, offline providers, 100 questions per slice).',
    'Each corpus is indexed whole, one passage per chunk (title line + text). R@k: share of supporting passages',
    'among the first k passages the method ranks (chunk items in context order). Coverage: the gold answer or an',
    'alias appears (SQuAD-normalized) in the packed context.',
    '',
    "- **paper preset** (the default of `@grag/e2graphrag`): Algorithm 1 as published: no entity linking, dense retrieval, Algorithm 1's selection alone, h = 4 (Appendix C).",
    "- **offline preset** (what `grag` picks with the offline providers): entity linking, hybrid entry points (BM25 + dense, RRF), Algorithm 1's chunks behind them, title and mention bridge chunks, k = 100 (the first 25 until 2026-12-05).",
    '- **offline preset entry points only**: the paper\'s "Dense Retrieval Only" ablation (`denseOnly`) with the offline preset\'s entry points.',
    '- **offline preset, title bridges only**: without mention bridges (`mentionBridges: 0`, the configuration before them).',
    "- **bridge-rag (grag's own)**: `@grag/bridge-rag`, the offline preset's pipeline as a method of its own: no summary tree and no Algorithm 1; BM25 and the embedder over the chunks alone, the dense entry search with `ef` 400 on the HNSW index.",
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
