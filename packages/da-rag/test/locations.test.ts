import { createBuildContext } from '@grag/core/kit';
import { createScriptedEmbedder } from '@grag/core/test';
import { runLocationSpec } from '@grag/core/test/vitest';
import { createOfflineTasks } from '@grag/offline';
import { daRag } from '../src/index.js';

// Citations to the place of an answer, with grag's offline settings (lexical evidence: the
// scripted embedder's cosines carry no meaning).
const makeContext = () =>
  createBuildContext({ embedder: createScriptedEmbedder({ dimensions: 16 }), tasks: createOfflineTasks() });

runLocationSpec('da-rag (fixed)', daRag, {
  makeContext,
  buildOptions: { preset: 'offline', chunking: 'fixed', chunkSize: 24, overlap: 4 },
});
runLocationSpec('da-rag (semantic)', daRag, { makeContext, buildOptions: { preset: 'offline' } });
