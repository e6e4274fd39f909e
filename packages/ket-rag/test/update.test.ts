import { InvalidArgumentError, type Retrieval, StateError } from '@grag/core';
import { RECORD_3_REPLACEMENT, savedCopy, updateSavedAndLoaded } from '@grag/core/test';
import { replaceAndRebuild, temporaryDirs } from '@grag/core/test/vitest';
import { describe, expect, it } from 'vitest';
import type { KetRagVariant } from '../src/index.js';
import {
  A,
  AplusBminusC,
  B,
  build,
  C,
  contentOf,
  counted,
  expectSameRetrievals,
  methodOf,
  QUERIES,
  results,
} from './update-fixtures.js';

const freshDir = temporaryDirs();

// β = 0 or 1: every stage is local or recomputed exactly, so the update equals a fresh build.
const EXACT: KetRagVariant[] = ['ms-graph-rag', 'hybrid-rag', 'keyword-rag', 'knng-rag'];

describe('ket-rag update equals a fresh build where the core set is fixed (β = 0 or 1)', () => {
  for (const variant of EXACT) {
    it(`${variant}: build on A, add B, remove C retrieves as a fresh build on A + B − C`, async () => {
      const method = methodOf(variant);
      const counter = counted();
      const base = await method.build(A, counter.ctx, build);
      const before = { embedded: counter.embedded.length, extracted: counter.extracted.length };
      const { index, report } = await method.update!(base, { add: B, remove: C }, counter.ctx);
      const sent = counter.embedded.slice(before.embedded);
      const fresh = await method.build(AplusBminusC, counted().ctx, build);
      expect(contentOf(index)).toEqual(contentOf(fresh));
      expectSameRetrievals(await results(variant, index), await results(variant, fresh));
      expect(report.documents).toEqual({ added: B.map((d) => d.id), replaced: [], removed: C });
      const removedChunks = base.chunks.filter((c) => C.includes(c.docId)).length;
      const newChunks = fresh.chunks.filter((c) => B.some((d) => d.id === c.docId));
      expect(report.chunks).toEqual({
        removed: removedChunks,
        added: newChunks.length,
        total: fresh.chunks.length,
      });
      // Only new chunks are extracted (β = 1: all of them), and every embedded text is a new
      // chunk's, a new sub-chunk's, a sentence of one, or an entity text the base never embedded.
      const newTexts = new Set(fresh.chunkTexts.filter((_, i) => newChunks.includes(fresh.chunks[i]!)));
      const extracted = counter.extracted.slice(before.extracted);
      expect(extracted).toEqual(index.options.beta >= 1 ? [...newTexts] : []);
      const newSub = fresh.subChunkTexts.filter((_, i) => B.some((d) => d.id === fresh.subChunks[i]!.docId));
      const baseEmbedded = new Set(counter.embedded.slice(0, before.embedded));
      const entityTexts = new Set(
        (index.skeleton?.entities ?? []).map((e) => (e.description ? `${e.name}: ${e.description}` : e.name)),
      );
      const allowed = (text: string) =>
        newTexts.has(text) ||
        newSub.some((sub) => sub.includes(text)) ||
        (entityTexts.has(text) && !baseEmbedded.has(text));
      expect(sent.filter((text) => !allowed(text))).toEqual([]);
      const keptTexts = new Set([...index.chunkTexts, ...index.subChunkTexts]);
      for (const text of newTexts) keptTexts.delete(text);
      for (const text of newSub) keptTexts.delete(text);
      expect(sent.filter((text) => keptTexts.has(text))).toEqual([]);
      expect(report.embedded).toBe(sent.length);
      expect(report.global.map((g) => g.stage)).toContain('vector-index');
    });
  }

  it('summarizes only description lists the base never summarized', async () => {
    const method = methodOf('ms-graph-rag');
    const counter = counted();
    const base = await method.build(A, counter.ctx, build);
    const baseLists = new Set(counter.summarized.map((d) => JSON.stringify(d)));
    expect(baseLists.size).toBeGreaterThan(0);
    const { report } = await method.update!(base, { add: B, remove: C }, counter.ctx);
    const lists = counter.summarized.slice(baseLists.size).map((d) => JSON.stringify(d));
    expect(lists.length).toBe(report.trace.summarized);
    expect(lists.filter((l) => baseLists.has(l))).toEqual([]);
    // A fresh build summarizes more: the lists the update took from the base.
    const freshCounter = counted();
    await method.build(AplusBminusC, freshCounter.ctx, build);
    expect(freshCounter.summarized.length).toBeGreaterThan(lists.length);
  });
});

