/**
 * The benchmark runner: build each method's index, retrieve for every question with bounded
 * concurrency, optionally answer and judge, and record per-question and aggregate metrics, cost
 * and a run manifest. Per-question results are appended to a JSONL file, so a run can be resumed.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  AbortError,
  embedAll,
  GragError,
  InvalidArgumentError,
  Meter,
  type MeterSnapshot,
  ModelOutputError,
  meteredChat,
  modelFingerprint,
  type Retrieval,
  throwIfAborted,
} from '@grag/core';
import { mapLimit } from './concurrency.js';
import type { EvalQuestion, SkippedRecord } from './datasets/types.js';
import { type IndexProvenance, obtainIndex, RunStores } from './index-source.js';
import { judgeCorrectness } from './judges/judges.js';
import { runJudges } from './judging.js';
import {
  coverage,
  entityMetrics,
  exactMatch,
  multipleChoiceAccuracy,
  parseEntityList,
  rougeL,
  tokenF1,
} from './metrics/answer.js';
import { rankedPassages, recallAt } from './metrics/retrieval.js';
import {
  adjacencyOf,
  averagePairwiseSimilarity,
  type NeighborFn,
  qrScore,
  subgraphDensity,
  subgraphDiameter,
} from './metrics/subgraph.js';
import { seededRandom, shuffle } from './random.js';
import {
  appendRecord,
  assertEvalOutput,
  BUILDS_FILE,
  datasetFingerprint,
  MANIFEST_FILE,
  providerFingerprint,
  RESULTS_FILE,
  readJsonlRecords,
  SESSIONS_FILE,
  safeName,
  sha1,
  stableJson,
  VERSION,
} from './run-records.js';
import {
  type AnyIndex,
  type BuildRecord,
  type EvalRun,
  type JudgeSummary,
  type MethodSpec,
  type MethodSummary,
  type QuestionResult,
  RUN_DEFAULTS,
  type RunManifest,
  type RunOptions,
  type SessionRecord,
} from './run-types.js';
import { gitState, machine, mean, peakRssMiB, percentile } from './stats.js';
import { addSnapshots } from './usage.js';

/** The text given to the answer task: the question, with its options for a multiple-choice one. */
export function answerQuery(q: EvalQuestion): string {
  if (q.format === 'multiple-choice' && q.options) {
    const letters = q.options.map((o, i) => `${String.fromCharCode(65 + i)}. ${o}`).join('\n');
    return `${q.question}\nOptions:\n${letters}\nAnswer with the letter of the correct option.`;
  }
  if (q.format === 'entity') return `${q.question}\nAnswer with the entity name only.`;
  return q.question;
}

/** Metrics of an answer to a question, by the question's format. */
export function answerMetrics(q: EvalQuestion, answer: string): Record<string, number> {
  const m: Record<string, number> = {};
  switch (q.format ?? 'short') {
    case 'multiple-choice':
      if (q.options && q.correctOption !== undefined)
        m.accuracy = multipleChoiceAccuracy(answer, q.options, q.correctOption);
      break;
    case 'open': {
      m.rougeL = rougeL(answer, q.answers).f1;
      m.f1 = tokenF1(answer, q.answers);
      break;
    }
    case 'entity': {
      const e = entityMetrics(parseEntityList(answer), q.entities ?? q.answers.map((a) => [a]));
      m.hit1 = e.hit1;
      m.entityPrecision = e.precision;
      m.entityRecall = e.recall;
      m.entityF1 = e.f1;
      m.em = exactMatch(answer, q.answers);
      m.f1 = tokenF1(answer, q.answers);
      break;
    }
    default:
      m.em = exactMatch(answer, q.answers);
      m.f1 = tokenF1(answer, q.answers);
  }
  return m;
}

