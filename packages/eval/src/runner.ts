/**
 * The benchmark runner: build each method's index, retrieve for every question with bounded
 * concurrency, optionally answer and judge, and record per-question and aggregate metrics, cost
 * and a run manifest. Per-question results are appended to a JSONL file, so a run can be resumed.
 */
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import {
  AbortError,
  type BuildContext,
  type ChatModel,
  DEFAULT_BUDGET_TOKENS,
  embedAll,
  GragError,
  InvalidArgumentError,
  Meter,
  type MeterSnapshot,
  type Method,
  ModelOutputError,
  meteredChat,
  modelFingerprint,
  OutputError,
  type PassageRanking,
  type ProgressReporter,
  type Retrieval,
  throwIfAborted,
} from '@grag/core';
import { mapLimit } from './concurrency.js';
import type { EvalDataset, EvalQuestion, SkippedRecord } from './datasets/types.js';
import { type IndexProvenance, type IndexStoreFor, obtainIndex, RunStores } from './index-source.js';
import { empowermentScores, judgeCorrectness, judgePair } from './judges/judges.js';
import { PAIRWISE_CRITERIA, type PairwiseCriterion } from './judges/prompts.js';
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
  type EdgeList,
  type NeighborFn,
  qrScore,
  subgraphDensity,
  subgraphDiameter,
} from './metrics/subgraph.js';
import { seededRandom, shuffle } from './random.js';
import { type GitState, gitState, type MachineInfo, machine, mean, peakRssMiB, percentile } from './stats.js';
import { addSnapshots } from './usage.js';

// biome-ignore lint/suspicious/noExplicitAny: a run holds methods of every index type
type AnyMethod = Method<any, any, any>;
// biome-ignore lint/suspicious/noExplicitAny: the index type of the method
type AnyIndex = any;

/** One method (with its options) to evaluate. */
export interface MethodSpec {
  /** Name in results and reports; give two specs of one method different labels. @default method.name */
  label?: string;
  method: AnyMethod;
  /** Build options (`method.build(docs, ctx, options)`). */
  options?: Record<string, unknown>;
  /** Extra retrieve options (e.g. `topK`), besides the run's budget. */
  retrieve?: Record<string, unknown>;
  /** Fresh providers for this method (own `Meter`); overrides {@link RunOptions.context}. */
  context?: () => BuildContext;
  /** The global graph of an index, for the subgraph diameter (DA-RAG B.3). */
  graph?: (index: AnyIndex) => EdgeList;
  /** Text embedded for a subgraph node (QRScore, pairwise similarity). @default the node id */
  nodeText?: (index: AnyIndex, node: string) => string;
  /** Chunk → passages mapping of an index, when its chunks are not the corpus passages. */
  passageOf?: (index: AnyIndex) => (chunkId: string) => readonly string[] | undefined;
  /** Which items rank passages for Recall@k. @default the method's own `passageRanking` */
  passageRanking?: PassageRanking;
}

/** Model-judged metrics to run (they need an answer for every question: `generateAnswers`). */
export interface JudgeSettings {
  model: ChatModel;
  /** LLM-as-judge correctness per answer (NodeRAG B.1), metric `judgeCorrect`. @default true */
  correctness?: boolean;
  /** Head-to-head win rates of every method against the method with this label (DA-RAG §6.1). */
  pairwiseBaseline?: string;
  /** Empowerment Score 0-3 of every method's answer (SG-RAG appendix K). @default false */
  empowerment?: boolean;
  /** Judge calls in flight. @default 4 */
  concurrency?: number;
}

