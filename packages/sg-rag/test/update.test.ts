import { join } from 'node:path';
import {
  type BuildContext,
  type Document,
  InvalidArgumentError,
  type Retrieval,
  StateError,
  type TaskSuite,
  type VectorIndexFactory,
} from '@grag/core';
import { chunkDocuments, createBuildContext, flatIndexFactory, getTokenizer } from '@grag/core/kit';
import { memoryStore } from '@grag/core/store';
import {
  corpusChange,
  createScriptedEmbedder,
  ENTITY_QUESTIONS,
  entityDocuments,
  savedCopy,
} from '@grag/core/test';
import {
  expectSameRetrievals as expectSameItems,
  replaceAndRebuild,
  temporaryDirs,
} from '@grag/core/test/vitest';
import { createOfflineProviders } from '@grag/offline';
import { describe, expect, it } from 'vitest';
import { type SgRagIndex, type SgRagMode, type SgRagOptions, sgRag } from '../src/index.js';

// Tolerance: none. Every global stage of an update (graph merge, label vector index, dominance
// embeddings, R*-tree) is recomputed from the same intermediate data a fresh build computes, so
// the updated index must equal a fresh build of A + B − C exactly: the same graph, kept
// extractions, label embeddings, path nodes and stats, and for every query of QUERIES in every
// retrieval mode the same items (id, kind, sources), scores within 1e-9, context and answers.
const { A, B, C, AplusBminusC } = corpusChange(entityDocuments(15), 10, ['d2', 'd5', 'd7']);
// Several chunks per document, so chunks split facts and a document's chunks share entities.
const build: Partial<SgRagOptions> = { chunkSize: 24, overlap: 4 };
const QUERIES = [
  ...ENTITY_QUESTIONS,
  'Which place did Petra Lind visit?',
  'Who did the Varnholm Regatta hire in 1972?',
];
const MODES: SgRagMode[] = ['sg-rag', 'entity', 'one-hop', 'two-hop'];

