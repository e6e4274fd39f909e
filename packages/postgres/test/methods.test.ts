/**
 * Every grag method saves into a Postgres store and loads from it with the same results as from a
 * directory: the shared method spec's persistence checks, on PGlite in-process and over the wire.
 */
import type { PGlite } from '@electric-sql/pglite';
import type { IndexStore, TaskSuite } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { createPromptTasks } from '@grag/core/tasks';
import { createScriptedChatModel, createScriptedEmbedder, entityDocuments } from '@grag/core/test';
import { runMethodSpec } from '@grag/core/test/vitest';
import { daRag } from '@grag/da-rag';
import { e2GraphRag } from '@grag/e2graphrag';
import { createKetRag } from '@grag/ket-rag';
import { bm25Rag, denseRag } from '@grag/naive-rag';
import { nodeRag } from '@grag/noderag';
import { createOfflineTasks, createWinkTextAnalyzer } from '@grag/offline';
import { sgRag } from '@grag/sg-rag';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { postgresStore } from '../src/index.js';
import { freshIndex, type SocketDb, servePglite } from './pglite.js';

let db: PGlite;
let server: SocketDb;
let pool: pg.Pool;
beforeAll(async () => {
  // One PGlite database (starting one takes seconds), used in-process and served over the wire;
  // every store has a schema of its own (freshIndex).
  server = await servePglite();
  db = server.db;
  pool = new pg.Pool({ connectionString: server.url, max: 2 });
}, 120_000);
afterAll(async () => {
  await pool?.end();
  await server?.stop();
});

const embedder = (dimensions: number) => createScriptedEmbedder({ dimensions });
const offline =
  (dimensions = 16) =>
  () =>
    createBuildContext({ embedder: embedder(dimensions), tasks: createOfflineTasks() });
const corpus = entityDocuments(12);

const stores: [string, () => IndexStore][] = [
  ['PGlite in-process', () => postgresStore({ db, index: freshIndex('method') })],
  ['PGlite over the wire', () => postgresStore({ pool, index: freshIndex('method') })],
];

// The dense baseline with its vectors in a pgvector collection, searched in the database.
runMethodSpec('naive-dense with its vectors in pgvector (PGlite over the wire)', denseRag, {
  corpus,
  makeContext: () => createBuildContext({ embedder: embedder(32), tasks: { id: 'no-tasks' } as TaskSuite }),
  buildOptions: { chunkSize: 40, overlap: 5 },
  store: () => postgresStore({ pool, index: freshIndex('vectors'), vectors: true }),
});

for (const [where, store] of stores) {
  runMethodSpec(`naive-dense on ${where}`, denseRag, {
    corpus,
    makeContext: () => createBuildContext({ embedder: embedder(32), tasks: { id: 'no-tasks' } as TaskSuite }),
    buildOptions: { chunkSize: 40, overlap: 5 },
    store,
  });
  runMethodSpec(`bm25 on ${where}`, bm25Rag, {
    corpus,
    makeContext: () => createBuildContext({ embedder: embedder(32), tasks: { id: 'no-tasks' } as TaskSuite }),
    buildOptions: { chunkSize: 40, overlap: 5 },
    store,
  });
  runMethodSpec(`sg-rag on ${where}`, sgRag, {
    corpus,
    makeContext: offline(),
    buildOptions: { chunkSize: 60, overlap: 5, pathLength: 2 },
    queries: ['Who worked for the Kessler Shipyard?', 'Which place did Anton Kessler visit?'],
    store,
  });
  runMethodSpec(`da-rag on ${where}`, daRag, {
    corpus,
    makeContext: offline(),
    buildOptions: { chunking: 'fixed', chunkSize: 40, overlap: 5 },
    store,
  });
  runMethodSpec(`e2graphrag on ${where}`, e2GraphRag, {
    corpus,
    makeContext: () =>
      createBuildContext({
        embedder: embedder(32),
        tasks: createPromptTasks(
          createScriptedChatModel((call) => `overview of ${call.messages.at(-1)!.content.length} characters`),
        ),
        textAnalyzer: createWinkTextAnalyzer(),
      }),
    buildOptions: { chunkSize: 40, overlap: 5 },
    store,
  });
  runMethodSpec(`ket-rag on ${where}`, createKetRag(), {
    corpus,
    makeContext: offline(),
    buildOptions: { chunking: 'document', subChunkSize: 16 },
    store,
  });
  runMethodSpec(`noderag on ${where}`, nodeRag, {
    corpus,
    makeContext: offline(),
    buildOptions: { chunking: 'document', hnswM: 8, hnswEfConstruction: 32 },
    store,
  });
}
