import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { IndexFormatError, InvalidArgumentError, type Metric } from '@grag/core';
import { FlatIndex } from '@grag/core/kit';
import { randomVectors } from '@grag/core/test';
import { runVectorIndexSpec, temporaryRoot } from '@grag/core/test/vitest';
import { HNSW_DEFAULTS, HnswIndex, hnswIndexFactory, readNativeBaseLayer } from '@grag/hnsw';
import { describe, expect, it } from 'vitest';

runVectorIndexSpec('HnswIndex', hnswIndexFactory(), { exact: false, minRecall: 0.95 });

function build(
  metric: Metric,
  vectors: Float32Array[],
  options: Partial<ConstructorParameters<typeof HnswIndex>[0]> = {},
) {
  const d = vectors[0]?.length ?? 1;
  const hnsw = new HnswIndex({ dimensions: d, metric, capacity: vectors.length, ...options });
  const flat = new FlatIndex({ dimensions: d, metric, capacity: vectors.length });
  vectors.forEach((v, i) => {
    hnsw.add(i, v);
    flat.add(i, v);
  });
  return { hnsw, flat };
}

function recallAt(
  k: number,
  truth: FlatIndex,
  queries: Float32Array[],
  search: (q: Float32Array) => number[],
) {
  let found = 0;
  let total = 0;
  for (const q of queries) {
    const expected = new Set(truth.search(q, k).map((h) => h.id));
    for (const id of search(q)) if (expected.has(id)) found++;
    total += expected.size;
  }
  return found / total;
}

