import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBuildContext } from '../build-context.js';
import { cachedChat, cachedEmbedder, chatCallKey, embeddingKey, MemoryCallCache } from '../cache.js';
import { AbortError } from '../contracts/errors.js';
import type { BuildContext, Method } from '../contracts/method.js';
import type { ChatModel, Embedder } from '../contracts/models.js';
import type { BuildRun } from '../contracts/runtime.js';
import type { TaskSuite } from '../contracts/tasks.js';
import type { Document } from '../contracts/types.js';
import { chatModelAs, embedderAs } from '../model-identity.js';
import { MemoryCheckpointStore, trackBuilds } from '../runtime.js';
import { readIndexTree } from './index-files.js';

/** What {@link checkResumableBuild} needs to build one method. */
export interface ResumableBuildSpec<Index> {
  // biome-ignore lint/suspicious/noExplicitAny: any method options
  method: Method<Index, any>;
  documents: Document[];
  options?: Record<string, unknown>;
  /** A fresh chat model (deterministic answers). */
  chat: () => ChatModel;
  /** A fresh embedder (deterministic, not fittable, so its calls are cached). */
  embedder: () => Embedder;
  /** The task suite of a build on `chat`. */
  tasks: (chat: ChatModel) => TaskSuite;
  /** Extra context fields (vector index factory, tokenizer). */
  context?: Partial<BuildContext>;
  /**
   * Where to interrupt, as fractions of the model calls of an uninterrupted build.
   * @default [0.05, 0.5, 0.95]
   */
  interruptAt?: number[];
}

/** One interrupted-and-resumed build of {@link checkResumableBuild}. */
export interface ResumeRun {
  /** Model calls (chat calls + embedded values) completed before the interruption. */
  firstRunCalls: number;
  /** Model calls made by the resumed build. */
  resumedCalls: number;
  /** Calls of the resumed build that the first run had already completed (must be 0). */
  repeatedCalls: number;
  /** Stages the resumed build restored from checkpoints. */
  resumedStages: string[];
  /** Files of the resumed index whose bytes differ from the uninterrupted index. */
  differingFiles: string[];
}

export interface ResumeReport {
  /** Model calls of an uninterrupted build. */
  totalCalls: number;
  /** The chat calls among them (the rest are embedded values). */
  chatCalls: number;
  /** Files of the uninterrupted index. */
  files: string[];
  runs: ResumeRun[];
}

/** Models that log the key of every call that reaches them, under a call cache. */
function countedModels(spec: ResumableBuildSpec<unknown>, onCall: (key: string) => void) {
  const chat = spec.chat();
  const embedder = spec.embedder();
  const countingChat = chatModelAs(chat, async (options) => {
    const result = await chat.doGenerate(options);
    onCall(`chat:${chatCallKey(chat, options)}`);
    return result;
  });
  const countingEmbedder = embedderAs(embedder, async (options) => {
    const result = await embedder.doEmbed(options);
    for (const value of options.values) onCall(`embed:${embeddingKey(embedder, value)}`);
    return result;
  });
  return { chat: countingChat, embedder: countingEmbedder };
}

/**
 * The resumability contract of a method's build, checked the way a user meets it: build once
 * uninterrupted; then, for each interruption point, build with a call cache and checkpoints,
 * abort once that share of the model calls has completed (as a kill would stop it), and build
 * again with the same cache and checkpoints. Reports, per run, how many completed calls the
 * resumed build repeated (the contract: none) and which index files differ from the
 * uninterrupted build's (the contract: none; the manifest's write time is ignored).
 */
export async function checkResumableBuild<Index>(spec: ResumableBuildSpec<Index>): Promise<ResumeReport> {
  const root = await mkdtemp(join(tmpdir(), 'grag-resume-'));
  try {
    const build = async (
      models: { chat: ChatModel; embedder: Embedder },
      cache: MemoryCallCache,
      checkpoints: MemoryCheckpointStore | undefined,
      signal: AbortSignal | undefined,
      dir: string,
    ): Promise<BuildRun[]> => {
      const ctx = createBuildContext({
        ...spec.context,
        embedder: cachedEmbedder(models.embedder, cache),
        tasks: spec.tasks(cachedChat(models.chat, cache)),
        ...(signal ? { signal } : {}),
        ...(checkpoints ? { runtime: { checkpoints } } : {}),
      });
      const builds = trackBuilds(ctx);
      const index = await spec.method.build(spec.documents, ctx, spec.options ?? {});
      await spec.method.save(index, dir);
      return builds;
    };

    let totalCalls = 0;
    let chatCalls = 0;
    const referenceDir = join(root, 'reference');
    await build(
      countedModels(spec as ResumableBuildSpec<unknown>, (key) => {
        totalCalls += 1;
        if (key.startsWith('chat:')) chatCalls += 1;
      }),
      new MemoryCallCache(),
      undefined,
      undefined,
      referenceDir,
    );
    const reference = await readIndexTree(referenceDir);

    const runs: ResumeRun[] = [];
    for (const [n, fraction] of (spec.interruptAt ?? [0.05, 0.5, 0.95]).entries()) {
      const stopAfter = Math.max(1, Math.min(totalCalls - 1, Math.round(totalCalls * fraction)));
      const cache = new MemoryCallCache();
      const checkpoints = new MemoryCheckpointStore();
      const controller = new AbortController();
      const first = new Set<string>();
      let interrupted = false;
      try {
        await build(
          countedModels(spec as ResumableBuildSpec<unknown>, (key) => {
            first.add(key);
            if (first.size >= stopAfter) controller.abort();
          }),
          cache,
          checkpoints,
          controller.signal,
          join(root, `interrupted-${n}`),
        );
      } catch (error) {
        if (!AbortError.isInstance(error)) throw error;
        interrupted = true;
      }
      if (!interrupted) {
        throw new Error(
          `checkResumableBuild: the build did not stop when aborted after ${stopAfter} of ${totalCalls} calls`,
        );
      }
      let resumedCalls = 0;
      let repeatedCalls = 0;
      const dir = join(root, `resumed-${n}`);
      const builds = await build(
        countedModels(spec as ResumableBuildSpec<unknown>, (key) => {
          resumedCalls += 1;
          if (first.has(key)) repeatedCalls += 1;
        }),
        cache,
        checkpoints,
        undefined,
        dir,
      );
      const resumed = await readIndexTree(dir);
      const differingFiles = [...new Set([...reference.keys(), ...resumed.keys()])].filter((file) => {
        const a = reference.get(file);
        const b = resumed.get(file);
        return !a || !b || !a.equals(b);
      });
      runs.push({
        firstRunCalls: first.size,
        resumedCalls,
        repeatedCalls,
        resumedStages: builds.flatMap((b) => b.resumedStages),
        differingFiles,
      });
    }
    return { totalCalls, chatCalls, files: [...reference.keys()].sort(), runs };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
