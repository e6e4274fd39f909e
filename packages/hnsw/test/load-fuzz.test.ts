import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IndexFormatError } from '@grag/core';
import { formatIndexFuzzReport, fuzzIndexLoad, randomVectors } from '@grag/core/test';
import { HnswIndex } from '@grag/hnsw';
import { describe, expect, it } from 'vitest';

const DIMENSIONS = 8;

/** A saved index of 40 vectors, in `dir/vectors.bin`. */
async function savedIndex(dir: string): Promise<string> {
  const index = new HnswIndex({ dimensions: DIMENSIONS, M: 4, efConstruction: 20, seed: 3 });
  for (const [id, vector] of randomVectors(40, DIMENSIONS, 5).entries()) index.add(id, vector);
  await mkdir(dir, { recursive: true });
  const path = join(dir, 'vectors.bin');
  await index.save(path);
  return path;
}

/** Rewrite a saved file as an older version wrote it: no checksum in the JSON header. */
async function stripChecksum(path: string): Promise<void> {
  const bytes = await readFile(path);
  const jsonLength = bytes.readUInt32LE(12);
  const meta = JSON.parse(bytes.toString('utf8', 16, 16 + jsonLength));
  expect(typeof meta.sha256).toBe('string');
  delete meta.sha256;
  const json = Buffer.from(JSON.stringify(meta));
  const header = Buffer.from(bytes.subarray(0, 16));
  header.writeUInt32LE(json.length, 12);
  await writeFile(path, Buffer.concat([header, json, bytes.subarray(16 + jsonLength)]));
}

const query = randomVectors(1, DIMENSIONS, 9)[0]!;
const fuzz = (dir: string, seed: number) =>
  fuzzIndexLoad({
    dir,
    cases: 1000,
    seed,
    load: (d) => HnswIndex.load(join(d, 'vectors.bin')),
    use: async (index) => {
      index.search(query, 5);
      index.baseLayerGraph();
    },
  });

describe('HnswIndex.load on damaged files', () => {
  it('refuses a file whose hnswlib bytes do not match the checksum', async () => {
    const path = await savedIndex(await mkdtemp(join(tmpdir(), 'grag-hnsw-sum-')));
    const bytes = await readFile(path);
    bytes[bytes.length - 3]! ^= 0x40;
    await writeFile(path, bytes);
    const error = await HnswIndex.load(path).catch((e: unknown) => e);
    expect(IndexFormatError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(path);
    expect((error as Error).message).toMatch(/checksum.*rebuild the index\.$/);
  });

  it('loads an older file without a checksum after checking its layout', async () => {
    const path = await savedIndex(await mkdtemp(join(tmpdir(), 'grag-hnsw-old-')));
    await stripChecksum(path);
    const index = await HnswIndex.load(path);
    expect(index.size).toBe(40);
    const bytes = await readFile(path);
    // The first level-0 link of element 0 (after the grag header, its JSON, hnswlib's 96-byte header
    // and the element's u32 link count) now names an element that does not exist.
    const firstLink = 16 + bytes.readUInt32LE(12) + 96 + 4;
    bytes.writeUInt32LE(0xffff_fff0, firstLink);
    await writeFile(path, bytes);
    const error = await HnswIndex.load(path).catch((e: unknown) => e);
    expect(IndexFormatError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(path);
    expect((error as Error).message).toMatch(/internal id 4294967280.*rebuild the index\.$/);
  });

  it('fuzz: a damaged file is refused with a GragError, never a crash', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'grag-hnsw-fuzz-'));
    await savedIndex(dir);
    const report = await fuzz(dir, 31);
    console.log(`hnsw: ${formatIndexFuzzReport(report)}`);
    expect(report.failures, formatIndexFuzzReport(report)).toEqual([]);
  }, 120_000);

  it('fuzz: a damaged file of an older version (no checksum) is refused by the layout check', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'grag-hnsw-fuzz-old-'));
    await stripChecksum(await savedIndex(dir));
    const report = await fuzz(dir, 32);
    console.log(`hnsw (no checksum): ${formatIndexFuzzReport(report)}`);
    expect(report.failures, formatIndexFuzzReport(report)).toEqual([]);
  }, 120_000);
});
