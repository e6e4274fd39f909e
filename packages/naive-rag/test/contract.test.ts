import type { TaskSuite } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { memoryStore } from '@grag/core/store';
import { createScriptedEmbedder, entityDocuments } from '@grag/core/test';
import { runMethodSpec } from '@grag/core/test/vitest';
import { bm25Rag, denseRag } from '../src/index.js';

const tasks = { id: 'no-tasks' } as TaskSuite;
const makeContext = () => createBuildContext({ embedder: createScriptedEmbedder({ dimensions: 32 }), tasks });
const corpus = entityDocuments(12);

// Every check on directories, then the persistence checks on an in-memory store (same results).
for (const store of [undefined, memoryStore]) {
  runMethodSpec('naive-dense', denseRag, {
    corpus,
    makeContext,
    buildOptions: { chunkSize: 40, overlap: 5 },
    badOptions: [{ chunkSize: 0 }, { entryPoints: 'sideways' as never }],
    store,
  });
}
for (const store of [undefined, memoryStore]) {
  runMethodSpec('bm25', bm25Rag, {
    corpus,
    makeContext,
    buildOptions: { chunkSize: 40, overlap: 5 },
    badOptions: [{ chunkSize: 0 }, { k1: -1 }],
    store,
  });
}
