/**
 * The index format (version 2): the label embeddings stored once (`labels.rows`; the label vector
 * index saved beside them only when the factory is not exact), `graph.json` and `update.json`
 * gzipped, and a saved-then-loaded index retrieving exactly what the index in memory does (same
 * items, scores, contexts and answers in every mode), for exact and approximate vector factories.
 * Indexes of version 1 still load and retrieve the same; other versions are refused with a message
 * saying to rebuild.
 */
import { join } from 'node:path';
import type { BuildContext, Retrieval, VectorIndexFactory } from '@grag/core';
import { createBuildContext, flatIndexFactory } from '@grag/core/kit';
import { createScriptedEmbedder, ENTITY_QUESTIONS, entityDocuments } from '@grag/core/test';
import {
  checkIndexFormats,
  EXACT_AND_SAVED_FACTORIES,
  rewriteAsFormat1,
  temporaryRoot,
} from '@grag/core/test/vitest';
import { createOfflineProviders } from '@grag/offline';
import { describe, expect, it } from 'vitest';
import { type SgRagIndex, type SgRagMode, sgRag } from '../src/index.js';

const DOCS = entityDocuments(12);
const BUILD = { chunkSize: 24, overlap: 4 };
const QUERIES = ENTITY_QUESTIONS;
const MODES: SgRagMode[] = ['sg-rag', 'entity', 'one-hop', 'two-hop'];
const DIMENSIONS = 16;
const GZIPPED = ['graph.json', 'update.json'];

const context = (vectorIndex: VectorIndexFactory = flatIndexFactory): BuildContext =>
  createBuildContext({
    embedder: createScriptedEmbedder({ dimensions: DIMENSIONS }),
    tasks: createOfflineProviders().tasks,
    vectorIndex,
  });

async function retrievals(index: SgRagIndex): Promise<Retrieval[]> {
  const out: Retrieval[] = [];
  for (const mode of MODES) {
    for (const q of QUERIES)
      out.push(await sgRag.retrieve(index, q, { mode, topK: 1000, budgetTokens: 100_000 }));
  }
  return out;
}

/** SG-RAG's answers from its paths, compared as well. */
const answersOf = (r: Retrieval) => r.trace.answers;

const root = temporaryRoot('sg-rag-format-');

describe('sg-rag index format 2', () => {
  for (const [kind, factory] of EXACT_AND_SAVED_FACTORIES) {
    it(`${kind} factory: a saved and loaded index retrieves exactly what the index in memory does${kind === 'saved' ? '; format 1 (float32 label embeddings beside the vector index, plain JSON) still loads' : ''}; other formats are refused`, async () => {
      const { want } = await checkIndexFormats({
        dir: join(root(), kind),
        build: () => sgRag.build(DOCS, context(factory), BUILD),
        method: sgRag,
        context: () => context(factory),
        retrievals,
        also: answersOf,
        gzipped: GZIPPED,
        loaded: (loaded, index) => {
          expect(loaded.kept).toEqual(index.kept);
        },
        // The label embeddings once: as rows, no float32 copy; the vector index only when it is not exact.
        files: [
          'dominance.json',
          'labels.rows',
          'manifest.json',
          'paths.bin',
          'tree.bin',
          ...GZIPPED,
          ...(kind === 'saved' ? ['labels.bin'] : []),
        ],
        // Format 1 saved the float32 label embeddings beside the vector index, which an exact factory no longer saves.
        version1:
          kind === 'saved'
            ? (dir, index) =>
                rewriteAsFormat1(dir, {
                  gunzip: GZIPPED,
                  vectors: [
                    {
                      from: 'labels.rows',
                      to: 'label-embeddings.f32',
                      rows: index.graph.ids.length,
                      dimensions: DIMENSIONS,
                    },
                  ],
                })
            : undefined,
        refused: { message: /Rebuild the index\.$/ },
      });
      expect(want.filter((r) => r.items.length > 0).length).toBeGreaterThan(want.length / 2);
    });
  }
});
