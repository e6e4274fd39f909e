/**
 * NodeRAG on the exact flat index (core's default vector index, or the CLI's fallback without
 * hnswlib-node's native addon, `GRAG_DISABLE_NATIVE=1`): it builds, saves, loads, retrieves and
 * updates with it, its semantic edges being the base layer HNSW's insertion rule makes over exact
 * neighbours; a context that asks for HNSW without the addon gets `HnswUnavailableError`.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BuildContext } from '@grag/core';
import { decompressed, FlatIndex, flatIndexFactory } from '@grag/core/kit';
import { HnswIndex, HnswUnavailableError, hnswIndexFactory } from '@grag/hnsw';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { exactBaseLayer } from '../src/hnsw.js';
import { nodeRag } from '../src/index.js';
import { DOCS, scriptedContext } from './fixtures.js';

/** Deterministic pseudo-random unit-ish vectors. */
function randomVectors(n: number, d: number, seed: number): Float32Array[] {
  let state = seed >>> 0;
  const next = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32 - 0.5;
  };
  return Array.from({ length: n }, () => Float32Array.from({ length: d }, next));
}

const sorted = (layer: Map<number, number[]>) =>
  [...layer.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([id, links]) => [id, [...links].sort((a, b) => a - b)]);

describe('exactBaseLayer', () => {
  it('links points on an arc only to their neighbours on it (the heuristic drops the ones behind)', () => {
    const arc = Array.from({ length: 9 }, (_, i) => [
      Math.cos((i * Math.PI) / 18),
      Math.sin((i * Math.PI) / 18),
    ]);
    const layer = exactBaseLayer(arc, { M: 2, efConstruction: 200 });
    // node 1 has one earlier candidate (fewer than M: kept); later ones keep only the previous point
    expect(sorted(layer)).toEqual([
      [0, [1]],
      [1, [0, 2]],
      [2, [1, 3]],
      [3, [2, 4]],
      [4, [3, 5]],
      [5, [4, 6]],
      [6, [5, 7]],
      [7, [6, 8]],
      [8, [7]],
    ]);
  });

  it('is the level-0 graph hnswlib builds when its searches are exact (efConstruction >= n)', async () => {
    const vectors = randomVectors(300, 12, 7);
    const hnsw = new HnswIndex({
      dimensions: 12,
      metric: 'cosine',
      M: 5,
      efConstruction: 400,
      capacity: 300,
    });
    vectors.forEach((vector, id) => {
      hnsw.add(id, vector);
    });
    const native = await hnsw.baseLayerGraph();
    const exact = exactBaseLayer(vectors, { M: 5, efConstruction: 400 });
    expect(sorted(exact)).toEqual(sorted(native));
    for (const links of exact.values()) expect(links.length).toBeLessThanOrEqual(10);
  });
});

describe('NodeRAG on the flat index, with and without the HNSW addon (GRAG_DISABLE_NATIVE=1)', () => {
  const disabled = process.env.GRAG_DISABLE_NATIVE;
  let root: string;
  const flatContext = (): BuildContext => ({ ...scriptedContext().ctx, vectorIndex: flatIndexFactory });
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'grag-noderag-flat-'));
  });
  afterEach(() => {
    if (disabled === undefined) delete process.env.GRAG_DISABLE_NATIVE;
    else process.env.GRAG_DISABLE_NATIVE = disabled;
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('builds, saves, loads, retrieves and updates with the exact flat index and its semantic edges', async () => {
    const withHnsw = await nodeRag.build(DOCS, scriptedContext().ctx, { chunking: 'document' });
    expect(withHnsw.vectors).toBeInstanceOf(HnswIndex);
    process.env.GRAG_DISABLE_NATIVE = '1';
    const index = await nodeRag.build(DOCS, flatContext(), { chunking: 'document' });
    expect(index.vectors).toBeInstanceOf(FlatIndex);
    expect(index.providers.vectorIndex.kind).toBe('flat');
    expect(index.stats.hnsw.added).toBeGreaterThan(0);
    // the same nodes and structural edges as with HNSW; the semantic edges are laid by the same rule
    expect(index.vectorKeys).toEqual(withHnsw.vectorKeys);
    expect(index.graph.stats().nodes).toEqual(withHnsw.graph.stats().nodes);

    const dir = join(root, 'idx');
    await nodeRag.save(index, dir);
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
    expect(manifest.providers.vectorIndex).toBe('flat');
    // the links of the semantic edges are saved (a flat index cannot give them back) and laid again
    const saved = JSON.parse(
      new TextDecoder().decode(
        decompressed(new Uint8Array(await readFile(join(dir, 'base-layer.json'))), 'base-layer.json'),
      ),
    );
    expect(saved.links).toEqual(index.baseLayer);
    expect(index.baseLayer).toHaveLength(index.vectorKeys.length);
    const loaded = await nodeRag.load(dir, flatContext());
    expect(loaded.vectors).toBeInstanceOf(FlatIndex);
    expect(loaded.baseLayer).toEqual(index.baseLayer);
    expect(loaded.graph.stats()).toEqual(index.graph.stats());

    const retrieval = await nodeRag.retrieve(loaded, 'Who founded the Kessler Shipyard?');
    expect(retrieval.items.length).toBeGreaterThan(0);
    expect(retrieval.items.map((item) => item.text).join('\n')).toContain('Kessler');

    const updated = await nodeRag.update(loaded, { remove: ['orsa'] }, flatContext());
    expect(updated.index.vectors).toBeInstanceOf(FlatIndex);
    expect(updated.index.providers.vectorIndex.kind).toBe('flat');

    // the flat index loads (and queries) even where HNSW is available again
    delete process.env.GRAG_DISABLE_NATIVE;
    const again = await nodeRag.load(dir, flatContext());
    expect(again.vectors).toBeInstanceOf(FlatIndex);
    expect(again.graph.stats()).toEqual(index.graph.stats());
    // and a build on the flat index where HNSW is available is the same index
    const available = await nodeRag.build(DOCS, flatContext(), { chunking: 'document' });
    expect(available.vectors).toBeInstanceOf(FlatIndex);
    expect(available.baseLayer).toEqual(index.baseLayer);
  });

  it('still fails with HnswUnavailableError when the context asks for HNSW', async () => {
    process.env.GRAG_DISABLE_NATIVE = '1';
    const ctx = { ...scriptedContext().ctx, vectorIndex: hnswIndexFactory() };
    const error = await nodeRag.build(DOCS, ctx, { chunking: 'document' }).catch((e: unknown) => e);
    expect(HnswUnavailableError.isInstance(error), String(error)).toBe(true);
  });
});