/** A context whose task suite records every chunk sent to extractGraph, and whose embedder every text. */
function counted(vectorIndex?: VectorIndexFactory): {
  ctx: BuildContext;
  extracted: string[];
  embedded: () => string[];
} {
  const offline = createOfflineProviders().tasks;
  const extracted: string[] = [];
  const tasks = new Proxy(offline, {
    get(target, prop) {
      if (prop === 'extractGraph') {
        return (text: string, options: Parameters<TaskSuite['extractGraph']>[1]) => {
          extracted.push(text);
          return target.extractGraph(text, options);
        };
      }
      const value = Reflect.get(target, prop);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const embedder = createScriptedEmbedder({ dimensions: 16 });
  return {
    ctx: createBuildContext({ embedder, tasks, ...(vectorIndex ? { vectorIndex } : {}) }),
    extracted,
    embedded: () => embedder.calls.flatMap((c) => c.values),
  };
}

async function results(index: SgRagIndex): Promise<Retrieval[]> {
  return Promise.all(
    MODES.flatMap((mode) =>
      QUERIES.map((q) => sgRag.retrieve(index, q, { mode, topK: 1000, budgetTokens: 100_000 })),
    ),
  );
}

function expectSameRetrievals(got: Retrieval[], want: Retrieval[]): void {
  // Most queries retrieve something, so equality says something.
  expect(want.filter((r) => r.items.length > 0).length).toBeGreaterThan(want.length / 2);
  expectSameItems(got, want);
  got.forEach((r, i) => {
    expect(r.trace.answers).toEqual(want[i]!.trace.answers);
  });
}

/** The data an index holds, without training times. */
function contents(index: SgRagIndex) {
  const { dominanceTrainSeconds: _, ...stats } = index.stats;
  return {
    graph: index.graph,
    kept: index.kept,
    pathNodes: [...index.paths.pathNodes],
    treeSize: index.paths.tree.size,
    labelVectors: index.labelVectors.size,
    stats,
  };
}

async function expectSameAsFresh(updated: SgRagIndex, docs: Document[], options = build): Promise<void> {
  await expectSameIndexes(updated, await sgRag.build(docs, counted().ctx, options));
}

async function expectSameIndexes(updated: SgRagIndex, fresh: SgRagIndex): Promise<void> {
  expect(contents(updated)).toEqual(contents(fresh));
  expectSameRetrievals(await results(updated), await results(fresh));
}

const chunkTexts = (docs: Document[]) =>
  chunkDocuments(docs, { chunkSize: 24, overlap: 4, tokenizer: getTokenizer() }).map((c) => c.text);

const freshDir = temporaryDirs();

describe('sg-rag update', () => {
  for (const [label, options] of [
    ['paths of one edge', build],
    ['paths of two edges', { ...build, pathLength: 2 as const }],
    ['the trained monotone embedder', { ...build, dominanceEmbedder: 'monotone' as const }],
  ] as const) {
    it(`build on A, add B, remove C equals a fresh build on A + B − C (${label})`, async () => {
      const { ctx } = counted();
      const base = await sgRag.build(A, ctx, options);
      const { index, report } = await sgRag.update!(base, { add: B, remove: C }, ctx);
      await expectSameAsFresh(index, AplusBminusC, options);
      expect(report.documents).toEqual({
        added: ['d10', 'd11', 'd12', 'd13', 'd14'],
        replaced: [],
        removed: C,
      });
      const chunksOfC = base.kept!.chunks.filter((c) => C.includes(c.docId)).length;
      expect(report.chunks).toEqual({
        removed: chunksOfC,
        added: chunkTexts(B).length,
        total: base.kept!.chunks.length - chunksOfC + chunkTexts(B).length,
      });
      expect(report.local).toEqual(['chunk', 'extract', 'embed']);
      expect(report.global.map((g) => g.stage)).toEqual(['graph', 'vector-index', 'dominance', 'paths']);
      // The base index is left as it was.
      expect(base.kept!.documents).toEqual(A.map((d) => d.id));
    });
  }

  it('extracts only the new chunks and embeds only labels the index has no embedding for', async () => {
    const counter = counted();
    const base = await sgRag.build(A, counter.ctx, build);
    expect(counter.extracted).toEqual(chunkTexts(A));
    const embeddedBefore = counter.embedded().length;
    counter.extracted.length = 0;
    const { index, report } = await sgRag.update!(base, { add: B, remove: C }, counter.ctx);
    expect(counter.extracted).toEqual(chunkTexts(B));
    const sent = counter.embedded().slice(embeddedBefore);
    // Labels of the new graph that the base graph lacks, each once, in node order.
    const newLabels = [...new Set(index.graph.labels.filter((l) => !base.graph.labels.includes(l)))];
    expect(newLabels.length).toBeGreaterThan(0);
    expect(sent).toEqual(newLabels);
    expect(report.embedded).toBe(newLabels.length);
    expect(report.trace).toMatchObject({
      extracted: chunkTexts(B).length,
      reusedExtractions: report.chunks.total - chunkTexts(B).length,
      reusedLabelEmbeddings: index.graph.labels.length - newLabels.length,
    });
    // Removing alone makes no model call at all.
    counter.extracted.length = 0;
    const embeddedAfter = counter.embedded().length;
    const removal = await sgRag.update!(index, { remove: ['d0', 'd11'] }, counter.ctx);
    expect(counter.extracted).toEqual([]);
    expect(counter.embedded().length).toBe(embeddedAfter);
    expect(removal.report.embedded).toBe(0);
  });

  it('leaves nothing retrievable that cites a removed document', async () => {
    const { ctx } = counted();
    const base = await sgRag.build(A, ctx, build);
    const { index } = await sgRag.update!(base, { add: B, remove: C }, ctx);
    const cites = (rs: Retrieval[]) =>
      rs.flatMap((r) =>
        r.items.filter(
          (item) =>
            item.source.docIds.some((d) => C.includes(d)) ||
            item.source.chunkIds.some((c) => C.includes(c.split('#')[0]!)),
        ),
      ).length;
    expect(cites(await results(base))).toBeGreaterThan(0);
    expect(cites(await results(index))).toBe(0);
    // The years only C's documents name (d2: 1882, 1922, 1962; d5: 1885, …; d7: 1887, …) are gone.
    const onlyC = ['1882', '1922', '1962', '1885', '1925', '1965', '1887', '1927', '1967'];
    expect(base.graph.labels.filter((l) => onlyC.includes(l))).toHaveLength(onlyC.length);
    expect(index.graph.labels.filter((l) => onlyC.includes(l))).toEqual([]);
    for (const e of index.graph.edges) {
      expect(e.docIds.filter((d) => C.includes(d))).toEqual([]);
      expect(e.chunkIds.filter((c) => C.includes(c.split('#')[0]!))).toEqual([]);
    }
    expect(index.kept!.chunks.filter((c) => C.includes(c.docId))).toEqual([]);
    expect(index.kept!.documents.filter((d) => C.includes(d))).toEqual([]);
    expect(index.labelVectors.size).toBe(index.graph.ids.length);
    for (const r of await results(index)) {
      for (const year of onlyC) expect(r.context).not.toContain(year);
    }
  });

  it('refuses unknown ids, naming them, and changes nothing', async () => {
    const { ctx } = counted();
    const base = await sgRag.build(A, ctx, build);
    const before = await results(base);
    const error = await sgRag.update!(base, { add: B, remove: ['d1', 'nope', 'gone'] }, ctx).catch((e) => e);
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(
      /^sg-rag update: .*no document with the id "nope", "gone"; nothing was changed/,
    );
    expectSameRetrievals(await results(base), before);
    expect(base.kept!.documents).toEqual(A.map((d) => d.id));
  });

  it('replaces a document added under an indexed id', async () => {
    const replacement: Document = {
      id: 'd3',
      title: 'Record 3',
      text: 'Ilse Varga sailed to Kestrel Bay in 1999. Jonas Holm worked for the Orsa Marine Institute.',
    };
    const { index, fresh } = await replaceAndRebuild(sgRag, A, replacement, counted, build);
    await expectSameIndexes(index, fresh);
    expect(index.graph.labels).toContain('1999');
    expect(index.graph.labels).not.toContain('1883');
  });

  it('saves and loads an updated index, which updates again', async () => {
    const dir = await freshDir('grag-sg-update-');
    const { ctx } = counted();
    const first = await sgRag.update!(await sgRag.build(A, ctx, build), { remove: ['d0'] }, ctx);
    for (const target of [join(dir, 'idx'), memoryStore()]) {
      await sgRag.save(first.index, target);
      const counter = counted();
      const loaded = await sgRag.load(target, counter.ctx);
      expect(loaded.kept).toEqual(first.index.kept);
      const second = await sgRag.update!(loaded, { add: B, remove: C }, counter.ctx);
      expect(counter.extracted).toEqual(chunkTexts(B));
      await expectSameAsFresh(
        second.index,
        AplusBminusC.filter((d) => d.id !== 'd0'),
      );
    }
  });
});

describe('sg-rag indexes that cannot be updated', () => {
  it('loads an index saved before updates existed and explains that an update needs a rebuild', async () => {
    const dir = await freshDir('grag-sg-update-');
    // Saved with a factory that is not exact, so the label vector index is saved beside the label
    // embeddings (as every index was before format 2); then the update state is dropped.
    const { ctx } = counted({ kind: 'flat', create: flatIndexFactory.create, load: flatIndexFactory.load });
    const old = await savedCopy(sgRag, await sgRag.build(A, ctx, build), dir, {
      artifact: (name) => (name === 'update.json' || name === 'labels.rows' ? null : undefined),
    });
    const loaded = await sgRag.load(old, counted().ctx);
    expect(loaded.kept).toBeUndefined();
    expectSameRetrievals(await results(loaded), await results(await sgRag.load(join(dir, 'new'), ctx)));
    const error = await sgRag.update!(loaded, { remove: ['d1'] }, ctx).catch((e) => e);
    expect(StateError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(
      /^sg-rag update: this index was saved before grag kept each chunk's extraction.*rebuild it once with grag index/,
    );
  });

  it('refuses an index built from triples, saying to build again', async () => {
    // Written with an 8-dimensional scripted embedder from triples (see persist.test.ts).
    const fixture = new URL('./__fixtures__/index-v1', import.meta.url).pathname;
    const ctx = createBuildContext({
      embedder: createScriptedEmbedder({ dimensions: 8 }),
      tasks: createOfflineProviders().tasks,
    });
    const loaded = await sgRag.load(fixture, ctx);
    expect(loaded.kept).toBeUndefined();
    const error = await sgRag.update!(loaded, { add: B }, ctx).catch((e) => e);
    expect(StateError.isInstance(error)).toBe(true);
    expect(error.message).toBe(
      'sg-rag update: this index was built from triples, not documents, so it holds no documents to add or remove; build it again with the changed triples.',
    );
  });

  it('refuses a context with another embedder', async () => {
    const { ctx } = counted();
    const base = await sgRag.build(A, ctx, build);
    const other = createBuildContext({
      embedder: createScriptedEmbedder({ dimensions: 8 }),
      tasks: createOfflineProviders().tasks,
    });
    const error = await sgRag.update!(base, { remove: ['d1'] }, other).catch((e) => e);
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error.message).toContain("built with the embedder 'scripted:scripted-embedder:16'");
  });
});
