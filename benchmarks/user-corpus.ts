/**
 * A user-style evaluation set that is no benchmark's: the invented encyclopedia of the scale
 * benchmark (benchmarks/scale-corpus.ts: people, places, organisations and works of an invented
 * world, and chronicle notes naming several of them) as a `grag eval` dataset, asked as generated
 * and reworded by benchmarks/reword.ts's rules.
 *
 *   npx tsx benchmarks/user-corpus.ts [--tokens 300000] [--questions 150] [--seed 29]
 *     [--out benchmarks/.user-corpus] [--eval [--methods bm25,naive-dense,…] [--results benchmarks/results]]
 *     [--render]
 *
 * Writes `<out>/worded/` and `<out>/reworded/`, each a dataset directory as `grag eval` reads one
 * (`corpus.jsonl`: id, title, text; `questions.jsonl`: id, question, answers, supporting document
 * ids), the same corpus in both. The same seed, size and count give the same files, byte for byte.
 *
 * `--eval`: then `grag eval --methods <m> --answer` of every method (as the CLI runs it offline,
 * with the preset it picks) on both wordings, one method at a time; rows go to
 * `<results>/user-corpus.json` as they are measured, and `user-corpus.md` is written from them
 * (`--render`: only that, from the JSON).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { type EvalRow, gragEval, machine, pct } from './lib.js';
import { rewordQuestion } from './reword.js';
import { generateScaleCorpus, type ScaleQuestion, toJsonl } from './scale-corpus.js';

/** The dataset record of a generated question (with its question reworded when `reworded`). */
function record(q: ScaleQuestion, reworded: boolean) {
  return {
    id: q.id,
    question: reworded ? rewordQuestion(q.question, q.id) : q.question,
    answers: [q.answer],
    supporting: q.docIds,
  };
}

const METHODS = 'bm25,naive-dense,e2graphrag,bridge-rag,ket-rag,noderag,da-rag,sg-rag';
const METRICS = ['recall@2', 'recall@5', 'recall@10', 'coverage', 'em', 'f1'] as const;

interface Row extends EvalRow {
  method: string;
  wording: 'worded' | 'reworded';
  /** When the row was measured, if not in the report's run (a method rerun alone). */
  date?: string;
}

interface Report {
  date: string;
  machine: ReturnType<typeof machine>;
  corpus: { tokens: number; documents: number; questions: number; seed: number };
  rows: Row[];
}

