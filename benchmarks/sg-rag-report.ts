/**
 * Rows and report of the SG-RAG benchmark (benchmarks/sg-rag.ts): the row types, loading the rows
 * of an earlier run (`--merge`), and writing sg-rag.json and sg-rag.md from every row present.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { machine, mean, percentile } from './lib.js';
import { PRUNING_SAMPLE, type Pruning } from './sg-rag-paths.js';

/** The configurations, in report order. */
export const CONFIGS = [
  'sg-rag-l1',
  'sg-rag-l1-gat',
  'sg-rag-l1-monotone',
  'sg-rag-l2',
  'sg-rag-l2-cap300',
  'sg-rag-l2-uncapped',
  'naive-dense',
] as const;
/** One benchmark configuration (one child process, one index). */
export type ConfigId = (typeof CONFIGS)[number];

/** Middle nodes of higher degree are not indexed as 2-path middles (3.0M paths at 50). */
export const L2_MAX_MIDDLE_DEGREE = 50;
/** Questions of the l = 2 rerun at the package's default middle cap (300: 9.3M paths). */
export const CAP300_QUESTIONS = 60;
/** Questions of the l = 2 run without a middle cap (first questions of the same seed). */
export const UNCAPPED_QUESTIONS = 60;

/** One question of one row. */
export interface PerQuestion {
  id: string;
  constraints: number;
  hit1: number;
  precision: number;
  recall: number;
  f1: number;
  ms: number;
  fallback: boolean;
  /** Exact matches found (SG-RAG rows; absent in rows run before it was recorded). */
  matches?: number;
  /** Why the question fell back, when it did. */
  fallbackReason?: string;
}

/** One method × configuration, every question. */
export interface Row {
  config: ConfigId;
  method: string;
  /** What the query graph is: gold (oracle) with or without relation text, or extracted. */
  queryGraph: 'gold' | 'gold-no-relation' | 'extracted' | null;
  oracle: boolean;
  pathLength: number | null;
  embedder: string | null;
  indexSeconds: number;
  stats: Record<string, number>;
  /** Dominance-only pruning power over sampled indexed paths (see the md). */
  pruning?: Pruning;
  peakRssMiB: number;
  /** When the row was run (absent in rows run before it was recorded). */
  ranAt?: string;
  questions: PerQuestion[];
}

/** The rows of an earlier sg-rag.json under `out` (none when there is no file). */
export function loadRows(out: string): Row[] {
  const file = join(out, 'sg-rag.json');
  if (!existsSync(file)) return [];
  const json = JSON.parse(readFileSync(file, 'utf8')) as { rows?: Row[] };
  if (!Array.isArray(json.rows)) {
    throw new Error(`sg-rag benchmark: ${file} has no "rows" array; delete it or run without --merge.`);
  }
  return json.rows;
}

/** `kept` without the rows of the configurations in `fresh`, plus `fresh`, in {@link CONFIGS} order. */
export function mergeRows(kept: readonly Row[], fresh: readonly Row[]): Row[] {
  const rerun = new Set(fresh.map((r) => r.config));
  const all = [...kept.filter((r) => !rerun.has(r.config)), ...fresh];
  const order = (r: Row) => CONFIGS.indexOf(r.config);
  return all
    .map((r, i) => ({ r, i }))
    .sort((a, b) => order(a.r) - order(b.r) || a.i - b.i)
    .map(({ r }) => r);
}

const f = (x: number, d = 3) => x.toFixed(d);

