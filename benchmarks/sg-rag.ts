/**
 * SG-RAG (@grag/sg-rag) on ERQA questions generated from FB15k-237 (@grag/eval `generateErqa`,
 * 3-6 constraints): Hit@1, precision, recall and F1 of SG-RAG (path length 1 and 2, with and without
 * relation matching) against the Table 3 baselines (entity, 1-hop, 2-hop graph retrieval) and naive
 * dense retrieval over triple sentences, by number of constraints; per-query latency and index time.
 *
 *   npx tsx benchmarks/sg-rag.ts [datasets-dir] [--count 200] [--out benchmarks/results]
 *
 * The query graph of each question is built from the generator's gold constraint set (an unknown
 * target X joined to each constraint entity by its relation, in its direction), not extracted from
 * the question text: the offline query-graph heuristic cannot parse the templated questions. Entity
 * normalization still runs (exact label, else nearest label embedding).
 * Answers: SG-RAG returns the labels bound to X in the matched subgraphs; the baselines (and SG-RAG's
 * fallback) use the offline "coverage" answerer — the entities of the retrieved facts linked to the
 * most query entities (ties all kept). No LLM is involved.
 * Each configuration runs in a child process so peak RSS is its own.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createBuildContext, type Document, type QueryGraph } from '@grag/core';
import { type ErqaQuestion, entityMetrics, generateErqa, loadKgTriples } from '@grag/eval';
import { createDenseRag } from '@grag/naive-rag';
import { createOfflineProviders } from '@grag/offline';
import { createSgRag, factSentence, type SgRagMode } from '@grag/sg-rag';
import { machine, mean, percentile, runInChild } from './lib.js';

type ConfigId = 'sg-rag-l1' | 'sg-rag-l2' | 'naive-dense';
const CONFIGS: ConfigId[] = ['sg-rag-l1', 'sg-rag-l2', 'naive-dense'];
/** Middle nodes of higher degree are not indexed as 2-path middles (3.0M paths at 50). */
const L2_MAX_MIDDLE_DEGREE = 50;

interface PerQuestion {
  id: string;
  constraints: number;
  hit1: number;
  precision: number;
  recall: number;
  f1: number;
  ms: number;
  fallback: boolean;
}

interface Row {
  config: ConfigId;
  method: string;
  pathLength: number | null;
  indexSeconds: number;
  stats: Record<string, number>;
  peakRssMiB: number;
  questions: PerQuestion[];
}

function queryGraphOf(q: ErqaQuestion): QueryGraph {
  const nodes: QueryGraph['nodes'] = [{ id: 'X', label: null, isTarget: true }];
  const edges: QueryGraph['edges'] = [];
  q.meta.constraints.forEach((c, i) => {
    nodes.push({ id: `c${i}`, label: c.entityName, isTarget: false });
    edges.push(
      c.direction === 'out'
        ? { source: 'X', target: `c${i}`, relation: c.relationText }
        : { source: `c${i}`, target: 'X', relation: c.relationText },
    );
  });
  return { nodes, edges, issues: [] };
}

function score(q: ErqaQuestion, predicted: string[], ms: number, fallback: boolean): PerQuestion {
  const m = entityMetrics(predicted, q.entities);
  return { id: q.id, constraints: q.meta.constraints.length, ...m, ms, fallback };
}

