import { createBuildContext } from '@grag/core/kit';
import { memoryStore } from '@grag/core/store';
import { entityDocuments } from '@grag/core/test';
import { createOfflineEmbedder } from '@grag/offline';
import { describe, expect, it } from 'vitest';
import { e2GraphRag } from '../src/index.js';
import { A, AplusBminusC, answers, B, C, providers, variants } from './update-fixtures.js';

// Corpus A is 12 one-chunk documents d0–d11 (groups of 3: 12 → 4 → 2); A + B − C is d0–d3, d5–d8,
// d10–d14 (13 → 5 → 2). A summary is "Digest of" the years its inputs name (d<i> names 18<i>).
for (const { label, method } of variants) {
  describe(`e2graphrag update with full, ${label}`, () => {
    it('build on A, add B, remove C with full: exactly a fresh build on A + B − C, 6 calls where a build makes 7', async () => {
      const p = providers();
      const base = await method.build(A, p.ctx);
      const [callsBefore, embedsBefore] = [p.asked().length, p.embedded().length];
      const { index, report } = await method.update!(base, { add: B, remove: C }, p.ctx, { full: true });
      // Embedded: the 3 new chunks and the 6 new summaries (before any query is embedded).
      expect(p.embedded().length - embedsBefore).toBe(3 + 6);
      const fresh = await method.build(AplusBminusC, providers().ctx);
      expect(index.tree).toEqual(fresh.tree);
      expect(index.kept).toEqual(fresh.kept);
      expect(index.stats).toEqual(fresh.stats);
      expect(index.graph.toJSON()).toEqual(fresh.graph.toJSON());
      expect(index.homes).toEqual(fresh.homes);
      expect(await answers(method, index)).toEqual(await answers(method, fresh));
      // Level 1 regrouped: {d0, d1, d2} is the old s0 (same inputs: reused), {d3, d5, d6},
      // {d7, d8, d10}, {d11, d12, d13} and {d14} are asked; level 2: {s0, s1, s2} and {s3, s4}
      // both have new inputs. 4 + 2 = 6 calls; a fresh build asks all 5 + 2 = 7.
      expect(p.asked().slice(callsBefore)).toEqual([
        ['1803', '1805', '1806'],
        ['1807', '1808', '1810'],
        ['1811', '1812', '1813'],
        ['1814'],
        ['1800', '1801', '1802', '1803', '1805', '1806', '1807', '1808', '1810'],
        ['1811', '1812', '1813', '1814'],
      ]);
      // Of the 6 old summaries only s0 is reused.
      expect(report.trace.summaries).toEqual({ asked: 6, kept: 1, dropped: 5, total: 7 });
      expect(report.embedded).toBe(9);
      expect(report.local).toEqual(['chunk', 'entities', 'embed']);
      expect(report.global.map((g) => g.stage)).toEqual(
        index.lexical
          ? ['summarize', 'graph', 'vector-index', 'bm25']
          : ['summarize', 'graph', 'vector-index'],
      );
      expect(report.global[0]!.reason).toMatch(/^full: /);
      expect(report.trace.tree).toMatch(/regrouped from scratch/);
    });

    it('with full after an update that only adds, asks what the path update asks (2 calls)', async () => {
      const p = providers();
      const base = await method.build(A, p.ctx);
      const before = p.asked().length;
      const { index, report } = await method.update!(base, { add: B }, p.ctx, { full: true });
      expect(index.tree).toEqual((await method.build([...A, ...B], providers().ctx)).tree);
      // The 4 old groups of leaves and {s0, s1, s2} keep their inputs; {d12, d13, d14} and {s3, s4} are new.
      expect(p.asked().slice(before)).toEqual([
        ['1812', '1813', '1814'],
        ['1809', '1810', '1811', '1812', '1813', '1814'],
      ]);
      expect(report.trace.summaries).toEqual({ asked: 2, kept: 5, dropped: 1, total: 7 });
    });

    it('regroups a path-updated index, saved and loaded, with an empty change into the fresh build', async () => {
      const p = providers();
      const path = await method.update!(await method.build(A, p.ctx), { add: B, remove: C }, p.ctx);
      const store = memoryStore();
      await method.save(path.index, store);
      const q = providers();
      const loaded = await method.load(store, q.ctx);
      const { index, report } = await method.update!(loaded, {}, q.ctx, { full: true });
      const fresh = await method.build(AplusBminusC, providers().ctx);
      expect(path.index.tree).not.toEqual(fresh.tree);
      expect(index.tree).toEqual(fresh.tree);
      expect(index.kept).toEqual(fresh.kept);
      expect(await answers(method, index)).toEqual(await answers(method, fresh));
      // The path-updated tree grouped {d0, d1, d2}, {d3, d5}, {d6, d7, d8}, {d10, d11, d12},
      // {d13, d14}; only {d0, d1, d2} is a group of the fresh build, so 4 + 2 calls.
      expect(q.asked().length).toBe(6);
      expect(report.documents).toEqual({ added: [], replaced: [], removed: [] });
      expect(report.chunks).toEqual({ removed: 0, added: 0, total: 13 });
    });
  });
}

