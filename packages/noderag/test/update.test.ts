import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type BuildContext,
  type Document,
  InvalidArgumentError,
  type Retrieval,
  StateError,
  type TaskSuite,
} from '@grag/core';
import { createBuildContext, decompressed } from '@grag/core/kit';
import {
  corpusChange,
  createScriptedEmbedder,
  ENTITY_QUERIES,
  entityDocuments,
  RECORD_3_REPLACEMENT,
  readmeSnippet,
  runLoggedSnippet,
  savedCopy,
} from '@grag/core/test';
import { replaceAndRebuild, temporaryDirs } from '@grag/core/test/vitest';
import { hnswIndexFactory } from '@grag/hnsw';
import { createOfflineTasks } from '@grag/offline';
import { describe, expect, it, test } from 'vitest';
import { type NodeRagIndex, nodeRag } from '../src/index.js';
import { materialKey } from '../src/kept.js';

const { A, B, C, AplusBminusC } = corpusChange(entityDocuments(15), 10, ['d2', 'd5', 'd7']);
/** One chunk per document, a small HNSW graph, and few enough mentions that entities get attributes. */
const OPTIONS = { chunking: 'document' as const, hnswM: 8, hnswEfConstruction: 32, attributeMinMentions: 2 };
/** Fixed-size chunks (several per document), the other chunking mode. */
const FIXED = { ...OPTIONS, chunking: 'fixed' as const, chunkSize: 20, overlap: 4 };
const QUERIES = [...ENTITY_QUERIES, 'Who worked for the shipyard?'];
const RETRIEVE = { topK: 10, budgetTokens: 100_000 };

/** The model inputs of one context, by task: what its task suite and embedder were sent. */
interface Sent {
  decompose: string[];
  summarize: string[];
  describe: string[];
  embed: string[];
}

/** A context on the offline task suite and the scripted embedder, recording every model input. */
function recorded(): { ctx: BuildContext; sent: () => Sent } {
  const base = createOfflineTasks();
  const sent: Omit<Sent, 'embed'> = { decompose: [], summarize: [], describe: [] };
  const tasks: TaskSuite = {
    id: base.id,
    extractGraph: (...a) => base.extractGraph(...a),
    decomposeSemanticUnits: (text, o) => {
      sent.decompose.push(text);
      return base.decomposeSemanticUnits(text, o);
    },
    summarize: (texts, o) => {
      sent.summarize.push(texts.join('\u0000'));
      return base.summarize(texts, o);
    },
    titleAndDescription: (text, o) => {
      sent.describe.push(text);
      return base.titleAndDescription(text, o);
    },
    extractQueryEntities: (...a) => base.extractQueryEntities(...a),
    extractQueryGraph: (...a) => base.extractQueryGraph(...a),
    assessCommunity: (...a) => base.assessCommunity(...a),
    answer: (...a) => base.answer(...a),
  };
  const embedder = createScriptedEmbedder({ dimensions: 32 });
  // The HNSW index of NodeRAG's paper (the tolerances below were measured on it).
  const ctx = createBuildContext({ embedder, tasks, vectorIndex: hnswIndexFactory() });
  return {
    ctx,
    sent: () => ({
      decompose: [...sent.decompose],
      summarize: [...sent.summarize],
      describe: [...sent.describe],
      embed: embedder.calls.flatMap((c) => c.values),
    }),
  };
}

/** `of` without the first `n` entries of each list (what was sent after a point). */
function since(of: Sent, n: Sent): Sent {
  return {
    decompose: of.decompose.slice(n.decompose.length),
    summarize: of.summarize.slice(n.summarize.length),
    describe: of.describe.slice(n.describe.length),
    embed: of.embed.slice(n.embed.length),
  };
}

/** Every node (with its attributes) and edge (with kind and weight) of an index's graph, in order. */
function graphOf(index: NodeRagIndex) {
  const { nodes, edges } = index.graph.graph.export();
  // Edge keys are generated from a process-wide counter: everything else must match.
  return { nodes, edges: edges.map(({ source, target, attributes }) => ({ source, target, attributes })) };
}

async function results(index: NodeRagIndex): Promise<Retrieval[]> {
  return Promise.all(QUERIES.map((q) => nodeRag.retrieve(index, q, RETRIEVE)));
}

