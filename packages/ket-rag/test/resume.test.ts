import { createPromptTasks, createSimulatedChat } from '@grag/core/tasks';
import { checkResumableBuild, createScriptedEmbedder, entityDocuments } from '@grag/core/test';
import { expectCleanResume } from '@grag/core/test/vitest';
import { createOfflineTasks } from '@grag/offline';
import { describe, expect, it } from 'vitest';
import { createKetRag } from '../src/index.js';

const docs = entityDocuments(24);

describe('ket-rag build resumes', () => {
  it('an interrupted build resumed with the same cache repeats no call and writes the same index', async () => {
    const report = await checkResumableBuild({
      method: createKetRag(),
      documents: docs,
      options: { chunking: 'document' },
      tasks: (chat) => createPromptTasks(chat),
      chat: () => createSimulatedChat(createOfflineTasks()),
      embedder: () => ({ ...createScriptedEmbedder({ dimensions: 16 }), maxBatchSize: 4 }),
    });
    expect(report.totalCalls).toBeGreaterThan(0);
    expect(report.chatCalls).toBeGreaterThan(0);
    expect(report.files).toEqual(
      expect.arrayContaining(['skeleton.json', 'skeleton.bin', 'entities.rows', 'subchunks.rows']),
    );
    expectCleanResume(report);
    // Stopped early, inside the first model stage: only the pure stages before it come back.
    expect(report.runs[0]!.resumedStages).toEqual(['chunk', 'split']);
    // Stopped late (while embedding sentences, the largest stage): every model stage that had
    // finished is restored, none is redone.
    expect(report.runs[2]!.resumedStages).toEqual([
      'chunk',
      'split',
      'embed-chunks',
      'knn',
      'core',
      'extract',
      'summarize',
      'embed-entities',
      'keywords',
    ]);
  });
});
