/**
 * The index format (version 2): the tree node embeddings stored once (`embeddings.rows`; the
 * vector index saved beside them only when the factory is not exact), `tree.json`, `graph.json`,
 * `links.json` and `update.json` gzipped, BM25 over the node texts in `lexical.bm25`, and a saved-then-loaded index retrieving exactly what the
 * index in memory does (same items, scores and contexts, local and global queries), for exact and
 * approximate vector factories. Indexes of version 1 still load and retrieve the same; other
 * versions are refused with a message saying to rebuild.
 */
import { join } from 'node:path';
import type { BuildContext, VectorIndexFactory } from '@grag/core';
import { createBuildContext, flatIndexFactory } from '@grag/core/kit';
import { createScriptedEmbedder, ENTITY_QUESTIONS, entityDocuments, retrieveEach } from '@grag/core/test';
import {
  checkIndexFormats,
  EXACT_AND_SAVED_FACTORIES,
  rewriteAsFormat1,
  temporaryRoot,
} from '@grag/core/test/vitest';
import { createOfflineProviders } from '@grag/offline';
import { describe, expect, it } from 'vitest';
import { createE2GraphRag, type E2GraphRagIndex } from '../src/index.js';
import { capitalized } from './fixtures.js';

const DOCS = entityDocuments(12);
const BUILD = { chunkSize: 24, overlap: 4, preset: 'offline' } as const;
const QUERIES = [...ENTITY_QUESTIONS, 'What are these documents about overall?'];
const DIMENSIONS = 16;
const method = createE2GraphRag({ extractor: capitalized });

const context = (vectorIndex: VectorIndexFactory = flatIndexFactory): BuildContext =>
  createBuildContext({
    embedder: createScriptedEmbedder({ dimensions: DIMENSIONS }),
    tasks: createOfflineProviders().tasks,
    vectorIndex,
  });

const retrievals = (index: E2GraphRagIndex) =>
  retrieveEach(method, index, QUERIES, [{ budgetTokens: 100_000 }, { budgetTokens: 200 }]);

const GZIPPED = ['tree.json', 'graph.json', 'links.json', 'update.json'];

const root = temporaryRoot('e2graphrag-format-');

describe('e2graphrag index format 2', () => {
  for (const [kind, factory] of EXACT_AND_SAVED_FACTORIES) {
    it(`${kind} factory: a saved and loaded index retrieves exactly what the index in memory does${kind === 'saved' ? '; format 1 (float32 embeddings beside the vector index, plain JSON) still loads' : ''}; other formats are refused`, async () => {
      const { index, want } = await checkIndexFormats({
        dir: join(root(), kind),
        build: () => method.build(DOCS, context(factory), BUILD),
        method,
        context: () => context(factory),
        retrievals,
        gzipped: GZIPPED,
        loaded: (loaded, index) => {
          expect(loaded.kept).toEqual(index.kept);
          expect(loaded.tree).toEqual(index.tree);
          expect(loaded.homes).toEqual(index.homes);
          // BM25 read from its file, not built again: the same index.
          expect(loaded.lexical?.toArrays()).toEqual(index.lexical?.toArrays());
        },
        // The embeddings once: as rows, no float32 copy; the vector index only when it is not exact.
        files: [
          'embeddings.rows',
          'lexical.bm25',
          'manifest.json',
          ...GZIPPED,
          ...(kind === 'saved' ? ['vectors.bin'] : []),
        ],
        // Format 1 saved the float32 embeddings beside the vector index, which an exact factory no longer saves.
        version1:
          kind === 'saved'
            ? (dir, index) =>
                rewriteAsFormat1(dir, {
                  gunzip: GZIPPED,
                  vectors: [
                    {
                      from: 'embeddings.rows',
                      to: 'embeddings.f32',
                      rows: index.tree.nodes.length,
                      dimensions: DIMENSIONS,
                    },
                  ],
                })
            : undefined,
        refused: { message: /Rebuild the index\.$/ },
      });
      expect(index.homes.length).toBeGreaterThan(0);
      expect(want.filter((r) => r.items.length > 0).length).toBeGreaterThan(want.length / 2);
    });
  }
});
