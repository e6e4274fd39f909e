/**
 * NodeRAG takes its vector index from the build context's factory: `hnswIndexFactory()` gives the
 * HNSW graph of the paper (built with NodeRAG's HNSW settings, its base layer laid as semantic
 * edges), core's flat factory the exact index and the base layer HNSW's rule makes over exact
 * neighbours. Indexes saved before the factory came from the context (`__fixtures__/v1-*`, written
 * by that code with and without the HNSW addon) load as they are and retrieve what they retrieved
 * then, and a build of the same documents saves (in format 2) what they hold and retrieves the same.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type BuildContext,
  IndexFormatError,
  type VectorIndexFactory,
  type VectorIndexOptions,
} from '@grag/core';
import { FlatIndex, flatIndexFactory } from '@grag/core/kit';
import { manifestContent } from '@grag/core/test';
import { temporaryRoot } from '@grag/core/test/vitest';
import { HnswIndex, hnswIndexFactory } from '@grag/hnsw';
import { describe, expect, it } from 'vitest';
import { NODERAG_DEFAULTS, nodeRag } from '../src/index.js';
import { DOCS, scriptedContext } from './fixtures.js';

const FIXTURES = join(import.meta.dirname, '__fixtures__');
const hnswContext = (): BuildContext => scriptedContext().ctx;
const flatContext = (): BuildContext => ({ ...scriptedContext().ctx, vectorIndex: flatIndexFactory });

/** The recorded query, budget and retrieval of a fixture. */
async function recorded(name: string) {
  return JSON.parse(await readFile(join(FIXTURES, name, 'retrieval.json'), 'utf8'));
}

async function retrieveLike(
  index: Awaited<ReturnType<typeof nodeRag.load>>,
  expected: { query: string; budgetTokens: number },
) {
  const r = await nodeRag.retrieve(index, expected.query, { budgetTokens: expected.budgetTokens });
  return { context: r.context, items: r.items.map((i) => ({ id: i.id, kind: i.kind, score: i.score })) };
}

/**
 * The index saved in `dir` (format 2) holds what the format-1 fixture in `before` holds: the same
 * graph, vector keys, chunks, build stats, kept data and base layer, and manifest (but its
 * creation time, format version, file list and storage bytes).
 */
async function expectSameContent(dir: string, before: string, ctx: BuildContext): Promise<void> {
  const [now, then] = await Promise.all([nodeRag.load(dir, ctx), nodeRag.load(before, ctx)]);
  // graphology names unkeyed edges by a per-process counter: compare edges without their keys.
  const graphOf = (index: typeof now) => {
    const { edges, ...rest } = index.graph.graph.export();
    return { ...rest, edges: edges.map(({ key: _k, ...edge }) => edge) };
  };
  expect(graphOf(now)).toEqual(graphOf(then));
  expect(now.vectorKeys).toEqual(then.vectorKeys);
  expect(now.chunks).toEqual(then.chunks);
  expect(now.stats).toEqual(then.stats);
  expect(now.kept).toEqual(then.kept);
  expect(now.baseLayer).toEqual(then.baseLayer);
  // biome-ignore lint/suspicious/noExplicitAny: the manifest's fields
  const manifest = async (at: string): Promise<Record<string, any>> => {
    const { stats, ...rest } = await manifestContent(at);
    const { storageBytes: _s, ...kept } = stats;
    return { ...rest, stats: kept };
  };
  // The fixtures predate presets and task contracts: their params name no preset (load reads them
  // as the offline preset) and they record no tasks (a build records the method's build tasks).
  const rebuilt = await manifest(dir);
  expect(rebuilt.params.preset).toBe('offline');
  delete rebuilt.params.preset;
  expect(rebuilt.tasks).toEqual(nodeRag.capabilities.tasks?.build);
  delete rebuilt.tasks;
  expect(rebuilt).toEqual(await manifest(before));
}

