/** The types of `runEval`: what a run takes, what it records, and what it returns. */
import {
  type BuildContext,
  type ChatModel,
  DEFAULT_BUDGET_TOKENS,
  type MeterSnapshot,
  type Method,
  type PassageRanking,
  type ProgressReporter,
  type VectorPrecision,
} from '@grag/core';
import type { EvalDataset, SkippedRecord } from './datasets/types.js';
import type { IndexStoreFor } from './index-source.js';
import type { PairwiseCriterion } from './judges/prompts.js';
import type { EdgeList } from './metrics/subgraph.js';
import type { GitState, MachineInfo } from './stats.js';

// biome-ignore lint/suspicious/noExplicitAny: a run holds methods of every index type
export type AnyMethod = Method<any, any, any>;
// biome-ignore lint/suspicious/noExplicitAny: the index type of the method
export type AnyIndex = any;

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
  /**
   * How the saved indexes keep their vector rows (`IndexStore.vectorPrecision`; a store from
   * {@link indexStore} is made with it by the caller). With `'float16'` each built index is saved
   * and loaded back before its questions, so they are asked of the index as stored. Part of each
   * method's key. @default the store's (float32 in `out/indexes`)
   */
  vectorPrecision?: VectorPrecision;
  /** Compute subgraph metrics when a retrieval has a subgraph (embeds its nodes). @default true */
  subgraphMetrics?: boolean;
  /**
   * Ignore earlier results in `out` made with other settings instead of refusing to mix them (an
   * index saved in `out` for the same build options is loaded, not built again). @default false
   */
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

/** The options of a run with {@link RUN_DEFAULTS} filled in. */
export function resolveRunOptions(options: RunOptions) {
  return { ...RUN_DEFAULTS, ...options };
}

/** {@link RunOptions} with {@link RUN_DEFAULTS} filled in. */
export type ResolvedRunOptions = ReturnType<typeof resolveRunOptions>;

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
  /** The settings key of the run that built it. */
  key: string;
  /**
   * What the index depends on (method, build options, providers, dataset, vector precision): a run
   * whose settings differ only in retrieve options, budget or judging loads this index. Absent in
   * records written before it.
   */
  buildKey?: string;
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
export interface SessionRecord {
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
  /** Time of the answer task per question (with `generateAnswers`), in the same run as retrieval. */
  answerMs?: { p50: number; p95: number; mean: number };
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
