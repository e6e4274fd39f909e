/**
 * Every method that searches vectors at query time keeps them in pgvector with
 * `postgresStore({ vectors: true })` and gives the results of its in-memory flat index (see
 * `checkStoredVectors`), on PGlite over the wire.
 */

import { createBridgeRag } from '@grag/bridge-rag';
import { isStoredVectors } from '@grag/core';
import { createBuildContext, flatIndexFactory } from '@grag/core/kit';
import { createScriptedEmbedder } from '@grag/core/test';
import { e2GraphRag } from '@grag/e2graphrag';
import { createKetRag } from '@grag/ket-rag';
import { nodeRag } from '@grag/noderag';
import { createOfflineProviders } from '@grag/offline';
import { sgRag } from '@grag/sg-rag';
import type pg from 'pg';
import { describe, it } from 'vitest';
import { useServedPglite } from './pglite.js';
import { checkStoredVectors } from './stored-vectors.js';

let pool: pg.Pool;
useServedPglite(2, (p) => {
  pool = p;
});

/** Offline providers with a scripted embedder (so vectors differ by text) and the flat index. */
const offline = () =>
  createBuildContext({
    ...createOfflineProviders(),
    embedder: createScriptedEmbedder({ dimensions: 48 }),
    vectorIndex: flatIndexFactory,
  });

describe('vectors in pgvector give the results of the flat index in memory', () => {
  it('bridge-rag: the chunk vectors', { timeout: 120_000 }, async () => {
    await checkStoredVectors(pool, {
      method: createBridgeRag(),
      makeContext: offline,
      buildOptions: { chunking: 'document', bridgeSeeds: 2 },
      collections: ['chunks'],
      absent: ['embeddings.rows', 'vectors.bin'],
      stored: (index) => isStoredVectors(index.vectors),
    });
  });

  for (const preset of ['paper', 'offline'] as const) {
    it(`e2graphrag (${preset}): the tree node vectors, leaf searches filtered in the database`, {
      timeout: 120_000,
    }, async () => {
      await checkStoredVectors(pool, {
        method: e2GraphRag,
        makeContext: offline,
        buildOptions: { chunkSize: 30, overlap: 5, preset },
        collections: ['nodes'],
        absent: ['embeddings.rows', 'vectors.bin'],
        stored: (index) => isStoredVectors(index.vectors),
      });
    });
  }

  it('sg-rag: the node label vectors (entity normalization)', { timeout: 120_000 }, async () => {
    await checkStoredVectors(pool, {
      method: sgRag,
      makeContext: offline,
      buildOptions: { chunkSize: 60, overlap: 5, pathLength: 2 },
      collections: ['labels'],
      absent: ['labels.rows', 'labels.bin'],
      stored: (index) => isStoredVectors(index.labelVectors),
    });
  });

  it('noderag: the embedded nodes (T, S, A, H), semantic edges kept as base-layer.json', {
    timeout: 120_000,
  }, async () => {
    await checkStoredVectors(pool, {
      method: nodeRag,
      makeContext: offline,
      buildOptions: { chunking: 'document', hnswM: 8, hnswEfConstruction: 32 },
      collections: ['nodes'],
      absent: ['embeddings.rows', 'vectors.bin', 'hnsw-graph.bin'],
      stored: (index) => isStoredVectors(index.vectors),
    });
  });

  const ketCases = [
    ['keyword', ['entities'], 'the keyword channel keeps its sub-chunk and keyword vectors in memory'],
    ['dense', ['chunks', 'entities'], 'chunks by similarity'],
    ['entry', ['entities', 'subchunks'], 'the entry search over the sub-chunks'],
  ] as const;
  for (const [textChannel, collections, what] of ketCases) {
    it(`ket-rag (textChannel ${textChannel}): ${collections.join(', ')}; ${what}`, {
      timeout: 180_000,
    }, async () => {
      await checkStoredVectors(pool, {
        method: createKetRag(),
        makeContext: offline,
        buildOptions: { chunking: 'document', subChunkSize: 16, textChannel },
        collections: [...collections],
        absent: [
          'entities.rows',
          'entities.vec',
          ...(textChannel === 'dense' ? ['chunks.rows', 'chunks.vec'] : []),
          ...(textChannel === 'entry' ? ['subchunks.rows', 'subchunks.vec'] : []),
        ],
        stored: (index) =>
          isStoredVectors(index.skeleton!.entityVectors) &&
          (textChannel !== 'dense' || isStoredVectors(index.chunkVectors!)) &&
          (textChannel !== 'entry' || isStoredVectors(index.entry!.vectors!)),
      });
    });
  }
});