/** Options of {@link runEval}. */
export interface RunOptions {
  dataset: EvalDataset;
  methods: MethodSpec[];
  /** Directory of the run: results, build records, saved indexes, manifest. */
  out: string;
  /** Fresh providers per method (each with its own `Meter`), unless a spec brings its own. */
  context?: () => BuildContext;
  /** Context budget in tokens. @default 12000 (KET-RAG §6.1) */
  budgetTokens?: number;
  /** Items to rank before packing (the method's default otherwise). */
  topK?: number;
  /** Generate an answer per question with `ctx.tasks.answer` (EM, F1, accuracy, ROUGE-L, entity metrics). @default false */
  generateAnswers?: boolean;
  /** Questions in flight at once per method. @default 4 */
  concurrency?: number;
  /** The k of Recall@k. @default [2, 5, 10] */
  recallAt?: readonly number[];
  /** Evaluate only this many questions (after `shuffle`). */
  limit?: number;
  /** Shuffle the questions with `seed` before taking `limit`. @default false */
  shuffle?: boolean;
  /** Seed of the run (question sampling), recorded in the manifest. @default 1 */
  seed?: number;
  /** One untimed retrieval before the timed ones, so lazy initialisation is not measured. @default true */
  warmup?: boolean;
  /** Save built indexes under `out/indexes/<label>` (or to {@link indexStore}) so a later run loads rather than rebuilds. @default true */
  saveIndexes?: boolean;
  /**
   * Keep each method's index in a store of the caller's instead of `out/indexes/<label>`: called
   * with a method's label, it returns a directory path or an `IndexStore` (e.g. `postgresStore`).
   * A store that holds an index of the method built with the same options is loaded by any run,
   * not only a resumed one (one with other options, of another method or providers is rebuilt and
   * replaced); else the index is built and saved there. Stores with `close()` are closed when
   * their method is done, or when the run ends.
   */
  indexStore?: IndexStoreFor;
  /** Compute subgraph metrics when a retrieval has a subgraph (embeds its nodes). @default true */
  subgraphMetrics?: boolean;
  /** Ignore earlier results in `out` made with other settings instead of refusing to mix them. @default false */
  restart?: boolean;
  judge?: JudgeSettings;
  /** Progress of builds, questions and judging. */
  onProgress?: ProgressReporter;
  /** One line per notable step (a method loaded from disk, questions resumed, ...). */
  onLog?: (line: string) => void;
  /** Recorded in the manifest (e.g. the command line). */
  command?: string;
  signal?: AbortSignal;
}

/** Defaults of {@link RunOptions}. */
export const RUN_DEFAULTS = {
  budgetTokens: DEFAULT_BUDGET_TOKENS,
  generateAnswers: false,
  concurrency: 4,
  recallAt: [2, 5, 10],
  shuffle: false,
  seed: 1,
  warmup: true,
  saveIndexes: true,
  subgraphMetrics: true,
  restart: false,
} as const;

/** The result of one question under one method (a line of `results.jsonl`). */
export interface QuestionResult {
  method: string;
  /** Settings key of the method run; results of other settings are not mixed. */
  key: string;
  questionId: string;
  /** Wall time of `method.retrieve`, in milliseconds. */
  retrieveMs: number;
  contextTokens: number;
  items: number;
  /** The first 20 distinct passages retrieved, in rank order. */
  passages: string[];
  answer?: string;
  answerMs?: number;
  /** Every metric that applies: `coverage`, `recall@5`, `em`, `f1`, `accuracy`, `rougeL`, `hit1`, ... */
  metrics: Record<string, number>;
  /** The retrieval trace of the method. */
  trace?: Record<string, unknown>;
  /** Set when the question failed; its metrics are then empty. */
  error?: string;
  /** Set when the correctness judge gave no verdict (the other metrics stand). */
  judgeError?: string;
}

/** Build (or load) record of a method (a line of `builds.jsonl`). */
export interface BuildRecord {
  method: string;
  key: string;
  /** Wall time of `method.build`, in seconds. */
  seconds: number;
  /** Model calls and tokens per build stage. */
  usage: MeterSnapshot;
  /** Peak RSS of the process after the build, MiB. */
  peakRssMiB: number;
  /** Directory the index was saved to, if saved there (`out/indexes/<label>`). */
  indexDir?: string;
  /** Location of the store the index was saved to, if saved to {@link RunOptions.indexStore}. */
  indexStore?: string;
  at: string;
}

