/**
 * KET-RAG on the multi-hop QA slices through `grag eval` (offline providers), next to the BM25 and
 * dense baselines: its entry points alone (no graph), the `paper` and `offline` settings presets side
 * by side, the paper's k / collection / budget split each on its own over the offline preset, and the
 * paper's variants (KET-RAG-U, Skeleton-RAG, MS-Graph-RAG, Keyword-RAG, Text-RAG) under the paper
 * preset, with KET-RAG-P once more at the context size MS-Graph-RAG actually fills. R@2/5/10 and
 * Coverage at the default 12k-token budget, Coverage at 2k, context tokens, index time.
 *
 *   pnpm tsx benchmarks/ket-rag.ts [datasets-dir] [--datasets musique,hotpotqa,2wikimultihopqa]
 *        [--configs 'label|label'] [--part file.json] [--tables part1.json,part2.json] [--out benchmarks/results]
 *
 * `--part` writes the rows of this run to a file instead of the tables, so configurations and slices
 * can run in separate processes; `--tables` merges such files (a later file's row replaces an earlier
 * one of the same slice, configuration and budget; benchmarks/results/ket-rag.json is itself such a
 * file) into benchmarks/results/ket-rag.{json,md}. Every number is what `grag eval` prints for the
 * command shown in its row (`gragEval` in lib.ts).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { type EvalConfig, type EvalRow, evalTable, gragEval, machine } from './lib.js';

/** The budgets a configuration is evaluated at. */
type Budget = '12k' | '2k' | 'equal';

/** A configuration and the budgets it is evaluated at. */
interface Config extends EvalConfig {
  budgets: readonly Budget[];
}

/** The label of MS-Graph-RAG's row, whose context tokens set the `equal` budget. */
const MS_GRAPH_RAG = 'ms-graph-rag (paper preset)';

const PAPER = { preset: 'paper' } as const;

export const CONFIGS: Config[] = [
  { label: 'bm25', method: 'bm25', budgets: ['12k', '2k'] },
  { label: 'naive-dense', method: 'naive-dense', budgets: ['12k', '2k'] },
  // The entry-point search alone (same offline entryPoints), no knowledge graph, no keyword graph.
  {
    label: 'ket-rag (entry points only)',
    method: 'ket-rag',
    set: { textChannel: 'entry', lambda: 0, beta: 0 },
    budgets: ['12k', '2k'],
  },
  // The two settings presets.
  { label: 'ket-rag (paper preset)', method: 'ket-rag', set: { ...PAPER }, budgets: ['12k', '2k', 'equal'] },
  {
    label: 'ket-rag (paper preset; official k, collection, split)',
    method: 'ket-rag',
    set: { ...PAPER, lexicalK: 1, semanticK: 1, collectFactor: 2, budgetSplit: 'rest' },
    budgets: ['12k', '2k'],
  },
  { label: 'ket-rag (offline preset)', method: 'ket-rag', budgets: ['12k', '2k'] },
  // The paper's value of each of the three on its own, over the offline preset.
  {
    label: 'ket-rag (offline; k = 2)',
    method: 'ket-rag',
    set: { lexicalK: 2, semanticK: 2 },
    budgets: ['12k'],
  },
  {
    label: 'ket-rag (offline; 1× collection)',
    method: 'ket-rag',
    set: { collectFactor: 1 },
    budgets: ['12k'],
  },
  {
    label: 'ket-rag (offline; fixed (1−λ)L text budget)',
    method: 'ket-rag',
    set: { budgetSplit: 'fixed' },
    budgets: ['12k', '2k'],
  },
  // The paper's solutions (§6.1) under the paper preset.
  {
    label: 'ket-rag-u (paper preset)',
    method: 'ket-rag',
    set: { ...PAPER, variant: 'ket-rag-u' },
    budgets: ['12k'],
  },
  {
    label: 'skeleton-rag (paper preset)',
    method: 'ket-rag',
    set: { ...PAPER, variant: 'skeleton-rag' },
    budgets: ['12k'],
  },
  { label: MS_GRAPH_RAG, method: 'ket-rag', set: { ...PAPER, variant: 'ms-graph-rag' }, budgets: ['12k'] },
  {
    label: 'keyword-rag (paper preset)',
    method: 'ket-rag',
    set: { ...PAPER, variant: 'keyword-rag' },
    budgets: ['12k'],
  },
  {
    label: 'text-rag (paper preset)',
    method: 'ket-rag',
    set: { ...PAPER, variant: 'text-rag' },
    budgets: ['12k'],
  },
];

