import { createBuildContext } from '@grag/core/kit';
import { memoryStore } from '@grag/core/store';
import { createScriptedEmbedder, entityDocuments } from '@grag/core/test';
import { runMethodSpec } from '@grag/core/test/vitest';
import { createOfflineProviders } from '@grag/offline';
import { sgRag } from '../src/index.js';

// The graph is extracted from the documents by the offline tasks, which also extract each query's graph.
const { tasks } = createOfflineProviders();
const makeContext = () => createBuildContext({ embedder: createScriptedEmbedder({ dimensions: 16 }), tasks });

// Every check on directories, then the persistence checks on an in-memory store (same results).
for (const store of [undefined, memoryStore]) {
  runMethodSpec('sg-rag', sgRag, {
    corpus: entityDocuments(12),
    makeContext,
    buildOptions: { chunkSize: 60, overlap: 5, pathLength: 2 },
    queries: [
      'Who worked for the Kessler Shipyard?',
      'Which place did Anton Kessler visit?',
      'Who did the Orsa Marine Institute hire?',
    ],
    badOptions: [{ pathLength: 3 as never }, { dominanceDimensions: 0 }, { nodeCapacity: 1 }],
    store,
  });
}
