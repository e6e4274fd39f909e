/**
 * Incremental updates against full rebuilds (issue 18), on the passages of a multi-hop QA slice
 * (one document per passage). For each method and share p in {1%, 10%}: a seeded shuffle (seed 1)
 * picks p of the documents; the method is built on the other (100 − p)% (not timed), then (a)
 * `method.update` adds the p% and (b) a fresh build indexes every document. A removal row per
 * method removes the same 1% from the full index and compares with a fresh build of the other 99%.
 * A small untimed build and update of each method come first (module loading, JIT).
 *
 * Model calls are what a build with a paid chat model would send: the methods run on core's prompt
 * task suite over a simulated chat model that answers with `@grag/offline`'s heuristics, metered
 * (as `grag index --estimate` counts them: one call per prompt, gleanings and repairs included,
 * prompt and answer tokens counted with cl100k_base). Embedded texts are the metered offline TF-IDF
 * embedder's values (fitted per build, as `grag eval` does).
 *
 *   nice -n 5 pnpm tsx benchmarks/update.ts [datasets-dir] [--dataset musique] [--methods a,b]
 *        [--part file.json] [--tables part1.json,part2.json] [--out benchmarks/results]
 *
 * `--part` writes the rows of this run to a file instead of the tables, so each method can run in
 * its own process; `--tables` merges such files (a later file's rows replace an earlier one's rows
 * of the same method; benchmarks/results/update.json is itself such a file) into
 * benchmarks/results/update.{json,md}.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { METHODS } from '@grag/cli';
import type { BuildContext, Document, UpdateReport } from '@grag/core';
import { createBuildContext, getTokenizer, Meter, meteredChat } from '@grag/core/kit';
import { createPromptTasks, createSimulatedChat } from '@grag/core/tasks';
import { loadDataset, rankedPassages, seededRandom, shuffle } from '@grag/eval';
import { hnswIndexFactory } from '@grag/hnsw';
import { createOfflineEmbedder, createOfflineTasks, createWinkTextAnalyzer } from '@grag/offline';
import { machine } from './lib.js';

/** Methods whose update is the build's computation whatever `full` says (their tests compare with a build exactly). */
const EXACT = new Set(['bm25', 'naive-dense', 'sg-rag', 'da-rag']);
/** Passages compared by the agreement measure. */
const AGREEMENT_K = 10;

/** Methods in table order. */
const ORDER = ['bm25', 'naive-dense', 'e2graphrag', 'ket-rag', 'sg-rag', 'noderag', 'da-rag'];
/** Shares of the corpus added by an update. */
const SHARES = [0.01, 0.1] as const;
/** Share of the corpus removed by the removal row. */
const REMOVE_SHARE = 0.01;
const SEED = 1;
/** Documents of the untimed warm-up build. */
const WARMUP = 30;

/** Time and model use of one build or update. */
interface Measure {
  seconds: number;
  chatCalls: number;
  inputTokens: number;
  outputTokens: number;
  /** Texts sent to the embedder. */
  embedded: number;
}

/** One row: an update of one method and what a fresh build of the same corpus costs. */
interface Row {
  method: string;
  kind: 'add' | 'remove';
  /** Share of the corpus added or removed. */
  share: number;
  /** Documents added or removed. */
  documents: number;
  /** Documents of the index before the update. */
  before: number;
  /** Documents of the index after it. */
  after: number;
  update?: Measure;
  /** A fresh build of the corpus after the update. */
  rebuild?: Measure;
  report?: Pick<UpdateReport, 'chunks' | 'embedded' | 'local' | 'global'>;
  /**
   * Mean over the slice's questions of the Jaccard similarity of the first 10 passages retrieved from
   * the update and from a `full` update of the same index (absent for methods whose update is exact).
   */
  agreement?: number;
  /** Why the row has no numbers (no `update`, or it failed). */
  missing?: string;
}

