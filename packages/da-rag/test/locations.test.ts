import { createBuildContext } from '@grag/core/kit';
import { createScriptedEmbedder } from '@grag/core/test';
import { runLocationSpec } from '@grag/core/test/vitest';
import { createOfflineTasks } from '@grag/offline';
import { daRag } from '../src/index.js';

const makeContext = () =>
  createBuildContext({ embedder: createScriptedEmbedder({ dimensions: 16 }), tasks: createOfflineTasks() });

runLocationSpec('da-rag (fixed)', daRag, {
  makeContext,
  buildOptions: { chunking: 'fixed', chunkSize: 24, overlap: 4 },
});
runLocationSpec('da-rag (semantic)', daRag, { makeContext });
