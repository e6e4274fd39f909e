/**
 * Every method's retrieval quality on the dev slices, as `grag eval` runs it offline (the CLI's
 * defaults: each paper method's offline preset), as the datasets word the questions and as
 * `benchmarks/reword.ts` rewords them, in one run: the numbers the root README quotes. Every row is
 * the `grag eval` command printed beside it. The user-style corpus has its own run
 * (`benchmarks/user-corpus.ts --eval`).
 *
 *   npx tsx benchmarks/quality.ts [--datasets musique,hotpotqa,2wikimultihopqa]
 *     [--methods bm25,naive-dense,…] [--configs e2graphrag:preset=paper,…] [--out benchmarks/results]
 *     [--render-only] [datasets-dir]
 *
 * `--configs` adds rows of a method with `--set` options (`method:key=value`, one option each): by
 * default the paper presets of the methods that have one. `--merge` reruns only the rows of the
 * methods and configurations given (e.g. `--merge --methods bridge-rag --configs ''` after a change
 * of bridge-rag), keeps the others of the dataset's file, and dates the rows it reran.
 *
 * Each dataset's rows go to `<out>/quality/<dataset>.json` as they are measured (a dataset can run
 * as a process of its own); `quality.md` is written from every dataset found there.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  type EvalConfig,
  type EvalPart,
  evalSetPaths,
  gragEval,
  machine,
  pct,
  readParts,
  type WordedRow,
  type Wording,
} from './lib.js';

const METHODS = 'bm25,naive-dense,e2graphrag,bridge-rag,ket-rag,noderag,da-rag,sg-rag';
const CONFIGS = 'e2graphrag:preset=paper,ket-rag:preset=paper,noderag:preset=paper,da-rag:preset=paper';

/** A row's configuration: a method, or `method:key=value` (that method with the option set). */
function configOf(spec: string): EvalConfig {
  const [method, option] = spec.split(':') as [string, string | undefined];
  if (option === undefined) return { label: method, method };
  const at = option.indexOf('=');
  return { label: `${method} (${option})`, method, set: { [option.slice(0, at)]: option.slice(at + 1) } };
}
const WORDINGS: readonly Wording[] = ['original', 'reworded'];
const SUMMARY = [
  ['recall@5', 'R@5'],
  ['coverage', 'Coverage'],
] as const;

/** A row, with the date it was rerun on when `--merge` reran it after the dataset's run. */
type Row = WordedRow & { rerun?: string };

function render(dir: string): string {
  const parts = readParts<Row>(dir);
  const reruns = [
    ...new Set(
      parts.flatMap((p) => p.rows.flatMap((r) => (r.rerun ? [`${r.label} on ${r.rerun.slice(0, 10)}`] : []))),
    ),
  ];
  const m = parts[0]!.machine;
  const methods = [...new Set(parts.flatMap((p) => p.rows.map((r) => r.label)))];
  const row = (part: EvalPart<Row>, method: string, wording: Wording) =>
    part.rows.find((r) => r.label === method && r.wording === wording);
  const lines = [
    '# Retrieval quality of every method, offline, as worded and reworded',
    '',
    `Run ${parts.map((p) => p.date.slice(0, 10)).sort()[0]} on ${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB), Node ${m.node}; offline providers (the hashed TF-IDF embedder, the wink-nlp task suite, HNSW), \`grag eval --methods <m>\` as the CLI runs it offline (each paper method with its offline preset), 12k-token budget, every question of each dev slice.`,
    'Reworded questions: `benchmarks/reword.ts` (the same questions, other words). R@k: the supporting passages among the first k passages retrieved; Coverage: the answer in the context.',
    'Reproduce: `npx tsx benchmarks/quality.ts`; each row below is one `grag eval` command.',
    ...(reruns.length > 0 ? [`Rows rerun after that run (\`--merge\`): ${reruns.join(', ')}.`] : []),
  ];
  for (const [metric, name] of SUMMARY) {
    const columns = parts.flatMap((p) => WORDINGS.map((w) => [p, w] as const));
    lines.push(
      '',
      `## ${name}`,
      '',
      `| method | ${columns.map(([p, w]) => `${p.dataset} ${w}`).join(' | ')} |`,
      `|---|${columns.map(() => '---:').join('|')}|`,
      ...methods.map(
        (method) =>
          `| ${method} | ${columns.map(([p, w]) => pct(row(p, method, w)?.metrics[metric])).join(' | ')} |`,
      ),
    );
  }
  lines.push(
    '',
    '## Every row',
    '',
    '| dataset | wording | method | R@2 | R@5 | R@10 | Coverage | ctx tokens | index s | p50 / p95 ms | command |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|',
  );
  for (const part of parts) {
    for (const r of part.rows) {
      lines.push(
        `| ${part.dataset} | ${r.wording} | ${r.label} | ${['recall@2', 'recall@5', 'recall@10', 'coverage'].map((k) => pct(r.metrics[k])).join(' | ')} | ${Math.round(r.contextTokens).toLocaleString('en-US')} | ${r.indexSeconds.toFixed(1)} | ${r.p50Ms.toFixed(1)} / ${r.p95Ms.toFixed(1)} | \`${r.command}\` |`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      datasets: { type: 'string', default: 'musique,hotpotqa,2wikimultihopqa' },
      methods: { type: 'string', default: METHODS },
      configs: { type: 'string', default: CONFIGS },
      reworded: { type: 'string', default: 'benchmarks/.reworded' },
      out: { type: 'string', default: 'benchmarks/results' },
      merge: { type: 'boolean', default: false },
      'render-only': { type: 'boolean', default: false },
    },
  });
  const root = positionals[0] ?? '../shared/datasets';
  const dir = join(values.out, 'quality');
  mkdirSync(dir, { recursive: true });
  if (!values['render-only']) {
    const configs = [...values.methods.split(','), ...values.configs.split(',')]
      .filter((s) => s !== '')
      .map(configOf);
    for (const dataset of values.datasets.split(',')) {
      const file = join(dir, `${dataset}.json`);
      const earlier =
        values.merge && existsSync(file)
          ? (JSON.parse(readFileSync(file, 'utf8')) as EvalPart<Row>)
          : undefined;
      const part: EvalPart<Row> = earlier ?? {
        dataset,
        date: new Date().toISOString(),
        machine: machine(),
        set: [],
        rows: [],
      };
      for (const [wording, path] of evalSetPaths(dataset, root, values.reworded, '')) {
        for (const config of configs) {
          const row: Row = {
            ...(await gragEval(path, config)),
            wording,
            ...(earlier ? { rerun: new Date().toISOString() } : {}),
          };
          // A rerun row takes the place of the one it replaces.
          const at = part.rows.findIndex((r) => r.label === config.label && r.wording === wording);
          if (at >= 0) part.rows[at] = row;
          else part.rows.push(row);
          writeFileSync(file, `${JSON.stringify(part, null, 2)}\n`);
          console.error(
            `${dataset} ${wording} ${config.label}: R@5 ${pct(row.metrics['recall@5'])}, Coverage ${pct(row.metrics.coverage)}`,
          );
        }
      }
    }
  }
  writeFileSync(join(values.out, 'quality.md'), render(dir));
}

await main();
