import { BuildStageError, type ProgressEvent } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { createScriptedEmbedder, trackTasks } from '@grag/core/test';
import { expectConcurrencyLimits } from '@grag/core/test/vitest';
import { createOfflineTasks } from '@grag/offline';
import { describe, expect, it } from 'vitest';
import { createKetRag } from '../src/index.js';
import { CORPUS } from './corpus.js';

/** Offline tasks that record how many calls were in flight at once. */
const countingTasks = (fail?: string) => trackTasks(createOfflineTasks(), fail);

const embedder = () => createScriptedEmbedder({ dimensions: 16 });

describe('ket-rag build runtime', () => {
  it('sends at most the runtime concurrency of model calls at once, or `concurrency` when set', async () => {
    // Eight chunks to extract: the pool fills up to its limit and never beyond.
    await expectConcurrencyLimits(createOfflineTasks, embedder, CORPUS.length, (ctx, o) =>
      createKetRag({ variant: 'ms-graph-rag' }).build(CORPUS, ctx, { chunking: 'document', ...o }),
    );
  });

  it('reports one progress event per extracted chunk and per summary', async () => {
    const { tasks } = countingTasks();
    const events: ProgressEvent[] = [];
    const ctx = createBuildContext({ embedder: embedder(), tasks, onProgress: (e) => events.push(e) });
    const index = await createKetRag().build(CORPUS, ctx, { chunking: 'document' });
    const extract = events.filter((e) => e.stage === 'extract');
    expect(extract.map((e) => e.done)).toEqual(index.core.map((_, i) => i + 1));
    expect(extract.every((e) => e.total === index.core.length && e.unit === 'chunks')).toBe(true);
    const summarize = events.filter((e) => e.stage === 'summarize');
    expect(index.stats.summaries).toBeGreaterThan(0);
    expect(summarize.map((e) => e.done)).toEqual(
      Array.from({ length: index.stats.summaries }, (_, i) => i + 1),
    );
  });

  it('names the stage and the chunk when an extraction fails', async () => {
    const { tasks } = countingTasks('eel migrations');
    const ctx = createBuildContext({ embedder: embedder(), tasks });
    const error = await createKetRag({ variant: 'ms-graph-rag' })
      .build(CORPUS, ctx, { chunking: 'document' })
      .catch((e: unknown) => e);
    expect(BuildStageError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ stage: 'extract', item: 'chunk brandt' });
    expect((error as Error).message).toContain('the model is down');
  });
});
