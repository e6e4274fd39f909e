/**
 * A full update with a fitted embedder (the offline TF-IDF one): the embedder is fitted again on
 * the changed corpus and every document chunked again, as a build does, so the update equals a
 * fresh build; the model is asked only about chunks whose text the index holds no answer for. The
 * documents are put back together from their chunks and the gaps the index keeps.
 */
import { type BuildContext, type Retrieval, StateError } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { memoryStore } from '@grag/core/store';
import { locatedDocuments } from '@grag/core/test';
import { expectSameRetrievals } from '@grag/core/test/vitest';
import { createOfflineEmbedder, createOfflineTasks } from '@grag/offline';
import { describe, expect, it } from 'vitest';
import { keptTexts } from '../src/documents.js';
import { type DaRagIndex, daRag } from '../src/index.js';
import { CORPUS } from './corpus.js';
import { recordedTasks } from './recorded-tasks.js';

const A = CORPUS.slice(0, 5);
const B = CORPUS.slice(5);
const QUERIES = [
  'Who founded the Kessler Shipyard?',
  'Which ferry crosses the Veskan Strait?',
  'Meridian research vessel Veskan Strait',
];

/** Offline providers whose tasks record the texts they extract from. */
function offline(): { ctx: BuildContext; extracted: string[] } {
  const embedder = createOfflineEmbedder('tfidf');
  const { tasks, extracted } = recordedTasks(createOfflineTasks({ embedder }));
  return { ctx: createBuildContext({ embedder, tasks }), extracted };
}

async function results(index: DaRagIndex): Promise<Retrieval[]> {
  const out: Retrieval[] = [];
  for (const q of QUERIES) out.push(await daRag.retrieve(index, q, { budgetTokens: 4000 }));
  return out;
}

describe('da-rag full update with the offline TF-IDF embedder', () => {
  for (const chunking of ['semantic', 'fixed'] as const) {
    it(`keeps what puts every document back together (${chunking} chunking)`, async () => {
      const options = chunking === 'fixed' ? { chunking, chunkSize: 40, overlap: 8 } : { chunking };
      const index = await daRag.build(CORPUS, offline().ctx, options);
      const texts = keptTexts(index.kept!.documents, index.chunks);
      expect(texts).toEqual(
        CORPUS.map((d) => ({ id: d.id, text: d.text, ...(d.title ? { title: d.title } : {}) })),
      );
    });
  }

  it('equals a fresh build, asking the model only about chunk texts the index has no answer for', async () => {
    const store = memoryStore();
    await daRag.save(await daRag.build(A, offline().ctx), store);
    const run = offline();
    const loaded = await daRag.load(store, run.ctx);
    const { index, report } = await daRag.update!(loaded, { add: B }, run.ctx, { full: true });
    const fresh = await daRag.build(CORPUS, offline().ctx);
    expectSameRetrievals(await results(index), await results(fresh));
    expect(index.chunks.map((c) => c.id)).toEqual(fresh.chunks.map((c) => c.id));
    expect(index.texts).toEqual(fresh.texts);
    expect(report.global[0]!.stage).toBe('fit');
    // Every text extracted is one the loaded index did not hold.
    const held = new Set(loaded.texts);
    expect(run.extracted.length).toBeGreaterThan(0);
    expect(run.extracted.filter((text) => held.has(text))).toEqual([]);
    expect(report.trace.extracted).toBe(run.extracted.length);
    // Saved and loaded, it answers the same.
    await daRag.save(index, store);
    expectSameRetrievals(await results(await daRag.load(store, offline().ctx)), await results(fresh));
  }, 60_000);

  it('refuses a full update of an index saved before it kept the gaps, saying to rebuild once', async () => {
    const run = offline();
    const index = await daRag.build(A, run.ctx);
    const legacy: DaRagIndex = {
      ...index,
      kept: { ...index.kept!, documents: index.kept!.documents.map(({ gaps: _gaps, ...d }) => d) },
    };
    const error = await daRag.update!(legacy, { add: B }, run.ctx, { full: true }).catch((e: unknown) => e);
    expect(StateError.isInstance(error), String(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /^da-rag update: a full update fits the .* embedder again .* rebuild it once/,
    );
    // Without full it updates as before, keeping the fit.
    const { report } = await daRag.update!(legacy, { add: B }, run.ctx);
    expect(report.trace.fit).toMatch(/keeps the fit of the original corpus/);
  }, 60_000);

  it('keeps the segments of loaded documents, so a full update chunks by segment with locations again', async () => {
    const located = locatedDocuments();
    const [first, ...rest] = located;
    const store = memoryStore();
    await daRag.save(await daRag.build([first!], offline().ctx), store);
    const loaded = await daRag.load(store, offline().ctx);
    expect(loaded.kept!.documents[0]!.segments).toEqual(first!.segments);
    const { index } = await daRag.update!(loaded, { add: rest }, offline().ctx, { full: true });
    const fresh = await daRag.build(located, offline().ctx);
    expect(index.chunks).toEqual(fresh.chunks);
    expect(index.chunks.find((c) => c.text.includes('Ilse Varga'))!.location).toEqual({
      path: 'report.pdf',
      page: 3,
    });
    expect(index.chunks.filter((c) => c.docId !== 'notes').every((c) => c.location !== undefined)).toBe(true);
  }, 60_000);
});
