import { join } from 'node:path';
import {
  type BuildContext,
  type Document,
  InvalidArgumentError,
  type Retrieval,
  StateError,
} from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { directoryStore } from '@grag/core/store';
import { copyStoredIndex, corpusChange, createScriptedEmbedder, updateSavedAndLoaded } from '@grag/core/test';
import { expectSameRetrievals, replaceAndRebuild, temporaryDirs } from '@grag/core/test/vitest';
import { describe, expect, it } from 'vitest';
import { type DaRagIndex, type DaRagOptions, daRag, entityText } from '../src/index.js';
import { CORPUS } from './corpus.js';
import { offlineContext } from './offline-context.js';
import { recordedTasks } from './recorded-tasks.js';

// A: five documents; B: two more; C: one of A. The update of A by (+B, −C) must equal a fresh
// build on A + B − C. DA-RAG's global stages (KG merge, layers, Similarity kNN, query-time truss)
// are recomputed from the same per-chunk data a build computes, so the tolerance is zero: the same
// index arrays and, for every query, the same items, scores (±1e-9) and context.
const { A, B, C, AplusBminusC } = corpusChange(CORPUS, 5, ['solberg']);
const QUERIES = [
  'Who directs the institute that operates the research vessel built by the Kessler Shipyard?',
  'Who founded the Kessler Shipyard?',
  'Ingrid Solberg Brandt Medal',
  'Which ferry crosses the Veskan Strait?',
  'rye bread in Tromvik',
  'Halvard Academy',
  'Meridian research vessel Veskan Strait',
];

/** A context whose tasks and (scripted, deterministic) embedder record every call. */
function counted() {
  const embedder = createScriptedEmbedder({ dimensions: 32 });
  const recorded = recordedTasks();
  const ctx: BuildContext = createBuildContext({ embedder, tasks: recorded.tasks });
  return {
    ctx,
    ...recorded,
    get embedded() {
      return embedder.calls.flatMap((c) => c.values);
    },
  };
}

async function results(index: DaRagIndex): Promise<Retrieval[]> {
  const out: Retrieval[] = [];
  for (const q of QUERIES) out.push(await daRag.retrieve(index, q, { budgetTokens: 4000 }));
  return out;
}

const edges = (g: DaRagIndex['chunkLayer'] | null) =>
  g ? Array.from({ length: g.m }, (_, e) => [g.sources[e], g.targets[e]]) : null;

/** The index's data, without providers and caches. */
function dataOf(index: DaRagIndex) {
  return {
    chunks: index.chunks,
    texts: index.texts,
    titles: index.titles,
    descriptions: index.descriptions,
    chunkVectors: index.chunkVectors.map((v) => Array.from(v)),
    entities: index.entities,
    relations: index.relations,
    entityVectors: index.entityVectors.map((v) => Array.from(v)),
    chunkEntities: index.chunkEntities.map((l) => Array.from(l)),
    chunkLayer: edges(index.chunkLayer),
    kgLayer: edges(index.kgLayer),
    simLayer: edges(index.simLayer),
    stats: index.stats,
    kept: index.kept,
  };
}

const freshDir = temporaryDirs();

const variants: { label: string; options: Partial<DaRagOptions> }[] = [
  { label: 'semantic chunks (paper default)', options: {} },
  {
    label: 'fixed chunks, exact kNN, no entity linking',
    options: { chunking: 'fixed', chunkSize: 40, overlap: 5, similarityKnn: 'exact', entityLinking: false },
  },
];