/** Share of queries whose top-10 passages (chunk items, in rank order, as a set) are the same. */
function sameTop10(got: Retrieval[], want: Retrieval[]): number {
  const top = (r: Retrieval) =>
    r.items
      .filter((x) => x.kind === 'chunk')
      .slice(0, 10)
      .map((x) => x.id)
      .sort();
  return got.filter((r, i) => JSON.stringify(top(r)) === JSON.stringify(top(want[i]!))).length / got.length;
}

describe('ket-rag update with a PageRank core set (β = 0.8)', () => {
  for (const variant of ['ket-rag-p', 'ket-rag-u', 'skeleton-rag'] as const) {
    it(`${variant}: extracts only new chunks; same top-10 passages as a fresh build for ≥ 80% of the queries`, async () => {
      const method = methodOf(variant);
      const counter = counted();
      const base = await method.build(A, counter.ctx, build);
      const before = counter.extracted.length;
      const { index, report } = await method.update!(base, { add: B, remove: C }, counter.ctx);
      const fresh = await method.build(AplusBminusC, counted().ctx, build);
      // The local stages match a fresh build exactly; the core set keeps the base's kept core chunks.
      expect(index.chunks).toEqual(fresh.chunks);
      expect(index.subChunks).toEqual(fresh.subChunks);
      expect(index.knn).toEqual(fresh.knn);
      expect(index.core.length).toBe(fresh.core.length);
      const kept = base.core.filter((id) => index.chunks.some((c) => c.id === id));
      expect(index.core.filter((id) => kept.includes(id)).sort()).toEqual([...kept].sort());
      const newCore = index.core.filter((id) => !kept.includes(id));
      expect(newCore.every((id) => B.some((d) => id.startsWith(`${d.id}#`)))).toBe(true);
      const coreTexts = newCore.map((id) => index.chunkTexts[index.chunks.findIndex((c) => c.id === id)]);
      expect(counter.extracted.slice(before).sort()).toEqual(coreTexts.sort());
      const global = variant === 'ket-rag-u' ? ['core', 'skeleton'] : ['knn', 'core', 'skeleton'];
      expect(report.global.map((g) => g.stage)).toEqual(expect.arrayContaining(global));
      expect(sameTop10(await results(variant, index), await results(variant, fresh))).toBeGreaterThanOrEqual(
        0.8,
      );
    });
  }
});

