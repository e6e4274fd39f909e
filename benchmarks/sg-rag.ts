/**
 * SG-RAG (@grag/sg-rag) on ERQA questions generated from FB15k-237 (@grag/eval `generateErqa`,
 * 3-6 constraints): Hit@1, precision, recall and F1 of SG-RAG (path length 1 and 2; training-free,
 * paper GAT and monotone dominance embedders) with query graphs that are gold with the KG's relation
 * text (oracle rows), gold without relation text, or extracted from the question by the offline
 * `extractQueryGraph`; the Table 3 baselines (entity, 1-hop, 2-hop graph retrieval) and naive dense
 * retrieval over triple sentences; per-query latency, index (and training) time, dominance pruning
 * power.
 *
 *   npx tsx benchmarks/sg-rag.ts [datasets-dir] [--count 200] [--configs a,b] [--out benchmarks/results]
 *     [--merge]    keep the rows of the configurations not rerun (from <out>/sg-rag.json)
 *     [--rewrite]  only rewrite sg-rag.{json,md} from <out>/sg-rag.json (run nothing)
 *
 * Rows and the md: ./sg-rag-report.ts; pruning power and the uncapped l = 2 path index:
 * ./sg-rag-paths.ts.
 *
 * Every configuration is seeded (questions: seed 1; embedders: seed 2022), so a rerun gives the same
 * quality numbers (times vary). Answers: SG-RAG returns the labels bound to X in the matched
 * subgraphs, ranked; the baselines (and SG-RAG's fallback) use the offline "coverage" answerer.
 * No LLM is involved. Each configuration runs in a child process so peak RSS is its own.
 */
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Document, QueryGraph } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { type ErqaQuestion, entityMetrics, generateErqa, loadKgTriples } from '@grag/eval';
import { createDenseRag } from '@grag/naive-rag';
import { createOfflineProviders } from '@grag/offline';
import { createSgRag, factSentence, type SgRagRetrieveOptions } from '@grag/sg-rag';
import { mean, runInChild } from './lib.js';
import { constraintPathIndex, pathPruning } from './sg-rag-paths.js';
import {
  CAP300_QUESTIONS,
  CONFIGS,
  type ConfigId,
  L2_MAX_MIDDLE_DEGREE,
  loadRows,
  mergeRows,
  type PerQuestion,
  type Row,
  UNCAPPED_QUESTIONS,
  writeResults,
} from './sg-rag-report.js';

type GraphKind = 'gold' | 'gold-no-relation';

function queryGraphOf(q: ErqaQuestion, kind: GraphKind): QueryGraph {
  const nodes: QueryGraph['nodes'] = [{ id: 'X', label: null, isTarget: true }];
  const edges: QueryGraph['edges'] = [];
  q.meta.constraints.forEach((c, i) => {
    const relation = kind === 'gold' ? c.relationText : '';
    nodes.push({ id: `c${i}`, label: c.entityName, isTarget: false });
    edges.push(
      c.direction === 'out'
        ? { source: 'X', target: `c${i}`, relation }
        : { source: `c${i}`, target: 'X', relation },
    );
  });
  return { nodes, edges, issues: [] };
}

function score(
  q: ErqaQuestion,
  predicted: string[],
  ms: number,
  trace: Record<string, unknown> = {},
): PerQuestion {
  const m = entityMetrics(predicted, q.entities);
  const fallback = trace.fallback === true;
  const matching = trace.matching as { matches?: number } | undefined;
  return {
    id: q.id,
    constraints: q.meta.constraints.length,
    ...m,
    ms,
    fallback,
    ...(matching?.matches !== undefined ? { matches: matching.matches } : {}),
    ...(fallback && typeof trace.fallbackReason === 'string' ? { fallbackReason: trace.fallbackReason } : {}),
  };
}

interface Variant {
  method: string;
  graph: GraphKind | 'extracted';
  oracle: boolean;
  options: SgRagRetrieveOptions;
}

