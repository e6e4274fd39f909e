import { createBuildContext } from '@grag/core/kit';
import { memoryStore } from '@grag/core/store';
import { createScriptedEmbedder } from '@grag/core/test';
import { runMethodSpec } from '@grag/core/test/vitest';
import { createOfflineTasks } from '@grag/offline';
import { daRag } from '../src/index.js';
import { CORPUS } from './corpus.js';

const makeContext = () =>
  createBuildContext({ embedder: createScriptedEmbedder({ dimensions: 16 }), tasks: createOfflineTasks() });

// Every check on directories, then the persistence checks on an in-memory store (same results).
for (const store of [undefined, memoryStore]) {
  runMethodSpec('da-rag', daRag, {
    corpus: CORPUS,
    makeContext,
    buildOptions: { chunking: 'fixed', chunkSize: 40, overlap: 5 },
    queries: ['Who founded the Kessler Shipyard?', 'Ingrid Solberg Brandt Medal', 'rye bread in Tromvik'],
    badOptions: [
      { chunkSize: 0 },
      { overlap: 40 },
      { kMin: 5, kMax: 4 },
      { relevance: 'sideways' as never },
      { maxCommunityNodes: 'null' as never },
    ],
    store,
  });
}