/** Rows of one run, or of merged runs. */
interface Part {
  date: string;
  machine: ReturnType<typeof machine>;
  dataset: string;
  corpus: number;
  /** Questions of the slice (the agreement measure's queries). */
  questions?: number;
  rows: Row[];
}

/**
 * Fresh providers for one build of `method`: the prompt task suite on a metered simulated chat
 * model that answers with the offline heuristics, the offline TF-IDF embedder (metered by
 * `createBuildContext`; the heuristics use it unmetered, as a paid model would embed nothing) and
 * the wink text analyzer; NodeRAG gets the HNSW vector index its paper builds (the others core's
 * flat one), as in the runs recorded before the factory came from the context.
 */
function providers(method: string): BuildContext {
  const meter = new Meter();
  const tokenizer = getTokenizer();
  const embedder = createOfflineEmbedder('tfidf');
  const simulated = createSimulatedChat(createOfflineTasks({ embedder }), {
    provider: 'offline',
    modelId: 'simulated-chat',
  });
  const chat = meteredChat(simulated, meter, tokenizer);
  return createBuildContext({
    embedder,
    tasks: createPromptTasks(chat),
    tokenizer,
    meter,
    chat,
    textAnalyzer: createWinkTextAnalyzer(),
    ...(method === 'noderag' ? { vectorIndex: hnswIndexFactory() } : {}),
  });
}

/** Run `fn` with `ctx`'s meter reset, and measure it. */
async function measured<T>(ctx: BuildContext, fn: () => Promise<T>): Promise<{ value: T; measure: Measure }> {
  ctx.meter.reset();
  const started = performance.now();
  const value = await fn();
  const seconds = (performance.now() - started) / 1000;
  const total = ctx.meter.snapshot().total;
  return {
    value,
    measure: {
      seconds,
      chatCalls: total.chatCalls,
      inputTokens: total.inputTokens,
      outputTokens: total.outputTokens,
      embedded: total.embeddedValues,
    },
  };
}

/** Build options: one chunk per document where the method accepts `chunking: 'document'`. */
function buildOptions(name: string): Record<string, unknown> {
  return ['bm25', 'naive-dense', 'e2graphrag', 'ket-rag', 'noderag'].includes(name)
    ? { chunking: 'document' }
    : {};
}

const brief = (r: UpdateReport): Row['report'] => ({
  chunks: r.chunks,
  embedded: r.embedded,
  local: r.local,
  global: r.global,
});

const say = (line: string) => process.stderr.write(`update: ${line}\n`);

/**
 * Mean over `questions` of the Jaccard similarity of the first {@link AGREEMENT_K} passages (as
 * `runEval` ranks them) that `method` retrieves from `a` and from `b`.
 */
async function agreement(
  method: (typeof METHODS)[number]['method'],
  a: unknown,
  b: unknown,
  questions: readonly string[],
): Promise<number> {
  let sum = 0;
  for (const question of questions) {
    const [x, y] = await Promise.all(
      [a, b].map(async (index) =>
        rankedPassages((await method.retrieve(index, question)).items, method.passageRanking ?? {}).slice(
          0,
          AGREEMENT_K,
        ),
      ),
    );
    const union = new Set([...x!, ...y!]).size;
    sum += union === 0 ? 1 : x!.filter((p) => y!.includes(p)).length / union;
  }
  return sum / questions.length;
}

