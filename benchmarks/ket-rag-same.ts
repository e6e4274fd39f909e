/**
 * Same retrievals from a KET-RAG index before and after a change of its saved format: each dev slice's
 * corpus is indexed as `grag index <corpus> --method ket-rag` indexes it (offline providers, HNSW,
 * optional `--set` options), the saved index is loaded in a fresh process (`method.load`, as `grag
 * query` does) and the first `--questions` questions are retrieved at the CLI's default budget; every
 * retrieval's items (id, kind, score, sources), context and tokens are written to a JSON file. Two such
 * files are compared item by item, score by score (exact equality).
 *
 *   npx tsx benchmarks/ket-rag-same.ts dump <out.json> [--datasets-dir ../shared/datasets]
 *       [--datasets musique,hotpotqa,2wikimultihopqa] [--questions 100] [--set key=value]… [--work dir]
 *       [--no-build: retrieve from the indexes already in --work, as saved by another version]
 *   npx tsx benchmarks/ket-rag-same.ts compare <before.json> <after.json>
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = fileURLToPath(import.meta.url);

interface Dumped {
  question: string;
  items: { id: string; kind: string; score: number; source: unknown }[];
  context: string;
  tokens: number;
}

/** Child: load `dir` and retrieve every question of `questionsFile` (first `n`); JSON on stdout. */
async function childRetrieve(dir: string, questionsFile: string, n: number): Promise<void> {
  const { CONFIG_DEFAULTS, createProviders, findMethod } = await import('@grag/cli');
  const { directoryStore } = await import('@grag/core/store');
  const questions = readFileSync(questionsFile, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .slice(0, n)
    .map((l) => (JSON.parse(l) as { question: string }).question);
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
  const entry = findMethod(manifest.method)!;
  const { ctx } = createProviders({ ...CONFIG_DEFAULTS, provider: 'offline' }, { manifest });
  const t0 = performance.now();
  const index = await entry.method.load(directoryStore(dir), ctx);
  const loadSeconds = (performance.now() - t0) / 1000;
  const out: Dumped[] = [];
  for (const question of questions) {
    const r = await entry.method.retrieve(index, question, { budgetTokens: CONFIG_DEFAULTS.budget });
    out.push({
      question,
      items: r.items.map(({ id, kind, score, source }) => ({ id, kind, score, source })),
      context: r.context,
      tokens: r.tokens,
    });
  }
  process.stdout.write(`\n${JSON.stringify({ loadSeconds, retrievals: out })}\n`);
}

async function dump(file: string, values: Record<string, unknown>): Promise<void> {
  const { run } = await import('@grag/cli');
  const datasetsDir = resolve(String(values['datasets-dir']));
  const work = resolve(String(values.work));
  const n = Number(values.questions);
  const sets = (values.set as string[] | undefined) ?? [];
  const result: Record<string, { loadSeconds: number; bytes: number; retrievals: Dumped[] }> = {};
  for (const name of String(values.datasets).split(',')) {
    const dir = join(work, name);
    const build = !values['no-build'];
    if (build) rmSync(dir, { recursive: true, force: true });
    mkdirSync(work, { recursive: true });
    const args = ['index', join(datasetsDir, name, 'corpus.jsonl'), '--method', 'ket-rag', '--out', dir];
    for (const s of sets) args.push('--set', s);
    const t0 = performance.now();
    const code = !build
      ? 0
      : await run([...args, '--no-cache', '-q'], {
          stdout: process.stderr,
          stderr: process.stderr,
          env: { ...process.env, OPENAI_API_KEY: '', OPENAI_BASE_URL: '', GRAG_PROVIDER: 'offline' },
          cwd: process.cwd(),
        });
    if (code !== 0) throw new Error(`grag index ${name} exited ${code}`);
    const built = (performance.now() - t0) / 1000;
    const child = spawnSync(
      process.execPath,
      [...process.execArgv, here, 'child', dir, join(datasetsDir, name, 'questions.jsonl'), String(n)],
      {
        encoding: 'utf8',
        maxBuffer: 1 << 30,
        env: { ...process.env, OPENAI_API_KEY: '', OPENAI_BASE_URL: '', GRAG_PROVIDER: 'offline' },
      },
    );
    if (child.status !== 0) throw new Error(`retrieval of ${name} failed:\n${child.stderr}`);
    const parsed = JSON.parse(child.stdout.trim().split('\n').at(-1)!);
    const du = spawnSync('du', ['-sb', dir], { encoding: 'utf8' });
    const bytes = Number(du.stdout.split('\t')[0]);
    result[name] = { ...parsed, bytes };
    process.stderr.write(
      `${name}: built in ${built.toFixed(1)} s, ${bytes} bytes, loaded in ${parsed.loadSeconds.toFixed(2)} s, ${parsed.retrievals.length} retrievals\n`,
    );
  }
  writeFileSync(file, JSON.stringify({ set: sets, datasets: result }));
}

function compare(a: string, b: string): number {
  const before = JSON.parse(readFileSync(a, 'utf8')).datasets as Record<string, { retrievals: Dumped[] }>;
  const after = JSON.parse(readFileSync(b, 'utf8')).datasets as Record<string, { retrievals: Dumped[] }>;
  let differing = 0;
  for (const [name, { retrievals }] of Object.entries(before)) {
    const other = after[name]?.retrievals;
    if (!other) {
      console.log(`${name}: missing after`);
      differing += 1;
      continue;
    }
    let same = 0;
    let items = 0;
    retrievals.forEach((r, i) => {
      const o = other[i];
      items += r.items.length;
      if (o && JSON.stringify(r) === JSON.stringify(o)) same += 1;
      else {
        differing += 1;
        if (differing <= 5) console.log(`${name} #${i}: differs (${r.question})`);
      }
    });
    console.log(
      `${name}: ${same} of ${retrievals.length} retrievals identical (${items} items, scores exact)`,
    );
  }
  return differing === 0 ? 0 : 1;
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === 'child') {
  await childRetrieve(rest[0]!, rest[1]!, Number(rest[2]));
} else if (mode === 'dump') {
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      'datasets-dir': { type: 'string', default: '../shared/datasets' },
      datasets: { type: 'string', default: 'musique,hotpotqa,2wikimultihopqa' },
      questions: { type: 'string', default: '100' },
      set: { type: 'string', multiple: true },
      work: { type: 'string', default: 'benchmarks/.cache/ket-rag-same' },
      'no-build': { type: 'boolean', default: false },
    },
  });
  await dump(resolve(positionals[0]!), values);
} else if (mode === 'compare') {
  process.exitCode = compare(rest[0]!, rest[1]!);
} else {
  console.error('usage: ket-rag-same.ts dump <out.json> [options] | compare <before.json> <after.json>');
  process.exitCode = 2;
}