function summarize(r: Row, ids?: ReadonlySet<string>) {
  const qs = ids ? r.questions.filter((q) => ids.has(q.id)) : r.questions;
  const by: Record<string, { n: number; hit1: number; f1: number }> = {};
  for (const n of [3, 4, 5, 6]) {
    const sub = qs.filter((q) => q.constraints === n);
    by[n] = { n: sub.length, hit1: mean(sub.map((q) => q.hit1)), f1: mean(sub.map((q) => q.f1)) };
  }
  const ms = qs.map((q) => q.ms);
  const withMatches = qs.filter((q) => q.matches !== undefined && !q.fallback);
  return {
    config: r.config,
    method: r.method,
    queryGraph: r.queryGraph,
    oracle: r.oracle,
    pathLength: r.pathLength,
    embedder: r.embedder,
    questions: qs.length,
    hit1: mean(qs.map((q) => q.hit1)),
    precision: mean(qs.map((q) => q.precision)),
    recall: mean(qs.map((q) => q.recall)),
    f1: mean(qs.map((q) => q.f1)),
    fallbackShare: mean(qs.map((q) => (q.fallback ? 1 : 0))),
    meanMatches: withMatches.length ? mean(withMatches.map((q) => q.matches!)) : null,
    p50Ms: percentile(ms, 50),
    p95Ms: percentile(ms, 95),
    meanMs: mean(ms),
    indexSeconds: r.indexSeconds,
    pruning: r.pruning,
    peakRssMiB: r.peakRssMiB,
    ranAt: r.ranAt ?? null,
    stats: r.stats,
    byConstraints: by,
  };
}
type Summary = ReturnType<typeof summarize>;

const HEAD = [
  '| method | questions | Hit@1 | P | R | F1 | fallback | p50 ms | p95 ms |',
  '|---|---|---|---|---|---|---|---|---|',
];
const line = (s: Summary) =>
  `| ${s.method} | ${s.questions} | ${f(s.hit1)} | ${f(s.precision)} | ${f(s.recall)} | ${f(s.f1)} | ${f(s.fallbackShare, 2)} | ${f(s.p50Ms, 1)} | ${f(s.p95Ms, 1)} |`;

function embedderTable(summary: Summary[]): string[] {
  const firsts = summary.filter(
    (s, i, all) => s.pathLength === 1 && all.findIndex((t) => t.config === s.config) === i,
  );
  return [
    '| embedder | index s | train s | saturated nodes | pruning power | false neg. | Hit@1 (gold, no rel.) | Hit@1 (extracted) | p50 ms (gold, no rel.) |',
    '|---|---|---|---|---|---|---|---|---|',
    ...firsts.map((e) => {
      const rowsOf = summary.filter((s) => s.config === e.config);
      const noRel = rowsOf.find((s) => s.queryGraph === 'gold-no-relation' && !s.method.includes('—'));
      const ex = rowsOf.find((s) => s.queryGraph === 'extracted' && !s.method.includes('—'));
      return `| ${e.embedder} | ${f(e.indexSeconds, 1)} | ${f(e.stats.dominanceTrainSeconds ?? 0, 1)} | ${e.stats.dominanceSaturated ?? 0} | ${f(100 * (e.pruning?.power ?? 0), 1)}% | ${e.pruning?.falseNegatives ?? '–'} | ${noRel ? f(noRel.hit1) : '–'} | ${ex ? f(ex.hit1) : '–'} | ${noRel ? f(noRel.p50Ms, 1) : '–'} |`;
    }),
  ];
}

/** cap 50, cap 300 and uncapped l = 2 rows restricted to the questions of the uncapped run. */
function sameSubsample(rows: readonly Row[]): string[] {
  const uncapped = rows.filter((r) => r.config === 'sg-rag-l2-uncapped');
  if (uncapped.length === 0) return [];
  const ids = new Set(uncapped[0]!.questions.map((q) => q.id));
  const label: Partial<Record<ConfigId, string>> = {
    'sg-rag-l1': 'l = 1',
    'sg-rag-l2': `l = 2, cap ${L2_MAX_MIDDLE_DEGREE}`,
    'sg-rag-l2-cap300': 'l = 2, cap 300',
    'sg-rag-l2-uncapped': 'l = 2, no cap',
  };
  const out = [
    `### The first ${ids.size} questions: l = 1 and l = 2 at cap ${L2_MAX_MIDDLE_DEGREE}, 300 and none`,
    '',
    '| query graph | index | indexed 2-paths | questions | Hit@1 | F1 | fallback | mean matches | p50 ms |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of uncapped) {
    const kind = r.method.replace(/^SG-RAG \(l=2\),?\s*/, '');
    for (const c of ['sg-rag-l1', 'sg-rag-l2', 'sg-rag-l2-cap300', 'sg-rag-l2-uncapped'] as const) {
      const l = c === 'sg-rag-l1' ? 1 : 2;
      const row = rows.find((x) => x.config === c && x.method === r.method.replace('(l=2)', `(l=${l})`));
      if (!row) continue;
      const s = summarize(row, ids);
      if (s.questions < ids.size) continue;
      const paths = l === 1 ? '–' : String(row.stats.paths ?? '–');
      out.push(
        `| ${kind} | ${label[c]} | ${paths} | ${s.questions} | ${f(s.hit1)} | ${f(s.f1)} | ${f(s.fallbackShare, 2)} | ${s.meanMatches === null ? '–' : f(s.meanMatches, 1)} | ${f(s.p50Ms, 1)} |`,
      );
    }
  }
  return [...out, '', ...capEffect(rows, ids), ''];
}