/** Query-time usage of one session of a method (a line of `sessions.jsonl`). */
interface SessionRecord {
  method: string;
  key: string;
  questions: number;
  usage: MeterSnapshot;
  peakRssMiB: number;
  at: string;
}

/** Aggregate results of one method. */
export interface MethodSummary {
  label: string;
  method: string;
  key: string;
  options: Record<string, unknown>;
  providers: Record<string, string>;
  /** Questions evaluated without error. */
  questions: number;
  /** Questions that failed, and the first few errors. */
  failed: number;
  errors: { questionId: string; message: string }[];
  /** Questions whose results came from an earlier session. */
  resumed: number;
  /** Mean of each metric over the questions it applies to. */
  metrics: Record<string, number>;
  /** How many questions each metric was computed on. */
  metricCounts: Record<string, number>;
  latencyMs: { p50: number; p95: number; mean: number };
  /** Mean retrieved-context tokens. */
  contextTokens: number;
  index: {
    seconds: number;
    usage: MeterSnapshot;
    /** `'built'` this session, `'loaded'` from `out/indexes` or the run's `indexStore`, `'skipped'` (every question done before). */
    source: 'built' | 'loaded' | 'skipped';
  };
  /** Query-time model usage (retrieval, answers, subgraph embeddings), summed over sessions. */
  query: { usage: MeterSnapshot };
  /** Largest peak RSS recorded for this method (the whole process), MiB. */
  peakRssMiB: number;
}

/** Model-judged results across methods. */
export interface JudgeSummary {
  model: string;
  /** Win rates of each method against `baseline` per criterion (both orders averaged). */
  pairwise?: {
    baseline: string;
    rates: Record<
      string,
      { winRate: Partial<Record<PairwiseCriterion, number>>; judged: number; failed: number }
    >;
  };
  /** Mean Empowerment Score (0-3) per method. */
  empowerment?: Record<string, { logic: number; insight: number; total: number; judged: number }>;
  failures: { kind: string; questionId: string; message: string }[];
  usage: MeterSnapshot;
}

/** What a run was: everything needed to reproduce it. */
export interface RunManifest {
  tool: { name: string; version: string };
  createdAt: string;
  updatedAt: string;
  command?: string;
  dataset: {
    name: string;
    format: string;
    path?: string;
    documents: number;
    questionsTotal: number;
    questionsSelected: number;
    skippedRecords: number;
    fingerprint: string;
  };
  options: {
    budgetTokens: number;
    topK?: number;
    generateAnswers: boolean;
    concurrency: number;
    recallAt: number[];
    limit?: number;
    shuffle: boolean;
    warmup: boolean;
    subgraphMetrics: boolean;
  };
  methods: {
    label: string;
    method: string;
    formatVersion: number;
    options: Record<string, unknown>;
    retrieve: Record<string, unknown>;
    providers: Record<string, string>;
    key: string;
  }[];
  judge?: { model: string; correctness: boolean; pairwiseBaseline?: string; empowerment: boolean };
  seed: number;
  git: GitState;
  machine: MachineInfo;
  node: string;
}

/** A finished (or resumed) run. */
export interface EvalRun {
  manifest: RunManifest;
  methods: MethodSummary[];
  /** Every per-question result of this run's settings. */
  results: QuestionResult[];
  judge?: JudgeSummary;
  /** Lines of earlier sessions that could not be read (e.g. cut off by a crash), skipped. */
  skippedLines: SkippedRecord[];
}

const RESULTS_FILE = 'results.jsonl';
const BUILDS_FILE = 'builds.jsonl';
const SESSIONS_FILE = 'sessions.jsonl';
const JUDGMENTS_FILE = 'judgments.jsonl';
const MANIFEST_FILE = 'run.json';

/**
 * Refuse an output directory that holds files of someone else's: `out` must not exist, be empty,
 * or hold an earlier run (its manifest or results files), so a run never overwrites a user's file.
 */
