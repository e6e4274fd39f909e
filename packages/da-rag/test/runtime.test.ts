import { BuildStageError, createBuildContext, type ProgressEvent, type TaskSuite } from '@grag/core';
import { createScriptedEmbedder } from '@grag/core/test';
import { createOfflineTasks } from '@grag/offline';
import { describe, expect, it } from 'vitest';
import { createDaRag } from '../src/index.js';
import { CORPUS } from './corpus.js';

/** Offline tasks whose extraction and title calls record how many were in flight at once. */
function countingTasks(fail?: string) {
  const base = createOfflineTasks();
  const seen = { inFlight: 0, peak: 0, extracted: 0 };
  const tracked =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      seen.inFlight += 1;
      seen.peak = Math.max(seen.peak, seen.inFlight);
      try {
        await new Promise((resolve) => setImmediate(resolve));
        return await fn(...args);
      } finally {
        seen.inFlight -= 1;
      }
    };
  const tasks: TaskSuite = {
    ...base,
    extractGraph: tracked(async (text, options) => {
      seen.extracted += 1;
      if (fail && text.includes(fail)) throw new Error('the model is down');
      return base.extractGraph(text, options);
    }),
    titleAndDescription: tracked((text, options) => base.titleAndDescription(text, options)),
  };
  return { tasks, seen };
}

const embedder = () => createScriptedEmbedder({ dimensions: 16 });
// One chunk per document (the documents are shorter than a chunk).
const FIXED = { chunking: 'fixed' } as const;

describe('da-rag build runtime', () => {
  it('sends at most the runtime concurrency of model calls at once, or `concurrency` when set', async () => {
    const peak = async (runtime: number, option?: number) => {
      const { tasks, seen } = countingTasks();
      const ctx = createBuildContext({ embedder: embedder(), tasks, runtime: { concurrency: runtime } });
      await createDaRag().build(CORPUS, ctx, {
        ...FIXED,
        ...(option !== undefined ? { concurrency: option } : {}),
      });
      expect(seen.extracted).toBe(CORPUS.length);
      return seen.peak;
    };
    // Seven chunks per model stage: the pool fills up to its limit and never beyond.
    expect(await peak(3)).toBe(3);
    expect(await peak(3, 1)).toBe(1);
    expect(await peak(1, 5)).toBe(5);
  });

  it('reports one progress event per chunk extracted and described', async () => {
    const { tasks } = countingTasks();
    const events: ProgressEvent[] = [];
    const ctx = createBuildContext({ embedder: embedder(), tasks, onProgress: (e) => events.push(e) });
    const index = await createDaRag().build(CORPUS, ctx, FIXED);
    const n = index.chunks.length;
    for (const stage of ['extract', 'describe']) {
      const mine = events.filter((e) => e.stage === stage);
      expect(mine.map((e) => e.done)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
      expect(mine.every((e) => e.total === n && e.unit === 'chunks')).toBe(true);
    }
  });

  it('names the stage and the chunk when an extraction fails', async () => {
    const { tasks } = countingTasks('research vessel built by');
    const ctx = createBuildContext({ embedder: embedder(), tasks });
    const error = await createDaRag()
      .build(CORPUS, ctx, FIXED)
      .catch((e: unknown) => e);
    expect(BuildStageError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ stage: 'extract', item: 'chunk meridian#0' });
    expect((error as Error).message).toContain('the model is down');
  });

  it('rejects a concurrency that is not a positive integer', async () => {
    const ctx = createBuildContext({ embedder: embedder(), tasks: createOfflineTasks() });
    await expect(createDaRag().build(CORPUS, ctx, { ...FIXED, concurrency: 0 })).rejects.toThrow(
      /concurrency/,
    );
  });
});