/** What the cap changes on the subsample, from the per-question rows (gold graph, no relation text). */
function capEffect(rows: readonly Row[], ids: ReadonlySet<string>): string[] {
  const kind = 'gold graph without relation text';
  const of = (c: ConfigId, l: number) => {
    const r = rows.find((x) => x.config === c && x.method === `SG-RAG (l=${l}), ${kind}`);
    const qs = r?.questions.filter((q) => ids.has(q.id)) ?? [];
    return qs.length === ids.size ? new Map(qs.map((q) => [q.id, q])) : undefined;
  };
  const l1 = of('sg-rag-l1', 1);
  const cap50 = of('sg-rag-l2', 2);
  const none = of('sg-rag-l2-uncapped', 2);
  if (!cap50 || !none) return [];
  const list = [...ids];
  const count = (p: (id: string) => boolean) => list.filter(p).length;
  const capOnly = count((id) => cap50.get(id)!.fallback && !none.get(id)!.fallback);
  const bothMatched = list.filter((id) => !cap50.get(id)!.fallback && !none.get(id)!.fallback);
  const fewer = bothMatched.filter(
    (id) => (cap50.get(id)!.matches ?? 0) < (none.get(id)!.matches ?? 0),
  ).length;
  const gained = count((id) => cap50.get(id)!.hit1 > none.get(id)!.hit1);
  const lost = count((id) => cap50.get(id)!.hit1 < none.get(id)!.hit1);
  const sameAsL1 = l1
    ? count(
        (id) =>
          l1.get(id)!.fallback === none.get(id)!.fallback &&
          l1.get(id)!.matches === none.get(id)!.matches &&
          l1.get(id)!.hit1 === none.get(id)!.hit1,
      )
    : null;
  // All questions: l = 1 against l = 2 at cap 50.
  const all = (c: ConfigId, l: number) =>
    rows.find((x) => x.config === c && x.method === `SG-RAG (l=${l}), ${kind}`)?.questions ?? [];
  const [a1, a2] = [all('sg-rag-l1', 1), all('sg-rag-l2', 2)];
  const share = (qs: PerQuestion[], p: (q: PerQuestion) => boolean) =>
    f(mean(qs.map((q) => (p(q) ? 1 : 0))), 3);
  return [
    `What the cap does (${kind}, these ${ids.size} questions): cap ${L2_MAX_MIDDLE_DEGREE} falls back on ${capOnly} question(s) the`,
    `uncapped index matches (every X they match has degree > ${L2_MAX_MIDDLE_DEGREE}, so none of its c–X–c′ paths is indexed;`,
    `the fallback’s coverage answerer may still name it); of the ${bothMatched.length} questions both match, cap ${L2_MAX_MIDDLE_DEGREE} finds fewer`,
    `matches on ${fewer} (high-degree distractors X dropped). Hit@1: cap ${L2_MAX_MIDDLE_DEGREE} is right where the uncapped index is wrong on`,
    `${gained}, and wrong where it is right on ${lost}.`,
    ...(sameAsL1 === null
      ? []
      : [
          `Uncapped l = 2 and l = 1 agree (same fallback, same number of matches, same Hit@1) on ${sameAsL1} of the ${ids.size}:`,
          'on a star query a c–X–c′ 2-path exists exactly when X is adjacent to c and c′, so both find the same',
          'subgraphs — the paper’s Table 6 has l = 1 and l = 2 about equal.',
        ]),
    ...(a1.length && a1.length === a2.length
      ? (() => {
          const at2 = new Map(a2.map((q) => [q.id, q]));
          const better = a1.filter((q) => at2.get(q.id)!.hit1 > q.hit1).length;
          const worse = a1.filter((q) => at2.get(q.id)!.hit1 < q.hit1);
          const worseFallback = worse.filter((q) => at2.get(q.id)!.fallback).length;
          return [
            `On all ${a1.length} questions l = 2 at cap ${L2_MAX_MIDDLE_DEGREE} has Hit@1 ${share(a2, (q) => q.hit1 === 1)} (fallback ${share(a2, (q) => q.fallback)}),`,
            `l = 1 ${share(a1, (q) => q.hit1 === 1)} (fallback ${share(a1, (q) => q.fallback)}). l = 2 is right where l = 1 is wrong on ${better} question(s), and wrong`,
            `where l = 1 is right on ${worse.length}: ${worseFallback} fall back at l = 2, the other ${worse.length - worseFallback} match without the answer (its paths`,
            'are capped; the matches of a capped index are a subset of the uncapped ones, ranked alike). With the matches',
            better === 0
              ? 'ranked, the distractors the cap removes no longer decide Hit@1; here the cap only loses answers.'
              : 'ranked, the distractors the cap removes decide Hit@1 less often than the capped answers do.',
          ];
        })()
      : []),
  ];
}

