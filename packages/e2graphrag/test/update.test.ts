import { InvalidArgumentError, StateError } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { memoryStore } from '@grag/core/store';
import { createScriptedEmbedder, entityDocuments } from '@grag/core/test';
import { updateReplacing } from '@grag/core/test/vitest';
import { validateSummaryTree } from '@grag/summary-tree';
import { describe, expect, it } from 'vitest';
import { type E2GraphRagIndex, e2GraphRag } from '../src/index.js';
import {
  A,
  AplusBminusC,
  answers,
  B,
  C,
  modeOf,
  providers,
  QUERIES,
  retrieveAll,
  top10,
  variants,
} from './update-fixtures.js';

for (const { label, method } of variants) {
  describe(`e2graphrag update, ${label}`, () => {
    it('build on A, add B, remove C: chunks and graph equal a fresh build on A + B − C, passages within tolerance', async () => {
      const base = await method.build(A, providers().ctx);
      const { index, report } = await method.update!(base, { add: B, remove: C }, providers().ctx);
      const fresh = await method.build(AplusBminusC, providers().ctx);
      // Leaves without their parent (the tree above them is grouped otherwise).
      const leaves = (i: E2GraphRagIndex) =>
        i.tree.levels[0]!.map((n) => ({ ...i.tree.nodes[n]!, parent: undefined }));
      // Local stages: identical.
      expect(leaves(index)).toEqual(leaves(fresh));
      expect(index.graph.toJSON()).toEqual(fresh.graph.toJSON());
      expect(index.homes).toEqual(fresh.homes);
      expect(index.kept!.extracted).toEqual(fresh.kept!.extracted);
      expect({ ...index.stats, summaries: 0, levels: [] }).toEqual({
        ...fresh.stats,
        summaries: 0,
        levels: [],
      });
      // The tree changed along the paths: 13 leaves → 5 → 2 (a rebuild regroups them: 13 → 5 → 2 too).
      expect(index.stats.levels).toEqual([13, 5, 2]);
      expect(report.documents).toEqual({ added: ['d12', 'd13', 'd14'], replaced: [], removed: C });
      expect(report.chunks).toEqual({ removed: 2, added: 3, total: 13 });
      expect(report.local).toEqual(['chunk', 'entities', 'summarize', 'embed']);
      expect(report.global.map((g) => g.stage)).toEqual(
        index.lexical ? ['graph', 'vector-index', 'bm25'] : ['graph', 'vector-index'],
      );
      // Tolerance, where the tree differs: the top-10 passages of each query, as sets, have a
      // Jaccard similarity of at least 0.8 to a fresh build's, 0.95 on average over the 20 queries;
      // every query answered from the entity graph alone (local mode) is identical.
      const got = await retrieveAll(method, index);
      const want = await retrieveAll(method, fresh);
      const similarity = got.map((r, q) => {
        const w = want[q]!;
        if (modeOf(w) === 'local') expect(r.items).toEqual(w.items);
        const [x, y] = [new Set(top10(r)), new Set(top10(w))];
        const shared = [...x].filter((id) => y.has(id)).length;
        return shared / (x.size + y.size - shared);
      });
      expect(want.filter((r) => modeOf(r) === 'local').length).toBeGreaterThan(0);
      expect(Math.min(...similarity)).toBeGreaterThanOrEqual(0.8);
      expect(similarity.reduce((a, b) => a + b, 0) / QUERIES.length).toBeGreaterThanOrEqual(0.95);
    });

    it('asks only for the summaries on the paths of the change and embeds only new nodes', async () => {
      const p = providers();
      const base = await method.build(A, p.ctx);
      const [callsBefore, embedsBefore] = [p.asked().length, p.embedded().length];
      const { index, report } = await method.update!(base, { add: B, remove: C }, p.ctx);
      // Level 1: {d3, d5} lost d4, {d10, d11} lost d9 and takes d12, {d13, d14} is new; level 2:
      // both summaries have a changed child. A rebuild asks 7, the first build asked 6.
      expect(p.asked().slice(callsBefore)).toEqual([
        ['1803', '1805'],
        ['1810', '1811', '1812'],
        ['1813', '1814'],
        ['1800', '1801', '1802', '1803', '1805', '1806', '1807', '1808'],
        ['1810', '1811', '1812', '1813', '1814'],
      ]);
      expect(report.trace.summaries).toEqual({ asked: 5, kept: 2, dropped: 0, total: 7 });
      const sent = p.embedded().slice(embedsBefore);
      const leafTexts = new Set(base.tree.levels[0]!.map((n) => base.tree.nodes[n]!.text));
      const newLeaves = index.tree.nodes.filter(
        (n) => n.level === 0 && ['d12', 'd13', 'd14'].includes(n.docId!),
      );
      expect(sent.filter((t) => !t.startsWith('Digest'))).toEqual(newLeaves.map((n) => n.text));
      expect(newLeaves.every((n) => n.text.includes(B.find((d) => d.id === n.docId)!.text))).toBe(true);
      expect(sent.some((t) => leafTexts.has(t))).toBe(false);
      expect(report.embedded).toBe(sent.length);
      expect(sent.length).toBe(3 + 5);
      // Every node's vector is the one its text gets from the embedder.
      const reference = createScriptedEmbedder({ dimensions: 64 });
      const { embeddings } = await reference.doEmbed({ values: index.tree.nodes.map((n) => n.text) });
      expect(index.kept!.embeddings).toEqual(embeddings);
    });

    it('an update that only adds equals a fresh build exactly', async () => {
      const p = providers();
      const base = await method.build(A, p.ctx);
      const before = p.asked().length;
      const { index } = await method.update!(base, { add: B }, p.ctx);
      const fresh = await method.build([...A, ...B], providers().ctx);
      expect(index.tree).toEqual(fresh.tree);
      expect(index.kept).toEqual(fresh.kept);
      expect(await answers(method, index)).toEqual(await answers(method, fresh));
      // 15 leaves → 5 → 2: the last level-1 group {d9, d10, d11} is full, so d12–d14 form a new
      // group; its parent {s3} takes it. Two summaries instead of a rebuild's seven.
      expect(p.asked().length - before).toBe(2);
    });

    it('leaves nothing retrievable that cites a removed document', async () => {
      const base = await method.build(A, providers().ctx);
      const { index } = await method.update!(base, { remove: C }, providers().ctx);
      const cites = async (i: E2GraphRagIndex) => {
        const rs = await Promise.all(
          QUERIES.map((q) => method.retrieve(i, q, { topK: 1000, budgetTokens: 1_000_000 })),
        );
        return rs.flatMap((r) => r.items).filter((item) => item.source.docIds.some((d) => C.includes(d)));
      };
      expect((await cites(base)).length).toBeGreaterThan(0);
      expect(await cites(index)).toEqual([]);
      // Summaries that covered d4 or d9 were asked for again (a digest names its passages' years).
      for (const node of index.tree.nodes) expect(node.text).not.toMatch(/1804|1809/);
      expect(base.tree.nodes.some((n) => /1804/.test(n.text) && n.level > 0)).toBe(true);
      expect(index.kept!.documents).toEqual(A.map((d) => d.id).filter((id) => !C.includes(id)));
      expect(index.graph.id('Elm')).toBeDefined(); // d3 names Elm too
      expect(index.kept!.titles).not.toHaveProperty('d4');
      if (index.vocabulary) expect(index.vocabulary.get('Elm House')).toBeUndefined();
    });

    it('drops emptied groups and a top level a build would not make, with no call', async () => {
      const p = providers();
      const base = await method.build(A, p.ctx);
      const before = p.asked().length;
      const gone = A.slice(0, 9).map((d) => d.id);
      const { index, report } = await method.update!(base, { remove: gone }, p.ctx);
      // 3 leaves: only the group {d9, d10, d11} is left, and one level of summaries suffices.
      expect(p.asked().length).toBe(before);
      expect(index.tree).toEqual((await method.build(A.slice(9), providers().ctx)).tree);
      expect(validateSummaryTree(JSON.parse(JSON.stringify(index.tree)))).toEqual(index.tree);
      expect(report.trace.summaries).toEqual({ asked: 0, kept: 1, dropped: 5, total: 1 });
      expect(report.embedded).toBe(0);
    });

    it('refuses unknown ids, naming them, and changes nothing', async () => {
      const base = await method.build(A, providers().ctx);
      const snapshot = structuredClone(base.tree);
      const error = await method.update!(base, { add: B, remove: ['d1', 'nope'] }, providers().ctx).catch(
        (e) => e,
      );
      expect(InvalidArgumentError.isInstance(error)).toBe(true);
      expect(error.message).toMatch(/no document with the id "nope"; nothing was changed/);
      expect(base.tree).toEqual(snapshot);
    });

    it('replaces a document added under an indexed id', async () => {
      const base = await method.build(A, providers().ctx);
      const replacement = { id: 'd3', title: 'Dahl House', text: 'Dahl sailed to Exton in 1899.' };
      const { index, corpus } = await updateReplacing(method, base, replacement, providers().ctx, A);
      const leaves = index.tree.levels[0]!.map((n) => index.tree.nodes[n]!);
      expect(leaves.map((l) => l.docId)).toEqual([...A.map((d) => d.id).filter((id) => id !== 'd3'), 'd3']);
      expect(leaves.map((l) => l.text).join(' ')).toContain('1899');
      expect(index.tree.nodes.map((n) => n.text).join(' ')).not.toContain('1803');
      const fresh = await method.build(corpus, providers().ctx);
      expect(index.graph.toJSON()).toEqual(fresh.graph.toJSON());
    });

    it('saves and loads an updated index, which updates again as the unsaved one does', async () => {
      const store = memoryStore();
      const first = await method.update!(
        await method.build(A, providers().ctx),
        { remove: ['d0'] },
        providers().ctx,
      );
      await method.save(first.index, store);
      const loadCtx = providers();
      const loaded = await method.load(store, loadCtx.ctx);
      expect(loaded.kept).toEqual(first.index.kept);
      const second = await method.update!(loaded, { add: B, remove: C }, loadCtx.ctx);
      const direct = await method.update!(first.index, { add: B, remove: C }, providers().ctx);
      expect(second.index.tree).toEqual(direct.index.tree);
      expect(await answers(method, second.index)).toEqual(await answers(method, direct.index));
      expect(second.index.kept!.documents).toEqual(AplusBminusC.map((d) => d.id).filter((id) => id !== 'd0'));
    });
  });
}

