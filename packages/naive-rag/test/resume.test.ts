import type { Document, TaskSuite } from '@grag/core';
import { checkResumableBuild, createScriptedChatModel, createScriptedEmbedder } from '@grag/core/test';
import { expectCleanResume } from '@grag/core/test/vitest';
import { describe, expect, it } from 'vitest';
import { denseRag } from '../src/index.js';

const docs: Document[] = Array.from({ length: 40 }, (_, i) => ({
  id: `d${i}`,
  title: `Doc ${i}`,
  text: `Document ${i} talks about topic ${i % 7} and river ${i % 5}. It has a second sentence about town ${i}.`,
}));

describe('naive-dense build resumes', () => {
  it('an interrupted build resumed with the same cache repeats no call and writes the same index', async () => {
    const report = await checkResumableBuild({
      method: denseRag,
      documents: docs,
      options: { chunking: 'document' },
      chat: () => createScriptedChatModel([]),
      // One value per batch, so the build can be stopped between embedding calls.
      embedder: () => ({ ...createScriptedEmbedder({ dimensions: 16 }), maxBatchSize: 1 }),
      tasks: () => ({}) as TaskSuite,
    });
    expect(report.totalCalls).toBe(40);
    expect(report.files).toContain('vectors.bin');
    // The chunk stage finished before every interruption and is restored, not redone.
    expectCleanResume(report, 'chunk');
  });
});