/** Writes sg-rag.json and sg-rag.md under `out` from `rows` (every configuration present). */
export function writeResults(rows: readonly Row[], count: number, out: string): void {
  const meta = {
    benchmark: 'sg-rag',
    date: new Date().toISOString(),
    machine: machine(),
    dataset: 'FB15k-237 train triples (shared/datasets/fb15k237), ERQA questions: generateErqa seed 1',
    questions: count,
    l2MaxMiddleDegree: L2_MAX_MIDDLE_DEGREE,
    cap300Questions: CAP300_QUESTIONS,
    uncappedQuestions: UNCAPPED_QUESTIONS,
    pruningSample: PRUNING_SAMPLE,
  };
  const summary = rows.map((r) => summarize(r));
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'sg-rag.json'), `${JSON.stringify({ ...meta, summary, rows }, null, 2)}\n`);
  const m = meta.machine;
  const byConfig = (c: ConfigId) => summary.filter((s) => s.config === c);
  const dates = rows.map((r) => r.ranAt?.slice(0, 10)).filter((d): d is string => !!d);
  const md = [
    '# SG-RAG on FB15k-237 ERQA questions',
    '',
    `Written ${meta.date.slice(0, 10)} on ${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB), Node ${m.node}, ${m.platform}${dates.length ? ` (rows run ${[...new Set(dates)].sort().join(', ')}; see the Index table)` : ''}.`,
    `${count} questions from \`generateErqa\` (seed 1, 3-6 constraints, unique gold answer) over the FB15k-237 training triples.`,
    'Reproduce: `npx tsx benchmarks/sg-rag.ts ../shared/datasets` (every configuration); one configuration into the',
    'existing results: `--configs sg-rag-l1 --merge`; rewrite the md from the json: `--rewrite`.',
    '',
    'Query graphs. **Oracle rows** use the generator’s gold constraint set (unknown target X joined to each',
    'constraint entity) *with the KG’s own relation text and direction*: “+ relation match” then requires the exact',
    'KG relation, and the plain oracle row lets that text rank the matches — both are upper bounds no question text gives.',
    '“gold graph without relation text” keeps the gold structure and entity names but empty relations (matches are',
    'ranked against the question text). “extracted” rows read the query graph from the question with the offline',
    '`extractQueryGraph` task (no gold information at all).',
    'Entity normalization: nearest label embedding (SG-RAG Algorithm 3, offline tf-idf embedder); “exact label match first”',
    'takes a node with the same label (case-insensitive) before the search (`exactLabelMatch: true`).',
    'Answers: the labels bound to X, ranked by `rankMatches: "similarity"` (relation similarity of the matched edges',
    'to the query edges, the question for edges without text); “unranked” keeps the node order of the matches',
    '(`rankMatches: "none"`, the previous behaviour). The baselines and SG-RAG’s fallback use the offline coverage',
    'answerer (entities of the retrieved facts linked to the most query entities, ties kept). No LLM.',
    '',
    '## SG-RAG (l = 1, training-free dominance embedding) and the Table 3 baselines',
    '',
    ...HEAD,
    ...byConfig('sg-rag-l1').map(line),
    ...byConfig('naive-dense').map(line),
    '',
    '## Dominance embedders (l = 1)',
    '',
    'Trained embedders: `dominanceEpochs` 2 over `dominanceTrainVertices` 1000 vertices of degree ≤ 10 (seed 2022;',
    'tfjs pure-JS CPU backend on 2 shared cores, so training is kept short), d = 2, star labels = node identities',
    '(hashed node-id features). Index s includes training. Pruning power: the share of',
    `${PRUNING_SAMPLE} seeded sampled indexed paths (non-matching) whose box fails o(p_q) ⪯ o(p_z) for the query paths`,
    '[X, c] of every question with X = the gold answer — what the dominance test alone prunes, labels ignored;',
    'false negatives: true paths rejected (0 for a correct dominance embedding; the GAT is served with the closure',
    'correction, so nodes with > 1024 sub-stars saturate to 1 and never prune).',
    '',
    ...embedderTable(summary),
    '',
    ...((['sg-rag-l1-gat', 'sg-rag-l1-monotone'] as const).some((c) => byConfig(c).length)
      ? [
          ...HEAD,
          ...(['sg-rag-l1-gat', 'sg-rag-l1-monotone'] as const).flatMap((c) =>
            byConfig(c).map((s) => line({ ...s, method: `${s.method} [${s.embedder}]` })),
          ),
          '',
        ]
      : []),
    '## Path length 2',
    '',
    `l = 2 indexes every 2-path whose middle node has degree ≤ the cap: ${L2_MAX_MIDDLE_DEGREE} (3.0M paths, all ${count} questions)`,
    `and the package default 300 (9.3M paths, first ${CAP300_QUESTIONS} questions). Without any cap FB15k-237 has 66.8M`,
    '2-paths, beyond this machine. A star query’s 2-paths are c–X–c′, so the cap drops every candidate X (the gold',
    'answer included) of higher degree: those questions fall back, and the distractors of high degree vanish with them.',
    `The uncapped row (first ${UNCAPPED_QUESTIONS} questions) indexes, over the whole KG graph with no cap, every 2-path`,
    'whose two ends are both normalized constraint nodes of those questions (gold graphs only: the nodes are known',
    'before the run). Those are the only 2-paths a c–X–c′ query path can match, so its matches, fallbacks and answers are',
    'those of the full 66.8M-path index; only its latency is lower (a smaller tree). The graph, the label vocabulary',
    'and the dominance rows are the whole KG’s.',
    '',
    ...HEAD,
    ...byConfig('sg-rag-l2').map(line),
    ...byConfig('sg-rag-l2-cap300').map((s) => line({ ...s, method: `${s.method} [cap 300]` })),
    ...byConfig('sg-rag-l2-uncapped').map((s) => line({ ...s, method: `${s.method} [no cap]` })),
    '',
    ...sameSubsample(rows),
    '## F1 (Hit@1) by number of constraints (Table 2)',
    '',
    `| method | ${[3, 4, 5, 6].map((n) => `${n} (n=${summary[0]?.byConstraints[n]?.n ?? 0})`).join(' | ')} |`,
    '|---|---|---|---|---|',
    ...summary
      .filter((s) => s.questions === count)
      .map(
        (s) =>
          `| ${s.method}${s.embedder && s.embedder !== 'training-free' ? ` [${s.embedder}]` : ''} | ${[3, 4, 5, 6].map((n) => `${f(s.byConstraints[n]!.f1)} (${f(s.byConstraints[n]!.hit1)})`).join(' | ')} |`,
      ),
    '',
    '## Index',
    '',
    '| config | run | index s | peak RSS MiB | stats |',
    '|---|---|---|---|---|',
    ...summary
      .filter((s, i, all) => all.findIndex((t) => t.config === s.config) === i)
      .map(
        (s) =>
          `| ${s.config} | ${s.ranAt?.slice(0, 10) ?? '–'} | ${f(s.indexSeconds, 1)} | ${Math.round(s.peakRssMiB)} | ${Object.entries(
            s.stats,
          )
            .map(([k, v]) => `${k} ${Number.isInteger(v) ? v : v.toFixed(3)}`)
            .join(', ')} |`,
      ),
    '',
  ].join('\n');
  writeFileSync(join(out, 'sg-rag.md'), md);
}
