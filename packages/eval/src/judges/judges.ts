/**
 * Model-judged metrics over the `ChatModel` contract: head-to-head win rates on Comprehensiveness,
 * Diversity, Empowerment and Overall with both answer orders averaged (DA-RAG §6.1, LightRAG),
 * LLM-as-judge answer correctness (NodeRAG appendix B.1), and the Empowerment Score 0-3 (SG-RAG
 * appendix K). Prompts: `prompts.ts`.
 */
import { type ChatModel, generateText, ModelOutputError } from '@grag/core';
import {
  extractJson,
  fieldNumber,
  fieldText,
  getRecordField,
  isJsonRecord,
  type JsonRecord,
  normalizeFieldName,
} from '@grag/core/tasks';
import { mapLimit } from '../concurrency.js';
import { mean } from '../stats.js';
import {
  CORRECTNESS_SYSTEM,
  correctnessPrompt,
  EMPOWERMENT_SYSTEM,
  empowermentPrompt,
  PAIRWISE_CRITERIA,
  PAIRWISE_SYSTEM,
  type PairwiseCriterion,
  pairwisePrompt,
} from './prompts.js';

/** Call options of every judge. */
export interface JudgeOptions {
  /** Upper bound on the judge's output tokens. @default 1024 */
  maxOutputTokens?: number;
  /** Judge calls in flight at once (batch functions). @default 4 */
  concurrency?: number;
  signal?: AbortSignal;
}

/** Defaults of {@link JudgeOptions}. */
export const JUDGE_DEFAULTS = { maxOutputTokens: 1024, concurrency: 4 } as const;

async function ask(model: ChatModel, system: string, user: string, options: JudgeOptions): Promise<string> {
  const result = await generateText(
    model,
    { system, user },
    {
      temperature: 0,
      responseFormat: 'json',
      maxOutputTokens: options.maxOutputTokens ?? JUDGE_DEFAULTS.maxOutputTokens,
      ...(options.signal ? { abortSignal: options.signal } : {}),
    },
  );
  return result.text;
}

function jsonObject(raw: string): JsonRecord | undefined {
  const found = extractJson(raw, isJsonRecord);
  return found && isJsonRecord(found.value) ? found.value : undefined;
}

/** Who won a criterion in one showing: the answer shown first, second, or neither. */
export type Slot = 1 | 2 | 'tie';

/** Read a winner such as `"Answer 1"`, `"2"`, `"second"`, `"tie"`; `undefined` when unclear. */
export function parseWinner(value: unknown): Slot | undefined {
  const text = (typeof value === 'number' ? String(value) : (fieldText(value) ?? '')).toLowerCase();
  if (text === '') return undefined;
  if (/\b(tie|tied|equal|equally|both|neither|draw|same)\b/.test(text)) return 'tie';
  const one = /(\b|answer\s*)(1|one|first)\b/.test(text);
  const two = /(\b|answer\s*)(2|two|second)\b/.test(text);
  if (one === two) return undefined;
  return one ? 1 : 2;
}

/** The winners one reply names, per criterion (criteria it does not name are absent). */
export function parsePairwiseVerdict(raw: string): Partial<Record<PairwiseCriterion, Slot>> {
  const record = jsonObject(raw);
  const out: Partial<Record<PairwiseCriterion, Slot>> = {};
  if (!record) return out;
  for (const criterion of PAIRWISE_CRITERIA) {
    const field = getRecordField(record, [criterion]);
    if (!field) continue;
    const value = isJsonRecord(field.value)
      ? getRecordField(field.value, ['winner', 'better', 'choice', 'answer'])?.value
      : field.value;
    const slot = parseWinner(value);
    if (slot !== undefined) out[criterion] = slot;
  }
  return out;
}

/** The verdict of one showing of a pair. */
export interface PairShowing {
  /** Which answer was shown as "Answer 1". */
  first: 'a' | 'b';
  /** Winner per criterion, mapped back to the answers: `'a'`, `'b'` or `'tie'`. */
  winners: Partial<Record<PairwiseCriterion, 'a' | 'b' | 'tie'>>;
  raw: string;
}

/** A head-to-head judgment of answer `a` against answer `b` on one question. */
export interface PairJudgment {
  /**
   * Score of `a` per criterion in [0, 1]: win 1, tie 0.5, loss 0, averaged over the two showings
   * (a first, b first). A criterion neither showing names is absent.
   */
  scores: Partial<Record<PairwiseCriterion, number>>;
  /** The two showings: `a` first, then `b` first. */
  showings: [PairShowing, PairShowing];
  /** Criteria a showing did not name, e.g. `"b first: no verdict for diversity"`. */
  issues: string[];
}