function assertEvalOutput(out: string): void {
  let entries: string[];
  try {
    if (!statSync(out).isDirectory())
      throw new OutputError(
        out,
        `runEval: the output ${out} is an existing file; choose a new or empty directory for the run.`,
      );
    entries = readdirSync(out);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    if (OutputError.isInstance(error)) throw error;
    throw new OutputError(
      out,
      `runEval: cannot read the output directory ${out} (${(error as NodeJS.ErrnoException).code}).`,
      {
        cause: error,
      },
    );
  }
  // What a run (or the CLI's call cache beside it) writes; a run stopped early may have only some.
  const ours = [
    MANIFEST_FILE,
    RESULTS_FILE,
    BUILDS_FILE,
    SESSIONS_FILE,
    JUDGMENTS_FILE,
    'indexes',
    '.grag-cache',
  ];
  if (entries.length > 0 && !entries.some((name) => ours.includes(name))) {
    throw new OutputError(
      out,
      `runEval: the output directory ${out} exists and holds no earlier evaluation (no ${MANIFEST_FILE} or ${RESULTS_FILE}); choose a new or empty directory so no file of yours is overwritten.`,
    );
  }
}

const VERSION: string = (() => {
  try {
    return (
      JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
    ).version;
  } catch {
    return 'unknown';
  }
})();

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined && typeof v !== 'function')
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

/** A content fingerprint of a dataset: its documents and questions (ids, texts, answers). */
export function datasetFingerprint(dataset: Pick<EvalDataset, 'corpus' | 'questions'>): string {
  const hash = createHash('sha1');
  for (const d of dataset.corpus) hash.update(`${d.id}\u0000${d.title ?? ''}\u0000${d.text}\u0001`);
  for (const q of dataset.questions)
    hash.update(
      `${q.id}\u0000${q.question}\u0000${q.answers.join('\u0002')}\u0000${q.supporting.join('\u0002')}\u0001`,
    );
  return hash.digest('hex').slice(0, 16);
}

/** Fingerprints of the providers in a context, for manifests and settings keys. */
export function providerFingerprint(ctx: BuildContext): Record<string, string> {
  const out: Record<string, string> = {
    embedder: modelFingerprint(ctx.embedder),
    tasks: ctx.tasks.id,
    tokenizer: String(ctx.tokenizer.name),
    vectorIndex: ctx.vectorIndex.kind,
  };
  if (ctx.chat) out.chat = modelFingerprint(ctx.chat);
  return out;
}

/** Read a JSONL file of records written by the runner; unreadable lines are skipped and reported. */
function readJsonlRecords<T>(path: string, skipped: SkippedRecord[]): T[] {
  if (!existsSync(path)) return [];
  const out: T[] = [];
  readFileSync(path, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (line.trim() === '') return;
      try {
        out.push(JSON.parse(line) as T);
      } catch (error) {
        skipped.push({
          path,
          line: i + 1,
          reason: `not valid JSON (${(error as Error).message}), e.g. cut short by an interrupted run`,
        });
      }
    });
  return out;
}

/** Append one record; a previous line cut off by a crash is ended first so it cannot swallow this one. */
function appendRecord(path: string, record: unknown): void {
  if (existsSync(path)) {
    const text = readFileSync(path);
    if (text.length > 0 && text[text.length - 1] !== 0x0a) appendFileSync(path, '\n');
  }
  appendFileSync(path, `${JSON.stringify(record)}\n`);
}

function safeName(label: string): string {
  return label.replace(/[^A-Za-z0-9._-]+/g, '_');
}

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

interface JudgmentRecord {
  kind: 'pairwise' | 'empowerment';
  id: string;
  questionId: string;
  scores?: Partial<Record<PairwiseCriterion, number>>;
  empowerment?: Record<string, { logic: number; insight: number; total: number }>;
  error?: string;
}

async function runJudges(
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
