/**
 * The index format (version 2): the chunk and entity vectors as core's lossless vector rows
 * (`*.rows`), the JSON files gzipped, and a saved-then-loaded index retrieving exactly what the
 * index in memory does (same items, scores, contexts), with a sparse (offline TF-IDF) and a dense
 * (scripted) embedder. Indexes of version 1 (float32 `*.f32` rows, plain JSON) still load and
 * retrieve the same; other versions are refused with a message saying to rebuild.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { BuildContext, Retrieval } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { createScriptedEmbedder } from '@grag/core/test';
import { checkIndexFormats, rewriteAsFormat1, temporaryRoot } from '@grag/core/test/vitest';
import { createOfflineEmbedder, createOfflineTasks } from '@grag/offline';
import { describe, expect, it } from 'vitest';
import { type DaRagIndex, daRag } from '../src/index.js';
import { CORPUS } from './corpus.js';

const QUERIES = [
  'Who founded the Kessler Shipyard?',
  'Which ferry crosses the Veskan Strait?',
  'Meridian research vessel Veskan Strait',
  'Who directs the institute that operates the research vessel built by the Kessler Shipyard?',
];
const JSON_FILES = ['chunks.json', 'graph.json', 'update.json'];

const contexts: Record<string, () => BuildContext> = {
  sparse: () => {
    const embedder = createOfflineEmbedder('tfidf');
    return createBuildContext({ embedder, tasks: createOfflineTasks({ embedder }) });
  },
  dense: () =>
    createBuildContext({ embedder: createScriptedEmbedder({ dimensions: 16 }), tasks: createOfflineTasks() }),
};

async function retrievals(index: DaRagIndex): Promise<Retrieval[]> {
  const out: Retrieval[] = [];
  for (const q of QUERIES) out.push(await daRag.retrieve(index, q, { budgetTokens: 4000 }));
  return out;
}

const root = temporaryRoot('da-rag-format-');

/** Rewrite the format-2 index in `dir` as format 1 wrote it (float32 `*.f32` rows, plain JSON). */
const asVersion1 = (dir: string, index: DaRagIndex) =>
  rewriteAsFormat1(dir, {
    gunzip: JSON_FILES,
    vectors: (
      [
        ['chunk-vectors', index.chunks.length],
        ['entity-vectors', index.entities.length],
      ] as const
    ).map(([name, rows]) => ({
      from: `${name}.rows`,
      to: `${name}.f32`,
      rows,
      dimensions: index.providers.embedder.dimensions,
    })),
  });

describe('da-rag index format 2', () => {
  for (const [kind, context] of Object.entries(contexts)) {
    it(`${kind} vectors: a saved and loaded index retrieves exactly what the index in memory does; format 1 still loads; other formats are refused, saying to rebuild`, async () => {
      const ctx = context();
      const { want } = await checkIndexFormats({
        dir: join(root(), kind),
        build: () => daRag.build(CORPUS, ctx, { chunking: 'fixed' }),
        method: daRag,
        context: ctx,
        retrievals,
        gzipped: JSON_FILES,
        loaded: (loaded, index) => {
          expect(loaded.chunkVectors).toEqual(index.chunkVectors);
          expect(loaded.entityVectors).toEqual(index.entityVectors);
        },
        saved: async (dir) => {
          const files = await readdir(dir);
          expect(files.filter((f) => f.endsWith('.rows')).sort()).toEqual([
            'chunk-vectors.rows',
            'entity-vectors.rows',
          ]);
          expect(files.filter((f) => f.endsWith('.f32'))).toEqual([]);
        },
        version1: asVersion1,
        refused: { message: /Rebuild the index\.$/ },
      });
      expect(want.every((r) => r.items.length > 0)).toBe(true);
    });
  }
});