/**
 * Judge answer `a` against answer `b` head to head (DA-RAG §6.1): the judge sees the pair twice,
 * once in each order, and the two verdicts are averaged so position bias cancels. Throws a
 * `ModelOutputError` when neither reply names a winner for any criterion.
 */
export async function judgePair(
  model: ChatModel,
  input: { question: string; a: string; b: string },
  options: JudgeOptions = {},
): Promise<PairJudgment> {
  const showings = (await Promise.all(
    (['a', 'b'] as const).map(async (first): Promise<PairShowing> => {
      const [one, two] = first === 'a' ? [input.a, input.b] : [input.b, input.a];
      const raw = await ask(model, PAIRWISE_SYSTEM, pairwisePrompt(input.question, one, two), options);
      const verdict = parsePairwiseVerdict(raw);
      const winners: PairShowing['winners'] = {};
      for (const [criterion, slot] of Object.entries(verdict) as [PairwiseCriterion, Slot][]) {
        winners[criterion] = slot === 'tie' ? 'tie' : (slot === 1) === (first === 'a') ? 'a' : 'b';
      }
      return { first, winners, raw };
    }),
  )) as [PairShowing, PairShowing];
  const scores: PairJudgment['scores'] = {};
  const issues: string[] = [];
  for (const criterion of PAIRWISE_CRITERIA) {
    const values: number[] = [];
    for (const showing of showings) {
      const w = showing.winners[criterion];
      if (w === undefined) issues.push(`${showing.first} first: no verdict for ${criterion}`);
      else values.push(w === 'a' ? 1 : w === 'tie' ? 0.5 : 0);
    }
    if (values.length > 0) scores[criterion] = mean(values);
  }
  if (Object.keys(scores).length === 0) {
    throw new ModelOutputError(
      'judge-pairwise',
      showings.map((s) => s.raw).join('\n---\n'),
      '@grag/eval judgePair: the judge named no winner for any criterion in either order; check the judge model or its output limit.',
    );
  }
  return { scores, showings, issues };
}

/** Win rates of `a` over `b` across questions. */
export interface WinRates {
  /** Mean score of `a` per criterion (win 1, tie 0.5, loss 0; both orders averaged). */
  winRate: Partial<Record<PairwiseCriterion, number>>;
  /** Questions that gave a verdict, per criterion. */
  judged: Partial<Record<PairwiseCriterion, number>>;
  judgments: (PairJudgment | undefined)[];
  /** Pairs whose judging failed, with the error message. */
  failures: { index: number; message: string }[];
}

/**
 * Head-to-head win rates of answers `a` over answers `b` on many questions (DA-RAG §6.1: "the
 * average win rate over all the questions and both position settings"). A pair whose judging
 * fails is listed in `failures` and left out of the rates.
 */
export async function winRates(
  model: ChatModel,
  pairs: readonly { question: string; a: string; b: string }[],
  options: JudgeOptions = {},
): Promise<WinRates> {
  const failures: WinRates['failures'] = [];
  const judgments = await mapLimit(
    pairs,
    options.concurrency ?? JUDGE_DEFAULTS.concurrency,
    async (pair, index) => {
      try {
        return await judgePair(model, pair, options);
      } catch (error) {
        if (!ModelOutputError.isInstance(error)) throw error;
        failures.push({ index, message: error.message });
        return undefined;
      }
    },
    options.signal,
  );
  const winRate: WinRates['winRate'] = {};
  const judged: WinRates['judged'] = {};
  for (const criterion of PAIRWISE_CRITERIA) {
    const values = judgments.flatMap((j) =>
      j?.scores[criterion] === undefined ? [] : [j.scores[criterion] as number],
    );
    if (values.length > 0) {
      winRate[criterion] = mean(values);
      judged[criterion] = values.length;
    }
  }
  return { winRate, judged, judgments, failures };
}

/** The verdict of the correctness judge. */
export interface CorrectnessJudgment {
  correct: boolean;
  reason?: string;
  raw: string;
}

/** Read a correctness verdict: JSON `{"correct": true}` / `"yes"`, or a reply starting with correct / incorrect / yes / no. */
export function parseCorrectness(raw: string): boolean | undefined {
  const record = jsonObject(raw);
  const value = record
    ? getRecordField(record, ['correct', 'iscorrect', 'verdict', 'judgment', 'answer'])?.value
    : undefined;
  const read = (v: unknown): boolean | undefined => {
    if (typeof v === 'boolean') return v;
    if (typeof v === 'number') return v === 1 ? true : v === 0 ? false : undefined;
    const t = normalizeFieldName(String(v ?? ''));
    if (/^(true|yes|correct|right|1)$/.test(t)) return true;
    if (/^(false|no|incorrect|wrong|notcorrect|0)$/.test(t)) return false;
    return undefined;
  };
  if (value !== undefined) return read(value);
  if (record) return undefined;
  const first = /[\p{L}]+/u.exec(raw)?.[0]?.toLowerCase();
  return first === undefined ? undefined : read(first);
}

