import { createBuildContext } from '@grag/core/kit';
import { memoryStore } from '@grag/core/store';
import { createScriptedEmbedder } from '@grag/core/test';
import { runMethodSpec } from '@grag/core/test/vitest';
import { createOfflineTasks } from '@grag/offline';
import { createKetRag, type KetRagOptions, ketRagVariants } from '../src/index.js';
import { CORPUS } from './corpus.js';

// Offline tasks; a small scripted embedder keeps builds and the load fuzz fast.
const makeContext = () =>
  createBuildContext({ embedder: createScriptedEmbedder({ dimensions: 16 }), tasks: createOfflineTasks() });
const buildOptions: Partial<KetRagOptions> = { chunking: 'document', subChunkSize: 16 };
const badOptions: Partial<KetRagOptions>[] = [
  { beta: 2 },
  { textChannel: 'bm25' as never },
  { variant: 'graph-rag' as never },
  // Lists arrive as lists (the CLI parses `--set entityTypes=a,b`); a string is refused.
  { entityTypes: 'person,place' as never },
  { seedUnits: 0 },
];

// Between them the three write every file: KET-RAG-P the KNN graph, skeleton and keyword channel
// (keywords.json, keywords.vec, subchunks.f32); Hybrid-RAG chunks.vec and the entry search's
// subchunks.vec; KNNG-RAG the KNN channel, whose neighbour lists are rebuilt at load.
// Every check on directories, then the persistence checks on an in-memory store (same results).
for (const store of [undefined, memoryStore]) {
  runMethodSpec('ket-rag (ket-rag-p)', createKetRag(), {
    corpus: CORPUS,
    makeContext,
    buildOptions,
    badOptions,
    store,
  });
}
for (const store of [undefined, memoryStore]) {
  runMethodSpec('ket-rag (hybrid-rag)', ketRagVariants['hybrid-rag'], {
    corpus: CORPUS,
    makeContext,
    buildOptions,
    fuzzCases: 150,
    store,
  });
}
for (const store of [undefined, memoryStore]) {
  runMethodSpec('ket-rag (knng-rag)', ketRagVariants['knng-rag'], {
    corpus: CORPUS,
    makeContext,
    buildOptions,
    fuzzCases: 150,
    store,
  });
}