describe('NodeRAG indexes saved before the vector index came from the context', () => {
  const root = temporaryRoot('grag-noderag-vectors-');

  it('an HNSW index loads with hnswIndexFactory() and retrieves what it retrieved then', async () => {
    const expected = await recorded('v1-hnsw');
    const index = await nodeRag.load(join(FIXTURES, 'v1-hnsw', 'index'), hnswContext());
    expect(index.vectors).toBeInstanceOf(HnswIndex);
    expect(index.graph.stats().hnswEdges).toBeGreaterThan(0);
    expect(await retrieveLike(index, expected)).toEqual({ context: expected.context, items: expected.items });
  });

  it('a flat index loads with the flat factory and retrieves what it retrieved then', async () => {
    const expected = await recorded('v1-flat');
    const index = await nodeRag.load(join(FIXTURES, 'v1-flat', 'index'), flatContext());
    expect(index.vectors).toBeInstanceOf(FlatIndex);
    expect(index.baseLayer?.length).toBe(index.vectorKeys.length);
    expect(await retrieveLike(index, expected)).toEqual({ context: expected.context, items: expected.items });
  });

  it('an HNSW index loaded with the flat factory is refused, saying which factory to pass', async () => {
    const error = await nodeRag
      .load(join(FIXTURES, 'v1-hnsw', 'index'), flatContext())
      .catch((e: unknown) => e);
    expect(IndexFormatError.isInstance(error), String(error)).toBe(true);
    const message = (error as Error).message;
    expect(message).toContain("was built with vectorIndex 'hnsw' (now 'flat')");
    expect(message).toContain('vectorIndex: hnswIndexFactory()');
    expect(message).toContain('@grag/hnsw');
  });

  it('a build of the same documents saves what they hold and retrieves the same, on HNSW and on the flat index', async () => {
    for (const [name, ctx] of [
      ['v1-hnsw', hnswContext()],
      ['v1-flat', flatContext()],
    ] as const) {
      const expected = await recorded(name);
      // The fixtures were built with the defaults of their day: the offline preset now.
      const index = await nodeRag.build(DOCS, ctx, { chunking: 'document', preset: 'offline' });
      expect(await retrieveLike(index, expected)).toEqual({
        context: expected.context,
        items: expected.items,
      });
      const dir = join(root(), name);
      await nodeRag.save(index, dir);
      await expectSameContent(dir, join(FIXTURES, name, 'index'), ctx);
      expect(await retrieveLike(await nodeRag.load(dir, ctx), expected)).toEqual({
        context: expected.context,
        items: expected.items,
      });
    }
  });
});

describe("NodeRAG builds with the context's vector-index factory", () => {
  /** `factory` that records what each `create` was asked for. */
  function recording(factory: VectorIndexFactory, kind = factory.kind) {
    const created: VectorIndexOptions[] = [];
    return {
      created,
      factory: {
        kind,
        create: (o: VectorIndexOptions) => {
          created.push(o);
          return factory.create(o);
        },
        load: factory.load,
      },
    };
  }

  it("asks a graph factory for NodeRAG's HNSW settings and lays the base layer the index built", async () => {
    const { created, factory } = recording(hnswIndexFactory({ M: 8, efConstruction: 20 }));
    const index = await nodeRag.build(
      DOCS,
      { ...hnswContext(), vectorIndex: factory },
      {
        chunking: 'document',
        hnswM: 12,
      },
    );
    expect(created).toEqual([
      {
        dimensions: 32,
        metric: 'cosine',
        capacity: index.vectorKeys.length,
        M: 12,
        efConstruction: NODERAG_DEFAULTS.hnswEfConstruction,
        efSearch: NODERAG_DEFAULTS.hnswEfSearch,
        seed: NODERAG_DEFAULTS.seed,
      },
    ]);
    const hnsw = index.vectors as HnswIndex;
    expect([hnsw.M, hnsw.efConstruction]).toEqual([12, NODERAG_DEFAULTS.hnswEfConstruction]);
    // every level-0 link of the HNSW graph is a semantic edge, and there are no others
    const links = await hnsw.baseLayerGraph();
    const pairs = new Set<string>();
    for (const [id, out] of links)
      for (const other of out) pairs.add([index.vectorKeys[id], index.vectorKeys[other]].sort().join('|'));
    expect(index.graph.stats().hnswEdges).toBe(pairs.size);
    expect(index.baseLayer).toBeUndefined();
  });

  it('on an index that cannot give a base layer (any kind), lays the exact one and keeps it', async () => {
    const { created, factory } = recording(flatIndexFactory, 'exact-custom');
    const index = await nodeRag.build(
      DOCS,
      { ...hnswContext(), vectorIndex: factory },
      { chunking: 'document' },
    );
    expect(created).toHaveLength(1);
    expect(index.providers.vectorIndex.kind).toBe('exact-custom');
    const flat = await nodeRag.build(DOCS, flatContext(), { chunking: 'document' });
    expect(index.baseLayer).toEqual(flat.baseLayer);
    expect(index.graph.stats()).toEqual(flat.graph.stats());
  });
});