/** The share of queries whose items (id, kind, sources) are the same, in the same order, with scores within 1e-9. */
function sameTopShare(got: Retrieval[], want: Retrieval[]): number {
  const same = got.filter((r, i) => {
    const w = want[i]!;
    return (
      r.items.length === w.items.length &&
      r.context === w.context &&
      r.items.every(
        (item, j) =>
          item.id === w.items[j]!.id &&
          item.kind === w.items[j]!.kind &&
          JSON.stringify(item.source) === JSON.stringify(w.items[j]!.source) &&
          Math.abs(item.score - w.items[j]!.score) <= 1e-9,
      )
    );
  });
  return same.length / got.length;
}

/**
 * The tolerance of a local update (the default) against a fresh build: the mean, over the queries,
 * of the Jaccard similarity of the documents cited by the top 10 items (measured: 1 on this corpus,
 * where items still differ in ids and scores; benchmarks/results/update.md has it on MuSiQue).
 */
const TOLERANCE = 0.8;

/** Mean over queries of the Jaccard similarity of the documents the first 10 items cite. */
function topPassageOverlap(got: Retrieval[], want: Retrieval[]): number {
  const docs = (r: Retrieval) => new Set(r.items.slice(0, 10).flatMap((item) => item.source.docIds));
  const shares = got.map((r, i) => {
    const [a, b] = [docs(r), docs(want[i]!)];
    const union = new Set([...a, ...b]).size;
    return union === 0 ? 1 : [...a].filter((d) => b.has(d)).length / union;
  });
  return shares.reduce((x, y) => x + y, 0) / shares.length;
}

/** The entries of `list` that `seen` does not hold, each once, in order of first appearance. */
function newEntries(list: readonly string[], seen: readonly string[]): string[] {
  const before = new Set(seen);
  return [...new Set(list.filter((x) => !before.has(x)))];
}

const freshDir = temporaryDirs();

/** A build of `A` with `ctx`, saved in a fresh folder (`prefix`) and copied as `copy` with `edits`. */
async function savedCopyOfA(
  ctx: BuildContext,
  prefix: string,
  edits: Parameters<typeof savedCopy>[3],
  copy: string,
) {
  return savedCopy(nodeRag, await nodeRag.build(A, ctx, OPTIONS), await freshDir(prefix), edits, copy);
}

