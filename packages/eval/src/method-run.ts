/**
 * One method of a benchmark run: its settings key, the questions it still has to do (a run
 * resumes), its index built or loaded, the questions evaluated with bounded concurrency and
 * appended to `results.jsonl` as they finish, and its summary.
 */
import { join } from 'node:path';
import { type BuildContext, type ChatModel, InvalidArgumentError } from '@grag/core';
import { Meter } from '@grag/core/kit';
import { directoryStore } from '@grag/core/store';
import { mapLimit } from './concurrency.js';
import type { EvalQuestion } from './datasets/types.js';
import { type IndexProvenance, obtainIndex, type RunStores } from './index-source.js';
import { adjacencyOf, type NeighborFn } from './metrics/subgraph.js';
import { evaluateQuestion } from './question-run.js';
import {
  appendRecord,
  BUILDS_FILE,
  providerFingerprint,
  SESSIONS_FILE,
  safeName,
  sha1,
  stableJson,
} from './run-records.js';
import { summarize } from './run-summary.js';
import type {
  BuildRecord,
  MethodSpec,
  MethodSummary,
  QuestionResult,
  ResolvedRunOptions,
  RunManifest,
  SessionRecord,
} from './run-types.js';
import { peakRssMiB } from './stats.js';

/** What every method of a run reads (and `manifest.methods`, `sessions` that each extends). */
export interface RunState {
  opts: ResolvedRunOptions;
  log: (line: string) => void;
  stores: RunStores;
  /** The questions of the run, in order. */
  selected: EvalQuestion[];
  selectedIds: ReadonlySet<string>;
  /** Results, builds and sessions recorded by earlier sessions of the run. */
  previous: QuestionResult[];
  builds: BuildRecord[];
  sessions: SessionRecord[];
  resultsPath: string;
  /** The run settings every method's key covers. */
  runSettings: Record<string, unknown>;
  manifest: RunManifest;
  judgeModel: ChatModel | undefined;
}

/**
 * Evaluate one method: resume from the results of its key, build or load its index when questions
 * are left, evaluate them, and summarize every selected question's latest result.
 */
export async function evaluateMethod(
  run: RunState,
  spec: MethodSpec,
  label: string,
): Promise<{ summary: MethodSummary; results: QuestionResult[] }> {
  const { opts, log, stores, selected, selectedIds, previous, builds, sessions, resultsPath } = run;
  const { runSettings, manifest } = run;
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
  // What the run records of the method; its key also covers the run's settings.
  const entry = {
    label,
    method: spec.method.name,
    formatVersion: spec.method.formatVersion,
    options: spec.options ?? {},
    retrieve: retrieveExtra,
    providers,
  };
  const key = sha1(stableJson({ ...entry, ...runSettings })).slice(0, 16);
  // What the index depends on: not the retrieve options, budget, answers or judge.
  const { retrieve: _, ...built } = entry;
  const buildKey = sha1(
    stableJson({
      ...built,
      dataset: runSettings.dataset,
      ...(opts.vectorPrecision !== undefined ? { vectorPrecision: opts.vectorPrecision } : {}),
    }),
  ).slice(0, 16);
  manifest.methods.push({ ...entry, key });
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

  const builtBefore = earlierBuild(
    builds.filter((b) => b.method === label),
    key,
    buildKey,
  );
  let build: IndexProvenance;
  let sessionResults: QuestionResult[] = [];
  if (pending.length === 0) {
    build = {
      seconds: builtBefore?.seconds ?? Number.NaN,
      usage: builtBefore?.usage ?? new Meter().snapshot(),
      source: 'skipped',
      peakRssMiB: builtBefore?.peakRssMiB ?? Number.NaN,
    };
    log(`${label}: every question was done in an earlier session; nothing to build.`);
  } else {
    ({ build, sessionResults } = await runQuestions(run, {
      spec,
      label,
      key,
      buildKey,
      ctx,
      retrieveExtra,
      builtBefore,
      pending,
    }));
  }
  await stores.closeStore(label);
  const byQuestion = new Map<string, QuestionResult>(done);
  for (const r of sessionResults) byQuestion.set(r.questionId, r);
  const results = selected.flatMap((q) => {
    const r = byQuestion.get(q.id);
    return r ? [r] : [];
  });
  const summary = summarize(
    label,
    spec,
    key,
    providers,
    results,
    resumed,
    build,
    sessions.filter((s) => s.method === label && s.key === key),
  );
  return { summary, results };
}

