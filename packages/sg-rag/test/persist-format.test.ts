/**
 * The index format (version 3): the data graph's edges as typed arrays (`graph.bin`) and its strings
 * once each (`graph.json`), the label embeddings stored once (`labels.rows`; the label vector index
 * saved beside them only when the factory is not exact), `graph.json` and `update.json` gzipped,
 * and a saved-then-loaded index retrieving exactly what the index in memory does (same items,
 * scores, contexts and answers in every mode), for exact and approximate vector factories. Indexes
 * of version 2 (recorded: a fixture and what the code of its day retrieved from it) and version 1
 * still load and retrieve the same; other versions are refused with a message saying to rebuild.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BuildContext, Retrieval, VectorIndexFactory } from '@grag/core';
import { compress, createBuildContext, flatIndexFactory } from '@grag/core/kit';
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

/** Rewrite the format-3 index in `dir` as format 2 wrote it: the graph and update state as gzipped JSON, no graph.bin or update.bin. */
async function asFormat2(dir: string, index: SgRagIndex): Promise<void> {
  const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
  manifest.formatVersion = 2;
  manifest.files = manifest.files.filter((f: string) => f !== 'graph.bin' && f !== 'update.bin');
  await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest));
  const gzipped = (value: unknown) => compress(new TextEncoder().encode(JSON.stringify(value)));
  await writeFile(join(dir, 'graph.json'), gzipped(index.graph));
  const { documents, chunks } = index.kept!;
  const update = {
    documents,
    chunks: chunks.map((c) =>
      c.location ? [c.id, c.docId, c.extraction, c.location] : [c.id, c.docId, c.extraction],
    ),
  };
  await writeFile(join(dir, 'update.json'), gzipped(update));
  await rm(join(dir, 'graph.bin'));
  await rm(join(dir, 'update.bin'));
}

const FIXTURE_V2 = new URL('./__fixtures__/index-v2', import.meta.url).pathname;
const RECORDED_V2 = new URL('./__fixtures__/index-v2-retrievals.json', import.meta.url).pathname;

describe('sg-rag index format 3', () => {
  it('loads an index saved by format 2 and retrieves exactly what the code of format 2 retrieved from it', async () => {
    const recorded = JSON.parse(await readFile(RECORDED_V2, 'utf8')) as {
      mode: SgRagMode;
      query: string;
      context: string;
      tokens: number;
      answers: unknown;
      items: unknown[];
    }[];
    const loaded = await sgRag.load(FIXTURE_V2, context());
    expect(recorded).toHaveLength(MODES.length * QUERIES.length);
    for (const r of recorded) {
      const got = await sgRag.retrieve(loaded, r.query, { mode: r.mode, topK: 1000, budgetTokens: 100_000 });
      expect(got.context).toBe(r.context);
      expect(got.tokens).toBe(r.tokens);
      expect(got.trace.answers).toEqual(r.answers);
      expect(got.items.map(({ id, kind, score, source }) => ({ id, kind, score, source }))).toEqual(r.items);
    }
  });

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
          'graph.bin',
          'labels.rows',
          'manifest.json',
          'paths.bin',
          'tree.bin',
          'update.bin',
          ...GZIPPED,
          ...(kind === 'saved' ? ['labels.bin'] : []),
        ],
        // Format 1 saved the float32 label embeddings beside the vector index, which an exact factory no longer saves.
        version1:
          kind === 'saved'
            ? async (dir, index) => {
                await asFormat2(dir, index);
                await rewriteAsFormat1(dir, {
                  gunzip: GZIPPED,
                  vectors: [
                    {
                      from: 'labels.rows',
                      to: 'label-embeddings.f32',
                      rows: index.graph.ids.length,
                      dimensions: DIMENSIONS,
                    },
                  ],
                });
              }
            : undefined,
        refused: { message: /Rebuild the index\.$/ },
      });
      expect(want.filter((r) => r.items.length > 0).length).toBeGreaterThan(want.length / 2);
    });
  }
});