/** The rows of one method: an update per share, and the removal. */
async function runMethod(
  name: string,
  corpus: readonly Document[],
  questions: readonly string[],
): Promise<Row[]> {
  const entry = METHODS.find((m) => m.name === name);
  if (!entry) throw new Error(`update benchmark: unknown method "${name}"; known: ${ORDER.join(', ')}.`);
  const { method } = entry;
  const n = corpus.length;
  const shuffled = shuffle(
    seededRandom(SEED),
    corpus.map((d) => d.id),
  );
  // The first p of the shuffled ids; builds keep the corpus order.
  const split = (share: number) => {
    const chosen = new Set(shuffled.slice(0, Math.round(n * share)));
    return {
      picked: corpus.filter((d) => chosen.has(d.id)),
      rest: corpus.filter((d) => !chosen.has(d.id)),
    };
  };
  const rowsOf = (missing: string): Row[] => [
    ...SHARES.map((share) => {
      const k = Math.round(n * share);
      return { method: name, kind: 'add' as const, share, documents: k, before: n - k, after: n, missing };
    }),
    {
      method: name,
      kind: 'remove' as const,
      share: REMOVE_SHARE,
      documents: Math.round(n * REMOVE_SHARE),
      before: n,
      after: n - Math.round(n * REMOVE_SHARE),
      missing,
    },
  ];
  if (!method.update) return rowsOf(`${name} has no update`);
  const update = method.update.bind(method);
  /** How far an update is from a `full` update of the same index, for methods whose update approximates. */
  const agreementWithFull = async (
    base: unknown,
    change: Parameters<typeof update>[1],
    updated: unknown,
    ctx: BuildContext,
  ): Promise<{ agreement?: number }> => {
    if (EXACT.has(name)) return {};
    const full = await update(base, change, ctx, { full: true });
    return { agreement: await agreement(method, updated, full.index, questions) };
  };
  const options = buildOptions(name);
  const rows: Row[] = [];
  // A small build and update first, so the first timed build does not pay for loading and JIT.
  try {
    const warm = providers(name);
    const small = await method.build(corpus.slice(0, WARMUP), warm, options);
    await update(small, { add: corpus.slice(WARMUP, WARMUP + 3), remove: [corpus[0]!.id] }, warm);
  } catch (error) {
    say(`${name}: the warm-up failed (${(error as Error).message}); timing without it.`);
  }
  // The full build: the rebuild of every addition, and the index the removal starts from.
  say(`${name}: full build of ${n} documents ...`);
  const fullCtx = providers(name);
  const full = await measured(fullCtx, () => method.build([...corpus], fullCtx, options));
  say(`${name}: full build ${full.measure.seconds.toFixed(1)} s, ${full.measure.chatCalls} calls`);
  const removal = split(REMOVE_SHARE);
  let removed: { value: { report: UpdateReport }; measure: Measure; agreement?: number } | undefined;
  let removeError: string | undefined;
  try {
    const change = { remove: removal.picked.map((d) => d.id) };
    const done = await measured(fullCtx, () => update(full.value, change, fullCtx));
    removed = { ...done, ...(await agreementWithFull(full.value, change, done.value.index, fullCtx)) };
    say(`${name}: removed ${removal.picked.length} in ${removed.measure.seconds.toFixed(1)} s`);
  } catch (error) {
    removeError = `update failed: ${(error as Error).message}`;
    say(`${name}: ${removeError}`);
  }
  for (const share of SHARES) {
    const { picked, rest } = split(share);
    say(`${name}: build of ${rest.length} documents, then add ${picked.length} ...`);
    const ctx = providers(name);
    const base = await measured(ctx, () => method.build(rest, ctx, options));
    const row: Row = {
      method: name,
      kind: 'add',
      share,
      documents: picked.length,
      before: rest.length,
      after: n,
      rebuild: full.measure,
    };
    try {
      const added = await measured(ctx, () => update(base.value, { add: picked }, ctx));
      Object.assign(row, {
        update: added.measure,
        report: brief(added.value.report),
        ...(await agreementWithFull(base.value, { add: picked }, added.value.index, ctx)),
      });
      say(`${name}: added ${picked.length} in ${added.measure.seconds.toFixed(1)} s`);
    } catch (error) {
      row.missing = `update failed: ${(error as Error).message}`;
      say(`${name}: ${row.missing}`);
    }
    rows.push(row);
    if (share === REMOVE_SHARE) {
      // The removal's fresh build is the build of the same 99%.
      rows.push({
        method: name,
        kind: 'remove',
        share,
        documents: picked.length,
        before: n,
        after: rest.length,
        rebuild: base.measure,
        ...(removed
          ? {
              update: removed.measure,
              report: brief(removed.value.report),
              ...(removed.agreement !== undefined ? { agreement: removed.agreement } : {}),
            }
          : { missing: removeError ?? 'update failed' }),
      });
    }
  }
  return rows;
}