/**
 * The latest of a method's build records (`builds.jsonl`, in order) that made the index these
 * settings need: the same build key, or for a record written before build keys, the same settings
 * key. Its `indexDir` is dropped when a later build of other options was saved there (the directory
 * holds that one now).
 */
function earlierBuild(
  records: readonly BuildRecord[],
  key: string,
  buildKey: string,
): BuildRecord | undefined {
  const found = records
    .filter((b) => (b.buildKey !== undefined ? b.buildKey === buildKey : b.key === key))
    .at(-1);
  if (found?.indexDir === undefined) return found;
  if (records.filter((b) => b.indexDir === found.indexDir).at(-1) === found) return found;
  const { indexDir: _, ...replaced } = found;
  return replaced;
}

/** A method's questions left to do, with its providers and the index it had built before. */
interface PendingQuestions {
  spec: MethodSpec;
  label: string;
  key: string;
  buildKey: string;
  ctx: BuildContext;
  retrieveExtra: Record<string, unknown>;
  builtBefore: BuildRecord | undefined;
  pending: EvalQuestion[];
}

/**
 * Build or load the method's index, then evaluate the pending questions with at most
 * `concurrency` in flight (after one untimed warm-up retrieval), each result appended to
 * `results.jsonl` as it finishes; the session's usage is recorded in `sessions.jsonl`.
 */
async function runQuestions(
  run: RunState,
  work: PendingQuestions,
): Promise<{ build: IndexProvenance; sessionResults: QuestionResult[] }> {
  const { opts, log, stores, sessions, resultsPath, judgeModel } = run;
  const { dataset, out, signal } = opts;
  const { spec, label, key, buildKey, ctx, retrieveExtra, builtBefore, pending } = work;
  const sessionResults: QuestionResult[] = [];
  const indexDir = join(out, 'indexes', safeName(label));
  const { index, build } = await obtainIndex({
    label,
    method: spec.method,
    options: spec.options ?? {},
    ctx,
    dataset,
    builtBefore,
    save: opts.saveIndexes,
    indexDir,
    store:
      stores.get(label) ??
      (opts.vectorPrecision !== undefined
        ? directoryStore(indexDir, { vectorPrecision: opts.vectorPrecision })
        : undefined),
    log,
    recordBuild: ({ saved, ...measured }) => {
      const record: BuildRecord = {
        method: label,
        key,
        buildKey,
        ...measured,
        ...saved,
        at: new Date().toISOString(),
      };
      appendRecord(join(out, BUILDS_FILE), record);
    },
  });
  ctx.meter.reset();
  const budgetTokens = opts.budgetTokens;
  const retrieveOptions = {
    ...retrieveExtra,
    budgetTokens,
    ...(opts.topK !== undefined ? { topK: opts.topK } : {}),
    ...(signal ? { signal } : {}),
  };
  if (opts.warmup) await spec.method.retrieve(index, (pending[0] as EvalQuestion).question, retrieveOptions);
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
  const questionRun = {
    label,
    key,
    spec,
    ctx,
    index,
    retrieveOptions,
    passageOf,
    graphNeighbors,
    recallAt: opts.recallAt,
    subgraphMetrics: opts.subgraphMetrics,
    generateAnswers: opts.generateAnswers,
    judge: opts.judge,
    judgeModel,
    signal,
  };
  await mapLimit(
    pending,
    opts.concurrency,
    async (q) => {
      const result = await evaluateQuestion(questionRun, q);
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
  return { build, sessionResults };
}
