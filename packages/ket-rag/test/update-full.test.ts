import { temporaryDirs } from '@grag/core/test/vitest';
import { describe, expect, it } from 'vitest';
import type { KetRagIndex } from '../src/index.js';
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
  results,
} from './update-fixtures.js';

const freshDir = temporaryDirs();

const entityText = (e: { name: string; description: string }) =>
  e.description ? `${e.name}: ${e.description}` : e.name;
const isNew = (docId: string) => B.some((d) => d.id === docId);
const sorted = (list: readonly string[]) => [...list].sort();

/**
 * The model calls of a full update (build on A: 30 chunks, ⌊30·0.8⌋ = 24 core; update +B −C: 35
 * chunks, ⌊35·0.8⌋ = 28 core, 14 of them new chunks, 3 removed documents take 7 core chunks away).
 *
 * - ket-rag-p and skeleton-rag (PageRank): of the 17 kept core chunks 15 stay core and 2 (d6#0,
 *   d8#2) drop out; 2 kept chunks become core (d4#0, d9#1) and 11 new chunks are core:
 *   13 extractions. ket-rag-u (seeded order): 13 stay, 3 drop out (d1#2, d3#1, d8#0), 5 kept chunks
 *   become core (d1#1, d4#1, d6#0, d9#1, d9#2) and 10 new ones: 15 extractions.
 * - Summaries: every multi-description list of the fresh build not summarized for A (20 for the
 *   PageRank variants, none of them held by the index; 18 of the 19 for ket-rag-u).
 * - Embeddings: the 14 new chunks (variants with a KNN graph), the 24 new sub-chunks, the 29
 *   distinct sentences of those (30 sentences, one repeated; keyword channel), and the entity texts
 *   the index never embedded (39 of 65 for the PageRank variants, 45 of 66 for ket-rag-u):
 *   ket-rag-p 14 + 24 + 29 + 39 = 106, ket-rag-u 24 + 29 + 45 = 98, skeleton-rag 14 + 24 + 39 = 77.
 */
const PAGERANK = {
  promoted: ['d4#0', 'd9#1'],
  newCore: 11,
  extracted: 13,
  summarized: 20,
  core: { kept: 15, added: 13, dropped: 2 },
};
const CALLS = {
  'ket-rag-p': { ...PAGERANK, embedded: 107 },
  'ket-rag-u': {
    promoted: ['d1#1', 'd4#1', 'd6#0', 'd9#1', 'd9#2'],
    newCore: 10,
    extracted: 15,
    summarized: 18,
    embedded: 98,
    core: { kept: 13, added: 15, dropped: 3 },
  },
  'skeleton-rag': { ...PAGERANK, embedded: 78 },
};

/** The texts a full update must embed: those of new units and entity texts `base` never embedded. */
function expectedEmbedded(base: KetRagIndex, next: KetRagIndex): string[] {
  const distinct = (list: string[]) => [...new Set(list)];
  const newSubs = new Set(next.subChunks.flatMap((s, i) => (isNew(s.docId) ? [i] : [])));
  const baseEntities = new Set((base.skeleton?.entities ?? []).map(entityText));
  return [
    ...(next.kept!.chunkVectors ? next.chunkTexts.filter((_, i) => isNew(next.chunks[i]!.docId)) : []),
    ...(next.kept!.subChunkVectors ? next.subChunkTexts.filter((_, i) => newSubs.has(i)) : []),
    ...distinct(
      (next.keyword?.bipartite.sentences ?? []).filter((s) => newSubs.has(s.unit)).map((s) => s.text),
    ),
    ...(next.skeleton?.entities ?? []).map(entityText).filter((t) => !baseEntities.has(t)),
  ];
}