async function runDense(root: string, count: number): Promise<Row[]> {
  const kg = loadKgTriples(join(root, 'fb15k237'));
  const { questions } = generateErqa(kg, { count, seed: 1 });
  const ctx = createBuildContext(createOfflineProviders());
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
    out.push(score(q, predicted, ms));
  }
  return [
    {
      config: 'naive-dense',
      method: 'naive dense (triple sentences, top 50)',
      queryGraph: null,
      oracle: false,
      pathLength: null,
      embedder: null,
      indexSeconds,
      stats: { facts: facts.length },
      peakRssMiB: process.resourceUsage().maxRSS / 1024,
      questions: out,
    },
  ];
}

function variantsOf(config: ConfigId): Variant[] {
  const l = config.startsWith('sg-rag-l2') ? 2 : 1;
  const oracle: Variant = {
    method: `SG-RAG (l=${l}) + relation match [oracle: gold graph with KG relations]`,
    graph: 'gold',
    oracle: true,
    options: { matchRelations: true },
  };
  const goldRel: Variant = {
    method: `SG-RAG (l=${l}) [oracle: gold graph, KG relation text ranks the matches]`,
    graph: 'gold',
    oracle: true,
    options: {},
  };
  const noRel: Variant = {
    method: `SG-RAG (l=${l}), gold graph without relation text`,
    graph: 'gold-no-relation',
    oracle: false,
    options: {},
  };
  const extracted: Variant = {
    method: `SG-RAG (l=${l}), query graph extracted from the question`,
    graph: 'extracted',
    oracle: false,
    options: {},
  };
  const tweak = (v: Variant, label: string, options: SgRagRetrieveOptions): Variant => ({
    ...v,
    method: `${v.method} — ${label}`,
    options: { ...v.options, ...options },
  });
  if (config === 'sg-rag-l1') {
    const base: Variant = { ...noRel, method: '', options: {} };
    return [
      oracle,
      goldRel,
      noRel,
      tweak(noRel, 'matches unranked (node order)', { rankMatches: 'none' }),
      tweak(noRel, 'exact label match first', { exactLabelMatch: true }),
      extracted,
      tweak(extracted, 'matches unranked (node order)', { rankMatches: 'none' }),
      tweak(extracted, 'exact label match first', { exactLabelMatch: true }),
      { ...base, method: 'entity-based retrieval', options: { mode: 'entity' } },
      { ...base, method: '1-hop graph retrieval', options: { mode: 'one-hop' } },
      { ...base, method: '2-hop graph retrieval', options: { mode: 'two-hop' } },
    ];
  }
  if (config.startsWith('sg-rag-l2')) return [oracle, noRel, extracted];
  return [noRel, extracted];
}

/**
 * The nodes a gold query graph of each question normalizes to (the package's own normalization,
 * read from the `entity` baseline's trace) plus the generator's constraint entities.
 */
async function constraintNodes(
  sg: ReturnType<typeof createSgRag>,
  index: Awaited<ReturnType<ReturnType<typeof createSgRag>['build']>>,
  questions: readonly ErqaQuestion[],
): Promise<Set<number>> {
  const at = new Map(index.graph.ids.map((id, i) => [id, i]));
  const ends = new Set<number>();
  for (const q of questions) {
    for (const c of q.meta.constraints) {
      const n = at.get(c.entity);
      if (n !== undefined) ends.add(n);
    }
    const r = await sg.retrieve(index, q.question, { queryGraph: queryGraphOf(q, 'gold'), mode: 'entity' });
    for (const n of r.trace.normalization as { node: string | null }[]) {
      const i = n.node === null ? undefined : at.get(n.node);
      if (i !== undefined) ends.add(i);
    }
  }
  return ends;
}

