import { BuildStageError, type Document, type ProgressEvent } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { createPromptTasks } from '@grag/core/tasks';
import { createScriptedChatModel, createScriptedEmbedder } from '@grag/core/test';
import { describe, expect, test } from 'vitest';
import { createE2GraphRag, entityExtractorFromFunction } from '../src/index.js';

// A light extractor: capitalized words, so these tests spend no time in wink-nlp.
const extractor = entityExtractorFromFunction((s) => s.match(/\b[A-Z][a-z]+\b/g) ?? []);
const method = createE2GraphRag({ extractor, defaults: { chunking: 'document' } });

const docs = (n: number): Document[] =>
  Array.from({ length: n }, (_, i) => ({ id: `d${i}`, text: `Doc ${i} names Ada and Bob.` }));

/** Prompt tasks on a model that counts the summaries in flight at once. */
function slowTasks() {
  const state = { inFlight: 0, most: 0 };
  const model = createScriptedChatModel(async () => {
    state.inFlight++;
    state.most = Math.max(state.most, state.inFlight);
    await new Promise((resolve) => setTimeout(resolve, 2));
    state.inFlight--;
    return 'overview';
  });
  return { state, model, tasks: createPromptTasks(model) };
}

describe('e2graphrag build on the build runtime', () => {
  test('summaries run at the runtime concurrency unless the concurrency option is set', async () => {
    // 60 leaves: 12 summaries of leaves, then 3 of summaries.
    const byRuntime = slowTasks();
    await method.build(
      docs(60),
      createBuildContext({
        embedder: createScriptedEmbedder(),
        tasks: byRuntime.tasks,
        runtime: { concurrency: 3 },
      }),
    );
    expect(byRuntime.model.calls).toHaveLength(15);
    expect(byRuntime.state.most).toBe(3);

    const byOption = slowTasks();
    const index = await method.build(
      docs(60),
      createBuildContext({
        embedder: createScriptedEmbedder(),
        tasks: byOption.tasks,
        runtime: { concurrency: 3 },
      }),
      { concurrency: 2 },
    );
    expect(byOption.state.most).toBe(2);
    expect(index.options.concurrency).toBe(2);
    await expect(
      method.build(
        docs(3),
        createBuildContext({ embedder: createScriptedEmbedder(), tasks: byOption.tasks }),
        {
          concurrency: 0,
        },
      ),
    ).rejects.toThrow(/e2graphrag build: concurrency must be a positive integer \(got 0\)/);
  });

  test('reports progress per tree level, per chunk for entities and per embedding batch', async () => {
    const events: ProgressEvent[] = [];
    const { tasks } = slowTasks();
    await method.build(
      docs(12),
      createBuildContext({
        embedder: { ...createScriptedEmbedder(), maxBatchSize: 10 },
        tasks,
        onProgress: (e) => events.push(e),
      }),
    );
    const last = (stage: string) =>
      events
        .filter((e) => e.stage === stage)
        .map((e) => [e.done, e.total, e.unit])
        .at(-1);
    // 12 leaves → 3 summaries (3 <= 1.2 · 5, so one level); 15 nodes → batches of 10 and 5.
    expect(last('summarize')).toEqual([3, 3, 'summaries']);
    expect(last('entities')).toEqual([12, 12, 'chunks']);
    expect(last('embed')).toEqual([2, 2, 'batches']);
    expect(events.filter((e) => e.stage === 'entities')).toHaveLength(12);
  });

  test('a failing summary stops the build with an error naming the stage, the summary and its chunks', async () => {
    const model = createScriptedChatModel((call) => {
      if (call.messages.at(-1)!.content.includes('Doc 7 ')) throw new Error('rate limited');
      return 'overview';
    });
    const error = await method
      .build(
        docs(12),
        createBuildContext({ embedder: createScriptedEmbedder(), tasks: createPromptTasks(model) }),
      )
      .catch((e: unknown) => e);
    expect(BuildStageError.isInstance(error)).toBe(true);
    const { stage, item, message } = error as BuildStageError;
    expect(stage).toBe('summarize');
    // Doc 7 is leaf 7, in the second group of five.
    expect(item).toBe('summary:1:1 (chunks d5 to d9)');
    expect(message).toMatch(/rate limited/);
  });
});