function render(report: Report): string {
  const m = report.machine;
  const { corpus } = report;
  const lines = [
    '# Every method on a user-style corpus, as worded and reworded',
    '',
    `Run ${report.date.slice(0, 10)} on ${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB), Node ${m.node}; offline providers, \`grag eval --answer\`, 12k-token budget.`,
    `Corpus: \`benchmarks/user-corpus.ts\` (seed ${corpus.seed}): an invented encyclopedia of ${corpus.documents.toLocaleString('en-US')} documents (${corpus.tokens.toLocaleString('en-US')} cl100k tokens) about people, places, organisations and works, with chronicle notes naming several of them; ${corpus.questions} questions about facts it states, each with the document it is about (and, for a two-hop question, the other one it needs) as its supporting passages. Some facts are stated in other documents too (an organisation's founder in its members' articles and in chronicle notes): a method that cites one of those answers right but counts no hit in R@k. Reworded: the same questions through \`benchmarks/reword.ts\`'s rules. Each method as the CLI runs it offline (the preset it picks). EM and F1: the offline reader's answers.`,
    '',
    ...rerunLines(report),
    '| method | wording | R@2 | R@5 | R@10 | Coverage | EM | F1 | ctx tokens | index s | p50 / p95 ms | command |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const r of report.rows) {
    lines.push(
      `| ${r.method} | ${r.wording} | ${METRICS.map((k) => pct(r.metrics[k])).join(' | ')} | ${Math.round(r.contextTokens).toLocaleString('en-US')} | ${r.indexSeconds.toFixed(1)} | ${r.p50Ms.toFixed(1)} / ${r.p95Ms.toFixed(1)} | \`${r.command}\` |`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** The methods rerun alone after the report's run, with their dates (a line, or none). */
function rerunLines(report: Report): string[] {
  const reruns = new Map<string, string>();
  for (const r of report.rows) if (r.date !== undefined) reruns.set(r.method, r.date.slice(0, 10));
  if (reruns.size === 0) return [];
  const which = [...reruns].map(([method, date]) => `${method} on ${date}`).join(', ');
  return [`Rows rerun since, with the code of their date: ${which}.`, ''];
}

/**
 * The report the rows of `methods` go to: the one in `file` for the same corpus, without those
 * methods' rows (the others are kept, and the new rows are dated), else a new one.
 */
function reportFor(file: string, methods: string[], corpus: Report['corpus']): Report {
  const fresh: Report = { date: new Date().toISOString(), machine: machine(), corpus, rows: [] };
  if (!existsSync(file)) return fresh;
  const earlier = JSON.parse(readFileSync(file, 'utf8')) as Report;
  const others = earlier.rows.filter((r) => !methods.includes(r.method));
  if (JSON.stringify(earlier.corpus) !== JSON.stringify(corpus) || others.length === 0) return fresh;
  return { ...earlier, rows: others };
}

/** A row's place in the order of the full run (a method rerun alone keeps its place). */
function place(r: Row): number {
  return METHODS.split(',').indexOf(r.method) + 1 || Number.POSITIVE_INFINITY;
}

async function evaluate(
  dir: string,
  methods: string[],
  results: string,
  corpus: Report['corpus'],
): Promise<void> {
  mkdirSync(results, { recursive: true });
  const report = reportFor(join(results, 'user-corpus.json'), methods, corpus);
  const date = report.rows.length > 0 ? new Date().toISOString() : undefined;
  for (const method of methods) {
    for (const wording of ['worded', 'reworded'] as const) {
      const row = await gragEval(resolve(join(dir, wording)), { label: method, method }, ['--answer']);
      report.rows.push({ ...row, method, wording, ...(date ? { date } : {}) });
      report.rows.sort((a, b) => place(a) - place(b));
      writeFileSync(join(results, 'user-corpus.json'), `${JSON.stringify(report, null, 2)}\n`);
      writeFileSync(join(results, 'user-corpus.md'), render(report));
      process.stderr.write(`${method} ${wording}: R@5 ${pct(row.metrics['recall@5'])}\n`);
    }
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      tokens: { type: 'string', default: '300000' },
      questions: { type: 'string', default: '150' },
      seed: { type: 'string', default: '29' },
      out: { type: 'string', default: 'benchmarks/.user-corpus' },
      eval: { type: 'boolean', default: false },
      methods: { type: 'string', default: METHODS },
      results: { type: 'string', default: 'benchmarks/results' },
      render: { type: 'boolean', default: false },
    },
  });
  if (values.render) {
    const file = join(values.results, 'user-corpus.json');
    writeFileSync(
      join(values.results, 'user-corpus.md'),
      render(JSON.parse(readFileSync(file, 'utf8')) as Report),
    );
    return;
  }
  const corpus = generateScaleCorpus(Number(values.seed), Number(values.tokens), Number(values.questions));
  let changed = 0;
  for (const [name, reworded] of [
    ['worded', false],
    ['reworded', true],
  ] as const) {
    const dir = resolve(join(values.out, name));
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'corpus.jsonl'), toJsonl(corpus.documents));
    const records = corpus.questions.map((q) => record(q, reworded));
    if (reworded) changed = records.filter((r, i) => r.question !== corpus.questions[i]!.question).length;
    writeFileSync(join(dir, 'questions.jsonl'), `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
  }
  process.stderr.write(
    `user corpus: ${corpus.documents.length} documents, ${corpus.tokens} tokens, ${corpus.questions.length} questions (${changed} reworded) in ${values.out}\n`,
  );
  if (values.eval) {
    await evaluate(values.out, values.methods.split(','), values.results, {
      tokens: corpus.tokens,
      documents: corpus.documents.length,
      questions: corpus.questions.length,
      seed: Number(values.seed),
    });
  }
}

await main();
