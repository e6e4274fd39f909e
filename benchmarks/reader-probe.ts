/**
 * A development probe of the offline reader alone: the 12k-token BM25 contexts of a dataset's
 * questions are retrieved once and cached (benchmarks/.cache/reader-probe), then the reader answers
 * every question over them, with EM/F1 as `grag eval` scores them and the reader's time per question.
 * It is for iterating on the reader; published numbers come from `grag eval --answer`.
 *
 *   npx tsx benchmarks/reader-probe.ts <dataset-dir>... [--limit n] [--show-misses]
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { createBuildContext } from '@grag/core/kit';
import { exactMatch, loadDataset, percentile, tokenF1 } from '@grag/eval';
import { bm25Rag } from '@grag/naive-rag';
import { createOfflineEmbedder, createOfflineTasks } from '@grag/offline';

interface Cached {
  id: string;
  question: string;
  answers: string[];
  type?: string;
  items: { id: string; text: string }[];
}

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const limit = Number(flag('limit') ?? Number.POSITIVE_INFINITY);
const showMisses = args.includes('--show-misses');
const dirs = args.filter(
  (a, i) => !a.startsWith('--') && !(i > 0 && /^--(limit|contexts-of)$/.test(args[i - 1]!)),
);
const cacheDir = join(dirname(new URL(import.meta.url).pathname), '.cache', 'reader-probe');
mkdirSync(cacheDir, { recursive: true });

async function contexts(dir: string): Promise<Cached[]> {
  const key = `${basename(dirname(dir))}-${basename(dir)}.json`.replace(/[^\w.-]/g, '_');
  const file = join(cacheDir, key);
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as Cached[];
  const ds = loadDataset(dir);
  const ctx = createBuildContext({ tasks: createOfflineTasks(), embedder: createOfflineEmbedder() });
  const index = await bm25Rag.build(ds.corpus, ctx);
  const out: Cached[] = [];
  for (const q of ds.questions) {
    const r = await bm25Rag.retrieve(index, q.question, { budgetTokens: 12_000 });
    out.push({
      id: q.id,
      question: q.question,
      answers: q.answers,
      ...(typeof q.meta?.type === 'string' ? { type: q.meta.type } : {}),
      items: r.items.map((i) => ({ id: i.id, text: i.text })),
    });
  }
  writeFileSync(file, JSON.stringify(out));
  return out;
}

const tasks = createOfflineTasks({ embedder: createOfflineEmbedder() });
await tasks.answer('Who?', [{ id: 'warm', text: 'Warm up the reader.' }]);
for (const dir of dirs) {
  const qs = (await contexts(dir)).slice(0, limit);
  const types = new Map<string, string>();
  for (const line of readFileSync(join(dir, 'questions.jsonl'), 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const r = JSON.parse(line) as { id: string; type?: string };
    if (r.type) types.set(r.id, r.type);
  }
  for (const q of qs) q.type ??= types.get(q.id);
  // --contexts-of <dir>: answer over the contexts retrieved for another wording of the same ids
  // (the reader alone, retrieval held fixed).
  const other = flag('contexts-of');
  if (other) {
    const byId = new Map((await contexts(other)).map((c) => [c.id, c.items]));
    for (const q of qs) q.items = byId.get(q.id) ?? q.items;
  }
  let em = 0;
  let f1 = 0;
  const ms: number[] = [];
  const misses: string[] = [];
  const byType = new Map<string, [number, number]>();
  for (const q of qs) {
    const t0 = performance.now();
    const a = await tasks.answer(q.question, q.items);
    ms.push(performance.now() - t0);
    const e = exactMatch(a.answer, q.answers);
    const f = tokenF1(a.answer, q.answers);
    em += e;
    f1 += f;
    const t = byType.get(q.type ?? '') ?? [0, 0];
    t[0] += f;
    t[1]++;
    byType.set(q.type ?? '', t);
    if (f < 0.5)
      misses.push(`  [${q.type ?? ''}] ${q.question}\n     gold: ${q.answers[0]} | got: ${a.answer}`);
  }
  const n = qs.length || 1;
  console.log(
    `${dir}: n=${qs.length} EM ${((100 * em) / n).toFixed(1)} F1 ${((100 * f1) / n).toFixed(1)} ` +
      `reader p50 ${percentile(ms, 50).toFixed(0)} ms p95 ${percentile(ms, 95).toFixed(0)} ms`,
  );
  console.log(
    `  by type: ${[...byType].map(([t, [f, n]]) => `${t || '-'} ${((100 * f) / n).toFixed(1)} (${n})`).join(', ')}`,
  );
  if (showMisses) console.log(misses.join('\n'));
}
