/**
 * What DA-RAG's `searchRegion` (grag's local search, off by default) costs in quality: `grag eval` of
 * DA-RAG's offline preset with and without it, on the dev slices as worded and as reworded
 * (`benchmarks/reword.ts`). Every number is what the command in its row prints. Its speed is
 * measured by `benchmarks/da-rag-latency.ts --set searchRegion=<n>` on the union of the slices.
 *
 *   pnpm tsx benchmarks/da-rag-region.ts [datasets-dir] [--datasets musique,hotpotqa,2wikimultihopqa]
 *     [--region 300] [--reworded benchmarks/.reworded] [--out benchmarks/results]
 *
 * Each slice's rows go to `<out>/da-rag-region/<slice>.json` as soon as they are measured (slices can
 * run as separate processes); `da-rag-region.md` is written from every slice found there.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { type EvalRow, gragEval, machine, pct } from './lib.js';

type Wording = 'original' | 'reworded';
interface Row extends EvalRow {
  wording: Wording;
}
interface Part {
  slice: string;
  date: string;
  machine: ReturnType<typeof machine>;
  region: number;
  rows: Row[];
}

const delta = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined ? '–' : `${b >= a ? '+' : ''}${(100 * (b - a)).toFixed(1)}`;

function render(dir: string): string {
  const parts = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Part);
  const m = parts[0]!.machine;
  const lines = [
    '# DA-RAG local search (`searchRegion`): what it costs in quality',
    '',
    `Run ${parts.map((p) => p.date.slice(0, 10)).sort()[0]} on ${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB), Node ${m.node}; offline providers, \`grag eval\`, 12k-token budget, every question of each slice.`,
    "The offline preset (what `grag eval --methods da-rag` runs offline) against the same with `--set searchRegion=<n>`: Q-Peel around each query vertex peels only the region of n nodes reached breadth first from it (see packages/da-rag's README). Reworded questions: `benchmarks/reword.ts`. Its speed: `benchmarks/results/da-rag-latency.md`.",
    '',
    '| slice | wording | configuration | R@2 | R@5 | R@10 | Coverage | ctx tokens | p50 / p95 ms | command |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|---|',
  ];
  const changes: string[] = [];
  for (const part of parts.sort((a, b) => a.slice.localeCompare(b.slice))) {
    for (const wording of ['original', 'reworded'] as const) {
      const rows = part.rows.filter((r) => r.wording === wording);
      for (const r of rows) {
        lines.push(
          `| ${part.slice} | ${wording} | ${r.label} | ${pct(r.metrics['recall@2'])} | ${pct(r.metrics['recall@5'])} | ${pct(r.metrics['recall@10'])} | ${pct(r.metrics.coverage)} | ${Math.round(r.contextTokens).toLocaleString('en-US')} | ${r.p50Ms.toFixed(1)} / ${r.p95Ms.toFixed(1)} | \`${r.command}\` |`,
        );
      }
      const [base, local] = rows;
      if (base && local) {
        changes.push(
          `| ${part.slice} | ${wording} | ${delta(base.metrics['recall@5'], local.metrics['recall@5'])} | ${delta(base.metrics.coverage, local.metrics.coverage)} |`,
        );
      }
    }
  }
  lines.push(
    '',
    '## Change with the region (points)',
    '',
    '| slice | wording | R@5 | Coverage |',
    '|---|---|---:|---:|',
    ...changes,
  );
  lines.push(
    '',
    'The p50 / p95 columns come from runs that shared the machine with each other: compare speed in da-rag-latency.md.',
  );
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      datasets: { type: 'string', default: 'musique,hotpotqa,2wikimultihopqa' },
      region: { type: 'string', default: '300' },
      reworded: { type: 'string', default: 'benchmarks/.reworded' },
      out: { type: 'string', default: 'benchmarks/results' },
      'render-only': { type: 'boolean', default: false },
    },
  });
  const root = positionals[0] ?? '../shared/datasets';
  const dir = join(values.out, 'da-rag-region');
  mkdirSync(dir, { recursive: true });
  const region = Number(values.region);
  if (!values['render-only']) {
    for (const slice of values.datasets.split(',')) {
      if (!existsSync(join(values.reworded, slice))) {
        throw new Error(
          `No reworded ${slice} in ${values.reworded}: run \`pnpm tsx benchmarks/reword.ts\` first.`,
        );
      }
      const part: Part = { slice, date: new Date().toISOString(), machine: machine(), region, rows: [] };
      for (const [wording, path] of [
        ['original', join(root, slice)],
        ['reworded', join(values.reworded, slice)],
      ] as const) {
        for (const config of [
          { label: 'da-rag (offline preset)', method: 'da-rag' },
          {
            label: `da-rag (offline preset, searchRegion=${region})`,
            method: 'da-rag',
            set: { searchRegion: region },
          },
        ]) {
          const row = await gragEval(resolve(path), config);
          part.rows.push({ ...row, wording });
          writeFileSync(join(dir, `${slice}.json`), `${JSON.stringify(part, null, 2)}\n`);
          console.error(`${slice} ${wording} ${config.label}: R@5 ${pct(row.metrics['recall@5'])}`);
        }
      }
    }
  }
  writeFileSync(join(values.out, 'da-rag-region.md'), render(dir));
}

await main();
