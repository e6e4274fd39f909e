import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { callCacheKey } from './cache.js';
import {
  AbortError,
  BuildStageError,
  InvalidArgumentError,
  StateError,
  throwIfAborted,
} from './contracts/errors.js';
import type { BuildContext } from './contracts/method.js';
import type { BuildIssue, BuildRun, CheckpointStore } from './contracts/runtime.js';
import { DEFAULT_BUILD_CONCURRENCY } from './contracts/runtime.js';
import {
  type ParseIssue,
  type TaskName,
  type TaskSuite,
  type TaskVersions,
  taskVersion,
} from './contracts/tasks.js';
import type { Document } from './contracts/types.js';
import { stringTable } from './string-table.js';

/** Checkpoints in memory (tests, one process). */
export class MemoryCheckpointStore implements CheckpointStore {
  readonly #entries = new Map<string, Buffer>();
  async get(key: string): Promise<unknown | undefined> {
    const hit = this.#entries.get(key);
    return hit === undefined ? undefined : deserialize(hit);
  }
  async set(key: string, value: unknown): Promise<void> {
    this.#entries.set(key, serialize(value));
  }
  async clear(): Promise<void> {
    this.#entries.clear();
  }
  /** Keys stored so far, in insertion order. */
  keys(): string[] {
    return [...this.#entries.keys()];
  }
}

/**
 * Checkpoints as files under `dir`, one per stage, each written to a temporary name and renamed
 * into place: a build killed while writing leaves the previous state, never a torn checkpoint.
 */
export class FileCheckpointStore implements CheckpointStore {
  readonly dir: string;
  constructor(dir: string) {
    this.dir = dir;
  }
  #path(key: string): string {
    return join(this.dir, `${key.replace(/[^\w.-]/g, '_')}.v8`);
  }
  async get(key: string): Promise<unknown | undefined> {
    let bytes: Buffer;
    try {
      bytes = await readFile(this.#path(key));
    } catch {
      return undefined;
    }
    try {
      return deserialize(bytes);
    } catch {
      return undefined; // unreadable (e.g. written by another Node major): the stage runs again
    }
  }
  async set(key: string, value: unknown): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const path = this.#path(key);
    const tmp = `${path}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
    try {
      await writeFile(tmp, serialize(value));
      await rename(tmp, path);
    } catch (error) {
      await rm(tmp, { force: true });
      throw error;
    }
  }
  async clear(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }
}

/** Options of {@link BuildRuntime.map}. */
export interface MapOptions<I, O> {
  /** Names an item in progress and error messages, e.g. the chunk id. @default `item <n> of <total>` */
  label?: (item: I, index: number) => string;
  /** What an item is, for progress events. @default 'items' */
  unit?: string;
  /** Overrides the runtime's concurrency for this map (e.g. 1 for CPU-bound work). */
  concurrency?: number;
  /**
   * The parse issues of a result, recorded in {@link BuildRuntime.issues}.
   * @default the result's `issues` array, when it has one
   */
  issues?: (result: O) => readonly ParseIssue[] | undefined;
}

/** Options of {@link BuildRuntime.stage}. */
export interface StageOptions {
  /**
   * Keep the stage's result as a checkpoint and reuse it when the build is run again. The result
   * must be plain data (objects, arrays, Maps, Sets, typed arrays); stages that return class
   * instances or work by side effect pass `false`. @default true
   */
  checkpoint?: boolean;
}

interface StageFrame {
  key: string;
  name: string;
}

function defaultIssues(result: unknown): readonly ParseIssue[] | undefined {
  const issues = (result as { issues?: unknown } | null | undefined)?.issues;
  return Array.isArray(issues) ? (issues as ParseIssue[]) : undefined;
}

/** The first value inside `value` that structured serialization would not restore as it was. */
function firstNonPlain(value: unknown, seen = new Set<object>()): string | undefined {
  if (value === null || typeof value !== 'object') {
    return typeof value === 'function' || typeof value === 'symbol' ? typeof value : undefined;
  }
  if (seen.has(value)) return undefined;
  seen.add(value);
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer || value instanceof Date) return undefined;
  if (Array.isArray(value)) {
    for (const v of value) {
      const bad = firstNonPlain(v, seen);
      if (bad) return bad;
    }
    return undefined;
  }
  if (value instanceof Map) {
    for (const [k, v] of value) {
      const bad = firstNonPlain(k, seen) ?? firstNonPlain(v, seen);
      if (bad) return bad;
    }
    return undefined;
  }
  if (value instanceof Set) {
    for (const v of value) {
      const bad = firstNonPlain(v, seen);
      if (bad) return bad;
    }
    return undefined;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null)
    return `a ${proto?.constructor?.name ?? 'class'} instance`;
  for (const v of Object.values(value)) {
    const bad = firstNonPlain(v, seen);
    if (bad) return bad;
  }
  return undefined;
}

/**
 * The build runtime every method's `build` runs through: named stages (metered, checkpointed and
 * skipped on resume), bounded-concurrency maps over work items (ordered results, progress events,
 * abort, failures that name the stage and the item), and the parse issues met on the way.
 * Each build starts its own with {@link startBuild} and passes it down: two builds on one context
 * share nothing but the context.
 */
export class BuildRuntime implements BuildRun {
  readonly #ctx: BuildContext;
  readonly #frame = new AsyncLocalStorage<StageFrame>();
  #ordinal = 0;
  /** Parse issues recorded so far (also those of stages restored from checkpoints). */
  readonly issues: BuildIssue[] = [];
  /** Names of the stages restored from checkpoints instead of run. */
  readonly resumedStages: string[] = [];
  /** Keys of the stages started so far (`'001-chunk'`), in order. */
  readonly stages: string[] = [];

  constructor(ctx: BuildContext) {
    this.#ctx = ctx;
  }

  get concurrency(): number {
    return this.#ctx.runtime?.concurrency ?? DEFAULT_BUILD_CONCURRENCY;
  }

  /** The stage the caller runs in. */
  get currentStage(): string {
    return this.#frame.getStore()?.name ?? this.#ctx.meter.currentStage;
  }

  /**
   * Run `fn` as stage `name`: metered under that name; with a checkpoint store, a result kept by an
   * earlier run of the same build is returned without running `fn`, and a new result is kept.
   * Stages are numbered in call order, so a name may repeat.
   */
  async stage<T>(name: string, fn: () => Promise<T> | T, options: StageOptions = {}): Promise<T> {
    const key = `${String(++this.#ordinal).padStart(3, '0')}-${name}`;
    this.stages.push(key);
    const store = options.checkpoint === false ? undefined : this.#ctx.runtime?.checkpoints;
    throwIfAborted(this.#ctx.signal);
    if (store) {
      const kept = (await store.get(key)) as { value: T; issues: BuildIssue[] } | undefined;
      if (kept !== undefined) {
        this.issues.push(...kept.issues);
        this.resumedStages.push(name);
        this.#ctx.onProgress?.({ stage: name, done: 1, total: 1, unit: 'stage', message: 'from checkpoint' });
        return kept.value;
      }
    }
    const value = await this.#frame.run({ key, name }, () => this.#ctx.meter.stage(name, fn));
    if (store) {
      const bad = firstNonPlain(value);
      if (bad) {
        throw new StateError(
          `Stage "${name}" returned ${bad}, which a checkpoint cannot restore; return plain data or pass { checkpoint: false }.`,
        );
      }
      await store.set(key, { value, issues: this.issues.filter((i) => i.step === key) });
    }
    return value;
  }

  /**
   * Run `fn` over `items`, at most `concurrency` at a time; results keep input order. Emits a
   * progress event per finished item and records each result's parse issues (in input order).
   * Once `signal` aborts
   * or an item fails, no new item starts; items in flight finish (their model calls reach the
   * cache), then the failure is thrown as a {@link BuildStageError} naming the stage and the item.
   */
  async map<I, O>(
    items: readonly I[],
    fn: (item: I, index: number) => Promise<O> | O,
    options: MapOptions<I, O> = {},
  ): Promise<O[]> {
    const frame = this.#frame.getStore();
    const stage = frame?.name ?? this.#ctx.meter.currentStage;
    const step = frame?.key ?? stage;
    const limit = options.concurrency ?? this.concurrency;
    if (!Number.isInteger(limit) || limit < 1) {
      throw new InvalidArgumentError('concurrency', `concurrency must be a positive integer (got ${limit}).`);
    }
    const label = options.label ?? ((_item: I, i: number) => `item ${i + 1} of ${items.length}`);
    const issuesOf = options.issues ?? defaultIssues;
    const signal = this.#ctx.signal;
    const out = new Array<O>(items.length);
    // Issues by item, recorded in input order once all items are done (not in completion order).
    const found: BuildIssue[][] = [];
    let next = 0;
    let done = 0;
    const failed: { error: unknown; index: number }[] = [];
    const worker = async (): Promise<void> => {
      while (failed.length === 0 && next < items.length) {
        if (signal?.aborted) return;
        const i = next++;
        try {
          const result = await fn(items[i]!, i);
          out[i] = result;
          const issues = issuesOf(result);
          if (issues?.length) {
            found[i] = issues.map((issue) => ({ ...issue, stage, step, item: label(items[i]!, i) }));
          }
          done += 1;
          this.#ctx.onProgress?.({ stage, done, total: items.length, unit: options.unit ?? 'items' });
        } catch (error) {
          failed.push({ error, index: i });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
    if (failed.length > 0) {
      // The earliest item that failed, so the message does not depend on timing.
      const { error, index } = failed.reduce((a, b) => (b.index < a.index ? b : a));
      if (AbortError.isInstance(error) || BuildStageError.isInstance(error)) throw error;
      const item = label(items[index]!, index);
      const hint = this.#ctx.runtime?.resumeHint;
      const cause = error instanceof Error ? error.message : String(error);
      throw new BuildStageError(
        stage,
        item,
        `stage "${stage}" failed on ${item} (${done} of ${items.length} done): ${cause.replace(/\.$/, '')}${hint ? `; ${hint.replace(/\.$/, '')}` : ''}.`,
        { cause: error },
      );
    }
    throwIfAborted(signal);
    for (const issues of found) if (issues) this.issues.push(...issues);
    return out;
  }

  /**
   * Embed `values` with the context's embedder in batches of its `maxBatchSize` (256 when it
   * names none), batches running through {@link map}: bounded concurrency, progress, abort, and a
   * failure naming the batch's first value (via `label`). Repeated values are embedded once.
   */
  async embed(
    values: readonly string[],
    options: { batchSize?: number; label?: (value: string, index: number) => string } = {},
  ): Promise<Float32Array[]> {
    // Each distinct text is embedded once: duplicates would miss the call cache together.
    const { strings: unique, ref } = stringTable();
    const slot = values.map((value) => ref(value));
    const vectors = await this.#embedUnique(unique, options);
    return slot.map((at) => vectors[at]!);
  }

  async #embedUnique(
    values: readonly string[],
    options: { batchSize?: number; label?: (value: string, index: number) => string },
  ): Promise<Float32Array[]> {
    const embedder = this.#ctx.embedder;
    const size = Math.max(
      1,
      Math.min(options.batchSize ?? Number.POSITIVE_INFINITY, embedder.maxBatchSize ?? 256),
    );
    const starts = Array.from({ length: Math.ceil(values.length / size) }, (_, b) => b * size);
    const signal = this.#ctx.signal;
    const batches = await this.map(
      starts,
      async (start) => {
        const batch = values.slice(start, start + size);
        const { embeddings } = await embedder.doEmbed({
          values: batch,
          ...(signal ? { abortSignal: signal } : {}),
        });
        if (embeddings.length !== batch.length) {
          throw new StateError(
            `${embedder.provider}:${embedder.modelId} returned ${embeddings.length} embeddings for ${batch.length} texts.`,
          );
        }
        return embeddings;
      },
      {
        unit: 'batches',
        label: (start) =>
          options.label
            ? `${options.label(values[start]!, start)} (batch of ${Math.min(size, values.length - start)})`
            : `texts ${start + 1}-${Math.min(start + size, values.length)} of ${values.length}`,
        issues: () => undefined,
      },
    );
    return batches.flat();
  }

  /** Parse issues per stage name. */
  issueCounts(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const issue of this.issues) counts[issue.stage] = (counts[issue.stage] ?? 0) + 1;
    return counts;
  }
}

/**
 * Start a build on `ctx`: a new {@link BuildRuntime} (stage numbering, issues and resumed stages of
 * this build alone), announced to `ctx.runtime.onStart`. Call it once at the top of `build` and
 * pass the runtime down.
 */
export function startBuild(ctx: BuildContext): BuildRuntime {
  const runtime = new BuildRuntime(ctx);
  ctx.runtime?.onStart?.(runtime);
  return runtime;
}

/**
 * Refuse a task suite that does not implement every task contract in `needs` at the version named
 * there (see `TaskSuite.implements` and `taskVersion`), before a build or an update starts: one
 * `InvalidArgumentError` (argument `'tasks'`) naming `caller` (the method and what it does, e.g.
 * `'noderag build'`), each task it lacks with the version wanted and the version the suite has,
 * and the suite's id. Versions must be equal: a contract's version goes up only when it changes
 * in a way the previous version's callers would not expect. The suite's declaration is checked,
 * not its functions. `needs` absent (a method that declares no tasks): nothing is checked.
 *
 * @example
 * ```ts
 * requireTasks(`${name} build`, method.capabilities.tasks?.build, ctx.tasks);
 * ```
 */
export function requireTasks(
  caller: string,
  needs: TaskVersions | undefined,
  suite: Pick<TaskSuite, 'id' | 'implements'>,
): void {
  if (needs === undefined) return;
  const lacking: string[] = [];
  for (const [task, wanted] of Object.entries(needs) as [TaskName, number | undefined][]) {
    if (wanted === undefined) continue;
    const has = taskVersion(suite, task);
    if (has !== wanted) {
      lacking.push(
        `${task} version ${wanted} (${has === undefined ? 'not implemented' : `it implements version ${has}`})`,
      );
    }
  }
  if (lacking.length === 0) return;
  throw new InvalidArgumentError(
    'tasks',
    `${caller}: the task suite '${suite.id}' lacks ${lacking.join(', ')}, which the method calls; pass a suite that implements ${lacking.length === 1 ? 'it' : 'them'} (createPromptTasks in @grag/core/tasks and createOfflineTasks in @grag/offline implement every task at version 1).`,
  );
}

/**
 * A key naming one build: method, format, options, documents and providers. Checkpoints of a build
 * live under its key, so a changed input never resumes from another build's stages.
 */
export function buildKey(parts: {
  method: string;
  formatVersion: number;
  options: unknown;
  documents: readonly Document[];
  providers: Record<string, string>;
}): string {
  return callCacheKey({
    ...parts,
    documents: callCacheKey(parts.documents),
  });
}

/**
 * Keep the {@link BuildRuntime} of every build started on `ctx` from now on (chained before any
 * `onStart` already set): `const builds = trackBuilds(ctx); await method.build(docs, ctx);
 * builds.at(-1)?.issues`.
 */
export function trackBuilds(ctx: BuildContext): BuildRun[] {
  const started: BuildRun[] = [];
  const previous = ctx.runtime?.onStart;
  ctx.runtime = {
    ...ctx.runtime,
    onStart: (runtime) => {
      started.push(runtime);
      previous?.(runtime);
    },
  };
  return started;
}
