import { createBuildContext } from '@grag/core/kit';
import { createScriptedEmbedder } from '@grag/core/test';
import { runLocationSpec } from '@grag/core/test/vitest';
import { createOfflineTasks, createWinkTextAnalyzer } from '@grag/offline';
import { E2GRAPHRAG_PAPER_DEFAULTS, e2GraphRag } from '../src/index.js';
import { winkContext } from './fixtures.js';

const offline = () =>
  createBuildContext({
    embedder: createScriptedEmbedder({ dimensions: 32 }),
    tasks: createOfflineTasks(),
    textAnalyzer: createWinkTextAnalyzer(),
  });

// Scripted summaries name no entity, so every item that mentions an answer is a chunk of the corpus.
runLocationSpec('e2graphrag (fixed)', e2GraphRag, {
  makeContext: winkContext,
  buildOptions: { chunkSize: 16, overlap: 4 },
});
// The paper's configuration merges runs of consecutive chunks into one item (paperItems).
runLocationSpec('e2graphrag (paper, fixed)', e2GraphRag, {
  makeContext: offline,
  buildOptions: { ...E2GRAPHRAG_PAPER_DEFAULTS, chunkSize: 16, overlap: 4 },
});
runLocationSpec('e2graphrag (document)', e2GraphRag, {
  makeContext: offline,
  buildOptions: { chunking: 'document' },
});