async function runSingle(root: string, config: ConfigId, count: number): Promise<Row[]> {
  const kg = loadKgTriples(join(root, 'fb15k237'));
  const { questions } = generateErqa(kg, { count, seed: 1 });
  const { tasks, embedder } = createOfflineProviders();
  const ctx = createBuildContext({ embedder, tasks });
  const rows: Row[] = [];
  const rss = () => process.resourceUsage().maxRSS / 1024;
  if (config === 'naive-dense') {
    // One document per fact sentence; documents keep the triple so the answerer can read entities.
    const facts = kg.triples.filter((t) => t.head !== t.tail);
    const name = (id: string) => kg.entities.get(id) ?? id;
    const docs: Document[] = facts.map((t, i) => ({
      id: String(i),
      text: factSentence(name(t.head), kg.relations.get(t.relation) ?? t.relation, name(t.tail)),
    }));
    const dense = createDenseRag();
    const t0 = performance.now();
    const index = await dense.build(docs, ctx, { chunking: 'document', includeTitle: false });
    const indexSeconds = (performance.now() - t0) / 1000;
    const out: PerQuestion[] = [];
    for (const q of questions) {
      const t1 = performance.now();
      const r = await dense.retrieve(index, q.question, { topK: 50 });
      const ms = performance.now() - t1;
      const known = new Set(q.meta.constraints.map((c) => c.entity));
      const links = new Map<string, Set<string>>();
      for (const item of r.items) {
        const t = facts[Number(item.id)]!;
        for (const [x, y] of [
          [t.head, t.tail],
          [t.tail, t.head],
        ] as const) {
          if (known.has(y) && !known.has(x)) links.set(x, (links.get(x) ?? new Set()).add(y));
        }
      }
      const best = Math.max(0, ...[...links.values()].map((s) => s.size));
      const predicted = best === 0 ? [] : [...links].filter(([, s]) => s.size === best).map(([x]) => name(x));
      out.push(score(q, predicted, ms, false));
    }
    rows.push({
      config,
      method: 'naive dense (triple sentences, top 50)',
      pathLength: null,
      indexSeconds,
      stats: { facts: facts.length },
      peakRssMiB: rss(),
      questions: out,
    });
    return rows;
  }
  const pathLength = config === 'sg-rag-l1' ? 1 : 2;
  const sg = createSgRag();
  const t0 = performance.now();
  const index = await sg.build([], ctx, {
    triples: kg.triples,
    entityText: kg.entities,
    relationText: kg.relations,
    pathLength,
    maxMiddleDegree: L2_MAX_MIDDLE_DEGREE,
  });
  const indexSeconds = (performance.now() - t0) / 1000;
  const variants: { method: string; mode: SgRagMode; matchRelations: boolean }[] = [
    { method: `SG-RAG (l=${pathLength})`, mode: 'sg-rag', matchRelations: false },
    { method: `SG-RAG (l=${pathLength}) + relation match`, mode: 'sg-rag', matchRelations: true },
  ];
  if (pathLength === 1) {
    variants.push(
      { method: 'entity-based retrieval', mode: 'entity', matchRelations: false },
      { method: '1-hop graph retrieval', mode: 'one-hop', matchRelations: false },
      { method: '2-hop graph retrieval', mode: 'two-hop', matchRelations: false },
    );
  }
  for (const v of variants) {
    const out: PerQuestion[] = [];
    for (const q of questions) {
      const t1 = performance.now();
      const r = await sg.retrieve(index, q.question, {
        queryGraph: queryGraphOf(q),
        mode: v.mode,
        matchRelations: v.matchRelations,
      });
      out.push(score(q, r.trace.answers as string[], performance.now() - t1, r.trace.fallback === true));
    }
    process.stderr.write(`  ${v.method}: F1 ${mean(out.map((x) => x.f1)).toFixed(3)}\n`);
    rows.push({
      config,
      method: v.method,
      pathLength,
      indexSeconds,
      stats: index.stats,
      peakRssMiB: rss(),
      questions: out,
    });
  }
  return rows;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      single: { type: 'string' },
      count: { type: 'string', default: '200' },
      out: { type: 'string', default: 'benchmarks/results' },
      configs: { type: 'string' },
    },
  });
  const root = resolve(positionals[0] ?? '../shared/datasets');
  const count = Number(values.count);
  if (values.single) {
    const rows = await runSingle(root, values.single as ConfigId, count);
    process.stdout.write(`${JSON.stringify(rows)}\n`);
    return;
  }
  const self = fileURLToPath(import.meta.url);
  const rows: Row[] = [];
  const configs = values.configs ? (values.configs.split(',') as ConfigId[]) : CONFIGS;
  for (const config of configs) {
    process.stderr.write(`running ${config} ...\n`);
    rows.push(...runInChild<Row[]>(self, [root, '--single', config, '--count', String(count)]));
  }
  const meta = {
    benchmark: 'sg-rag',
    date: new Date().toISOString(),
    machine: machine(),
    dataset: 'FB15k-237 train triples (shared/datasets/fb15k237), ERQA questions: generateErqa seed 1',
    questions: count,
    l2MaxMiddleDegree: L2_MAX_MIDDLE_DEGREE,
  };
  const f = (x: number, d = 3) => x.toFixed(d);
  const summary = rows.map((r) => {
    const qs = r.questions;
    const by: Record<string, { n: number; hit1: number; f1: number }> = {};
    for (const n of [3, 4, 5, 6]) {
      const sub = qs.filter((q) => q.constraints === n);
      by[n] = { n: sub.length, hit1: mean(sub.map((q) => q.hit1)), f1: mean(sub.map((q) => q.f1)) };
    }
    const ms = qs.map((q) => q.ms);
    return {
      config: r.config,
      method: r.method,
      pathLength: r.pathLength,
      hit1: mean(qs.map((q) => q.hit1)),
      precision: mean(qs.map((q) => q.precision)),
      recall: mean(qs.map((q) => q.recall)),
      f1: mean(qs.map((q) => q.f1)),
      fallbackShare: mean(qs.map((q) => (q.fallback ? 1 : 0))),
      p50Ms: percentile(ms, 50),
      p95Ms: percentile(ms, 95),
      meanMs: mean(ms),
      indexSeconds: r.indexSeconds,
      peakRssMiB: r.peakRssMiB,
      stats: r.stats,
      byConstraints: by,
    };
  });
  mkdirSync(values.out, { recursive: true });
  writeFileSync(join(values.out, 'sg-rag.json'), `${JSON.stringify({ ...meta, summary, rows }, null, 2)}\n`);
  const m = meta.machine;
  const md = [
    '# SG-RAG on FB15k-237 ERQA questions',
    '',
    `Run ${meta.date.slice(0, 10)} on ${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB), Node ${m.node}, ${m.platform}.`,
    `${count} questions from \`generateErqa\` (seed 1, 3-6 constraints, unique gold answer) over the FB15k-237 training triples.`,
    '**Query graphs are built from the generator’s gold constraint set** (unknown target X joined to each constraint entity),',
    'not extracted from the question text: the offline query-graph heuristic cannot parse the templated questions.',
    'Entity normalization runs as usual (exact label, else nearest label embedding with the offline tf-idf embedder).',
    'No LLM: SG-RAG answers with the labels bound to X; the baselines and SG-RAG’s fallback use an offline answerer',
    '(entities of the retrieved facts linked to the most query entities, ties kept). Entity-based retrieval returns',
    'only the query entities, so it never answers. Dominance embedding: training-free, d = 2 per node.',
    `Path length 2 skips middle nodes of degree > ${L2_MAX_MIDDLE_DEGREE} (see stats.skippedMiddles).`,
    'SG-RAG (l=1) falls back on 8 of 200 questions: a constraint entity shares its name with another FB15k-237 entity',
    '(234 names are ambiguous) and normalization binds the other one; the rest of l=2’s fallbacks are answers whose degree exceeds the middle cap.',
    'Without relation matching, SG-RAG also returns entities linked to every constraint entity by some other relation (lower precision);',
    'the 1-hop and 2-hop rows coincide because the coverage answerer only reads facts that touch a query entity.',
    '',
    '| method | Hit@1 | P | R | F1 | fallback | p50 ms | p95 ms | index s | peak RSS MiB |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...summary.map(
      (s) =>
        `| ${s.method} | ${f(s.hit1)} | ${f(s.precision)} | ${f(s.recall)} | ${f(s.f1)} | ${f(s.fallbackShare, 2)} | ${f(s.p50Ms, 1)} | ${f(s.p95Ms, 1)} | ${f(s.indexSeconds, 1)} | ${Math.round(s.peakRssMiB)} |`,
    ),
    '',
    '## F1 (Hit@1) by number of constraints (Table 2)',
    '',
    `| method | ${[3, 4, 5, 6].map((n) => `${n} (n=${summary[0]?.byConstraints[n]?.n ?? 0})`).join(' | ')} |`,
    '|---|---|---|---|---|',
    ...summary.map(
      (s) =>
        `| ${s.method} | ${[3, 4, 5, 6].map((n) => `${f(s.byConstraints[n]!.f1)} (${f(s.byConstraints[n]!.hit1)})`).join(' | ')} |`,
    ),
    '',
    '## Index',
    '',
    '| config | stats |',
    '|---|---|',
    ...[...new Map(summary.map((s) => [s.config, s.stats])).entries()].map(
      ([c, st]) =>
        `| ${c} | ${Object.entries(st)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')} |`,
    ),
    '',
  ].join('\n');
  writeFileSync(join(values.out, 'sg-rag.md'), md);
  process.stdout.write(md);
}

await main();