for (const [label, options] of [
  ['one chunk per document', OPTIONS],
  ['fixed-size chunks', FIXED],
] as const) {
  describe(`noderag update (${label})`, () => {
    it('with full, build on A, add B, remove C: the same graph and retrievals as a fresh build on A + B − C', async () => {
      const { ctx } = recorded();
      const base = await nodeRag.build(A, ctx, options);
      const { index, report } = await nodeRag.update(base, { add: B, remove: C }, ctx, { full: true });
      const fresh = await nodeRag.build(AplusBminusC, recorded().ctx, options);
      // Global stages are recomputed as a build computes them, from the same (deterministic) answers:
      // the tolerance is zero — the same graph, and the same top-10 for 100% of the queries.
      expect(graphOf(index)).toEqual(graphOf(fresh));
      expect(index.vectorKeys).toEqual(fresh.vectorKeys);
      expect(index.stats).toEqual(fresh.stats);
      expect(index.kept).toEqual(fresh.kept);
      expect(sameTopShare(await results(index), await results(fresh))).toBe(1);
      expect(report.documents).toEqual({
        added: ['d10', 'd11', 'd12', 'd13', 'd14'],
        replaced: [],
        removed: C,
      });
      const chunksOf = (ids: string[]) => base.chunks.filter((c) => ids.includes(c.docId)).length;
      expect(report.chunks).toEqual({
        removed: chunksOf(C),
        added: fresh.chunks.length - (base.chunks.length - chunksOf(C)),
        total: fresh.chunks.length,
      });
      expect(report.local).toEqual(['chunk', 'decompose', 'embed']);
      expect(report.global.map((g) => g.stage)).toEqual([
        'graph',
        'attributes',
        'communities',
        'semantic-matching',
        'hnsw',
        'bm25',
      ]);
      expect(report.global[1]!.reason).toMatch(/^full update: /);
      // The base index is left as it was.
      expect(base.chunks.some((c) => c.docId === 'd2')).toBe(true);
    });

    it('with full, sends the models only what the index never asked: the new chunks, changed material, new texts', async () => {
      const counter = recorded();
      const base = await nodeRag.build(A, counter.ctx, options);
      const before = counter.sent();
      const { report } = await nodeRag.update(base, { add: B, remove: C }, counter.ctx, { full: true });
      const sent = since(counter.sent(), before);
      const freshCounter = recorded();
      const fresh = await nodeRag.build(AplusBminusC, freshCounter.ctx, options);
      const rebuild = freshCounter.sent();
      // Decomposition: exactly the T texts of B's chunks, each once.
      const newTexts = fresh.chunks
        .filter((c) => B.some((d) => d.id === c.docId))
        .map((c) => fresh.graph.node(`T:${c.id}`).text);
      expect(sent.decompose).toEqual(newTexts);
      // Attributes and community elements: what a rebuild asks that the base build never asked.
      expect(sent.summarize).toEqual(newEntries(rebuild.summarize, before.summarize));
      expect(sent.describe).toEqual(newEntries(rebuild.describe, before.describe));
      expect(sent.summarize.filter((x) => before.summarize.includes(x))).toEqual([]);
      expect(sent.describe.filter((x) => before.describe.includes(x))).toEqual([]);
      // Embeddings: only texts never embedded before.
      expect(new Set(sent.embed)).toEqual(new Set(newEntries(rebuild.embed, before.embed)));
      expect(report.embedded).toBe(sent.embed.length);
      expect(report.trace.calls).toEqual({
        decomposed: newTexts.length,
        summarized: sent.summarize.length,
        described: sent.describe.length,
        embedded: sent.embed.length,
      });
      // Far fewer calls than the rebuild: most answers are kept.
      expect(sent.decompose.length).toBeLessThan(rebuild.decompose.length);
      expect(sent.embed.length).toBeLessThan(rebuild.embed.length);
    });

    it('by default keeps importance and communities where the change does not reach, within tolerance of a fresh build', async () => {
      const counter = recorded();
      const base = await nodeRag.build(A, counter.ctx, options);
      const before = counter.sent();
      const { index, report } = await nodeRag.update(base, { add: B, remove: C }, counter.ctx);
      const sent = since(counter.sent(), before);
      const full = recorded();
      // A full update of the same change, for what it sends the models.
      await nodeRag.update(base, { add: B, remove: C }, full.ctx, { full: true });
      const fresh = await nodeRag.build(AplusBminusC, recorded().ctx, options);
      expect(report.local).toEqual(['chunk', 'decompose', 'attributes', 'communities', 'embed']);
      expect(report.global.map((g) => g.stage)).toEqual(['graph', 'semantic-matching', 'hnsw', 'bm25']);
      // The same chunks were decomposed as by the full update, and no more summaries asked.
      expect(sent.decompose).toEqual(full.sent().decompose);
      expect(sent.summarize.length).toBeLessThanOrEqual(full.sent().summarize.length);
      // Described: the communities of the updated index whose content the base index never
      // described, each once. (Local communities and Leiden over the whole graph partition the
      // change differently, so either may ask a description or two more than the other.)
      const baseKeys = new Set(base.kept!.elements.map(([key]) => key));
      const added = index.kept!.elements.map(([key]) => key).filter((key) => !baseKeys.has(key));
      expect(sent.describe.map((text) => materialKey([text])).sort()).toEqual([...new Set(added)].sort());
      // Tolerance: the passages of the top 10 items of each query against the fresh build's.
      const overlap = topPassageOverlap(await results(index), await results(fresh));
      expect(overlap).toBeGreaterThanOrEqual(TOLERANCE);
      // Every node of the graph carries what a build gives it (provenance of kept documents only).
      expect(index.chunks.map((c) => c.id)).toEqual(fresh.chunks.map((c) => c.id));
      expect(index.graph.nodes('T')).toEqual(fresh.graph.nodes('T'));
    });

    it('leaves nothing retrievable that cites a removed document', async () => {
      const { ctx } = recorded();
      const base = await nodeRag.build(A, ctx, options);
      const { index } = await nodeRag.update(base, { remove: ['d2'] }, ctx);
      const cites = async (i: NodeRagIndex, query: string) =>
        (await nodeRag.retrieve(i, query, { topK: 1000, budgetTokens: 100_000 })).items.filter((item) =>
          item.source.docIds.includes('d2'),
        ).length;
      for (const query of ['Tomas Brandt visited Orsa in 1882', '1922', '1962 Record 2']) {
        expect(await cites(base, query)).toBeGreaterThan(0);
        expect(await cites(index, query)).toBe(0);
      }
      index.graph.graph.forEachNode((key, attrs) => {
        expect([key, [...attrs.docs].includes('d2')]).toEqual([key, false]);
        expect([key, [...attrs.chunks].some((c: string) => c.startsWith('d2#'))]).toEqual([key, false]);
      });
      expect(index.chunks.some((c) => c.docId === 'd2')).toBe(false);
      expect(index.kept!.documents.map((d) => d.id)).not.toContain('d2');
      expect(index.vectorKeys).toHaveLength(index.kept!.embeddings!.length);
    });

    it('replaces a document added under an indexed id', async () => {
      const replacement = RECORD_3_REPLACEMENT;
      const { base, index, fresh, ctx } = await replaceAndRebuild(nodeRag, A, replacement, recorded, options);
      const exact = await nodeRag.update(base, { add: [replacement] }, ctx, { full: true });
      expect(graphOf(exact.index)).toEqual(graphOf(fresh));
      const texts = index.chunks.filter((c) => c.docId === 'd3').map((c) => c.text);
      expect(texts.join(' ')).toContain('1999');
      expect(texts.join(' ')).not.toContain('1883');
    });
  });
}