for (const { label, options } of variants) {
  describe(`da-rag update, ${label}`, () => {
    it('build on A, add B, remove C equals a fresh build on A + B − C, and calls the model for new chunks only', async () => {
      const run = counted();
      const base = await daRag.build(A, run.ctx, options);
      const before = {
        extracted: run.extracted.length,
        described: run.described.length,
        embedded: run.embedded.length,
      };
      const { index, report } = await daRag.update!(base, { add: B, remove: C }, run.ctx);
      const sent = run.embedded.slice(before.embedded);
      const fresh = await daRag.build(AplusBminusC, counted().ctx, options);

      expect(dataOf(index)).toEqual(dataOf(fresh));
      expectSameRetrievals(await results(index), await results(fresh));

      // The model saw exactly the chunks of B, each once per task.
      const newTexts = fresh.texts.filter((_, i) => B.some((d) => d.id === fresh.chunks[i]!.docId));
      expect(newTexts.length).toBeGreaterThan(0);
      expect(run.extracted.slice(before.extracted)).toEqual(newTexts);
      expect(run.described.slice(before.described)).toEqual(newTexts);
      // The embedder saw the new chunks' title + description, the entities whose text is new, and
      // (semantic chunking) sentence windows of B's documents; nothing of a kept chunk.
      const newChunkTexts = fresh.chunks.flatMap((c, i) =>
        B.some((d) => d.id === c.docId) ? [[fresh.titles[i], fresh.descriptions[i]].join('\n')] : [],
      );
      const heldEntityTexts = new Set(base.entities.map((e) => entityText(e.name, e.descriptions)));
      const newEntityTexts = fresh.entities
        .map((e) => entityText(e.name, e.descriptions))
        .filter((t) => !heldEntityTexts.has(t));
      const windows = sent.filter((t) => !newChunkTexts.includes(t) && !newEntityTexts.includes(t));
      expect([...sent.filter((t) => !windows.includes(t))].sort()).toEqual(
        [...new Set([...newChunkTexts, ...newEntityTexts])].sort(),
      );
      for (const t of windows)
        expect(
          B.some((d) => d.text.includes(t)),
          t,
        ).toBe(true);
      if (options.chunking === 'fixed') expect(windows).toEqual([]);
      expect(report.embedded).toBe(sent.length);
      // Entities whose text did not change were not embedded again.
      expect(report.trace.entities).toEqual({
        total: fresh.entities.length,
        reused: fresh.entities.length - newEntityTexts.length,
        embedded: newEntityTexts.length,
      });
      expect(newEntityTexts.length).toBeLessThan(fresh.entities.length);

      const chunksOf = (ids: string[]) => base.chunks.filter((c) => ids.includes(c.docId)).length;
      expect(report.documents).toEqual({ added: ['brandt', 'bakery'], replaced: [], removed: C });
      expect(report.chunks).toEqual({
        removed: chunksOf(C),
        added: newTexts.length,
        total: fresh.chunks.length,
      });
      expect(report.local).toEqual(['chunk', 'extract', 'describe', 'embed']);
      expect(report.global.map((g) => g.stage)).toEqual(['kg', 'layers', 'similarity', 'query-caches']);
    });

    it('leaves nothing retrievable that cites a removed document', async () => {
      const { ctx } = counted();
      const base = await daRag.build(A, ctx, options);
      const run = counted();
      const { index, report } = await daRag.update!(base, { remove: C }, run.ctx);
      // A removal asks the model nothing; only entities that lost a description are embedded again.
      expect(run.extracted).toEqual([]);
      expect(run.described).toEqual([]);
      expect(report.local.filter((s) => s !== 'embed')).toEqual([]);
      const heldTexts = new Set(base.entities.map((e) => entityText(e.name, e.descriptions)));
      const changed = new Set(
        index.entities.map((e) => entityText(e.name, e.descriptions)).filter((t) => !heldTexts.has(t)),
      );
      expect(changed.size).toBeGreaterThan(0);
      expect([...run.embedded].sort()).toEqual([...changed].sort());
      expect(report.embedded).toBe(changed.size);
      const cites = (r: Retrieval) => r.items.filter((item) => item.source.docIds.includes('solberg')).length;
      // Before: some query retrieves Ingrid Solberg's own passage; after: no item cites it, and no
      // entity or relation names one of its chunks.
      const citedBefore = (await results(base)).map(cites);
      expect(citedBefore.some((n) => n > 0)).toBe(true);
      for (const r of await results(index)) {
        expect(cites(r)).toBe(0);
        expect(r.context).not.toContain('Ingrid Solberg is a marine biologist');
      }
      expect(index.chunks.some((c) => c.docId === 'solberg')).toBe(false);
      const ids = new Set(index.chunks.map((c) => c.id));
      for (const x of [...index.entities, ...index.relations]) {
        for (const id of x.chunkIds) expect(ids.has(id)).toBe(true);
      }
      expect(index.kept?.documents.map((d) => d.id)).not.toContain('solberg');
      // The entities only her document supported are gone.
      const onlyThere = base.entities.filter((e) => e.chunkIds.every((id) => id.startsWith('solberg#')));
      expect(onlyThere.length).toBeGreaterThan(0);
      for (const e of onlyThere) expect(index.entityIndex.has(e.id)).toBe(false);
    });

    it('replaces a document added under an indexed id', async () => {
      const replacement: Document = {
        id: 'nordlys',
        title: 'Nordlys',
        text: 'The Nordlys was sold to the Tromvik Market in 2024. Sara Lindqvist now sails the Nordlys to Tromvik.',
      };
      const { index, fresh } = await replaceAndRebuild(daRag, A, replacement, counted, options);
      expect(dataOf(index)).toEqual(dataOf(fresh));
      expect(index.texts.join(' ')).not.toContain('crosses the Veskan Strait');
    });

    it('saves and loads an updated index, which updates again', async () => {
      const dir = await freshDir('grag-da-update-');
      const { first, loaded, load } = await updateSavedAndLoaded(
        daRag,
        A,
        ['kessler'],
        counted,
        dir,
        options,
      );
      expect(loaded.kept).toEqual(first.index.kept);
      const second = await daRag.update!(loaded, { add: B, remove: C }, load.ctx);
      const fresh = await daRag.build(
        AplusBminusC.filter((d) => d.id !== 'kessler'),
        counted().ctx,
        options,
      );
      expect(dataOf(second.index)).toEqual(dataOf(fresh));
      expectSameRetrievals(await results(second.index), await results(fresh));
      // The loaded context's model saw B's chunks only.
      expect(load.extracted).toEqual(
        fresh.texts.filter((_, i) => B.some((d) => d.id === fresh.chunks[i]!.docId)),
      );
    });
  });
}

