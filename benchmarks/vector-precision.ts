/**
 * What storing the vectors at float16 costs (`grag index --vector-precision float16`, issue 29):
 * `grag eval` of each method that keeps vector rows, with its vectors stored at float32 (the default)
 * and at float16 (the index saved and loaded back before its questions), on the dev slices as worded
 * and as reworded (`benchmarks/reword.ts`), with the bytes of each saved index. Every number is what
 * the command in its row prints. bm25 keeps no vectors; naive-dense saves its vector index whole
 * (HNSW's own file), so the option changes neither.
 *
 *   pnpm tsx benchmarks/vector-precision.ts [datasets-dir] [--datasets musique,hotpotqa,2wikimultihopqa]
 *     [--methods e2graphrag,bridge-rag,ket-rag,noderag,da-rag,sg-rag] [--reworded benchmarks/.reworded]
 *     [--out benchmarks/results]
 *
 * Each slice's rows go to `<out>/vector-precision/<slice>.json` as soon as they are measured (slices
 * can run as separate processes); `vector-precision.md` is written from every slice found there.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { type EvalRow, gragEval, machine, pct, points, slicePaths, type Wording } from './lib.js';

type Precision = 'float32' | 'float16';
interface Row extends EvalRow {
  method: string;
  wording: Wording;
  precision: Precision;
}
interface Part {
  slice: string;
  date: string;
  machine: ReturnType<typeof machine>;
  rows: Row[];
}

const METHODS = ['e2graphrag', 'bridge-rag', 'ket-rag', 'noderag', 'da-rag', 'sg-rag'];
const mb = (bytes: number | undefined) => (bytes === undefined ? '–' : (bytes / 1e6).toFixed(1));

function render(dir: string): string {
  const parts = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Part)
    .sort((a, b) => a.slice.localeCompare(b.slice));
  const m = parts[0]!.machine;
  const lines = [
    '# Vectors stored at float16: what it costs in quality, what it saves in bytes',
    '',
    `Run ${parts.map((p) => p.date.slice(0, 10)).sort()[0]} on ${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB), Node ${m.node}; offline providers (hashed TF-IDF embedder, HNSW), \`grag eval\`, 12k-token budget, every question of each slice.`,
    "Each method as `grag eval --methods <m>` runs it offline, and the same with `--vector-precision float16`: the built index is saved with its vector rows at float16 and loaded back before the questions, so they are asked of the index as stored. Reworded questions: `benchmarks/reword.ts`. Index MB: the saved index directory (the embedder state included). bm25 keeps no vectors and naive-dense saves its vector index whole (HNSW's own file), so the option changes neither.",
    '',
    '| slice | wording | method | R@5 float32 | R@5 float16 | Δ R@5 | Coverage float32 | Coverage float16 | Δ Coverage | index MB float32 → float16 |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const commands: string[] = [];
  for (const part of parts) {
    for (const wording of ['original', 'reworded'] as const) {
      for (const method of METHODS) {
        const rows = part.rows.filter((r) => r.wording === wording && r.method === method);
        const full = rows.find((r) => r.precision === 'float32');
        const half = rows.find((r) => r.precision === 'float16');
        if (!full || !half) continue;
        lines.push(
          `| ${part.slice} | ${wording} | ${method} | ${pct(full.metrics['recall@5'])} | ${pct(half.metrics['recall@5'])} | ${points(full.metrics['recall@5'], half.metrics['recall@5'])} | ${pct(full.metrics.coverage)} | ${pct(half.metrics.coverage)} | ${points(full.metrics.coverage, half.metrics.coverage)} | ${mb(full.indexBytes)} → ${mb(half.indexBytes)} |`,
        );
        commands.push(`- \`${full.command}\``, `- \`${half.command}\``);
      }
    }
  }
  lines.push(
    '',
    'Commands (each row of the table is the pair of its slice, wording and method):',
    '',
    ...commands,
    '',
  );
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      datasets: { type: 'string', default: 'musique,hotpotqa,2wikimultihopqa' },
      methods: { type: 'string', default: METHODS.join(',') },
      reworded: { type: 'string', default: 'benchmarks/.reworded' },
      out: { type: 'string', default: 'benchmarks/results' },
      render: { type: 'boolean' },
    },
  });
  const root = resolve(positionals[0] ?? '../shared/datasets');
  const dir = join(resolve(values.out!), 'vector-precision');
  mkdirSync(dir, { recursive: true });
  if (!values.render) {
    for (const slice of values.datasets!.split(',')) {
      const part: Part = { slice, date: new Date().toISOString(), machine: machine(), rows: [] };
      const file = join(dir, `${slice}.json`);
      for (const [wording, path] of slicePaths(slice, root, values.reworded!)) {
        for (const method of values.methods!.split(',')) {
          for (const precision of ['float32', 'float16'] as const) {
            const extra = precision === 'float16' ? ['--vector-precision', 'float16'] : [];
            const row = await gragEval(path, { label: method, method }, extra);
            part.rows.push({ ...row, method, wording, precision });
            process.stderr.write(
              `${slice} ${wording} ${method} ${precision}: R@5 ${pct(row.metrics['recall@5'])}, coverage ${pct(row.metrics.coverage)}, ${mb(row.indexBytes)} MB\n`,
            );
            writeFileSync(file, `${JSON.stringify(part, null, 2)}\n`);
          }
        }
      }
    }
  }
  writeFileSync(join(resolve(values.out!), 'vector-precision.md'), render(dir));
}

await main();