async function runSingle(root: string, config: ConfigId, count: number): Promise<Row[]> {
  if (config === 'naive-dense') return runDense(root, count);
  const kg = loadKgTriples(join(root, 'fb15k237'));
  let { questions } = generateErqa(kg, { count, seed: 1 });
  if (config === 'sg-rag-l2-cap300') questions = questions.slice(0, CAP300_QUESTIONS);
  if (config === 'sg-rag-l2-uncapped') questions = questions.slice(0, UNCAPPED_QUESTIONS);
  const ctx = createBuildContext(createOfflineProviders());
  const pathLength = config.startsWith('sg-rag-l2') ? 2 : 1;
  const uncapped = config === 'sg-rag-l2-uncapped';
  const embedder =
    config === 'sg-rag-l1-gat' ? 'gat' : config === 'sg-rag-l1-monotone' ? 'monotone' : 'training-free';
  const maxMiddleDegree = config === 'sg-rag-l2-cap300' ? 300 : L2_MAX_MIDDLE_DEGREE;
  const sg = createSgRag();
  const t0 = performance.now();
  // The uncapped index: the whole graph built at l = 1, then its path index replaced.
  const built = await sg.build([], ctx, {
    triples: kg.triples,
    entityText: kg.entities,
    relationText: kg.relations,
    pathLength: uncapped ? 1 : pathLength,
    maxMiddleDegree,
    dominanceEmbedder: embedder,
  });
  let index = built;
  if (uncapped) {
    const ends = await constraintNodes(sg, built, questions);
    const paths = constraintPathIndex(built, ends, built.options.nodeCapacity);
    index = {
      ...built,
      options: { ...built.options, pathLength: 2, maxMiddleDegree: Number.MAX_SAFE_INTEGER },
      paths,
      stats: { ...built.stats, paths: paths.tree.size, constraintNodes: ends.size, skippedMiddles: 0 },
    };
  }
  const indexSeconds = (performance.now() - t0) / 1000;
  const pruning = pathLength === 1 ? pathPruning(index, questions) : undefined;
  const rows: Row[] = [];
  const variants = variantsOf(config).filter((v) => !uncapped || v.graph !== 'extracted');
  for (const v of variants) {
    const out: PerQuestion[] = [];
    for (const q of questions) {
      const t1 = performance.now();
      const r = await sg.retrieve(index, q.question, {
        ...(v.graph === 'extracted' ? {} : { queryGraph: queryGraphOf(q, v.graph) }),
        ...v.options,
      });
      out.push(score(q, r.trace.answers as string[], performance.now() - t1, r.trace));
    }
    process.stderr.write(`  ${v.method}: Hit@1 ${mean(out.map((x) => x.hit1)).toFixed(3)}\n`);
    rows.push({
      config,
      method: v.method,
      queryGraph: v.options.mode && v.options.mode !== 'sg-rag' ? null : v.graph,
      oracle: v.oracle,
      pathLength,
      embedder,
      indexSeconds,
      stats: index.stats,
      ...(pruning ? { pruning } : {}),
      peakRssMiB: process.resourceUsage().maxRSS / 1024,
      ranAt: new Date().toISOString(),
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
      merge: { type: 'boolean', default: false },
      rewrite: { type: 'boolean', default: false },
    },
  });
  const root = resolve(positionals[0] ?? '../shared/datasets');
  const count = Number(values.count);
  if (!Number.isInteger(count) || count < 1) {
    throw new Error(`sg-rag benchmark: --count must be a positive integer, got "${values.count}".`);
  }
  if (values.single) {
    const rows = await runSingle(root, values.single as ConfigId, count);
    process.stdout.write(`${JSON.stringify(rows)}\n`);
    return;
  }
  if (values.rewrite) {
    writeResults(loadRows(values.out), count, values.out);
    return;
  }
  const configs = values.configs ? (values.configs.split(',') as ConfigId[]) : [...CONFIGS];
  const unknown = configs.filter((c) => !CONFIGS.includes(c));
  if (unknown.length > 0) {
    throw new Error(`sg-rag benchmark: unknown --configs ${unknown.join(', ')}; use ${CONFIGS.join(', ')}.`);
  }
  // --merge keeps the rows of every configuration this invocation does not rerun.
  const kept = values.merge ? loadRows(values.out) : [];
  const self = fileURLToPath(import.meta.url);
  const fresh: Row[] = [];
  for (const config of configs) {
    process.stderr.write(`running ${config} ...\n`);
    fresh.push(...runInChild<Row[]>(self, [root, '--single', config, '--count', String(count)]));
    // Written after every configuration, so a long run leaves the finished ones.
    writeResults(mergeRows(kept, fresh), count, values.out);
  }
}

await main();
