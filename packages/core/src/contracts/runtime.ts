/**
 * The build-runtime contract: how a build runs ({@link BuildRuntimeSettings} on the build context:
 * concurrency, checkpoints, resume hint), where finished stages are kept ({@link CheckpointStore}),
 * and what a running build tells ({@link BuildRun}). `startBuild` in `@grag/core/kit` implements it.
 */
import type { ParseIssue } from './tasks.js';

/**
 * Where a build keeps the results of its finished stages, so a build killed midway and started
 * again skips them. Values are stored with Node's structured serialization (`node:v8`).
 */
export interface CheckpointStore {
  get(key: string): Promise<unknown | undefined>;
  set(key: string, value: unknown): Promise<void>;
  /** Forget every checkpoint (called once the index is written). */
  clear(): Promise<void>;
}

/** How a build runs: concurrency, checkpoints, what a failure tells the user to do. */
export interface BuildRuntimeSettings {
  /**
   * Model-backed work items (chunks, entities, communities) in flight at once. Hosted APIs allow a
   * few parallel requests per key; the OpenAI provider also caps its own requests.
   * @default 8
   */
  concurrency?: number;
  /** Where finished stages are kept; none by default (nothing is resumed). */
  checkpoints?: CheckpointStore;
  /** The end of a failure message, e.g. how to resume (the CLI names its cache). @default none */
  resumeHint?: string;
  /**
   * Called with the runtime of each build as it starts (a build's stages, issues and resumed stages
   * are its own; read them here).
   */
  onStart?: (runtime: BuildRun) => void;
}

/** Default {@link BuildRuntimeSettings.concurrency}. */
export const DEFAULT_BUILD_CONCURRENCY = 8;

/** A parse issue met during a build, with the stage and the item (chunk, entity) it came from. */
export interface BuildIssue extends ParseIssue {
  /** Stage name, e.g. `'extract'`. */
  stage: string;
  /** The stage's place in the build (`'003-extract'`); names may repeat, steps do not. */
  step: string;
  /** The work item, e.g. a chunk id. */
  item: string;
}

/**
 * A running build as its context's {@link BuildRuntimeSettings.onStart} sees it: its stage, the
 * stages run and resumed so far, the parse issues met. `BuildRuntime` (`startBuild` in
 * `@grag/core/kit`) implements it.
 */
export interface BuildRun {
  /** The stage the caller runs in (`'other'` outside any stage). */
  readonly currentStage: string;
  /** Stages run so far, as `<step>-<name>` (e.g. `'003-extract'`), in order. */
  readonly stages: readonly string[];
  /** Stages whose result came from a checkpoint instead of running, as in {@link BuildRun.stages}. */
  readonly resumedStages: readonly string[];
  /** Parse issues met so far, with the stage and item each came from. */
  readonly issues: readonly BuildIssue[];
  /** How many issues each stage met, by stage name. */
  issueCounts(): Record<string, number>;
}
