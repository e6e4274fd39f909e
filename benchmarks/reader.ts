/**
 * The offline reader on the dev slices, with the questions as the datasets word them and reworded
 * (benchmarks/reword.ts: rules written from how people phrase questions plus hand rewordings), side
 * by side, through `grag eval --answer` (the one measurement every table shares), for BM25 and the
 * best method; the answer task's time per question from the same runs, next to BM25's retrieval
 * time; and the user-notes suite of @grag/offline's tests (invented notes, two wordings each).
 *
 *   pnpm tsx benchmarks/reword.ts && pnpm tsx benchmarks/reader.ts [datasets-dir] [--methods bm25,e2graphrag]
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createOfflineProviders, NO_ANSWER } from '@grag/offline';
import { formatUserNotesKinds, scoreUserNotes } from '../packages/offline/test/fixtures/user-notes.js';
import { type EvalRow, gragEval, machine, slicePaths, type Wording } from './lib.js';

const SLICES = ['musique', 'hotpotqa', '2wikimultihopqa'];

const describe = (m: ReturnType<typeof machine>): string =>
  `${m.cores} × ${m.cpu}, ${m.memoryGiB} GiB, Node ${m.node} (the machine was shared with other work: read times as upper bounds)`;

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      methods: { type: 'string', default: 'bm25,e2graphrag' },
      reworded: { type: 'string', default: 'benchmarks/.reworded' },
      out: { type: 'string', default: 'benchmarks/results' },
    },
  });
  const root = positionals[0] ?? '../shared/datasets';
  if (!existsSync(join(values.reworded, SLICES[0]!)))
    throw new Error(`No reworded slices in ${values.reworded}: run \`pnpm tsx benchmarks/reword.ts\` first.`);
  const rows: (EvalRow & { wording: Wording; method: string })[] = [];
  for (const slice of SLICES) {
    for (const method of values.methods.split(',')) {
      for (const [wording, dir] of slicePaths(slice, root, values.reworded)) {
        const row = await gragEval(dir, { label: method, method }, ['--answer']);
        rows.push({ ...row, wording, method });
        console.error(
          `${slice} ${method} ${wording}: EM ${(100 * (row.metrics.em ?? 0)).toFixed(1)} F1 ${(100 * (row.metrics.f1 ?? 0)).toFixed(1)} answer p50 ${row.answerP50Ms?.toFixed(0)} ms`,
        );
      }
    }
  }
  const { tasks } = createOfflineProviders();
  const notes = await scoreUserNotes((q, items) => tasks.answer(q, items), { noAnswer: NO_ANSWER });
  const pct = (v: number | undefined) => (v === undefined ? '–' : (100 * v).toFixed(1));
  const lines = [
    '# The offline reader: original and reworded questions',
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} on ${describe(machine())}, offline providers, 12k-token budget, \`grag eval --answer\`; reworded slices from \`benchmarks/reword.ts\` (see benchmarks/reworded/README.md). "answer ms" is the answer task's time per question, "retrieval ms" the method's retrieval, both from the same run.`,
    '',
    '| slice | method | EM orig | F1 orig | EM reworded | F1 reworded | F1 reworded / orig | answer p50 / p95 ms | retrieval p50 ms |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const slice of SLICES)
    for (const method of values.methods.split(',')) {
      const o = rows.find((r) => r.slice === slice && r.method === method && r.wording === 'original')!;
      const w = rows.find((r) => r.slice === slice && r.method === method && r.wording === 'reworded')!;
      const ratio = (w.metrics.f1 ?? 0) / Math.max(1e-9, o.metrics.f1 ?? 0);
      lines.push(
        `| ${slice} | ${method} | ${pct(o.metrics.em)} | ${pct(o.metrics.f1)} | ${pct(w.metrics.em)} | ${pct(w.metrics.f1)} | ${(100 * ratio).toFixed(0)}% | ${o.answerP50Ms?.toFixed(0)} / ${o.answerP95Ms?.toFixed(0)} (reworded ${w.answerP50Ms?.toFixed(0)} / ${w.answerP95Ms?.toFixed(0)}) | ${o.p50Ms.toFixed(1)} |`,
      );
    }
  lines.push(
    '',
    '## User notes (packages/offline/test/fixtures/user-notes.ts)',
    '',
    `${notes.answered} of ${notes.total} questions answered correctly in both wordings (${pct(notes.rate)}%); ${notes.unanswerable.filter((u) => u.abstained).length} of ${notes.unanswerable.length} unanswerable questions answered "unknown" (no citation) in both wordings.`,
    '',
    formatUserNotesKinds(notes),
    '',
    'Commands:',
    '',
    ...rows.map((r) => `- \`${r.command}\``),
  );
  mkdirSync(values.out, { recursive: true });
  const notesSummary = {
    answered: notes.answered,
    total: notes.total,
    perKind: notes.perKind,
    abstained: notes.unanswerable.filter((u) => u.abstained).length,
    unanswerable: notes.unanswerable.length,
  };
  writeFileSync(
    join(values.out, 'reader.json'),
    `${JSON.stringify({ machine: machine(), rows, notes: notesSummary }, null, 2)}\n`,
  );
  writeFileSync(join(values.out, 'reader.md'), `${lines.join('\n')}\n`);
  console.log(lines.join('\n'));
}

await main();
