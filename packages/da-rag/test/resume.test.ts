import { createPromptTasks, createSimulatedChat } from '@grag/core/tasks';
import { checkResumableBuild, createScriptedEmbedder, entityDocuments } from '@grag/core/test';
import { expectCleanResume } from '@grag/core/test/vitest';
import { createOfflineTasks } from '@grag/offline';
import { describe, expect, it } from 'vitest';
import { createDaRag } from '../src/index.js';

const docs = entityDocuments(24);

describe('da-rag build resumes', () => {
  it('an interrupted build resumed with the same cache repeats no call and writes the same index', async () => {
    const report = await checkResumableBuild({
      method: createDaRag(),
      documents: docs,
      tasks: (chat) => createPromptTasks(chat),
      chat: () => createSimulatedChat(createOfflineTasks()),
      embedder: () => ({ ...createScriptedEmbedder({ dimensions: 16 }), maxBatchSize: 4 }),
    });
    expect(report.totalCalls).toBeGreaterThan(0);
    expect(report.chatCalls).toBeGreaterThan(0);
    expect(report.files).toEqual(
      expect.arrayContaining(['graph.json', 'chunk-vectors.rows', 'entity-vectors.rows']),
    );
    expectCleanResume(report);
    // Stopped halfway (during extraction): the semantic chunks, whose windows were embedded, come back.
    expect(report.runs[1]!.resumedStages).toEqual(['chunk']);
    // Stopped late (while embedding): chunking, extraction and the chunk descriptions come back.
    expect(report.runs[2]!.resumedStages).toEqual(['chunk', 'extract', 'describe']);
  });
});
