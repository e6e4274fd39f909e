/**
 * Answer metrics: exact match and token F1 (SQuAD), answer Coverage (KET-RAG §6.1), ROUGE-L,
 * multiple-choice accuracy, and Hit@1 / precision / recall / F1 over entity answers (SG-RAG §5.2).
 */
import { normalizeAnswer } from '../normalize.js';

/** Answers HotpotQA's evaluation treats as special: a mismatch on them scores F1 0. */
const SPECIAL_ANSWERS: ReadonlySet<string> = new Set(['yes', 'no', 'noanswer']);

function golds(gold: string | readonly string[]): readonly string[] {
  return typeof gold === 'string' ? [gold] : gold;
}

/**
 * Exact match: 1 when the normalized prediction equals the normalized form of any gold answer
 * (answer or alias), else 0. An empty gold list scores 0.
 */
export function exactMatch(prediction: string, gold: string | readonly string[]): number {
  const p = normalizeAnswer(prediction);
  return golds(gold).some((g) => normalizeAnswer(g) === p) ? 1 : 0;
}

/** Token precision, recall and F1 of a prediction against one reference. */
export interface PrecisionRecallF1 {
  precision: number;
  recall: number;
  f1: number;
}

function overlapF1(pred: readonly string[], ref: readonly string[]): PrecisionRecallF1 {
  if (pred.length === 0 || ref.length === 0) {
    const same = pred.length === ref.length ? 1 : 0;
    return { precision: same, recall: same, f1: same };
  }
  const counts = new Map<string, number>();
  for (const t of ref) counts.set(t, (counts.get(t) ?? 0) + 1);
  let common = 0;
  for (const t of pred) {
    const n = counts.get(t) ?? 0;
    if (n > 0) {
      common++;
      counts.set(t, n - 1);
    }
  }
  if (common === 0) return { precision: 0, recall: 0, f1: 0 };
  const precision = common / pred.length;
  const recall = common / ref.length;
  return { precision, recall, f1: (2 * precision * recall) / (precision + recall) };
}

/**
 * SQuAD token F1 against the best-matching gold answer: the harmonic mean of token precision and
 * recall of the normalized words (bag of words, counts clipped). Both empty scores 1; one empty
 * scores 0. As in HotpotQA's script, `yes` / `no` / `noanswer` on either side score 0 unless equal.
 */
export function tokenF1(prediction: string, gold: string | readonly string[]): number {
  const p = normalizeAnswer(prediction);
  const predTokens = p === '' ? [] : p.split(' ');
  let best = 0;
  for (const g of golds(gold)) {
    const r = normalizeAnswer(g);
    if ((SPECIAL_ANSWERS.has(p) || SPECIAL_ANSWERS.has(r)) && p !== r) continue;
    best = Math.max(best, overlapF1(predTokens, r === '' ? [] : r.split(' ')).f1);
  }
  return best;
}

/**
 * Whether any gold answer (or alias) appears in `context` after SQuAD normalization, as a whole
 * word sequence (KET-RAG §6.1 Coverage: the answer is found in the retrieved context). The match is
 * tried with punctuation deleted (SQuAD: `1,000` matches `1000`) and with punctuation read as a
 * word break (`Smith's` contains `Smith`); either counts. An answer that normalizes to nothing
 * (`"The"`) never matches.
 */
export function covers(context: string, answers: string | readonly string[]): boolean {
  for (const punctuation of ['remove', 'space'] as const) {
    let haystack: string | undefined;
    for (const answer of golds(answers)) {
      const needle = normalizeAnswer(answer, { punctuation });
      if (needle === '') continue;
      haystack ??= ` ${normalizeAnswer(context, { punctuation })} `;
      if (haystack.includes(` ${needle} `)) return true;
    }
  }
  return false;
}

/** Coverage of one question as a number: 1 when {@link covers}, else 0. */
export function coverage(context: string, answers: string | readonly string[]): number {
  return covers(context, answers) ? 1 : 0;
}

/** Words for ROUGE: lower case, accents folded, every non-letter/digit a break (rouge-score's default, unstemmed). */
export function rougeTokens(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}\p{M}]+/u)
    .filter((w) => w !== '');
}

function lcsLength(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  let prev = new Uint32Array(b.length + 1);
  let row = new Uint32Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    const ai = a[i - 1];
    for (let j = 1; j <= b.length; j++) {
      row[j] =
        ai === b[j - 1] ? (prev[j - 1] as number) + 1 : Math.max(prev[j] as number, row[j - 1] as number);
    }
    [prev, row] = [row, prev];
  }
  return prev[b.length] as number;
}

/**
 * ROUGE-L (Lin, 2004) of a prediction against the best reference: precision = LCS / |prediction|,
 * recall = LCS / |reference|, F1 their harmonic mean (β = 1), over {@link rougeTokens}. Articles
 * are kept (unlike EM/F1), as ROUGE does.
 */
