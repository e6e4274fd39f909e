/**
 * How much DA-RAG's quality rests on the order among nodes of equal relevance, which the paper leaves
 * open: the offline preset as it is, then a configuration (`--set`, default `communitySearch=q-peel`)
 * in several tie orders (`tieSeed` 0, the node order, and each of `--seeds`), every row a `grag eval`
 * command, on the dev slices as worded and reworded and on the user-style corpus.
 *
 *   npx tsx benchmarks/da-rag-ties.ts [--set communitySearch=q-peel] [--seeds 1,2,3,4]
 *     [--name q-peel] [--datasets musique,hotpotqa,2wikimultihopqa,user] [--out benchmarks/results]
 *
 * The rows of one set share an output folder (`--restart`): they differ in query options only, so
 * `grag eval` builds the index once and loads it for the others, as the printed command would after
 * an earlier run in the same `--out`. Rows go to `<out>/da-rag-ties-<name>/<dataset>.json` as
 * they are measured; `da-rag-ties-<name>.md` is written from every dataset found there
 * (`--render-only`: only that).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  type EvalPart,
  evalSetPaths,
  gragEval,
  machine,
  pct,
  readParts,
  USER_CORPUS,
  type WordedRow,
} from './lib.js';

interface Row extends WordedRow {
  /** The tie order of the configuration's row; absent for the offline preset's. */
  tieSeed?: number;
}
type Part = EvalPart<Row>;

const METRICS = [
  ['coverage', 'Coverage'],
  ['recall@5', 'R@5'],
] as const;

/** `min – max (mean)` of the values as points, one decimal. */
function spread(values: number[]): string {
  const min = Math.min(...values);
  const max = Math.max(...values);
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return `${min === max ? pct(min) : `${pct(min)} – ${pct(max)}`} (${pct(mean)})`;
}

function render(dir: string, name: string): string {
  const parts = readParts<Row>(dir);
  const m = parts[0]!.machine;
  const set = parts[0]!.set;
  const seeds = [
    ...new Set(parts.flatMap((p) => p.rows.flatMap((r) => (r.tieSeed === undefined ? [] : [r.tieSeed])))),
  ];
  const lines = [
    `# DA-RAG: the offline preset, and \`${set.join(' ')}\` in ${seeds.length} tie orders`,
    '',
    `Run ${parts.map((p) => p.date.slice(0, 10)).sort()[0]} on ${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB), Node ${m.node}; offline providers, \`grag eval\`, 12k-token budget, every question of each dataset.`,
    `Q-Peel, the local search, a layer's query vertices and member order take ties in relevance by node index, an order DA-RAG leaves open; \`tieSeed\` s > 0 relabels each searched graph by a seeded permutation, changing nothing but those ties (tie orders here: ${seeds.join(', ')}; 0 is the node order). Reworded dev questions: \`benchmarks/reword.ts\`; \`user\`: the invented encyclopedia of \`benchmarks/user-corpus.ts\`, as generated and reworded by the same rules.`,
    `Reproduce: \`npx tsx benchmarks/da-rag-ties.ts ${set.map((s) => `--set ${s}`).join(' ')} --seeds ${seeds.filter((s) => s > 0).join(',')} --name ${name}\`.`,
    '',
    `| dataset | wording | ${METRICS.map(([, short]) => `offline preset ${short} | ${set.join(' ')}, ${seeds.length} tie orders: ${short} min – max (mean)`).join(' | ')} |`,
    `|---|---|${METRICS.map(() => '---:|---:').join('|')}|`,
  ];
  const rowsTable = [
    '',
    '| dataset | wording | configuration | Coverage | R@5 | ctx tokens | p50 / p95 ms | command |',
    '|---|---|---|---:|---:|---:|---:|---|',
  ];
  for (const part of parts) {
    for (const wording of ['original', 'reworded'] as const) {
      const rows = part.rows.filter((r) => r.wording === wording);
      const preset = rows.find((r) => r.tieSeed === undefined);
      const tied = rows.filter((r) => r.tieSeed !== undefined);
      if (!preset || tied.length === 0) continue;
      lines.push(
        `| ${part.dataset} | ${wording} | ${METRICS.map(([k]) => `${pct(preset.metrics[k])} | ${spread(tied.map((r) => r.metrics[k]!))}`).join(' | ')} |`,
      );
      for (const r of rows) {
        rowsTable.push(
          `| ${part.dataset} | ${wording} | ${r.label} | ${pct(r.metrics.coverage)} | ${pct(r.metrics['recall@5'])} | ${Math.round(r.contextTokens).toLocaleString('en-US')} | ${r.p50Ms.toFixed(1)} / ${r.p95Ms.toFixed(1)} | \`${r.command}\` |`,
        );
      }
    }
  }
  return `${[...lines, ...rowsTable].join('\n')}\n`;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      set: { type: 'string', multiple: true, default: ['communitySearch=q-peel'] },
      seeds: { type: 'string', default: '1,2,3,4' },
      name: { type: 'string', default: 'q-peel' },
      datasets: { type: 'string', default: `musique,hotpotqa,2wikimultihopqa,${USER_CORPUS}` },
      reworded: { type: 'string', default: 'benchmarks/.reworded' },
      user: { type: 'string', default: 'benchmarks/.user-corpus' },
      out: { type: 'string', default: 'benchmarks/results' },
      'render-only': { type: 'boolean', default: false },
    },
  });
  const sets = values.set ?? [];
  const seeds = [0, ...values.seeds.split(',').map(Number)];
  if (seeds.some((s) => !(Number.isInteger(s) && s >= 0)))
    throw new Error('--seeds: non-negative integers, comma-separated.');
  const root = positionals[0] ?? '../shared/datasets';
  const dir = join(values.out, `da-rag-ties-${values.name}`);
  mkdirSync(dir, { recursive: true });
  if (!values['render-only']) {
    const set = Object.fromEntries(
      sets.map((s) => [s.slice(0, s.indexOf('=')), s.slice(s.indexOf('=') + 1)]),
    );
    for (const dataset of values.datasets.split(',')) {
      const part: Part = { dataset, date: new Date().toISOString(), machine: machine(), set: sets, rows: [] };
      for (const [wording, path] of evalSetPaths(dataset, root, values.reworded, values.user)) {
        const save = (row: Row) => {
          part.rows.push(row);
          writeFileSync(join(dir, `${dataset}.json`), `${JSON.stringify(part, null, 2)}\n`);
          console.error(
            `${dataset} ${wording} ${row.label}: Coverage ${pct(row.metrics.coverage)}, R@5 ${pct(row.metrics['recall@5'])}`,
          );
        };
        // One output folder per set: the rows differ in query options only, so one index serves them.
        const shared = mkdtempSync(join(tmpdir(), 'grag-bench-ties-'));
        save({
          ...(await gragEval(path, { label: 'da-rag (offline preset)', method: 'da-rag' }, [], shared)),
          wording,
        });
        for (const tieSeed of seeds) {
          const config = {
            label: `da-rag (offline preset, ${[...sets, `tieSeed=${tieSeed}`].join(', ')})`,
            method: 'da-rag',
            set: tieSeed === 0 ? set : { ...set, tieSeed },
          };
          save({ ...(await gragEval(path, config, [], shared)), wording, tieSeed });
        }
        rmSync(shared, { recursive: true, force: true });
      }
    }
  }
  writeFileSync(join(values.out, `da-rag-ties-${values.name}.md`), render(dir, values.name));
}

await main();
