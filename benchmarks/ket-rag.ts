/**
 * KET-RAG on the multi-hop QA slices through `grag eval` (offline providers), next to the BM25 and
 * dense baselines: its entry points alone (no graph), the paper's settings, and the offline
 * defaults; R@2/5/10 and Coverage at the default 12k-token budget, Coverage at 2k, index time.
 *
 *   pnpm tsx benchmarks/ket-rag.ts [datasets-dir] [--datasets musique,hotpotqa,2wikimultihopqa]
 *        [--configs label,label] [--part file.json] [--tables part1.json,part2.json] [--out benchmarks/results]
 *
 * `--part` writes the rows of this run to a file instead of the tables, so slices can run in
 * separate processes; `--tables` merges such files into benchmarks/results/ket-rag.{json,md}.
 * Every number is what `grag eval` prints for the command shown in its row (`gragEval` in lib.ts).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { type EvalConfig, type EvalRow, evalTable, gragEval, machine } from './lib.js';

/** The paper's settings (dense entry points, names merged only when equal). */
const PAPER = {
  entryPoints: 'dense',
  entityLinking: false,
  titleUnits: false,
  unitsPerEntity: 0,
  entitySeeds: 'query',
} as const;

export const CONFIGS: EvalConfig[] = [
  { label: 'bm25', method: 'bm25' },
  { label: 'naive-dense', method: 'naive-dense' },
  // The entry-point search alone (same offline entryPoints), no knowledge graph, no keyword graph.
  {
    label: 'ket-rag (entry points only)',
    method: 'ket-rag',
    set: { textChannel: 'entry', lambda: 0, beta: 0 },
  },
  { label: 'ket-rag (paper settings)', method: 'ket-rag', set: { ...PAPER } },
  { label: 'ket-rag (offline defaults)', method: 'ket-rag' },
];

interface Part {
  date: string;
  machine: ReturnType<typeof machine>;
  rows: EvalRow[];
  budget2k: EvalRow[];
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      datasets: { type: 'string', default: 'musique,hotpotqa,2wikimultihopqa' },
      configs: { type: 'string' },
      part: { type: 'string' },
      tables: { type: 'string' },
      out: { type: 'string', default: 'benchmarks/results' },
    },
  });
  const root = positionals[0] ?? '../shared/datasets';
  let part: Part;
  if (values.tables) {
    const parts = values.tables.split(',').map((f) => JSON.parse(readFileSync(f, 'utf8')) as Part);
    part = {
      date: parts[0]!.date,
      machine: parts[0]!.machine,
      rows: parts.flatMap((p) => p.rows),
      budget2k: parts.flatMap((p) => p.budget2k),
    };
  } else {
    const wanted = values.configs?.split(',');
    const configs = CONFIGS.filter((c) => !wanted || wanted.includes(c.label));
    part = { date: new Date().toISOString(), machine: machine(), rows: [], budget2k: [] };
    for (const dataset of values.datasets.split(',')) {
      const slice = join(root, dataset);
      for (const config of configs) {
        process.stderr.write(`${dataset}: ${config.label} ...\n`);
        part.rows.push(await gragEval(slice, config));
        part.budget2k.push(await gragEval(slice, config, ['--budget', '2000']));
      }
    }
    // `--part all` (the older script's flag for "every part") runs the whole table.
    if (values.part && values.part !== 'all') {
      writeFileSync(values.part, `${JSON.stringify(part, null, 2)}\n`);
      return;
    }
  }
  const order = ['musique', 'hotpotqa', '2wikimultihopqa'];
  const sorted = (rows: EvalRow[]) =>
    [...rows].sort(
      (a, b) =>
        order.indexOf(a.slice) - order.indexOf(b.slice) ||
        CONFIGS.findIndex((c) => c.label === a.label) - CONFIGS.findIndex((c) => c.label === b.label),
    );
  const rows = sorted(part.rows);
  const at2k = sorted(part.budget2k);
  const meta = { benchmark: 'ket-rag', date: part.date, machine: part.machine };
  mkdirSync(values.out, { recursive: true });
  writeFileSync(
    join(values.out, 'ket-rag.json'),
    `${JSON.stringify({ ...meta, rows, budget2k: at2k }, null, 2)}\n`,
  );
  const m = meta.machine;
  const md = [
    '# KET-RAG',
    '',
    `Run ${meta.date.slice(0, 10)} on ${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB), Node ${m.node}, ${m.platform}.`,
    'Every number is what the command in its row prints (`grag eval`, offline providers: hashed TF-IDF embedder,',
    'wink-nlp heuristic tasks; 100 questions per slice, each corpus indexed whole). R@k: share of supporting',
    "passages among the first k passages the method ranks (KET-RAG: its chunk items by score, each channel's",
    'items scored by reciprocal rank within the channel, so the two channels interleave). Coverage: the gold',
    'answer or an alias appears (SQuAD-normalized) in the packed context. Rows: the BM25 and dense baselines;',
    'KET-RAG with its entry-point search alone (`textChannel=entry`, no graph, no extraction); with the paper',
    'settings (dense entry points, no entity linking, seed entities by description similarity, every text unit',
    'of a seed); with the offline defaults (hybrid entry points, entity linking, title units, one unit per seed',
    'entity, seed entities from the best entry passages). Quality numbers are deterministic; index and latency',
    'times were taken while up to a dozen jobs shared the 2 cores, so read them as rough (see the index-time',
    'note in packages/ket-rag/README.md).',
    '',
    '## At the default 12k-token budget',
    '',
    evalTable(rows),
    '',
    '## At a 2k-token budget',
    '',
    evalTable(at2k, ['coverage']),
    '',
    `Reproduce: \`pnpm tsx benchmarks/ket-rag.ts ${resolve(root) === resolve('../shared/datasets') ? '../shared/datasets' : root}\`.`,
    '',
  ].join('\n');
  writeFileSync(join(values.out, 'ket-rag.md'), md);
  process.stdout.write(`${md}\n`);
}

await main();