export function rougeL(prediction: string, references: string | readonly string[]): PrecisionRecallF1 {
  const pred = rougeTokens(prediction);
  let best: PrecisionRecallF1 = { precision: 0, recall: 0, f1: 0 };
  for (const reference of golds(references)) {
    const ref = rougeTokens(reference);
    const lcs = lcsLength(pred, ref);
    if (lcs === 0) continue;
    const precision = lcs / pred.length;
    const recall = lcs / ref.length;
    const f1 = (2 * precision * recall) / (precision + recall);
    if (f1 > best.f1) best = { precision, recall, f1 };
  }
  return best;
}

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * The option an answer picks, as an index into `options`, or -1 when it cannot be told:
 * a bare letter (`B`, `(B)`, `B.`, `B) Paris`, `Answer: B`, `option C`), else the option whose
 * normalized text equals the answer, else the one option quoted in the answer (an option inside a
 * longer quoted one does not count; two distinct quoted options give -1), else the single option
 * with the best token F1 (ties give -1).
 */
export function pickOption(answer: string, options: readonly string[]): number {
  const text = answer.trim();
  const letter =
    /^\(?([A-Z])\)?(?:[.):]|\s*$)/.exec(text)?.[1] ??
    /\b(?:answer|option|choice)(?:\s+is)?\s*[:\s]\s*\(?([A-Z])\)?(?=$|[\s.,;:)])/i
      .exec(text)?.[1]
      ?.toUpperCase();
  if (letter !== undefined) {
    const index = LETTERS.indexOf(letter);
    if (index < options.length) return index;
  }
  const normalized = normalizeAnswer(text);
  const exact = options.findIndex((o) => normalizeAnswer(o) === normalized && normalized !== '');
  if (exact >= 0) return exact;
  const haystack = ` ${normalized} `;
  const quoted = options
    .map((o, i) => ({ i, n: normalizeAnswer(o) }))
    .filter(({ n }) => n !== '' && haystack.includes(` ${n} `));
  // An option quoted only as part of a longer quoted option ("New York" in "New York City") does not count.
  const maximal = quoted.filter(({ n }) => !quoted.some((o) => o.n !== n && ` ${o.n} `.includes(` ${n} `)));
  if (maximal.length === 1) return (maximal[0] as { i: number }).i;
  if (maximal.length > 1) return -1;
  let best = -1;
  let bestF1 = 0;
  let tie = false;
  options.forEach((o, i) => {
    const f1 = tokenF1(text, o);
    if (f1 > bestF1) {
      best = i;
      bestF1 = f1;
      tie = false;
    } else if (f1 === bestF1 && f1 > 0) tie = true;
  });
  return tie ? -1 : best;
}

/** Multiple-choice accuracy of one answer: 1 when {@link pickOption} picks `correct`, else 0. */
export function multipleChoiceAccuracy(answer: string, options: readonly string[], correct: number): number {
  return pickOption(answer, options) === correct ? 1 : 0;
}

/** Hit@1, precision, recall and F1 of predicted entities against a gold entity set (SG-RAG §5.2). */
export interface EntityMetrics {
  /** 1 when the first predicted entity is a gold entity. */
  hit1: number;
  /** Share of (distinct) predicted entities that are gold. */
  precision: number;
  /** Share of gold entities predicted. */
  recall: number;
  f1: number;
}

/**
 * Entity-answer metrics (SG-RAG §5.2: Hit@1, precision, recall, F1). `gold` lists the gold
 * entities, each as one name or a list of acceptable names (aliases); names match after
 * {@link normalizeAnswer}. Predictions are deduplicated (two aliases of one gold entity count as one
 * prediction); an empty prediction scores 0 everywhere.
 */
export function entityMetrics(
  predicted: readonly string[],
  gold: readonly (string | readonly string[])[],
): EntityMetrics {
  const groups = gold.map(
    (g) =>
      new Set(
        golds(g)
          .map((name) => normalizeAnswer(name))
          .filter((n) => n !== ''),
      ),
  );
  // Each prediction is a gold entity (by index) or a distinct wrong name; aliases of one entity count once.
  const seen = new Set<string>();
  const preds: number[] = [];
  for (const p of predicted) {
    const n = normalizeAnswer(p);
    if (n === '') continue;
    const g = groups.findIndex((set) => set.has(n));
    const id = g >= 0 ? `#${g}` : n;
    if (seen.has(id)) continue;
    seen.add(id);
    preds.push(g);
  }
  if (preds.length === 0 || groups.length === 0) return { hit1: 0, precision: 0, recall: 0, f1: 0 };
  const hit1 = (preds[0] as number) >= 0 ? 1 : 0;
  const correct = preds.filter((g) => g >= 0).length;
  const precision = correct / preds.length;
  const recall = correct / groups.length;
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { hit1, precision, recall, f1 };
}

/**
 * The entities named in an answer, in order: a leading `Answer:` is dropped, the text is split at
 * line breaks, semicolons, commas and the word `and`, and list markers (`-`, `*`, `1.`) and
 * trailing periods are trimmed. Names that contain a comma (`Washington, D.C.`) are split; pass
 * your own list to {@link entityMetrics} when that matters.
 */
export function parseEntityList(answer: string): string[] {
  const body = answer.replace(/^\s*(?:final\s+)?answer\s*[:：]\s*/i, '');
  return body
    .split(/\r?\n|;|,|\band\b/)
    .map((part) =>
      part
        .trim()
        .replace(/^(?:[-*•]|\d+[.)])\s*/, '')
        .replace(/[.。!]+$/, '')
        .trim(),
    )
    .filter((part) => part !== '');
}