describe('ket-rag update removes every trace of a document', () => {
  it('nothing retrievable, no entity, relationship, keyword unit or kept extraction cites a removed document', async () => {
    const variant = 'ket-rag-p';
    const method = methodOf(variant);
    const { ctx } = counted();
    const base = await method.build(A, ctx, build);
    const cites = (rs: Retrieval[]) =>
      rs.flatMap((r) => r.items).filter((item) => item.source.docIds.some((id) => C.includes(id))).length;
    expect(cites(await results(variant, base))).toBeGreaterThan(0);
    const { index } = await method.update!(base, { remove: C }, ctx);
    expect(cites(await results(variant, index))).toBe(0);
    const goneUnits = new Set(base.subChunks.filter((s) => C.includes(s.docId)).map((s) => s.id));
    const skeleton = index.skeleton!;
    for (const record of [...skeleton.entities, ...skeleton.relationships]) {
      expect(record.textUnitIds.filter((u) => goneUnits.has(u))).toEqual([]);
    }
    expect(index.keyword!.bipartite.units.filter((u) => goneUnits.has(u))).toEqual([]);
    expect([...index.kept!.extractions.keys()].filter((id) => C.some((d) => id.startsWith(`${d}#`)))).toEqual(
      [],
    );
    expect(index.kept!.documents).toEqual(A.map((d) => d.id).filter((id) => !C.includes(id)));
    // The title entities of the removed documents ("record 2" …) are gone with them.
    const names = new Set(skeleton.entities.map((e) => e.name.toLowerCase()));
    for (const id of C) expect(names.has(`record ${id.slice(1)}`)).toBe(false);
    for (const r of await results(variant, index)) expect(r.context).not.toMatch(/Record [257]\n/);
  });

  it('refuses unknown ids, naming them, and changes nothing', async () => {
    const method = methodOf('ket-rag-p');
    const { ctx } = counted();
    const base = await method.build(A, ctx, build);
    const error = await method.update!(base, { remove: ['d1', 'nope'] }, ctx).catch((e) => e);
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/no document with the id "nope"; nothing was changed/);
    expect(base.kept!.documents).toEqual(A.map((d) => d.id));
  });

  it('replaces a document added under an indexed id', async () => {
    const method = methodOf('ms-graph-rag');
    const { index, fresh } = await replaceAndRebuild(method, A, RECORD_3_REPLACEMENT, counted, build);
    expect(contentOf(index)).toEqual(contentOf(fresh));
  });
});

describe('ket-rag update after save and load', () => {
  for (const variant of ['hybrid-rag', 'skeleton-rag', 'ket-rag-p'] as const) {
    it(`${variant}: an updated index saved and loaded updates again as the index in memory does`, async () => {
      const method = methodOf(variant);
      const dir = await freshDir('grag-ket-update-');
      const { first, loaded, load } = await updateSavedAndLoaded(method, A, ['d0'], counted, dir, build);
      const second = await method.update!(loaded, { add: B, remove: C }, load.ctx);
      const inMemory = await method.update!(first.index, { add: B, remove: C }, counted().ctx);
      expect(contentOf(second.index)).toEqual(contentOf(inMemory.index));
      expect(second.report).toEqual(inMemory.report);
      expectSameRetrievals(await results(variant, second.index), await results(variant, inMemory.index));
      // The loaded index reused its kept results: only new core chunks were extracted.
      expect(load.extracted.length).toBe(second.report.trace.extracted);
      expect(second.report.trace.extracted).toBe((second.report.trace.core as { added: number }).added);
      if (variant === 'hybrid-rag') {
        const fresh = await method.build(
          AplusBminusC.filter((d) => d.id !== 'd0'),
          counted().ctx,
          build,
        );
        expect(contentOf(second.index)).toEqual(contentOf(fresh));
        expectSameRetrievals(await results(variant, second.index), await results(variant, fresh));
      }
    });
  }

  it('loads an index saved before updates existed and explains that an update needs a rebuild', async () => {
    const method = methodOf('ket-rag-p');
    const { ctx } = counted();
    const dir = await freshDir('grag-ket-update-old-');
    // The vector rows stay: the channels read them too; only the update state is left out.
    const dropped = new Set(['update.json']);
    const old = await savedCopy(method, await method.build(A, ctx, build), dir, {
      artifact: (name) => (dropped.has(name) ? null : undefined),
    });
    const loaded = await method.load(old, counted().ctx);
    expect(loaded.kept).toBeUndefined();
    expect((await method.retrieve(loaded, QUERIES[0]!)).items.length).toBeGreaterThan(0);
    const error = await method.update!(loaded, { remove: ['d1'] }, ctx).catch((e) => e);
    expect(StateError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(
      /saved before grag kept what updates reuse.*rebuild it once with grag index/,
    );
  });
});