describe('e2graphrag update with full and a fittable embedder', () => {
  it('fits the embedder again on the changed corpus and embeds every node, as a fresh build', async () => {
    const { method } = variants[1]!;
    const p = providers();
    const tfidf = createOfflineEmbedder('tfidf', { dimensions: 256 });
    const ctx = createBuildContext({ embedder: tfidf, tasks: p.ctx.tasks, textAnalyzer: p.ctx.textAnalyzer });
    const base = await method.build(A, ctx);
    const before = p.asked().length;
    const { index, report } = await method.update!(base, { add: B, remove: C }, ctx, { full: true });
    const other = createOfflineEmbedder('tfidf', { dimensions: 256 });
    const fresh = await method.build(
      AplusBminusC,
      createBuildContext({ embedder: other, tasks: providers().ctx.tasks, textAnalyzer: p.ctx.textAnalyzer }),
    );
    expect(p.asked().length - before).toBe(6);
    expect(tfidf.state()).toEqual(other.state());
    expect(index.kept).toEqual(fresh.kept);
    expect(await answers(method, index)).toEqual(await answers(method, fresh));
    expect(report.embedded).toBe(index.tree.nodes.length);
    expect(report.local).toEqual(['chunk', 'entities']);
    expect(report.global.map((g) => g.stage)).toEqual([
      'summarize',
      'graph',
      'fit',
      'embed',
      'vector-index',
      'bm25',
    ]);
    expect(report.trace).not.toHaveProperty('fit');
    // Without full the fit of A stays, and the trace says so.
    const tfidf2 = createOfflineEmbedder('tfidf', { dimensions: 256 });
    const ctx2 = createBuildContext({ embedder: tfidf2, tasks: providers().ctx.tasks });
    const built = await method.build(A, ctx2);
    const fitOnA = tfidf2.state();
    const path = await method.update!(built, { add: B, remove: C }, ctx2);
    expect(tfidf2.state()).toEqual(fitOnA);
    expect(fitOnA).not.toEqual(other.state());
    expect(path.report.trace.fit).toMatch(/keeps the fit of the original corpus/);
  });
});

describe('e2graphrag update with full, token-window chunks and the default (wink) extractor', () => {
  it('equals a fresh build, with overlapping chunks joined as a build joins them', async () => {
    const corpus = entityDocuments(16);
    const [first, added, removed] = [corpus.slice(0, 12), corpus.slice(12), ['d1', 'd6']];
    const options = { chunkSize: 24, overlap: 4, groupSize: 3, preset: 'offline' } as const;
    const p = providers();
    const base = await e2GraphRag.build(first, p.ctx, options);
    const before = p.asked().length;
    const { index, report } = await e2GraphRag.update!(base, { add: added, remove: removed }, p.ctx, {
      full: true,
    });
    const q = providers();
    const fresh = await e2GraphRag.build(
      [...first.filter((d) => !removed.includes(d.id)), ...added],
      q.ctx,
      options,
    );
    expect(index.tree.nodes.some((n) => (n.overlapChars ?? 0) > 0)).toBe(true);
    expect(index.tree).toEqual(fresh.tree);
    expect(index.kept).toEqual(fresh.kept);
    const { asked, kept, total } = report.trace.summaries as { asked: number; kept: number; total: number };
    expect(p.asked().length - before).toBe(asked);
    expect(asked + kept).toBe(total);
    expect(total).toBe(q.asked().length);
    expect(kept).toBeGreaterThan(0);
  });
});
