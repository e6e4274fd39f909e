import { BuildStageError, type ProgressEvent } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { createScriptedEmbedder, trackTasks } from '@grag/core/test';
import { expectConcurrencyLimits } from '@grag/core/test/vitest';
import { createOfflineTasks } from '@grag/offline';
import { describe, expect, it } from 'vitest';
import { createDaRag } from '../src/index.js';
import { CORPUS } from './corpus.js';

/** Offline tasks that record how many calls were in flight at once. */
const countingTasks = (fail?: string) => trackTasks(createOfflineTasks(), fail);

const embedder = () => createScriptedEmbedder({ dimensions: 16 });
// One chunk per document (the documents are shorter than a chunk).
const FIXED = { chunking: 'fixed' } as const;

describe('da-rag build runtime', () => {
  it('sends at most the runtime concurrency of model calls at once, or `concurrency` when set', async () => {
    // Seven chunks per model stage: the pool fills up to its limit and never beyond.
    await expectConcurrencyLimits(createOfflineTasks, embedder, CORPUS.length, (ctx, o) =>
      createDaRag().build(CORPUS, ctx, { ...FIXED, ...o }),
    );
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