/** Rows of later parts replace the rows of earlier parts with the same method. */
function mergeParts(parts: readonly Part[]): Part {
  let merged: Part = { ...parts[0]!, rows: [] };
  for (const p of parts) {
    const methods = new Set(p.rows.map((r) => r.method));
    merged = {
      ...p,
      date: [p.date, merged.date].sort().at(-1)!,
      rows: [...merged.rows.filter((r) => !methods.has(r.method)), ...p.rows],
    };
  }
  return merged;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      dataset: { type: 'string', default: 'musique' },
      methods: { type: 'string' },
      part: { type: 'string' },
      tables: { type: 'string' },
      out: { type: 'string', default: 'benchmarks/results' },
    },
  });
  const root = positionals[0] ?? '../shared/datasets';
  const readPart = (f: string) => JSON.parse(readFileSync(f, 'utf8')) as Part;
  const earlier = values.tables ? values.tables.split(',').map(readPart) : [];
  let part: Part | undefined;
  if (values.methods !== undefined || earlier.length === 0) {
    const names = values.methods?.split(',').filter(Boolean) ?? ORDER;
    const unknown = names.filter((m) => !METHODS.some((e) => e.name === m));
    if (unknown.length > 0) {
      throw new Error(
        `update benchmark: unknown method ${unknown.join(', ')}; known: ${METHODS.map((m) => m.name).join(', ')}.`,
      );
    }
    const dataset = loadDataset(join(root, values.dataset));
    part = {
      date: new Date().toISOString(),
      machine: machine(),
      dataset: values.dataset,
      corpus: dataset.corpus.length,
      questions: dataset.questions.length,
      rows: [],
    };
    const questions = dataset.questions.map((q) => q.question);
    for (const name of names) part.rows.push(...(await runMethod(name, dataset.corpus, questions)));
    if (values.part) {
      writeFileSync(values.part, `${JSON.stringify(part, null, 2)}\n`);
      return;
    }
  }
  writeTables(mergeParts([...earlier, ...(part ? [part] : [])]), root, values.out);
}

const pct = (a: number, b: number) => (b === 0 ? (a === 0 ? '–' : '∞') : `${((100 * a) / b).toFixed(1)}%`);
const int = (v: number) => Math.round(v).toLocaleString('en-US');