/**
 * LLM-as-judge correctness of an answer against the gold answer and its aliases (NodeRAG
 * appendix B.1). Throws a `ModelOutputError` when the reply gives no verdict.
 */
export async function judgeCorrectness(
  model: ChatModel,
  input: { question: string; gold: readonly string[]; answer: string },
  options: JudgeOptions = {},
): Promise<CorrectnessJudgment> {
  const raw = await ask(
    model,
    CORRECTNESS_SYSTEM,
    correctnessPrompt(input.question, input.gold, input.answer),
    options,
  );
  const correct = parseCorrectness(raw);
  if (correct === undefined) {
    throw new ModelOutputError(
      'judge-correctness',
      raw,
      '@grag/eval judgeCorrectness: the judge reply has no correct/incorrect verdict; check the judge model.',
    );
  }
  const record = jsonObject(raw);
  const reason = record ? fieldText(getRecordField(record, ['reason', 'explanation'])?.value) : undefined;
  return reason === undefined ? { correct, raw } : { correct, reason, raw };
}

/** An Empowerment Score: logical coherence 0-2 plus insight 0-1 (SG-RAG appendix K). */
export interface EmpowermentScore {
  logic: number;
  insight: number;
  /** `logic + insight`, 0-3. */
  total: number;
}

const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));

/**
 * Empowerment Scores of several answers to one question (SG-RAG appendix K). The answers are shown
 * under neutral labels (`Answer A`, `Answer B`, ...) twice, in the given order and reversed, and each
 * answer's scores are averaged over the two showings; logic is clamped to 0-2, insight to 0-1.
 * Returns scores keyed like `answers`. Throws a `ModelOutputError` when an answer gets no score in
 * either showing.
 */
export async function empowermentScores(
  model: ChatModel,
  input: { question: string; gold: readonly string[]; answers: Readonly<Record<string, string>> },
  options: JudgeOptions = {},
): Promise<Record<string, EmpowermentScore>> {
  const names = Object.keys(input.answers);
  const orders = names.length > 1 ? [names, [...names].reverse()] : [names];
  const collected = new Map<string, { logic: number[]; insight: number[] }>(
    names.map((n) => [n, { logic: [], insight: [] }]),
  );
  const raws: string[] = [];
  await Promise.all(
    orders.map(async (order) => {
      const labelled = order.map((name, i) => ({ name, label: `Answer ${String.fromCharCode(65 + i)}` }));
      const raw = await ask(
        model,
        EMPOWERMENT_SYSTEM,
        empowermentPrompt(
          input.question,
          input.gold,
          labelled.map((l) => ({ label: l.label, text: input.answers[l.name] as string })),
        ),
        options,
      );
      raws.push(raw);
      const record = jsonObject(raw);
      if (!record) return;
      for (const { name, label } of labelled) {
        const field = getRecordField(record, [
          normalizeFieldName(label),
          normalizeFieldName(label.slice(-1)),
        ]);
        if (!field || !isJsonRecord(field.value)) continue;
        const logic = fieldNumber(
          getRecordField(field.value, ['logic', 'logicalcoherence', 'coherence'])?.value,
        );
        const insight = fieldNumber(
          getRecordField(field.value, ['insight', 'informationalvalue', 'informativeness'])?.value,
        );
        if (logic === undefined || insight === undefined) continue;
        const bucket = collected.get(name) as { logic: number[]; insight: number[] };
        bucket.logic.push(clamp(logic, 0, 2));
        bucket.insight.push(clamp(insight, 0, 1));
      }
    }),
  );
  const out: Record<string, EmpowermentScore> = {};
  for (const name of names) {
    const { logic, insight } = collected.get(name) as { logic: number[]; insight: number[] };
    if (logic.length === 0) {
      throw new ModelOutputError(
        'judge-empowerment',
        raws.join('\n---\n'),
        `@grag/eval empowermentScores: the judge gave no logic/insight scores for "${name}"; check the judge model.`,
      );
    }
    const l = mean(logic);
    const i = mean(insight);
    out[name] = { logic: l, insight: i, total: l + i };
  }
  return out;
}