describe('HnswIndex', () => {
  const dir = temporaryRoot('grag-hnsw-test-');

  it('does what the README example says', async () => {
    const index = new HnswIndex({ dimensions: 3, metric: 'cosine' });
    index.add(0, [1, 0, 0]);
    index.add(1, [0.9, 0.1, 0]);
    index.add(2, [0, 0, 1]);
    const hits = index.search([1, 0.05, 0], 2);
    expect(hits.map((h) => h.id)).toEqual([0, 1]);
    expect(hits[0]?.score).toBeCloseTo(1 / Math.sqrt(1.0025), 5);
    expect(hits[1]?.score).toBeCloseTo(0.905 / Math.sqrt(1.0025 * 0.82), 5);
    expect(index.search([1, 0.05, 0], 2, { filter: (id) => id !== 0, ef: 128 }).map((h) => h.id)).toEqual([
      1, 2,
    ]);
    const path = join(dir(), 'vectors.hnsw');
    await index.save(path);
    const again = await HnswIndex.load(path);
    expect(again.search([1, 0.05, 0], 2)).toEqual(hits);
    const other = hnswIndexFactory({ M: 50, efSearch: 128 }).create({
      dimensions: 768,
      metric: 'ip',
    }) as HnswIndex;
    expect([other.M, other.efSearch, other.dimensions, other.metric]).toEqual([50, 128, 768, 'ip']);
  });

  it('reaches recall@10 of at least 0.95 against the flat index on 10,000 seeded random vectors', () => {
    // 32 uniform dimensions are hard for a graph index; efSearch 128 measured at 0.995 here.
    const { hnsw, flat } = build('cosine', randomVectors(10_000, 32, 1), { efSearch: 128 });
    const queries = randomVectors(200, 32, 2);
    const recall = recallAt(10, flat, queries, (q) => hnsw.search(q, 10).map((h) => h.id));
    expect(recall).toBeGreaterThanOrEqual(0.95);
  });

  it('searches wider when given a larger ef', () => {
    const { hnsw, flat } = build('l2', randomVectors(3000, 24, 3), { efSearch: 10, M: 4 });
    const queries = randomVectors(100, 24, 4);
    const narrow = recallAt(10, flat, queries, (q) => hnsw.search(q, 10).map((h) => h.id));
    const wide = recallAt(10, flat, queries, (q) => hnsw.search(q, 10, { ef: 400 }).map((h) => h.id));
    expect(wide).toBeGreaterThan(narrow);
    expect(wide).toBeGreaterThanOrEqual(0.98);
  });

  it('returns only filtered ids, up to k of them, under a selective filter', () => {
    const { hnsw, flat } = build('l2', randomVectors(2000, 16, 5));
    const filter = (id: number) => id % 10 === 0;
    const queries = randomVectors(50, 16, 6);
    for (const q of queries) {
      const hits = hnsw.search(q, 10, { filter });
      expect(hits).toHaveLength(10);
      expect(hits.every((h) => filter(h.id))).toBe(true);
    }
    let found = 0;
    for (const q of queries) {
      const expected = new Set(flat.search(q, 10, { filter }).map((h) => h.id));
      for (const h of hnsw.search(q, 10, { filter })) if (expected.has(h.id)) found++;
    }
    expect(found / (10 * queries.length)).toBeGreaterThanOrEqual(0.95);
  });

  it('grows beyond its capacity and still finds every vector', () => {
    const vectors = randomVectors(500, 8, 7);
    const index = new HnswIndex({ dimensions: 8, metric: 'l2', capacity: 10 });
    expect(index.capacity).toBe(10);
    for (const [i, v] of vectors.entries()) index.add(i * 2, v);
    expect(index.size).toBe(500);
    expect(index.capacity).toBeGreaterThanOrEqual(500);
    let selfFound = 0;
    vectors.forEach((v, i) => {
      if (index.search(v, 1)[0]?.id === i * 2) selfFound++;
    });
    expect(selfFound).toBeGreaterThanOrEqual(495);
  });

  it('does not grow when an existing id is replaced', () => {
    const index = new HnswIndex({ dimensions: 2, metric: 'l2', capacity: 2 });
    index.add(1, [0, 0]);
    index.add(2, [1, 1]);
    index.add(2, [5, 5]);
    expect(index.capacity).toBe(2);
    expect(index.search([5, 5], 1)).toEqual([{ id: 2, score: -0 }]);
  });

  it('keeps its settings across save and load, and the factory applies its efSearch on load', async () => {
    const index = new HnswIndex({
      dimensions: 4,
      metric: 'ip',
      M: 8,
      efConstruction: 50,
      efSearch: 33,
      seed: 7,
    });
    index.add(3, [1, 2, 3, 4]);
    const path = join(dir(), 'settings.idx');
    await index.save(path);
    const loaded = await HnswIndex.load(path);
    expect([
      loaded.metric,
      loaded.dimensions,
      loaded.M,
      loaded.efConstruction,
      loaded.efSearch,
      loaded.seed,
    ]).toEqual(['ip', 4, 8, 50, 33, 7]);
    const viaFactory = (await hnswIndexFactory({ efSearch: 99 }).load(path)) as HnswIndex;
    expect(viaFactory.efSearch).toBe(99);
    const bytes = await readFile(path);
    expect(bytes.toString('latin1', 0, 8)).toBe('GRAGHNSW');
  });

  it('rejects a saved file of another format version with IndexFormatError naming the version', async () => {
    const index = new HnswIndex({ dimensions: 2 });
    index.add(0, [1, 0]);
    const path = join(dir(), 'version.idx');
    await index.save(path);
    const bytes = await readFile(path);
    bytes.writeUInt32LE(2, 8);
    await writeFile(path, bytes);
    const error = await HnswIndex.load(path).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(IndexFormatError.isInstance(error) && error.version === 2).toBe(true);
  });

  it('uses the documented defaults and the factory settings', () => {
    expect(HNSW_DEFAULTS).toEqual({
      metric: 'cosine',
      capacity: 1024,
      M: 16,
      efConstruction: 200,
      efSearch: 64,
      seed: 100,
    });
    const index = hnswIndexFactory({ M: 50, metric: 'l2' }).create({ dimensions: 3 }) as HnswIndex;
    expect([index.M, index.efConstruction, index.efSearch, index.metric, index.capacity]).toEqual([
      50,
      200,
      64,
      'l2',
      1024,
    ]);
    expect(() => new HnswIndex({ dimensions: 3, M: 0 })).toThrow(InvalidArgumentError);
    expect(() => new HnswIndex({ dimensions: 3 }).add(2 ** 32, [0, 0, 0])).toThrow(InvalidArgumentError);
  });

  describe('base layer', () => {
    it('reads the level-0 graph hnswlib builds for three points on a line', async () => {
      const line = async (M: number) => {
        const index = new HnswIndex({ dimensions: 2, metric: 'l2', M });
        index.add(10, [0, 0]);
        index.add(11, [1, 0]);
        index.add(12, [2, 0]);
        const graph = await index.baseLayerGraph();
        return Object.fromEntries([...graph].map(([id, links]) => [id, [...links].sort()]));
      };
      // Fewer candidates than M: hnswlib keeps them all, so every point links to both others.
      expect(await line(16)).toEqual({ 10: [11, 12], 11: [10, 12], 12: [10, 11] });
      // M = 2: the neighbour heuristic (Malkov & Yashunin, Alg. 4) on 0 —— 1 —— 2 lets point 2 keep 1
      // and drop 0 (0 is closer to 1 than to 2); 1 gains the reverse link to 2.
      expect(await line(2)).toEqual({ 10: [11], 11: [10, 12], 12: [11] });
    });

    it('gives every node at most 2·M distinct links to other nodes, nearly always including its nearest neighbour', async () => {
      const M = 6;
      const vectors = randomVectors(1500, 12, 8);
      const { hnsw, flat } = build('l2', vectors, { M });
      const graph = await hnsw.baseLayerGraph();
      expect([...graph.keys()].sort((a, b) => a - b)).toEqual(vectors.map((_, i) => i));
      let withNearest = 0;
      for (const [id, links] of graph) {
        expect(links.length).toBeLessThanOrEqual(2 * M);
        expect(links.length).toBeGreaterThan(0);
        expect(new Set(links).size).toBe(links.length);
        expect(links).not.toContain(id);
        expect(links.every((n) => hnsw.has(n))).toBe(true);
        const nearest = flat.search(vectors[id] as Float32Array, 2, { filter: (n) => n !== id })[0]?.id;
        if (nearest !== undefined && links.includes(nearest)) withNearest++;
      }
      expect(withNearest / graph.size).toBeGreaterThanOrEqual(0.95);
    });

    it('parses the same graph the file format stores, vector data included', async () => {
      const vectors = randomVectors(50, 3, 9);
      const { hnsw } = build('l2', vectors);
      const path = join(dir(), 'layer.idx');
      await hnsw.save(path);
      const bytes = await readFile(path);
      const native = bytes.subarray(16 + bytes.readUInt32LE(12));
      const layer = readNativeBaseLayer(native);
      expect(layer.count).toBe(50);
      expect(layer.M).toBe(HNSW_DEFAULTS.M);
      expect(layer.maxM0).toBe(2 * HNSW_DEFAULTS.M);
      expect(layer.dimensions).toBe(3);
      expect([...layer.labels].sort((a, b) => a - b)).toEqual(vectors.map((_, i) => i));
      // Each record holds its vector after the link block and its label at the end: decode both
      // from the header's offsets and compare with what was added.
      const recordBytes = Number(native.readBigUInt64LE(24));
      const labelOffset = Number(native.readBigUInt64LE(32));
      const dataOffset = Number(native.readBigUInt64LE(40));
      for (let i = 0; i < 50; i++) {
        const record = 96 + i * recordBytes;
        const label = Number(native.readBigUInt64LE(record + labelOffset));
        expect(label).toBe(layer.labels[i]);
        const stored = [0, 1, 2].map((j) => native.readFloatLE(record + dataOffset + 4 * j));
        expect(stored).toEqual(Array.from(vectors[label] as Float32Array));
      }
    });

    it('lists the M nearest other ids of every node, matching the exact top-M for most nodes', () => {
      const M = 8;
      const vectors = randomVectors(1000, 16, 10);
      const { hnsw, flat } = build('cosine', vectors);
      const lists = hnsw.baseLayerNeighbors(M);
      expect(lists.size).toBe(1000);
      let exact = 0;
      for (const [id, list] of lists) {
        expect(list.length).toBeLessThanOrEqual(M);
        expect(list).not.toContain(id);
        const truth = flat
          .search(vectors[id] as Float32Array, M, { filter: (n) => n !== id })
          .map((h) => h.id);
        if (truth.every((n) => list.includes(n))) exact++;
      }
      expect(exact / lists.size).toBeGreaterThanOrEqual(0.9);
    });
  });
});