describe('da-rag update of a queried index', () => {
  it('updates the BM25 over chunk texts that a hybrid query made, and retrieves as a fresh build', async () => {
    const { ctx } = counted();
    const options = { chunking: 'fixed', chunkSize: 40, overlap: 5, relevance: 'hybrid' } as const;
    const base = await daRag.build(A, ctx, options);
    await results(base);
    expect(base.cache.lexicalChunks).toBeDefined();
    const { index, report } = await daRag.update!(base, { add: B, remove: C }, ctx);
    expect(report.local).toEqual(['chunk', 'extract', 'describe', 'embed', 'bm25']);
    expect(index.cache.lexicalChunks?.size).toBe(index.chunks.length);
    expect(index.cache.chunk).toBeUndefined();
    const fresh = await daRag.build(AplusBminusC, counted().ctx, options);
    expectSameRetrievals(await results(index), await results(fresh));
    // The old index is left as it was.
    expect(base.chunks.some((c) => c.docId === 'solberg')).toBe(true);
  });
});

describe('da-rag update with a fitted embedder (the offline providers)', () => {
  // The update keeps the embedder's fit on the original corpus, where a build of A + B − C refits
  // it: the vectors (and so the Similarity layer) differ. Stated tolerance: the same set of top-5
  // passages for ≥ 6 of the 7 queries (measured: 7 of 7); the KG and the chunk layer are the same.
  it('retrieves the same top-5 passages as a fresh build for at least 6 of 7 queries', async () => {
    const ctx = offlineContext();
    const base = await daRag.build(A, ctx);
    const { index, report } = await daRag.update!(base, { add: B, remove: C }, ctx);
    expect(report.trace.fit).toMatch(/keeps the fit of the original corpus/);
    const fresh = await daRag.build(AplusBminusC, offlineContext());
    expect(index.chunks).toEqual(fresh.chunks);
    expect(index.entities).toEqual(fresh.entities);
    expect(edges(index.chunkLayer)).toEqual(edges(fresh.chunkLayer));
    const top5 = (r: Retrieval) =>
      [
        ...new Set(
          r.items
            .filter((i) => i.kind === 'community' || i.kind === 'chunk')
            .flatMap((i) => i.source.chunkIds),
        ),
      ]
        .slice(0, 5)
        .sort();
    const [got, want] = [await results(index), await results(fresh)];
    const same = got.filter((r, i) => JSON.stringify(top5(r)) === JSON.stringify(top5(want[i]!))).length;
    expect(same).toBeGreaterThanOrEqual(6);
  });
});

describe('da-rag update refusals', () => {
  it('refuses unknown ids, naming them, and changes nothing', async () => {
    const { ctx } = counted();
    const base = await daRag.build(A, ctx, { chunking: 'fixed' });
    const before = dataOf(base);
    const error = await daRag.update!(base, { add: B, remove: ['kessler', 'nope'] }, ctx).catch((e) => e);
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error.message).toBe(
      'da-rag update: the index holds no document with the id "nope"; nothing was changed. Remove only ids of indexed documents.',
    );
    expect(dataOf(base)).toEqual(before);
  });

  it('refuses a context with another embedder', async () => {
    const { ctx } = counted();
    const base = await daRag.build(A, ctx, { chunking: 'fixed' });
    const other = createBuildContext({
      embedder: createScriptedEmbedder({ dimensions: 32, modelId: 'other' }),
      tasks: ctx.tasks,
    });
    const error = await daRag.update!(base, { remove: C }, other).catch((e) => e);
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(
      /^da-rag update: the index was built with the embedder '.*' but the context has '.*other.*'/,
    );
  });

  it('loads an index saved before updates existed, and says an update needs one rebuild', async () => {
    const { ctx } = counted();
    const dir = await freshDir('grag-da-update-old-');
    await daRag.save(await daRag.build(A, ctx, { chunking: 'fixed' }), join(dir, 'new'));
    const old = await copyStoredIndex(directoryStore(join(dir, 'new')), directoryStore(join(dir, 'old')), {
      artifact: (name) => (name === 'update.json' ? null : undefined),
    });
    const loaded = await daRag.load(old, counted().ctx);
    expect(loaded.kept).toBeUndefined();
    expect((await daRag.retrieve(loaded, QUERIES[0]!)).items.length).toBeGreaterThan(0);
    const error = await daRag.update!(loaded, { remove: C }, ctx).catch((e) => e);
    expect(StateError.isInstance(error)).toBe(true);
    expect(error.message).toBe(
      "da-rag update: this index was saved before grag kept each chunk's extraction, so it cannot be updated without extracting every chunk again; rebuild it once with grag index (or da-rag.build), and later updates are local.",
    );
  });
});