function writeTables(part: Part, root: string, out: string): void {
  const rank = (m: string) => (ORDER.includes(m) ? ORDER.indexOf(m) : ORDER.length);
  const rows = [...part.rows].sort(
    (a, b) =>
      rank(a.method) - rank(b.method) ||
      (a.kind === b.kind ? 0 : a.kind === 'add' ? -1 : 1) ||
      a.share - b.share,
  );
  mkdirSync(out, { recursive: true });
  writeFileSync(
    join(out, 'update.json'),
    `${JSON.stringify({ benchmark: 'update', ...part, rows }, null, 2)}\n`,
  );
  const head = [
    'method',
    'change',
    'update s',
    'rebuild s',
    'update / rebuild calls',
    'update / rebuild tokens',
    'embedded (update / rebuild)',
    'chunks −/+ (total)',
    'top-10 agreement with full',
    'global stages',
  ];
  const lines = [
    `| ${head.join(' | ')} |`,
    `|${head.map((_, i) => (i < 2 || i === 7 || i === 9 ? '---' : '---:')).join('|')}|`,
  ];
  for (const r of rows) {
    const change = `${r.kind === 'add' ? '+' : '−'}${r.share * 100}% (${r.documents} docs; ${r.before} → ${r.after})`;
    if (!r.update || !r.rebuild) {
      lines.push(`| ${r.method} | ${change} | ${r.missing ?? 'missing'} | | | | | | | |`);
      continue;
    }
    const u = r.update;
    const b = r.rebuild;
    const tokens = (m: Measure) => m.inputTokens + m.outputTokens;
    lines.push(
      `| ${[
        r.method,
        change,
        u.seconds.toFixed(2),
        b.seconds.toFixed(2),
        `${int(u.chatCalls)} / ${int(b.chatCalls)} (${pct(u.chatCalls, b.chatCalls)})`,
        `${int(tokens(u))} / ${int(tokens(b))} (${pct(tokens(u), tokens(b))})`,
        `${int(u.embedded)} / ${int(b.embedded)}`,
        r.report ? `−${r.report.chunks.removed} / +${r.report.chunks.added} (${r.report.chunks.total})` : '',
        r.agreement !== undefined ? r.agreement.toFixed(3) : EXACT.has(r.method) ? 'exact' : 'not measured',
        r.report?.global.map((g) => g.stage).join(', ') || 'none',
      ].join(' | ')} |`,
    );
  }
  const reasons = new Map<string, string[]>();
  for (const r of rows) {
    for (const g of r.report?.global ?? []) {
      const list = reasons.get(r.method) ?? [];
      const line = `\`${g.stage}\`: ${g.reason}`;
      if (!list.includes(line)) list.push(line);
      reasons.set(r.method, list);
    }
  }
  const m = part.machine;
  const shownRoot = resolve(root) === resolve('../shared/datasets') ? '../shared/datasets' : root;
  const md = [
    '# Incremental updates',
    '',
    `Run ${part.date.slice(0, 10)} on ${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB), Node ${m.node}, ${m.platform}; the cores were shared with other jobs, so seconds are rough (calls, tokens and embedded texts are exact).`,
    '',
    `Corpus: the ${part.dataset} slice's ${part.corpus} passages, one document each (\`chunking: 'document'\` where the method accepts it: bm25, naive-dense, e2graphrag, ket-rag, noderag; sg-rag and da-rag chunk with their defaults).`,
    `A seeded shuffle (seed ${SEED}) picks the documents changed. **+p%**: the method is built on the other documents, then`,
    '`update` adds the p%; the rebuild is a fresh build of every document. **−1%**: `update` removes the same 1% from',
    'a fresh full index; the rebuild is a fresh build of the other 99%. Calls and tokens are the chat calls a build',
    "with a paid model would send (core's prompt task suite over a simulated chat model that answers with the",
    'offline heuristics, metered as `grag index --estimate` counts: gleanings and repairs included; tokens are',
    'prompt + answer tokens in cl100k_base). Embedded: texts sent to the embedder (offline hashed TF-IDF, fitted',
    'on the corpus of each build; an update keeps the fit of the index it changes). Global stages: what the',
    "update recomputed over the whole index (the method's `UpdateReport.global`; the local stages are in update.json).",
    `Top-10 agreement with full: for methods whose update approximates a build (a \`full\` update, \`grag add --full\`, recomputes what it keeps), the mean over the slice's ${part.questions ?? 'dev'} questions of the Jaccard similarity of the first ${AGREEMENT_K} passages retrieved (ranked as \`runEval\` ranks them) from the update and from a \`full\` update of the same index; \`exact\`: the update is the build's computation (its tests compare with a fresh build exactly).`,
    '',
    lines.join('\n'),
    '',
    ...(reasons.size > 0
      ? [
          '## Why stages run over the whole index',
          '',
          ...[...reasons].flatMap(([method, list]) => [`- **${method}**`, ...list.map((l) => `  - ${l}`)]),
          '',
        ]
      : []),
    `Reproduce (one process per method, then merge): \`nice -n 5 pnpm tsx benchmarks/update.ts ${shownRoot} --methods <method> --part <method>.json\`, then \`pnpm tsx benchmarks/update.ts --tables ${ORDER.map((o) => `${o}.json`).join(',')}\` (or \`pnpm tsx benchmarks/update.ts ${shownRoot}\` for all in one process).`,
    '',
  ].join('\n');
  writeFileSync(join(out, 'update.md'), md);
  process.stdout.write(`${md}\n`);
}

await main();
