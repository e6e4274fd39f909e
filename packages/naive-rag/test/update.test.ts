import {
  type BuildContext,
  InvalidArgumentError,
  type Method,
  type Retrieval,
  StateError,
  type TaskSuite,
} from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import {
  corpusChange,
  createScriptedEmbedder,
  ENTITY_QUERIES,
  entityDocuments,
  RECORD_3_REPLACEMENT,
  savedCopy,
  updateSavedAndLoaded,
} from '@grag/core/test';
import { expectSameRetrievals, replaceAndRebuild, temporaryDirs } from '@grag/core/test/vitest';
import { describe, expect, it } from 'vitest';
import { bm25Rag, denseRag } from '../src/index.js';

const tasks = { id: 'no-tasks' } as TaskSuite;
const { A, B, C, AplusBminusC } = corpusChange(entityDocuments(15), 10, ['d2', 'd5', 'd7']);
const build = { chunkSize: 24, overlap: 4 };
const QUERIES = ENTITY_QUERIES;

/** A context whose embedder records every text it is asked to embed. */
function counted(): { ctx: BuildContext; embedded: string[] } {
  const embedder = createScriptedEmbedder({ dimensions: 48 });
  const ctx = createBuildContext({ embedder, tasks });
  return {
    ctx,
    get embedded() {
      return embedder.calls.flatMap((c) => c.values);
    },
  };
}

/** Every query's items (id, kind, sources) and scores, with the whole index ranked. */
async function results<I>(method: Method<I>, index: I): Promise<Retrieval[]> {
  return Promise.all(QUERIES.map((q) => method.retrieve(index, q, { topK: 1000, budgetTokens: 100_000 })));
}

// biome-ignore lint/suspicious/noExplicitAny: both baselines, each with its own index type
const variants: { label: string; method: Method<any, any>; options: Record<string, unknown> }[] = [
  { label: 'bm25', method: bm25Rag, options: build },
  { label: 'naive-dense', method: denseRag, options: build },
  { label: 'naive-dense (hybrid)', method: denseRag, options: { ...build, entryPoints: 'hybrid' } },
];

const freshDir = temporaryDirs();

