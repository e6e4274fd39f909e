/**
 * Format 3 stores the graph as typed arrays, HNSW semantic edges included, and the HNSW index
 * without its vectors (they are the kept embeddings). An index saved in format 2
 * (`__fixtures__/v2-offline`: written by the format-2 code with small offline providers, an HNSW
 * index of M 8 and the offline preset, over a small invented encyclopedia, with what it retrieved
 * then) loads and retrieves exactly what it retrieved then; saved again (format 3 or later) and loaded, it
 * retrieves the same, holds the same graph and the same HNSW graph, and stores the vectors once.
 */
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HnswIndex } from '@grag/hnsw';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NodeRagIndex, nodeRag } from '../src/index.js';
import { fixtureContext, type Recorded, retrieveLike } from './recorded.js';

const FIXTURE = join(import.meta.dirname, '__fixtures__', 'v2-offline');

/** The graph's nodes and edges (graphology names unkeyed edges by a counter: left out). */
const graphOf = (index: NodeRagIndex) => {
  const { edges, ...rest } = index.graph.graph.export();
  return { ...rest, edges: edges.map(({ key: _k, ...edge }) => edge) };
};

describe('NodeRAG format 3', () => {
  let root: string;
  let recorded: Recorded[];
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'grag-noderag-format3-'));
    recorded = JSON.parse(await readFile(join(FIXTURE, 'retrieval.json'), 'utf8'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('loads a format-2 index and retrieves exactly what it retrieved then', async () => {
    expect(recorded.length).toBeGreaterThanOrEqual(8);
    const index = await nodeRag.load(join(FIXTURE, 'index'), fixtureContext());
    for (const r of recorded) expect(await retrieveLike(index, r)).toEqual(r);
  });

  it('saved again in format 3 or later, retrieves the same and holds the same graph and HNSW graph', async () => {
    const before = await nodeRag.load(join(FIXTURE, 'index'), fixtureContext());
    const dir = join(root, 'v3');
    await nodeRag.save(before, dir);
    const files = await readdir(dir);
    expect(files).toEqual(expect.arrayContaining(['graph.arrays', 'graph-text.json', 'hnsw-graph.bin']));
    expect(files).not.toContain('graph.json');
    expect(files).not.toContain('vectors.bin');
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
    expect(manifest.formatVersion).toBeGreaterThanOrEqual(3);
    // the vectors are stored once: the HNSW graph file is smaller than the vectors alone
    const vectorBytes = before.vectorKeys.length * 64 * 4;
    expect((await stat(join(dir, 'hnsw-graph.bin'))).size).toBeLessThan(vectorBytes);
    const after = await nodeRag.load(dir, fixtureContext());
    for (const r of recorded) expect(await retrieveLike(after, r)).toEqual(r);
    expect(after.graph.stats()).toEqual(before.graph.stats());
    expect(graphOf(after)).toEqual(graphOf(before));
    expect(after.vectorKeys).toEqual(before.vectorKeys);
    expect(after.kept).toEqual(before.kept);
    // hnswlib's bytes of the restored index are those of the format-2 one
    const saved = async (index: NodeRagIndex, name: string) => {
      const path = join(root, name);
      await (index.vectors as HnswIndex).save(path);
      return readFile(path);
    };
    expect(after.vectors).toBeInstanceOf(HnswIndex);
    expect(await saved(after, 'after.hnsw')).toEqual(await saved(before, 'before.hnsw'));
    // and saved once more, the same bytes
    const again = join(root, 'v3-again');
    await nodeRag.save(after, again);
    for (const file of [
      'graph.arrays',
      'graph-text.json',
      'hnsw-graph.bin',
      'chunks.json',
      'embeddings.rows',
    ]) {
      expect(await readFile(join(again, file)), file).toEqual(await readFile(join(dir, file)));
    }
  });

  it('a loaded index that is changed builds its graphology graph and keeps what was read', async () => {
    const index = await nodeRag.load(join(FIXTURE, 'index'), fixtureContext());
    const key = index.vectorKeys[0]!;
    const attrs = index.graph.node(key);
    const stats = index.graph.stats();
    index.graph.addNode('N:a new entity', 'N', { text: 'a new entity' });
    expect(index.graph.node(key)).toBe(attrs);
    expect(index.graph.stats().totalNodes).toBe(stats.totalNodes + 1);
    expect(index.graph.stats().totalEdges).toBe(stats.totalEdges);
  });
});
