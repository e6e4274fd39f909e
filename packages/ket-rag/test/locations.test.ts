import { createBuildContext } from '@grag/core/kit';
import { createScriptedEmbedder } from '@grag/core/test';
import { runLocationSpec } from '@grag/core/test/vitest';
import { createOfflineTasks } from '@grag/offline';
import { createKetRag, ketRagVariants } from '../src/index.js';

const makeContext = () =>
  createBuildContext({ embedder: createScriptedEmbedder({ dimensions: 16 }), tasks: createOfflineTasks() });

// KET-RAG-P: the skeleton's local search (entities, relations, sub-chunks) and the keyword channel.
runLocationSpec('ket-rag (ket-rag-p, document)', createKetRag(), {
  makeContext,
  buildOptions: { chunking: 'document', subChunkSize: 8 },
});
runLocationSpec('ket-rag (ket-rag-p, fixed)', createKetRag(), {
  makeContext,
  buildOptions: { chunkSize: 24, overlap: 4, subChunkSize: 8 },
});
// Whole chunks by similarity (Text-RAG) and followed by their KNN neighbours.
runLocationSpec('ket-rag (knng-rag)', ketRagVariants['knng-rag'], {
  makeContext,
  buildOptions: { chunking: 'document', subChunkSize: 8 },
});
