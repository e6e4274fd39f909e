/**
 * A graph exported without its vectors and restored from the vectors the caller kept is the index
 * that was exported: hnswlib's bytes are the same, byte for byte (the cosine normalization is
 * recomputed exactly), so it searches alike.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { IndexFormatError, type Metric } from '@grag/core';
import { randomVectors } from '@grag/core/test';
import { temporaryRoot } from '@grag/core/test/vitest';
import { HnswIndex, hnswIndexFactory } from '@grag/hnsw';
import { describe, expect, it } from 'vitest';

/** hnswlib's own bytes of `index` (what `save` writes after its header). */
async function nativeBytes(index: HnswIndex, dir: string, name: string): Promise<Buffer> {
  const path = join(dir, name);
  await index.save(path);
  const bytes = await readFile(path);
  return bytes.subarray(16 + bytes.readUInt32LE(12));
}

describe('HnswIndex.exportGraph / fromGraph', () => {
  const dir = temporaryRoot('grag-hnsw-graph-');

  for (const metric of ['cosine', 'ip', 'l2'] as Metric[]) {
    it(`restores the same hnswlib bytes and the same hits (${metric})`, async () => {
      // unnormalized vectors of mixed scales, so the cosine normalization is exercised
      const vectors = randomVectors(600, 24, 7).map((v, i) => v.map((x) => x * (1 + (i % 5) * 3.7)));
      const index = new HnswIndex({ dimensions: 24, metric, M: 6, efConstruction: 40, seed: 3 });
      vectors.forEach((v, i) => {
        index.add(i, v);
      });
      const graph = await index.exportGraph();
      // the export holds links and labels, not the 600 × 24 float32 components
      expect(graph.byteLength).toBeLessThan(
        (await nativeBytes(index, dir(), `${metric}-a`)).byteLength - 600 * 96 + 1024,
      );
      const restored = await HnswIndex.fromGraph(graph, vectors);
      expect(await nativeBytes(restored, dir(), `${metric}-b`)).toEqual(
        await nativeBytes(index, dir(), `${metric}-a`),
      );
      expect([restored.M, restored.efConstruction, restored.seed, restored.metric, restored.size]).toEqual([
        6,
        40,
        3,
        metric,
        600,
      ]);
      for (const q of randomVectors(20, 24, 11)) expect(restored.search(q, 5)).toEqual(index.search(q, 5));
    });
  }

  it('restores vectors with zero and tiny norms as hnswlib stored them', async () => {
    const vectors: Float32Array[] = [
      new Float32Array(8),
      Float32Array.from({ length: 8 }, (_, j) => (j + 1) * 1e-20),
    ];
    vectors.push(...randomVectors(30, 8, 5));
    const index = new HnswIndex({ dimensions: 8, metric: 'cosine', M: 4 });
    vectors.forEach((v, i) => {
      index.add(i, v);
    });
    const restored = await HnswIndex.fromGraph(await index.exportGraph(), vectors);
    expect(await nativeBytes(restored, dir(), 'tiny-b')).toEqual(await nativeBytes(index, dir(), 'tiny-a'));
  });

  it('restores sparse float32 rows (views of one buffer, with −0 components) as hnswlib stored them', async () => {
    const all = new Float32Array(40 * 32);
    const rows = Array.from({ length: 40 }, (_, i) => all.subarray(i * 32, (i + 1) * 32));
    const dense = randomVectors(40, 32, 9);
    rows.forEach((row, i) => {
      for (let j = 0; j < 32; j++) if ((i + j) % 5 === 0) row[j] = dense[i]![j]! * 3;
      row[(i + 1) % 32] = -0;
    });
    const index = new HnswIndex({ dimensions: 32, metric: 'cosine', M: 4 });
    rows.forEach((v, i) => {
      index.add(i, v);
    });
    const restored = await HnswIndex.fromGraph(await index.exportGraph(), rows);
    expect(await nativeBytes(restored, dir(), 'sparse-b')).toEqual(
      await nativeBytes(index, dir(), 'sparse-a'),
    );
  });

  it('restores dense, sparse, zero and tiny float32 rows mixed, in any count, as hnswlib stored them', async () => {
    // Dense rows are normalized four at a time, sparse ones alone: 43 rows leave a group of three,
    // and the sparse and zero rows between dense ones split the groups unevenly.
    const d = 40;
    const all = new Float32Array(43 * d);
    const rows = Array.from({ length: 43 }, (_, i) => all.subarray(i * d, (i + 1) * d));
    const values = randomVectors(43, d, 21);
    rows.forEach((row, i) => {
      // Kinds 0 to 2: sparse, zero, a tiny norm; the rest dense, with −0 components.
      const kind = i % 7;
      for (let j = 0; j < d; j++) {
        const x = values[i]![j]! * (1 + (i % 3) * 50);
        row[j] = [(i + j) % 9 === 0 ? x : 0, 0, x * 1e-22][kind] ?? (j % 11 === 0 ? -0 : x);
      }
    });
    const index = new HnswIndex({ dimensions: d, metric: 'cosine', M: 4 });
    rows.forEach((v, i) => {
      index.add(i, v);
    });
    const restored = await HnswIndex.fromGraph(await index.exportGraph(), rows);
    expect(await nativeBytes(restored, dir(), 'mixed-b')).toEqual(await nativeBytes(index, dir(), 'mixed-a'));
  });

  it('the factory restores with its efSearch', async () => {
    const vectors = randomVectors(50, 8, 2);
    const index = new HnswIndex({ dimensions: 8 });
    vectors.forEach((v, i) => {
      index.add(i, v);
    });
    const restored = await hnswIndexFactory({ efSearch: 99 }).fromGraph(await index.exportGraph(), vectors);
    expect(restored.efSearch).toBe(99);
  });

  it('refuses a corrupted export, a saved index, and vectors that do not fit, with IndexFormatError', async () => {
    const vectors = randomVectors(40, 8, 9);
    const index = new HnswIndex({ dimensions: 8 });
    vectors.forEach((v, i) => {
      index.add(i, v);
    });
    const graph = await index.exportGraph();
    const corrupt = Uint8Array.from(graph);
    corrupt[corrupt.length - 10]! ^= 0xff;
    const saved = join(dir(), 'saved.hnsw');
    await index.save(saved);
    for (const [bytes, given, message] of [
      [corrupt, vectors, 'checksum'],
      [await readFile(saved), vectors, 'wrong magic bytes'],
      [graph, vectors.slice(0, 20), 'has no vector'],
      [graph, randomVectors(40, 6, 1), 'dimensions'],
    ] as const) {
      const error = await HnswIndex.fromGraph(bytes, given, 'the-graph').catch((e: unknown) => e);
      expect(IndexFormatError.isInstance(error), String(error)).toBe(true);
      expect((error as Error).message).toContain(message);
      expect((error as Error).message).toContain('the-graph');
    }
  });
});