/** Rows of one run, or of merged runs. */
interface Part {
  date: string;
  machine: ReturnType<typeof machine>;
  rows: EvalRow[];
  budget2k: EvalRow[];
  /** At MS-Graph-RAG's context size (its mean context tokens at 12k, rounded down to 100). */
  equalContext?: EvalRow[];
}

const keyOf = (r: EvalRow) => `${r.slice}\u0000${r.label}`;

/** Rows of `later` replace rows of `earlier` with the same slice and configuration. */
function mergeRows(earlier: readonly EvalRow[], later: readonly EvalRow[]): EvalRow[] {
  const replaced = new Set(later.map(keyOf));
  return [...earlier.filter((r) => !replaced.has(keyOf(r))), ...later];
}

function mergeParts(parts: readonly Part[]): Part {
  let merged: Part = { ...parts[0]!, rows: [], budget2k: [], equalContext: [] };
  for (const p of parts) {
    merged = {
      date: [p.date, merged.date].sort().at(-1)!,
      machine: p.machine,
      rows: mergeRows(merged.rows, p.rows),
      budget2k: mergeRows(merged.budget2k, p.budget2k),
      equalContext: mergeRows(merged.equalContext ?? [], p.equalContext ?? []),
    };
  }
  return merged;
}

/** MS-Graph-RAG's mean context tokens at 12k on `slice`, rounded down to 100, from `rows`. */
function equalBudget(rows: readonly EvalRow[], slice: string): number {
  const row = rows.find((r) => r.slice === slice && r.label === MS_GRAPH_RAG);
  if (!row) {
    throw new Error(
      `ket-rag benchmark: the "equal" budget needs the "${MS_GRAPH_RAG}" row of ${slice}; run that configuration first (or pass --tables with it).`,
    );
  }
  return Math.floor(row.contextTokens / 100) * 100;
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
  const readPart = (f: string) => JSON.parse(readFileSync(f, 'utf8')) as Part;
  let part: Part;
  if (values.tables && !values.configs) {
    part = mergeParts(values.tables.split(',').map(readPart));
  } else {
    const wanted = values.configs?.split('|');
    const unknown = wanted?.filter((w) => !CONFIGS.some((c) => c.label === w)) ?? [];
    if (unknown.length > 0) {
      throw new Error(
        `ket-rag benchmark: unknown configuration ${unknown.map((u) => JSON.stringify(u)).join(', ')}; the labels are ${CONFIGS.map((c) => JSON.stringify(c.label)).join(', ')} (separate them with |).`,
      );
    }
    const configs = CONFIGS.filter((c) => !wanted || wanted.includes(c.label));
    // Rows known before this run (for the `equal` budget): --tables, else the stored results.
    const stored = join(values.out, 'ket-rag.json');
    const known = values.tables
      ? mergeParts(values.tables.split(',').map(readPart)).rows
      : existsSync(stored)
        ? readPart(stored).rows
        : [];
    part = { date: new Date().toISOString(), machine: machine(), rows: [], budget2k: [], equalContext: [] };
    for (const dataset of values.datasets.split(',')) {
      const slice = join(root, dataset);
      // The `equal` budgets last: they read MS-Graph-RAG's row of this slice.
      for (const budget of ['12k', '2k', 'equal'] as const) {
        for (const config of configs.filter((c) => c.budgets.includes(budget))) {
          process.stderr.write(`${dataset}: ${config.label} at ${budget} ...\n`);
          if (budget === '12k') part.rows.push(await gragEval(slice, config));
          if (budget === '2k') part.budget2k.push(await gragEval(slice, config, ['--budget', '2000']));
          if (budget === 'equal') {
            const tokens = equalBudget([...known, ...part.rows], dataset);
            const row = await gragEval(slice, config, ['--budget', String(tokens)]);
            part.equalContext!.push({ ...row, label: `${config.label} at MS-Graph-RAG's context size` });
          }
        }
      }
    }
    if (values.part && values.part !== 'all') {
      writeFileSync(values.part, `${JSON.stringify(part, null, 2)}\n`);
      return;
    }
    if (values.tables) part = mergeParts([...values.tables.split(',').map(readPart), part]);
  }
  writeTables(part, root, values.out);
}

