/**
 * One question under one method: retrieval (timed) and its metrics, the subgraph metrics, and with
 * `generateAnswers` the answer, its metrics and the judge's verdict.
 */
import {
  AbortError,
  type BuildContext,
  type ChatModel,
  embedAll,
  GragError,
  ModelOutputError,
  type Retrieval,
} from '@grag/core';
import type { EvalQuestion } from './datasets/types.js';
import { judgeCorrectness } from './judges/judges.js';
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
  averagePairwiseSimilarity,
  type NeighborFn,
  qrScore,
  subgraphDensity,
  subgraphDiameter,
} from './metrics/subgraph.js';
import type { AnyIndex, JudgeSettings, MethodSpec, QuestionResult } from './run-types.js';

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

/** What evaluating the questions of one method needs (see {@link evaluateQuestion}). */
export interface QuestionRun {
  label: string;
  /** Settings key of the method run. */
  key: string;
  spec: MethodSpec;
  ctx: BuildContext;
  index: AnyIndex;
  /** The method's retrieve options with the run's budget, `topK` and signal. */
  retrieveOptions: Record<string, unknown>;
  passageOf: ReturnType<NonNullable<MethodSpec['passageOf']>> | undefined;
  /** The index graph's adjacency, made on first use (for the diameter). */
  graphNeighbors: () => NeighborFn | undefined;
  recallAt: readonly number[];
  subgraphMetrics: boolean;
  generateAnswers: boolean;
  judge: JudgeSettings | undefined;
  judgeModel: ChatModel | undefined;
  signal: AbortSignal | undefined;
}

/**
 * The result of one question. A failure other than an abort is recorded in the result (`error`,
 * no metrics); a judge's unreadable verdict in `judgeError`.
 */
export async function evaluateQuestion(run: QuestionRun, q: EvalQuestion): Promise<QuestionResult> {
  const { label, key, spec, ctx, index, retrieveOptions, passageOf, graphNeighbors, judgeModel, signal } =
    run;
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
      for (const k of run.recallAt) m[`recall@${k}`] = recallAt(ranked, q.supporting, k);
    if (retrieval.subgraph && run.subgraphMetrics) {
      const { nodes, edges } = retrieval.subgraph;
      m.subgraphNodes = nodes.length;
      const density = subgraphDensity(nodes, edges);
      if (Number.isFinite(density)) m.density = density;
      const adjacency = graphNeighbors();
      if (adjacency) m.diameter = subgraphDiameter(nodes, adjacency);
      if (nodes.length > 0) {
        const texts = nodes.map((n) => spec.nodeText?.(index, n) ?? n);
        const vectors = await ctx.meter.stage('eval', () => embedAll(ctx.embedder, [q.question, ...texts]));
        const [queryVector, ...nodeVectors] = vectors;
        m.qrScore = qrScore(queryVector as Float32Array, nodeVectors);
        const pairwise = averagePairwiseSimilarity(nodeVectors);
        if (Number.isFinite(pairwise)) m.pairwiseSimilarity = pairwise;
      }
    }
    if (run.generateAnswers) {
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
      if (judgeModel && (run.judge?.correctness ?? true)) {
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
  return result;
}
