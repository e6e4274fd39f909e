/** The model judges of an evaluation run (pairwise win rates, empowerment), resumable from `judgments.jsonl`. */
import { join } from 'node:path';
import { AbortError, type ChatModel, GragError, modelFingerprint } from '@grag/core';
import type { Meter } from '@grag/core/kit';
import { mapLimit } from './concurrency.js';
import type { EvalQuestion, SkippedRecord } from './datasets/types.js';
import { empowermentScores, judgePair } from './judges/judges.js';
import { PAIRWISE_CRITERIA, type PairwiseCriterion } from './judges/prompts.js';
import { appendRecord, JUDGMENTS_FILE, readJsonlRecords } from './run-records.js';
import type { JudgeSettings, JudgeSummary, MethodSummary, QuestionResult, RunOptions } from './run-types.js';
import { mean } from './stats.js';

export interface JudgmentRecord {
  kind: 'pairwise' | 'empowerment';
  id: string;
  questionId: string;
  scores?: Partial<Record<PairwiseCriterion, number>>;
  empowerment?: Record<string, { logic: number; insight: number; total: number }>;
  error?: string;
}

export async function runJudges(
  settings: JudgeSettings,
  model: ChatModel,
  meter: Meter,
  out: string,
  questions: EvalQuestion[],
  summaries: MethodSummary[],
  results: QuestionResult[],
  opts: RunOptions,
  skippedLines: SkippedRecord[],
): Promise<JudgeSummary> {
  const path = join(out, JUDGMENTS_FILE);
  const previous = new Map<string, JudgmentRecord>();
  for (const r of readJsonlRecords<JudgmentRecord>(path, skippedLines))
    if (r.error === undefined) previous.set(r.id, r);
  const answers = new Map<string, string>();
  for (const r of results)
    if (r.answer !== undefined && r.error === undefined)
      answers.set(`${r.method}\u0000${r.questionId}`, r.answer);
  const keyOf = new Map(summaries.map((s) => [s.label, s.key]));
  const failures: JudgeSummary['failures'] = [];
  const concurrency = settings.concurrency ?? 4;
  const summary: JudgeSummary = {
    model: modelFingerprint(settings.model),
    failures,
    usage: meter.snapshot(),
  };
  const record = (r: JudgmentRecord) => {
    appendRecord(path, r);
    if (r.error !== undefined) failures.push({ kind: r.kind, questionId: r.questionId, message: r.error });
  };
  const judged = async (
    kind: JudgmentRecord['kind'],
    id: string,
    q: EvalQuestion,
    fn: () => Promise<Partial<JudgmentRecord>>,
  ) => {
    const before = previous.get(id);
    if (before) return before;
    try {
      const r: JudgmentRecord = { kind, id, questionId: q.id, ...(await fn()) };
      record(r);
      return r;
    } catch (error) {
      if (AbortError.isInstance(error) || !GragError.isInstance(error)) throw error;
      record({ kind, id, questionId: q.id, error: error.message });
      return undefined;
    }
  };
  let done = 0;
  const baseline = settings.pairwiseBaseline;
  if (baseline !== undefined) {
    const rates: NonNullable<JudgeSummary['pairwise']>['rates'] = {};
    for (const s of summaries) {
      if (s.label === baseline) continue;
      const scores = await mapLimit(
        questions,
        concurrency,
        async (q) => {
          const a = answers.get(`${s.label}\u0000${q.id}`);
          const b = answers.get(`${baseline}\u0000${q.id}`);
          if (a === undefined || b === undefined) return undefined;
          const id = `pairwise\u0000${s.label}:${s.key}\u0000${baseline}:${keyOf.get(baseline)}\u0000${q.id}`;
          const r = await judged('pairwise', id, q, async () => ({
            scores: (await judgePair(model, { question: q.question, a, b }, { concurrency })).scores,
          }));
          opts.onProgress?.({ stage: `judge: ${s.label} vs ${baseline}`, done: ++done, unit: 'pairs' });
          return r;
        },
        opts.signal,
      );
      const winRate: Partial<Record<PairwiseCriterion, number>> = {};
      for (const c of PAIRWISE_CRITERIA) {
        const v = scores.flatMap((r) => (r?.scores?.[c] === undefined ? [] : [r.scores[c] as number]));
        if (v.length > 0) winRate[c] = mean(v);
      }
      rates[s.label] = {
        winRate,
        judged: scores.filter((r) => r?.scores).length,
        failed: scores.filter((r) => r === undefined).length,
      };
    }
    summary.pairwise = { baseline, rates };
  }
  if (settings.empowerment) {
    const collected = new Map<string, { logic: number[]; insight: number[]; total: number[] }>();
    await mapLimit(
      questions,
      concurrency,
      async (q) => {
        const given: Record<string, string> = {};
        for (const s of summaries) {
          const a = answers.get(`${s.label}\u0000${q.id}`);
          if (a !== undefined) given[s.label] = a;
        }
        if (Object.keys(given).length === 0) return;
        const id = `empowerment\u0000${Object.keys(given)
          .map((l) => `${l}:${keyOf.get(l)}`)
          .join(',')}\u0000${q.id}`;
        const r = await judged('empowerment', id, q, async () => ({
          empowerment: await empowermentScores(model, {
            question: q.question,
            gold: q.answers,
            answers: given,
          }),
        }));
        for (const [label, score] of Object.entries(r?.empowerment ?? {})) {
          let c = collected.get(label);
          if (!c) {
            c = { logic: [], insight: [], total: [] };
            collected.set(label, c);
          }
          c.logic.push(score.logic);
          c.insight.push(score.insight);
          c.total.push(score.total);
        }
        opts.onProgress?.({
          stage: 'judge: empowerment',
          done: ++done,
          total: questions.length,
          unit: 'questions',
        });
      },
      opts.signal,
    );
    summary.empowerment = Object.fromEntries(
      [...collected].map(([label, c]) => [
        label,
        { logic: mean(c.logic), insight: mean(c.insight), total: mean(c.total), judged: c.total.length },
      ]),
    );
  }
  summary.usage = meter.snapshot();
  return summary;
}