function writeTables(part: Part, root: string, out: string): void {
  const order = ['musique', 'hotpotqa', '2wikimultihopqa'];
  const rank = (label: string) => CONFIGS.findIndex((c) => label.startsWith(c.label));
  const sorted = (rows: readonly EvalRow[]) =>
    [...rows].sort(
      (a, b) => order.indexOf(a.slice) - order.indexOf(b.slice) || rank(a.label) - rank(b.label),
    );
  const rows = sorted(part.rows);
  const at2k = sorted(part.budget2k);
  const equal = sorted(part.equalContext ?? []);
  const meta = { benchmark: 'ket-rag', date: part.date, machine: part.machine };
  mkdirSync(out, { recursive: true });
  writeFileSync(
    join(out, 'ket-rag.json'),
    `${JSON.stringify({ ...meta, rows, budget2k: at2k, equalContext: equal }, null, 2)}\n`,
  );
  const m = meta.machine;
  // MS-Graph-RAG next to KET-RAG-P at its context size, per slice.
  const equalRows = order.flatMap((slice) => [
    ...rows.filter(
      (r) => r.slice === slice && (r.label === MS_GRAPH_RAG || r.label === 'ket-rag (paper preset)'),
    ),
    ...equal.filter((r) => r.slice === slice),
  ]);
  const md = [
    '# KET-RAG',
    '',
    `Run ${meta.date.slice(0, 10)} on ${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB), Node ${m.node}, ${m.platform}.`,
    'Every number is what the command in its row prints (`grag eval`, offline providers: hashed TF-IDF embedder,',
    'wink-nlp heuristic tasks; 100 questions per slice, each corpus indexed whole). R@k: share of supporting',
    "passages among the first k passages the method ranks (KET-RAG: its chunk items by score, each channel's",
    'items scored by reciprocal rank within the channel, so the two channels interleave). Coverage: the gold',
    'answer or an alias appears (SQuAD-normalized) in the packed context; ctx tokens: the mean tokens of that',
    'context (a method may leave part of its budget unused). Rows: the BM25 and dense baselines; KET-RAG with',
    'its entry-point search alone (`textChannel=entry`, no graph, no extraction); the `paper` settings preset',
    '(`--set preset=paper`: dense entry points, no entity linking, seed entities by description similarity,',
    'every text unit of a seed, KNN k = 2, keyword candidates up to 1× the channel budget, text channel fixed',
    "at (1−λ)L) and the same with the official code's k = 1, 2× collection and the text channel filling what",
    'the graph left; the `offline` preset (the defaults: hybrid entry points, entity linking, title units, one',
    'unit per seed entity, seed entities from the best entry passages, k = 1, 2× collection, text fills the',
    "rest) and the paper's k, collection and split each on its own over it; the paper's solutions under the",
    'paper preset. Quality numbers are deterministic; index and latency times were taken while other jobs',
    'shared the 2 cores, so read them as rough.',
    '',
    '## At the default 12k-token budget',
    '',
    evalTable(rows),
    '',
    '## At a 2k-token budget',
    '',
    evalTable(at2k, ['coverage']),
    '',
    '## At equal context size',
    '',
    'MS-Graph-RAG (local search alone) leaves part of a 12k budget unused; KET-RAG-P (paper preset) fills it.',
    "The last row of each slice gives KET-RAG-P a budget equal to MS-Graph-RAG's mean context tokens (rounded",
    'down to 100).',
    '',
    evalTable(equalRows),
    '',
    `Reproduce: \`pnpm tsx benchmarks/ket-rag.ts ${resolve(root) === resolve('../shared/datasets') ? '../shared/datasets' : root}\`.`,
    '',
  ].join('\n');
  writeFileSync(join(out, 'ket-rag.md'), md);
  process.stdout.write(`${md}\n`);
}

await main();