describe('e2graphrag update with token-window chunks and the default (wink) extractor', () => {
  it('keeps chunks, extractions and the graph equal to a fresh build; local answers identical', async () => {
    const corpus = entityDocuments(16);
    const [first, added, removed] = [corpus.slice(0, 12), corpus.slice(12), ['d1', 'd6']];
    const options = { chunkSize: 24, overlap: 4, groupSize: 3 };
    const base = await e2GraphRag.build(first, providers().ctx, options);
    const { index, report } = await e2GraphRag.update!(
      base,
      { add: added, remove: removed },
      providers().ctx,
    );
    const fresh = await e2GraphRag.build(
      [...first.filter((d) => !removed.includes(d.id)), ...added],
      providers().ctx,
      options,
    );
    const leaves = (i: E2GraphRagIndex) =>
      i.tree.levels[0]!.map((n) => ({ ...i.tree.nodes[n]!, parent: undefined }));
    expect(leaves(index)).toEqual(leaves(fresh));
    expect(leaves(index).some((l) => (l.overlapChars ?? 0) > 0)).toBe(true);
    expect(index.kept!.extracted).toEqual(fresh.kept!.extracted);
    expect(index.graph.toJSON()).toEqual(fresh.graph.toJSON());
    expect(report.chunks.total).toBe(fresh.stats.chunks);
    const queries = ['Anton Kessler visited Varnholm', 'Tomas Brandt in Orsa', 'Petra Lind and Ilse Varga'];
    let local = 0;
    for (const q of queries) {
      const [r, w] = await Promise.all([index, fresh].map((i) => e2GraphRag.retrieve(i, q, { topK: 10 })));
      if (modeOf(w!) !== 'local') continue;
      local++;
      expect(r!.items).toEqual(w!.items);
    }
    expect(local).toBeGreaterThan(0);
  });
});

describe('e2graphrag updates of indexes saved before updates existed', () => {
  it('loads them and explains that an update needs one rebuild', async () => {
    const { method } = variants[0]!;
    // Such an index kept nothing for updates, and its vector index was saved whatever the factory.
    const { kept: _, ...built } = await method.build(A, providers().ctx);
    const old = memoryStore();
    await method.save(built, old);
    const loaded = await method.load(old, providers().ctx);
    expect(loaded.kept).toBeUndefined();
    expect((await method.retrieve(loaded, QUERIES[0]!)).items.length).toBeGreaterThan(0);
    const error = await method.update!(loaded, { remove: ['d1'] }, providers().ctx).catch((e) => e);
    expect(StateError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/saved before grag kept .*rebuild it once with grag index/);
  });

  it('refuses a context with another embedder', async () => {
    const { method } = variants[0]!;
    const base = await method.build(A, providers().ctx);
    const other = createBuildContext({
      embedder: createScriptedEmbedder({ dimensions: 32 }),
      tasks: providers().ctx.tasks,
    });
    const error = await method.update!(base, { remove: ['d1'] }, other).catch((e) => e);
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/built with the embedder 'scripted:scripted-embedder:64'/);
  });
});