describe('noderag update of an unrelated document', () => {
  const press: Document = {
    id: 'press',
    title: 'Bellmere Press',
    text: 'Zora Quill founded Bellmere Press in Lowmarsh in 2001. Bellmere Press printed maps for Zora Quill.',
  };
  const isNew = (text: string) => /Bellmere|Zora|Quill|Lowmarsh|2001/.test(text);

  /** The communities of an index as sets of node identities (a unit by its text, other nodes by key). */
  function groups(index: NodeRagIndex, only?: (id: string) => boolean): string[] {
    const byCommunity = new Map<number, string[]>();
    for (const [key, c] of index.kept!.communities!) {
      const id = index.graph.typeOf(key) === 'S' ? `S:${index.graph.node(key).text}` : key;
      if (only && !only(id)) continue;
      byCommunity.set(c, [...(byCommunity.get(c) ?? []), id]);
    }
    return [...byCommunity.values()].map((ids) => ids.sort().join('\u0000')).sort();
  }

  it('asks only about its own entities and communities, and every other attribute and community stays', async () => {
    const counter = recorded();
    const base = await nodeRag.build(A, counter.ctx, OPTIONS);
    const before = counter.sent();
    const { index, report } = await nodeRag.update(base, { add: [press] }, counter.ctx);
    const sent = since(counter.sent(), before);
    expect(sent.decompose).toEqual([`Bellmere Press\n${press.text}`]);
    // Every attribute of the base index stays, with its text; only the new document's are summarized.
    const attributes = (i: NodeRagIndex) =>
      new Map(i.graph.nodes('A').map((key) => [key, i.graph.node(key).text]));
    const [was, now] = [attributes(base), attributes(index)];
    expect(was.size).toBeGreaterThan(0);
    for (const [key, text] of was) expect([key, now.get(key)]).toEqual([key, text]);
    for (const material of sent.summarize) expect([material, isNew(material)]).toEqual([material, true]);
    expect(report.trace.reused).toMatchObject({ attributes: was.size });
    // The communities of the base index's nodes are the same groups; only content of the new
    // document is described.
    const old = new Set(groups(base).flatMap((g) => g.split('\u0000')));
    expect(groups(index, (id) => old.has(id))).toEqual(groups(base));
    expect(sent.describe.length).toBeGreaterThan(0);
    for (const content of sent.describe) expect([content, isNew(content)]).toEqual([content, true]);
    // A full update instead is the fresh build.
    const full = await nodeRag.update(base, { add: [press] }, counter.ctx, { full: true });
    expect(graphOf(full.index)).toEqual(graphOf(await nodeRag.build([...A, press], recorded().ctx, OPTIONS)));
  });
});

