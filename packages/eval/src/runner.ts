/**
 * The benchmark runner: build each method's index, retrieve for every question with bounded
 * concurrency, optionally answer and judge, and record per-question and aggregate metrics, cost
 * and a run manifest. Per-question results are appended to a JSONL file, so a run can be resumed.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidArgumentError, modelFingerprint, throwIfAborted } from '@grag/core';
import { Meter, meteredChat } from '@grag/core/kit';
import type { EvalQuestion, SkippedRecord } from './datasets/types.js';
import { RunStores } from './index-source.js';
import { runJudges } from './judging.js';
import { evaluateMethod, type RunState } from './method-run.js';
import { seededRandom, shuffle } from './random.js';
import {
  assertEvalOutput,
  BUILDS_FILE,
  datasetFingerprint,
  MANIFEST_FILE,
  RESULTS_FILE,
  readJsonlRecords,
  SESSIONS_FILE,
  VERSION,
} from './run-records.js';
import {
  type BuildRecord,
  type EvalRun,
  type JudgeSummary,
  type MethodSummary,
  type QuestionResult,
  type ResolvedRunOptions,
  type RunManifest,
  type RunOptions,
  resolveRunOptions,
  type SessionRecord,
} from './run-types.js';
import { gitState, machine } from './stats.js';

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
  const opts = resolveRunOptions(options);
  const { dataset, out, signal } = opts;
  const log = opts.onLog ?? (() => {});
  const labels = checkRunOptions(opts);
  const selected = selectQuestions(opts);
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
    // Only when given, so that the keys of float32 runs stay what they were.
    ...(opts.vectorPrecision !== undefined ? { vectorPrecision: opts.vectorPrecision } : {}),
  };
  const judgeMeter = new Meter();
  const judgeModel = opts.judge ? meteredChat(opts.judge.model, judgeMeter) : undefined;
  const manifest = newManifest(opts, selected, earlier?.createdAt, fingerprint);
  const summaries: MethodSummary[] = [];
  const allResults: QuestionResult[] = [];
  const run: RunState = {
    opts,
    log,
    stores,
    selected,
    selectedIds: new Set(selected.map((q) => q.id)),
    previous,
    builds,
    sessions,
    resultsPath,
    runSettings,
    manifest,
    judgeModel,
  };
  for (const [specIndex, spec] of opts.methods.entries()) {
    throwIfAborted(signal);
    const { summary, results } = await evaluateMethod(run, spec, labels[specIndex] as string);
    allResults.push(...results);
    summaries.push(summary);
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

/** The method labels, after checking the options that do not depend on the dataset. */
function checkRunOptions(opts: ResolvedRunOptions): string[] {
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
  return labels;
}

/** The questions to evaluate: the dataset's, shuffled with the seed when asked, at most `limit`. */
function selectQuestions(opts: ResolvedRunOptions): EvalQuestion[] {
  const { dataset } = opts;
  let selected = [...dataset.questions];
  if (opts.shuffle) shuffle(seededRandom(opts.seed), selected);
  if (opts.limit !== undefined) selected = selected.slice(0, opts.limit);
  if (selected.length === 0)
    throw new InvalidArgumentError(
      'dataset',
      `runEval: dataset "${dataset.name}" has no questions to evaluate.`,
    );
  return selected;
}

/** The run manifest before any method ran (`createdAt` kept from an earlier session). */
function newManifest(
  opts: ResolvedRunOptions,
  selected: readonly EvalQuestion[],
  createdAt: string | undefined,
  fingerprint: string,
): RunManifest {
  const { dataset } = opts;
  return {
    tool: { name: '@grag/eval', version: VERSION },
    createdAt: createdAt ?? new Date().toISOString(),
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
}
