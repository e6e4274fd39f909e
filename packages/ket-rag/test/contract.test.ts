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
const variants = [
  ['ket-rag-p', createKetRag(), { badOptions }],
  ['hybrid-rag', ketRagVariants['hybrid-rag'], { fuzzCases: 150 }],
  ['knng-rag', ketRagVariants['knng-rag'], { fuzzCases: 150 }],
] as const;
for (const [variant, method, checks] of variants) {
  for (const store of [undefined, memoryStore]) {
    runMethodSpec(`ket-rag (${variant})`, method, {
      corpus: CORPUS,
      makeContext,
      buildOptions,
      ...checks,
      store,
    });
  }
}
