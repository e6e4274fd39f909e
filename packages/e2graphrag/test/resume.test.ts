import type { ChatModel, Document } from '@grag/core';
import { createPromptTasks, createSimulatedChat } from '@grag/core/tasks';
import { checkResumableBuild, createScriptedEmbedder } from '@grag/core/test';
import { expectCleanResume } from '@grag/core/test/vitest';
import { createOfflineTasks, createWinkTextAnalyzer } from '@grag/offline';
import { describe, expect, it } from 'vitest';
import { e2GraphRag } from '../src/index.js';

const people = ['Ada Lovelace', 'Charles Babbage', 'Mary Shelley', 'Anton Kessler', 'Grace Hopper'];
const places = ['London', 'Paris', 'Hamburg', 'Orsa', 'Turin', 'Geneva', 'Vienna'];
const things = ['engine', 'poem', 'ship', 'letter', 'compiler', 'lighthouse'];

// 40 one-chunk documents: a tree of 40 leaves, 8 summaries of leaves and 2 of summaries (8 > 1.2·5).
const docs: Document[] = Array.from({ length: 40 }, (_, i) => ({
  id: `d${i}`,
  title: `Note ${i}`,
  text:
    `${people[i % 5]} travelled to ${places[i % 7]} with ${people[(i + 2) % 5]}. ` +
    `There they studied the ${things[i % 6]} number ${i}. ` +
    `${people[(i + 3) % 5]} later wrote from ${places[(i + 4) % 7]} about the ${things[(i + 1) % 6]}.`,
}));

const SUMMARIES = 8 + 2;
const NODES = docs.length + SUMMARIES;

describe('e2graphrag build resumes', () => {
  it('an interrupted build resumed with the same cache repeats no call, keeps finished tree levels and writes the same index', async () => {
    const chatCalls: number[] = [];
    const report = await checkResumableBuild({
      method: e2GraphRag,
      documents: docs,
      options: { chunking: 'document' },
      tasks: (chat) => createPromptTasks(chat),
      chat: () => {
        const simulated = createSimulatedChat(createOfflineTasks());
        const n = chatCalls.push(0) - 1;
        const counting: ChatModel = {
          ...simulated,
          async doGenerate(call) {
            chatCalls[n]! += 1;
            return simulated.doGenerate(call);
          },
        };
        return counting;
      },
      embedder: () => ({ ...createScriptedEmbedder({ dimensions: 16 }), maxBatchSize: 4 }),
      context: { textAnalyzer: createWinkTextAnalyzer() },
      // During level 1 of the tree, during level 2 (the 9th of 10 summaries), during embedding.
      interruptAt: [0.05, 0.15, 0.5, 0.95],
    });
    // The uninterrupted build asked for every summary once and embedded every node once.
    expect(chatCalls[0]).toBe(SUMMARIES);
    expect(report.totalCalls).toBe(SUMMARIES + NODES);
    expect(report.files).toEqual(
      expect.arrayContaining(['embeddings.rows', 'graph.json', 'manifest.json', 'tree.json']),
    );
    expectCleanResume(report, 'chunk');
    // Each level of the tree is one 'summarize' stage: restored once it had finished, never half.
    const summarizeRestored = report.runs.map(
      (run) => run.resumedStages.filter((s) => s === 'summarize').length,
    );
    expect(summarizeRestored).toEqual([0, 1, 2, 2]);
    // Chat calls that reached the model, build by build (reference, then first and resumed run of each
    // interruption). Summaries in flight when the build stops still finish into the cache (all 8 of
    // level 1 run at once under the default concurrency of 8), so a resumed build asks only for what
    // no earlier run got back.
    expect(chatCalls).toEqual([SUMMARIES, 8, 2, SUMMARIES, 0, SUMMARIES, 0, SUMMARIES, 0]);
  });
});