function summarize(
  label: string,
  spec: MethodSpec,
  key: string,
  providers: Record<string, string>,
  results: QuestionResult[],
  resumed: number,
  build: {
    seconds: number;
    usage: MeterSnapshot;
    source: 'built' | 'loaded' | 'skipped';
    peakRssMiB: number;
  },
  sessions: SessionRecord[],
): MethodSummary {
  const ok = results.filter((r) => r.error === undefined);
  const failed = results.filter((r) => r.error !== undefined);
  const values = new Map<string, number[]>();
  for (const r of ok) {
    for (const [name, v] of Object.entries(r.metrics)) {
      if (!Number.isFinite(v)) continue;
      let list = values.get(name);
      if (!list) {
        list = [];
        values.set(name, list);
      }
      list.push(v);
    }
  }
  const metrics: Record<string, number> = {};
  const metricCounts: Record<string, number> = {};
  for (const [name, list] of values) {
    metrics[name] = mean(list);
    metricCounts[name] = list.length;
  }
  const latencies = ok.map((r) => r.retrieveMs);
  const answerTimes = ok.flatMap((r) => (r.answerMs === undefined ? [] : [r.answerMs]));
  return {
    label,
    method: spec.method.name,
    key,
    options: spec.options ?? {},
    providers,
    questions: ok.length,
    failed: failed.length,
    errors: failed.slice(0, 5).map((r) => ({ questionId: r.questionId, message: r.error as string })),
    resumed,
    metrics,
    metricCounts,
    latencyMs: { p50: percentile(latencies, 50), p95: percentile(latencies, 95), mean: mean(latencies) },
    ...(answerTimes.length > 0
      ? {
          answerMs: {
            p50: percentile(answerTimes, 50),
            p95: percentile(answerTimes, 95),
            mean: mean(answerTimes),
          },
        }
      : {}),
    contextTokens: mean(ok.map((r) => r.contextTokens)),
    index: { seconds: build.seconds, usage: build.usage, source: build.source },
    query: { usage: addSnapshots(sessions.map((s) => s.usage)) },
    peakRssMiB: (() => {
      const known = [build.peakRssMiB, ...sessions.map((s) => s.peakRssMiB)].filter(Number.isFinite);
      return known.length > 0 ? Math.max(...known) : Number.NaN;
    })(),
  };
}

/**
 * Evaluate methods on a dataset. For each method: fresh providers, the index built (its Meter
 * records model calls and tokens per build stage) or loaded from an earlier session, one untimed
 * warm-up retrieval, then every question not yet done — retrieval (timed), optional answer and
 * judge — with at most `concurrency` in flight. Each result is appended to `out/results.jsonl` as
 * it finishes, so an interrupted run resumes where it stopped; results made with other settings
 * are refused unless `restart`. Judging across methods (win rates, Empowerment) runs last and is
 * resumable too (`out/judgments.jsonl`). Writes `out/run.json` (the manifest) and returns the run;
 * pass it to `writeReports` for JSON, markdown and SVG.
 */
export async function runEval(options: RunOptions): Promise<EvalRun> {
  const stores = new RunStores(options.indexStore);
  try {
    return await evaluate(options, stores);
  } finally {
    await stores.closeAll();
  }
}

