import type { TaskSuite } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { createScriptedEmbedder } from '@grag/core/test';
import { runLocationSpec } from '@grag/core/test/vitest';
import { bm25Rag, denseRag } from '../src/index.js';

const tasks = { id: 'no-tasks' } as TaskSuite;
const makeContext = () => createBuildContext({ embedder: createScriptedEmbedder({ dimensions: 32 }), tasks });

runLocationSpec('naive-dense (fixed)', denseRag, {
  makeContext,
  buildOptions: { chunkSize: 16, overlap: 4 },
});
runLocationSpec('naive-dense (document)', denseRag, { makeContext, buildOptions: { chunking: 'document' } });
runLocationSpec('bm25 (fixed)', bm25Rag, { makeContext, buildOptions: { chunkSize: 16, overlap: 4 } });