describe('noderag update: errors, persistence and older indexes', () => {
  it('refuses unknown ids, naming them, and changes nothing', async () => {
    const counter = recorded();
    const base = await nodeRag.build(A, counter.ctx, OPTIONS);
    const before = await results(base);
    const sentBefore = counter.sent();
    const error = await nodeRag
      .update(base, { add: B, remove: ['d1', 'nope', 'gone'] }, counter.ctx)
      .catch((e) => e);
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(
      /^noderag update: .*no document with the id "nope", "gone"; nothing was changed/,
    );
    expect(sameTopShare(await results(base), before)).toBe(1);
    expect(since(counter.sent(), sentBefore).decompose).toEqual([]);
  });

  it('refuses a context with another embedder', async () => {
    const { ctx } = recorded();
    const base = await nodeRag.build(A, ctx, OPTIONS);
    const other = createBuildContext({
      embedder: createScriptedEmbedder({ dimensions: 16 }),
      tasks: ctx.tasks,
    });
    const error = await nodeRag.update(base, { remove: ['d1'] }, other).catch((e) => e);
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(
      /^noderag update: the index was built with the embedder .* but the context has/,
    );
  });

  it('saves and loads an updated index, which updates again like a fresh build', async () => {
    const { ctx } = recorded();
    const dir = await freshDir('grag-noderag-update-');
    const first = await nodeRag.update(await nodeRag.build(A, ctx, OPTIONS), { remove: ['d0'] }, ctx);
    await nodeRag.save(first.index, dir);
    const load = recorded();
    const loaded = await nodeRag.load(dir, load.ctx);
    expect(loaded.kept).toEqual(first.index.kept);
    const second = await nodeRag.update(loaded, { add: B, remove: C }, load.ctx, { full: true });
    const fresh = await nodeRag.build(
      AplusBminusC.filter((d) => d.id !== 'd0'),
      recorded().ctx,
      OPTIONS,
    );
    expect(graphOf(second.index)).toEqual(graphOf(fresh));
    expect(sameTopShare(await results(second.index), await results(fresh))).toBe(1);
    // The loaded index's answers were reused: only B's five documents were decomposed.
    expect(load.sent().decompose).toHaveLength(B.length);
  });

  it('loads an index saved before updates existed and says an update needs one rebuild', async () => {
    const { ctx } = recorded();
    const dir = await freshDir('grag-noderag-update-old-');
    const built = await nodeRag.build(A, ctx, OPTIONS);
    // What such an index holds: no kept data, the vector index saved whole.
    const { kept: _kept, ...withoutKept } = built;
    const old = join(dir, 'old');
    await nodeRag.save(withoutKept, old);
    expect(await readdir(old)).not.toContain('update.json');
    const loaded = await nodeRag.load(old, recorded().ctx);
    expect(loaded.kept).toBeUndefined();
    expect(sameTopShare(await results(loaded), await results(built))).toBe(1);
    const error = await nodeRag.update(loaded, { remove: ['d1'] }, ctx).catch((e) => e);
    expect(StateError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(
      /saved before grag kept what updates reuse.*rebuild it once with grag index/,
    );
  });

  it('updates an index saved before updates were local over the whole graph, and says so', async () => {
    const { ctx } = recorded();
    const older = await savedCopyOfA(
      ctx,
      'grag-noderag-update-v1-',
      {
        artifact: (name, data) => {
          // Without the SHA-256 of update.json that format 4 records (older formats decode it at load).
          if (name === 'chunks.json') {
            const { updateSha256: _, ...chunks } = JSON.parse(
              new TextDecoder().decode(decompressed(data, name)),
            );
            return new TextEncoder().encode(JSON.stringify(chunks));
          }
          if (name !== 'update.json') return undefined;
          const {
            important: _,
            communities: __,
            ...rest
          } = JSON.parse(new TextDecoder().decode(decompressed(data, name)));
          return new TextEncoder().encode(JSON.stringify(rest));
        },
      },
      'v1',
    );
    const loaded = await nodeRag.load(older, recorded().ctx);
    expect(loaded.kept!.communities).toBeUndefined();
    const { index, report } = await nodeRag.update(loaded, { add: B, remove: C }, ctx);
    expect(report.local).toEqual(['chunk', 'decompose', 'embed']);
    expect(report.global[1]!.reason).toMatch(/^the index was saved before updates were local: /);
    expect(graphOf(index)).toEqual(graphOf(await nodeRag.build(AplusBminusC, recorded().ctx, OPTIONS)));
    // What it keeps now makes the next update local.
    expect(index.kept!.communities!.length).toBeGreaterThan(0);
  });

  it('refuses an index that has one of the two update files but not the other', async () => {
    const { ctx } = recorded();
    const torn = await savedCopyOfA(
      ctx,
      'grag-noderag-update-torn-',
      {
        artifact: (name) => (name === 'embeddings.rows' ? null : undefined),
      },
      'torn',
    );
    const error = await nodeRag.load(torn, recorded().ctx).catch((e) => e);
    expect(error.message).toMatch(/update\.json.*embeddings\.rows is missing/);
  });
});

test('the snippet of the README section "Updates" runs and prints what its comments say', async () => {
  const { printed, expected } = await runLoggedSnippet(
    await readmeSnippet(new URL('../README.md', import.meta.url), '## Updates'),
  );
  expect(expected).toHaveLength(3);
  expect(printed).toEqual(expected);
});