for (const { label, method, options } of variants) {
  describe(`${label} update`, () => {
    it('build on A, add B, remove C retrieves exactly as a fresh build on A + B − C', async () => {
      const { ctx } = counted();
      const base = await method.build(A, ctx, options);
      const { index, report } = await method.update!(base, { add: B, remove: C }, ctx);
      const fresh = await method.build(AplusBminusC, counted().ctx, options);
      expectSameRetrievals(await results(method, index), await results(method, fresh));
      expect(report.documents).toEqual({
        added: ['d10', 'd11', 'd12', 'd13', 'd14'],
        replaced: [],
        removed: C,
      });
      const chunksOf = (ids: string[]) =>
        base.chunks.filter((c: { docId: string }) => ids.includes(c.docId)).length;
      expect(report.chunks).toEqual({
        removed: chunksOf(C),
        added: fresh.chunks.length - (base.chunks.length - chunksOf(C)),
        total: fresh.chunks.length,
      });
      expect(report.local).toContain('chunk');
    });

    it('embeds only the new chunks', async () => {
      const counter = counted();
      const base = await method.build(A, counter.ctx, options);
      const before = counter.embedded.length;
      const { report } = await method.update!(base, { add: B, remove: C }, counter.ctx);
      const newTexts = (await method.build(B, counted().ctx, options)).texts as string[];
      const sent = counter.embedded.slice(before);
      if (method === bm25Rag) {
        expect(sent).toEqual([]);
        expect(report.embedded).toBe(0);
      } else {
        expect(sent).toEqual(newTexts);
        expect(report.embedded).toBe(newTexts.length);
      }
    });

    it('leaves nothing retrievable that cites a removed document', async () => {
      const { ctx } = counted();
      const base = await method.build(A, ctx, options);
      const { index } = await method.update!(base, { remove: ['d2'] }, ctx);
      // d2's own words: Orsa (as its place), 1882, 1922, 1962; each query finds d2 before the update.
      for (const query of ['Tomas Brandt visited Orsa in 1882', '1922', '1962 Record 2']) {
        const cites = async (i: typeof base) =>
          (await method.retrieve(i, query, { topK: 1000, budgetTokens: 100_000 })).items.filter((item) =>
            item.source.docIds.includes('d2'),
          ).length;
        expect(await cites(base)).toBeGreaterThan(0);
        expect(await cites(index)).toBe(0);
        const r = await method.retrieve(index, query, { topK: 1000, budgetTokens: 100_000 });
        expect(r.context).not.toContain('Record 2\n');
      }
      expect(index.chunks.some((c: { docId: string }) => c.docId === 'd2')).toBe(false);
      expect(index.documents).not.toContain('d2');
    });

    it('refuses unknown ids, naming them, and changes nothing', async () => {
      const { ctx } = counted();
      const base = await method.build(A, ctx, options);
      const before = await results(method, base);
      const error = await method.update!(base, { add: B, remove: ['d1', 'nope', 'gone'] }, ctx).catch(
        (e) => e,
      );
      expect(InvalidArgumentError.isInstance(error)).toBe(true);
      expect(error.message).toMatch(/no document with the id "nope", "gone"; nothing was changed/);
      expectSameRetrievals(await results(method, base), before);
      expect(base.documents).toEqual(A.map((d) => d.id));
    });

    it('replaces a document added under an indexed id', async () => {
      const { index, fresh } = await replaceAndRebuild(method, A, RECORD_3_REPLACEMENT, counted, options);
      expectSameRetrievals(await results(method, index), await results(method, fresh));
      const texts = index.texts.filter((_: string, i: number) => index.chunks[i].docId === 'd3');
      expect(texts.join(' ')).toContain('1999');
      expect(texts.join(' ')).not.toContain('1883');
    });

    it('saves and loads an updated index, which updates again', async () => {
      const dir = await freshDir('grag-update-');
      const { loaded, load } = await updateSavedAndLoaded(method, A, ['d0'], counted, dir, options);
      expect(loaded.documents).toEqual(A.slice(1).map((d) => d.id));
      const second = await method.update!(loaded, { add: B, remove: C }, load.ctx);
      const fresh = await method.build(
        [...AplusBminusC.filter((d) => d.id !== 'd0')],
        counted().ctx,
        options,
      );
      expectSameRetrievals(await results(method, second.index), await results(method, fresh));
    });
  });
}

describe('updates of indexes saved before updates existed', () => {
  it('naive-dense loads an index without stored embeddings and explains that an update needs a rebuild', async () => {
    const { ctx } = counted();
    const dir = await freshDir('grag-update-old-');
    const old = await savedCopy(denseRag, await denseRag.build(A, ctx, build), dir, {
      artifact: (name) => (name === 'embeddings.f32' ? null : undefined),
    });
    const loaded = await denseRag.load(old, counted().ctx);
    expect(loaded.embeddings).toBeUndefined();
    const error = await denseRag.update!(loaded, { remove: ['d1'] }, ctx).catch((e) => e);
    expect(StateError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/saved before grag kept chunk embeddings.*rebuild it once with grag index/);
  });

  it('bm25 updates an index whose units file names no documents (they come from its chunks)', async () => {
    const { ctx } = counted();
    const dir = await freshDir('grag-update-old-');
    const old = await savedCopy(bm25Rag, await bm25Rag.build(A, ctx, build), dir, {
      artifact: (name, bytes) => {
        if (name !== 'chunks.json') return undefined;
        const { chunks, texts } = JSON.parse(new TextDecoder().decode(bytes));
        return new TextEncoder().encode(JSON.stringify({ chunks, texts }));
      },
    });
    const loaded = await bm25Rag.load(old, ctx);
    expect(loaded.documents).toEqual(A.map((d) => d.id));
    const { index } = await bm25Rag.update!(loaded, { add: B, remove: C }, ctx);
    expectSameRetrievals(
      await results(bm25Rag, index),
      await results(bm25Rag, await bm25Rag.build(AplusBminusC, ctx, build)),
    );
  });
});
