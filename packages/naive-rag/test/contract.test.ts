import { createBuildContext, type TaskSuite } from '@grag/core';
import { createScriptedEmbedder, entityDocuments } from '@grag/core/test';
import { runMethodSpec } from '@grag/core/test/vitest';
import { bm25Rag, denseRag } from '../src/index.js';

const tasks = { id: 'no-tasks' } as TaskSuite;
const makeContext = () => createBuildContext({ embedder: createScriptedEmbedder({ dimensions: 32 }), tasks });
const corpus = entityDocuments(12);

runMethodSpec('naive-dense', denseRag, {
  corpus,
  makeContext,
  buildOptions: { chunkSize: 40, overlap: 5 },
  badOptions: [{ chunkSize: 0 }, { entryPoints: 'sideways' as never }],
});
runMethodSpec('bm25', bm25Rag, {
  corpus,
  makeContext,
  buildOptions: { chunkSize: 40, overlap: 5 },
  badOptions: [{ chunkSize: 0 }, { k1: -1 }],
});
