import { createBuildContext } from '@grag/core/kit';
import { memoryStore } from '@grag/core/store';
import { createScriptedEmbedder, entityDocuments } from '@grag/core/test';
import { runMethodSpec } from '@grag/core/test/vitest';
import { createOfflineTasks } from '@grag/offline';
import { nodeRag } from '../src/index.js';

const makeContext = () =>
  createBuildContext({ embedder: createScriptedEmbedder({ dimensions: 16 }), tasks: createOfflineTasks() });

// Every check on directories, then the persistence checks on an in-memory store (same results).
for (const store of [undefined, memoryStore]) {
  runMethodSpec('noderag', nodeRag, {
    corpus: entityDocuments(12),
    makeContext,
    // One chunk per document and a small HNSW graph keep the builds fast.
    buildOptions: { chunking: 'document', hnswM: 8, hnswEfConstruction: 32 },
    badOptions: [
      { chunkSize: 0 },
      { hnswM: 1 },
      { coreRule: 'sideways' as never },
      { chunking: 'fixed', chunkSize: 40, overlap: 40 },
      // A retrieval setting is a retrieve option, not a build option.
      { graphSearch: false } as never,
    ],
    store,
  });
}
