/**
 * What a change of DA-RAG's query options costs or gains in quality: `grag eval` of DA-RAG's
 * offline preset, as it is and with `--set <key>=<value> …`, on the dev slices as worded and as
 * reworded (`benchmarks/reword.ts`), and on the user-style corpus as worded and reworded
 * (`benchmarks/user-corpus.ts`). Every number is what the command in its row prints. Speed is
 * measured by `benchmarks/da-rag-latency.ts --set <key>=<value>` on the union of the slices.
 *
 *   npx tsx benchmarks/da-rag-options.ts --set reports=false [--set …] [--name reports]
 *     [--datasets musique,hotpotqa,2wikimultihopqa,user] [--answer] [--out benchmarks/results]
 *     [datasets-dir]
 *
 * `--answer` also has `grag eval` answer each question (`--answer`: EM and F1 of the offline reader).
 * Each dataset's rows go to `<out>/da-rag-options-<name>/<dataset>.json` as soon as they are
 * measured (datasets can run as separate processes); `da-rag-options-<name>.md` is written from every
 * dataset found there (`--render-only`: only that).
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
  points,
  readParts,
  USER_CORPUS,
} from './lib.js';

type Part = EvalPart;

const METRICS = ['recall@2', 'recall@5', 'recall@10', 'coverage', 'em', 'f1'] as const;
const SHORT: Record<string, string> = {
  'recall@2': 'R@2',
  'recall@5': 'R@5',
  'recall@10': 'R@10',
  coverage: 'Coverage',
  em: 'EM',
  f1: 'F1',
};

function render(dir: string, name: string): string {
  const parts = readParts(dir);
  const m = parts[0]!.machine;
  const metrics = METRICS.filter((k) => parts.some((p) => p.rows.some((r) => r.metrics[k] !== undefined)));
  const lines = [
    `# DA-RAG options (\`${parts[0]!.set.join(' ')}\`): what they change in quality`,
    '',
    `Run ${parts.map((p) => p.date.slice(0, 10)).sort()[0]} on ${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB), Node ${m.node}; offline providers, \`grag eval\`, 12k-token budget, every question of each dataset.`,
    'The offline preset (what `grag eval --methods da-rag` runs offline) against the same with the options above. Reworded dev questions: `benchmarks/reword.ts`; `user`: the invented encyclopedia of `benchmarks/user-corpus.ts` (300k tokens, 150 questions), as generated and reworded by the same rules.',
    `Reproduce: \`npx tsx benchmarks/da-rag-options.ts ${parts[0]!.set.map((s) => `--set ${s}`).join(' ')} --name ${name}\`${metrics.includes('em') ? ' --answer' : ''}.`,
    '',
    `| dataset | wording | configuration | ${metrics.map((k) => SHORT[k]).join(' | ')} | ctx tokens | p50 / p95 ms | command |`,
    `|---|---|---|${metrics.map(() => '---:').join('|')}|---:|---:|---|`,
  ];
  const changes: string[] = [];
  for (const part of parts) {
    for (const wording of ['original', 'reworded'] as const) {
      const rows = part.rows.filter((r) => r.wording === wording);
      for (const r of rows) {
        lines.push(
          `| ${part.dataset} | ${wording} | ${r.label} | ${metrics.map((k) => pct(r.metrics[k])).join(' | ')} | ${Math.round(r.contextTokens).toLocaleString('en-US')} | ${r.p50Ms.toFixed(1)} / ${r.p95Ms.toFixed(1)} | \`${r.command}\` |`,
        );
      }
      const [base, changed] = rows;
      if (base && changed) {
        changes.push(
          `| ${part.dataset} | ${wording} | ${metrics.map((k) => points(base.metrics[k], changed.metrics[k])).join(' | ')} |`,
        );
      }
    }
  }
  lines.push(
    '',
    'With the options, in points against the offline preset:',
    '',
    `| dataset | wording | ${metrics.map((k) => SHORT[k]).join(' | ')} |`,
    `|---|---|${metrics.map(() => '---:').join('|')}|`,
    ...changes,
  );
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      set: { type: 'string', multiple: true, default: [] },
      name: { type: 'string' },
      datasets: { type: 'string', default: `musique,hotpotqa,2wikimultihopqa,${USER_CORPUS}` },
      answer: { type: 'boolean', default: false },
      reworded: { type: 'string', default: 'benchmarks/.reworded' },
      user: { type: 'string', default: 'benchmarks/.user-corpus' },
      out: { type: 'string', default: 'benchmarks/results' },
      'render-only': { type: 'boolean', default: false },
    },
  });
  const sets = values.set ?? [];
  const name = values.name ?? sets.map((s) => s.split('=')[0]).join('-');
  if (!name) throw new Error('Pass at least one --set <key>=<value> (and --name to name the results).');
  const root = positionals[0] ?? '../shared/datasets';
  const dir = join(values.out, `da-rag-options-${name}`);
  mkdirSync(dir, { recursive: true });
  if (!values['render-only']) {
    const set = Object.fromEntries(
      sets.map((s) => [s.slice(0, s.indexOf('=')), s.slice(s.indexOf('=') + 1)]),
    );
    const extra = values.answer ? ['--answer'] : [];
    for (const dataset of values.datasets.split(',')) {
      const part: Part = { dataset, date: new Date().toISOString(), machine: machine(), set: sets, rows: [] };
      for (const [wording, path] of evalSetPaths(dataset, root, values.reworded, values.user)) {
        // One output folder per set: a query option's row loads the index the first row saved.
        const shared = mkdtempSync(join(tmpdir(), 'grag-bench-options-'));
        for (const config of [
          { label: 'da-rag (offline preset)', method: 'da-rag' },
          { label: `da-rag (offline preset, ${sets.join(', ')})`, method: 'da-rag', set },
        ]) {
          const row = await gragEval(path, config, extra, shared);
          part.rows.push({ ...row, wording });
          writeFileSync(join(dir, `${dataset}.json`), `${JSON.stringify(part, null, 2)}\n`);
          console.error(`${dataset} ${wording} ${config.label}: R@5 ${pct(row.metrics['recall@5'])}`);
        }
        rmSync(shared, { recursive: true, force: true });
      }
    }
  }
  writeFileSync(join(values.out, `da-rag-options-${name}.md`), render(dir, name));
}

await main();
