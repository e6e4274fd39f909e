import { createBuildContext } from '@grag/core/kit';
import { createScriptedEmbedder } from '@grag/core/test';
import { runLocationSpec } from '@grag/core/test/vitest';
import { createOfflineProviders } from '@grag/offline';
import { sgRag } from '../src/index.js';

// The graph's facts are extracted from the chunks by the offline tasks; each fact (edge) keeps the
// locations of the chunks it was extracted from, and a relation, entity or subgraph item cites them.
const { tasks } = createOfflineProviders();
const makeContext = () => createBuildContext({ embedder: createScriptedEmbedder({ dimensions: 16 }), tasks });

runLocationSpec('sg-rag', sgRag, { makeContext, buildOptions: { chunkSize: 24, overlap: 4, pathLength: 2 } });
runLocationSpec('sg-rag (entity mode)', sgRag, {
  makeContext,
  buildOptions: { chunkSize: 24, overlap: 4, pathLength: 2 },
  retrieveOptions: { mode: 'entity' },
});