describe('ket-rag update with full: true equals a fresh build (0 < β < 1)', () => {
  for (const variant of ['ket-rag-p', 'ket-rag-u', 'skeleton-rag'] as const) {
    it(`${variant}: build on A, add B, remove C equals a fresh build on A + B − C, with only the calls it lacks`, async () => {
      const method = methodOf(variant);
      const counter = counted();
      const base = await method.build(A, counter.ctx, build);
      const before = {
        embedded: counter.embedded.length,
        extracted: counter.extracted.length,
        summarized: counter.summarized.length,
      };
      const baseLists = new Set(counter.summarized.map((d) => JSON.stringify(d)));
      const { index, report } = await method.update!(base, { add: B, remove: C }, counter.ctx, {
        full: true,
      });
      // Taken before retrieval embeds the queries with the same embedder.
      const sent = counter.embedded.slice(before.embedded);
      const freshCounter = counted();
      const fresh = await method.build(AplusBminusC, freshCounter.ctx, build);

      expect(contentOf(index)).toEqual(contentOf(fresh));
      expectSameRetrievals(await results(variant, index), await results(variant, fresh));
      // Only the core chunks' extractions are kept, as a build keeps them.
      expect(index.kept!.extractions).toEqual(fresh.kept!.extractions);
      expect(index.kept!.summaries).toEqual(fresh.kept!.summaries);

      const want = CALLS[variant];
      // Extracted: the core chunks the index held no extraction for, new or kept.
      const extracted = counter.extracted.slice(before.extracted);
      const lacking = fresh.core.filter((id) => !base.core.includes(id));
      const textOf = (id: string) => fresh.chunkTexts[fresh.chunks.findIndex((c) => c.id === id)]!;
      expect(sorted(extracted)).toEqual(sorted(lacking.map(textOf)));
      expect(extracted.length).toBe(want.extracted);
      const keptLacking = lacking.filter((id) => base.chunks.some((c) => c.id === id));
      expect(sorted(keptLacking)).toEqual(want.promoted);
      expect(extracted.length).toBe(want.promoted.length + want.newCore);
      // Summarized: the fresh build's lists that A's build never summarized.
      const summarized = counter.summarized.slice(before.summarized).map((d) => JSON.stringify(d));
      const freshNew = freshCounter.summarized.map((d) => JSON.stringify(d)).filter((l) => !baseLists.has(l));
      expect(sorted(summarized)).toEqual(sorted(freshNew));
      expect(summarized.length).toBe(want.summarized);
      expect(report.trace.summarized).toBe(want.summarized);
      // Embedded: new chunks, sub-chunks and sentences, and entity texts never embedded.
      expect(sorted(sent)).toEqual(sorted(expectedEmbedded(base, index)));
      expect(sent.length).toBe(want.embedded);
      expect(report.embedded).toBe(want.embedded);

      expect(report.trace.core).toEqual({ ...want.core, total: 28 });
      expect(report.trace.extracted).toBe(want.extracted);
      const core = report.global.find((g) => g.stage === 'core');
      expect(core?.reason).toMatch(/^full: the core chunks are selected again/);
    });
  }

  it('without full, the same update keeps the base core chunks and differs from a fresh build', async () => {
    const method = methodOf('ket-rag-p');
    const { ctx } = counted();
    const base = await method.build(A, ctx, build);
    const { index, report } = await method.update!(base, { add: B, remove: C }, ctx);
    const fresh = await method.build(AplusBminusC, counted().ctx, build);
    // d6#0 and d8#2 stay core; d4#0 and d9#1, core in a fresh build, are not.
    expect(index.core.filter((id) => !fresh.core.includes(id)).sort()).toEqual(['d6#0', 'd8#2']);
    expect(fresh.core.filter((id) => !index.core.includes(id)).sort()).toEqual(['d4#0', 'd9#1']);
    expect(report.global.find((g) => g.stage === 'core')?.reason).not.toMatch(/^full:/);
  });

  it('a saved and loaded index updated with full equals a fresh build', async () => {
    const method = methodOf('ket-rag-p');
    const { ctx } = counted();
    const dir = await freshDir('grag-ket-full-');
    await method.save(await method.build(A, ctx, build), dir);
    const loadCounter = counted();
    const loaded = await method.load(dir, loadCounter.ctx);
    const { index } = await method.update!(loaded, { add: B, remove: C }, loadCounter.ctx, { full: true });
    const fresh = await method.build(AplusBminusC, counted().ctx, build);
    expect(contentOf(index)).toEqual(contentOf(fresh));
    expectSameRetrievals(await results('ket-rag-p', index), await results('ket-rag-p', fresh));
    expect(loadCounter.extracted.length).toBe(CALLS['ket-rag-p'].extracted);
  });

  it('is ignored where an update is already exact (β = 1)', async () => {
    const method = methodOf('hybrid-rag');
    const { ctx } = counted();
    const base = await method.build(A, ctx, build);
    const full = await method.update!(base, { add: B, remove: C }, ctx, { full: true });
    const plain = await method.update!(base, { add: B, remove: C }, counted().ctx);
    expect(contentOf(full.index)).toEqual(contentOf(plain.index));
    expect(full.report).toEqual(plain.report);
    expect(full.report.global.some((g) => g.reason.startsWith('full:'))).toBe(false);
  });
});
