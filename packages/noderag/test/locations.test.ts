import { createBuildContext } from '@grag/core/kit';
import { createScriptedEmbedder } from '@grag/core/test';
import { runLocationSpec } from '@grag/core/test/vitest';
import { createOfflineTasks } from '@grag/offline';
import { nodeRag } from '../src/index.js';

const makeContext = () =>
  createBuildContext({ embedder: createScriptedEmbedder({ dimensions: 16 }), tasks: createOfflineTasks() });

// Every node type carries the chunks it was made from: text (T), semantic units (S), attributes
// (A), relationships (R) and high-level elements (H) all cite their chunks' pages, sections, rows.
runLocationSpec('noderag (document)', nodeRag, {
  makeContext,
  buildOptions: { chunking: 'document', hnswM: 8, hnswEfConstruction: 32 },
});
runLocationSpec('noderag (fixed)', nodeRag, {
  makeContext,
  buildOptions: { chunking: 'fixed', chunkSize: 24, overlap: 4, hnswM: 8, hnswEfConstruction: 32 },
});