async function evaluate(options: RunOptions, stores: RunStores): Promise<EvalRun> {
  const opts = { ...RUN_DEFAULTS, ...options };
  const { dataset, out, signal } = opts;
  const log = opts.onLog ?? (() => {});
  if (opts.methods.length === 0)
    throw new InvalidArgumentError('methods', 'runEval: no methods given; pass at least one method spec.');
  const labels = opts.methods.map((s) => s.label ?? s.method.name);
  const dup = labels.find((l, i) => labels.indexOf(l) !== i);
  if (dup !== undefined)
    throw new InvalidArgumentError(
      'methods',
      `runEval: two methods are labelled "${dup}"; give each spec its own label.`,
    );
  if (!Number.isInteger(opts.concurrency) || opts.concurrency < 1)
    throw new InvalidArgumentError(
      'concurrency',
      `runEval: concurrency must be a positive integer, got ${opts.concurrency}.`,
    );
  if (opts.judge && !opts.generateAnswers)
    throw new InvalidArgumentError(
      'judge',
      'runEval: judges grade answers; set generateAnswers: true to use them.',
    );
  if (opts.judge?.pairwiseBaseline !== undefined && !labels.includes(opts.judge.pairwiseBaseline))
    throw new InvalidArgumentError(
      'judge',
      `runEval: pairwise baseline "${opts.judge.pairwiseBaseline}" is not one of the methods (${labels.join(', ')}).`,
    );
  let selected = [...dataset.questions];
  if (opts.shuffle) shuffle(seededRandom(opts.seed), selected);
  if (opts.limit !== undefined) selected = selected.slice(0, opts.limit);
  if (selected.length === 0)
    throw new InvalidArgumentError(
      'dataset',
      `runEval: dataset "${dataset.name}" has no questions to evaluate.`,
    );
  assertEvalOutput(out);
  mkdirSync(out, { recursive: true });
  const skippedLines: SkippedRecord[] = [];
  const resultsPath = join(out, RESULTS_FILE);
  const previous = readJsonlRecords<QuestionResult>(resultsPath, skippedLines);
  const builds = readJsonlRecords<BuildRecord>(join(out, BUILDS_FILE), skippedLines);
  const sessions = readJsonlRecords<SessionRecord>(join(out, SESSIONS_FILE), skippedLines);
  for (const skip of skippedLines) log(`ignored ${skip.path}:${skip.line}: ${skip.reason}`);
  const manifestPath = join(out, MANIFEST_FILE);
  const earlier = existsSync(manifestPath)
    ? (JSON.parse(readFileSync(manifestPath, 'utf8')) as Partial<RunManifest>)
    : undefined;
  const fingerprint = datasetFingerprint(dataset);
  const runSettings = {
    budgetTokens: opts.budgetTokens,
    topK: opts.topK,
    generateAnswers: opts.generateAnswers,
    recallAt: opts.recallAt,
    subgraphMetrics: opts.subgraphMetrics,
    judgeCorrectness: opts.judge ? (opts.judge.correctness ?? true) : false,
    judgeModel: opts.judge ? modelFingerprint(opts.judge.model) : undefined,
    dataset: fingerprint,
  };
  const judgeMeter = new Meter();
  const judgeModel = opts.judge ? meteredChat(opts.judge.model, judgeMeter) : undefined;
  const manifest: RunManifest = {
    tool: { name: '@grag/eval', version: VERSION },
    createdAt: earlier?.createdAt ?? new Date().toISOString(),
    updatedAt: new Date().toISOString(),
    ...(opts.command !== undefined ? { command: opts.command } : {}),
    dataset: {
      name: dataset.name,
      format: dataset.format,
      ...(dataset.path !== undefined ? { path: dataset.path } : {}),
      documents: dataset.corpus.length,
      questionsTotal: dataset.questions.length,
      questionsSelected: selected.length,
      skippedRecords: dataset.skipped.length,
      fingerprint,
    },
    options: {
      budgetTokens: opts.budgetTokens,
      ...(opts.topK !== undefined ? { topK: opts.topK } : {}),
      generateAnswers: opts.generateAnswers,
      concurrency: opts.concurrency,
      recallAt: [...opts.recallAt],
      ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
      shuffle: opts.shuffle,
      warmup: opts.warmup,
      subgraphMetrics: opts.subgraphMetrics,
    },
    methods: [],
    ...(opts.judge
      ? {
          judge: {
            model: modelFingerprint(opts.judge.model),
            correctness: opts.judge.correctness ?? true,
            ...(opts.judge.pairwiseBaseline !== undefined
              ? { pairwiseBaseline: opts.judge.pairwiseBaseline }
              : {}),
            empowerment: opts.judge.empowerment ?? false,
          },
        }
      : {}),
    seed: opts.seed,
    git: gitState(),
    machine: machine(),
    node: process.version,
  };
  const summaries: MethodSummary[] = [];
  const allResults: QuestionResult[] = [];
  const selectedIds = new Set(selected.map((q) => q.id));

  for (const [specIndex, spec] of opts.methods.entries()) {
    throwIfAborted(signal);
    const label = labels[specIndex] as string;
    const makeContext = spec.context ?? opts.context;
    if (!makeContext)
      throw new InvalidArgumentError(
        'context',
        `runEval: no providers for "${label}"; pass context: () => createBuildContext({...}) in the options or the method spec.`,
      );
    const ctx = makeContext();
    if (opts.onProgress && !ctx.onProgress) ctx.onProgress = opts.onProgress;
    const providers = providerFingerprint(ctx);
    const retrieveExtra = spec.retrieve ?? {};
    const key = sha1(
      stableJson({
        label,
        method: spec.method.name,
        formatVersion: spec.method.formatVersion,
        options: spec.options ?? {},
        retrieve: retrieveExtra,
        providers,
        ...runSettings,
      }),
    ).slice(0, 16);
    manifest.methods.push({
      label,
      method: spec.method.name,
      formatVersion: spec.method.formatVersion,
      options: spec.options ?? {},
      retrieve: retrieveExtra,
      providers,
      key,
    });
    const mine = previous.filter((r) => r.method === label);
    const stale = mine.filter((r) => r.key !== key);
    if (stale.length > 0 && !mine.some((r) => r.key === key) && !opts.restart) {
      throw new InvalidArgumentError(
        'out',
        `runEval: ${resultsPath} holds results of "${label}" made with other settings (dataset, options, budget or providers changed). ` +
          'Use another output directory, or pass restart: true (CLI: --restart) to evaluate afresh alongside them.',
      );
    }
    // The latest result of each question with this key wins (a failed question is retried).
    const done = new Map<string, QuestionResult>();
    for (const r of mine) if (r.key === key && selectedIds.has(r.questionId)) done.set(r.questionId, r);
    for (const [id, r] of done) if (r.error !== undefined) done.delete(id);
    const pending = selected.filter((q) => !done.has(q.id));
    const resumed = done.size;
    if (resumed > 0)
      log(`${label}: ${resumed} of ${selected.length} questions done in an earlier session; resuming.`);

    const builtBefore = builds.filter((b) => b.method === label && b.key === key).at(-1);
    let build: IndexProvenance | undefined;
    let index: AnyIndex;
    const sessionResults: QuestionResult[] = [];
    if (pending.length === 0) {
      build = {
        seconds: builtBefore?.seconds ?? Number.NaN,
        usage: builtBefore?.usage ?? new Meter().snapshot(),
        source: 'skipped',
        peakRssMiB: builtBefore?.peakRssMiB ?? Number.NaN,
      };
      log(`${label}: every question was done in an earlier session; nothing to build.`);
    } else {
      ({ index, build } = await obtainIndex({
        label,
        method: spec.method,
        options: spec.options ?? {},
        ctx,
        dataset,
        builtBefore,
        save: opts.saveIndexes,
        indexDir: join(out, 'indexes', safeName(label)),
        store: stores.get(label),
        log,
        recordBuild: ({ saved, ...measured }) => {
          const record: BuildRecord = {
            method: label,
            key,
            ...measured,
            ...saved,
            at: new Date().toISOString(),
          };
          appendRecord(join(out, BUILDS_FILE), record);
        },
      }));
      ctx.meter.reset();
      const budgetTokens = opts.budgetTokens;
      const retrieveOptions = {
        ...retrieveExtra,
        budgetTokens,
        ...(opts.topK !== undefined ? { topK: opts.topK } : {}),
        ...(signal ? { signal } : {}),
      };
      if (opts.warmup)
        await spec.method.retrieve(index, (pending[0] as EvalQuestion).question, retrieveOptions);
      ctx.meter.reset();
      const passageOf = spec.passageOf?.(index);
      let neighbors: NeighborFn | undefined;
      const graphNeighbors = () => {
        if (!neighbors && spec.graph) neighbors = adjacencyOf(spec.graph(index));
        return neighbors;
      };
      let finished = 0;
      const report = () =>
        opts.onProgress?.({
          stage: `${label}: questions`,
          done: finished,
          total: pending.length,
          unit: 'questions',
        });
      report();
      await mapLimit(
        pending,
        opts.concurrency,
        async (q) => {
          const result: QuestionResult = {
            method: label,
            key,
            questionId: q.id,
            retrieveMs: 0,
            contextTokens: 0,
            items: 0,
            passages: [],
            metrics: {},
          };
          try {
            const t0 = performance.now();
            const retrieval: Retrieval = await ctx.meter.stage('retrieve', () =>
              spec.method.retrieve(index, q.question, retrieveOptions),
            );
            result.retrieveMs = performance.now() - t0;
            result.contextTokens = retrieval.tokens;
            result.items = retrieval.items.length;
            result.trace = retrieval.trace;
            const ranked = rankedPassages(retrieval.items, {
              ...(spec.passageRanking ?? spec.method.passageRanking),
              ...(passageOf ? { passageOf } : {}),
            });
            result.passages = ranked.slice(0, 20);
            const m = result.metrics;
            m.contextTokens = retrieval.tokens;
            if (q.answers.length > 0) m.coverage = coverage(retrieval.context, q.answers);
            if (q.supporting.length > 0)
              for (const k of opts.recallAt) m[`recall@${k}`] = recallAt(ranked, q.supporting, k);
            if (retrieval.subgraph && opts.subgraphMetrics) {
              const { nodes, edges } = retrieval.subgraph;
              m.subgraphNodes = nodes.length;
              const density = subgraphDensity(nodes, edges);
              if (Number.isFinite(density)) m.density = density;
              const adjacency = graphNeighbors();
              if (adjacency) m.diameter = subgraphDiameter(nodes, adjacency);
              if (nodes.length > 0) {
                const texts = nodes.map((n) => spec.nodeText?.(index, n) ?? n);
                const vectors = await ctx.meter.stage('eval', () =>
                  embedAll(ctx.embedder, [q.question, ...texts]),
                );
                const [queryVector, ...nodeVectors] = vectors;
                m.qrScore = qrScore(queryVector as Float32Array, nodeVectors);
                const pairwise = averagePairwiseSimilarity(nodeVectors);
                if (Number.isFinite(pairwise)) m.pairwiseSimilarity = pairwise;
              }
            }
            if (opts.generateAnswers) {
              const t1 = performance.now();
              const answered = await ctx.meter.stage('answer', () =>
                ctx.tasks.answer(
                  answerQuery(q),
                  retrieval.items.map((item) => ({ id: item.id, text: item.text })),
                  signal ? { abortSignal: signal } : {},
                ),
              );
              result.answerMs = performance.now() - t1;
              result.answer = answered.answer;
              Object.assign(m, answerMetrics(q, answered.answer));
              if (judgeModel && (opts.judge?.correctness ?? true)) {
                try {
                  const verdict = await judgeCorrectness(judgeModel, {
                    question: q.question,
                    gold: q.answers,
                    answer: answered.answer,
                  });
                  m.judgeCorrect = verdict.correct ? 1 : 0;
                } catch (error) {
                  if (!ModelOutputError.isInstance(error)) throw error;
                  result.judgeError = error.message;
                }
              }
            }
          } catch (error) {
            if (AbortError.isInstance(error) || signal?.aborted) throw error;
            result.error = GragError.isInstance(error)
              ? error.message
              : `${(error as Error).name ?? 'Error'}: ${(error as Error).message ?? String(error)}`;
            result.metrics = {};
          }
          appendRecord(resultsPath, result);
          sessionResults.push(result);
          finished++;
          report();
        },
        signal,
      );
      const session: SessionRecord = {
        method: label,
        key,
        questions: pending.length,
        usage: ctx.meter.snapshot(),
        peakRssMiB: peakRssMiB(),
        at: new Date().toISOString(),
      };
      appendRecord(join(out, SESSIONS_FILE), session);
      sessions.push(session);
      const failures = sessionResults.filter((r) => r.error !== undefined);
      if (failures.length > 0)
        log(`${label}: ${failures.length} questions failed; first error: ${failures[0]?.error}`);
    }
    await stores.closeStore(label);
    const byQuestion = new Map<string, QuestionResult>(done);
    for (const r of sessionResults) byQuestion.set(r.questionId, r);
    const results = selected.flatMap((q) => {
      const r = byQuestion.get(q.id);
      return r ? [r] : [];
    });
    allResults.push(...results);
    summaries.push(
      summarize(
        label,
        spec,
        key,
        providers,
        results,
        resumed,
        build as NonNullable<typeof build>,
        sessions.filter((s) => s.method === label && s.key === key),
      ),
    );
  }

  let judge: JudgeSummary | undefined;
  if (opts.judge && judgeModel) {
    judge = await runJudges(
      opts.judge,
      judgeModel,
      judgeMeter,
      out,
      selected,
      summaries,
      allResults,
      opts,
      skippedLines,
    );
  }
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  return { manifest, methods: summaries, results: allResults, ...(judge ? { judge } : {}), skippedLines };
}
