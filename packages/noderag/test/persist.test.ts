import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BuildContext, IndexFormatError } from '@grag/core';
import { decodeArrays, encodeArrays } from '@grag/core/kit';
import { editedIndexCopy } from '@grag/core/test';
import { HnswIndex } from '@grag/hnsw';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NodeRagIndex, nodeRag } from '../src/index.js';
import { DOCS, scriptedContext } from './fixtures.js';

/** A context whose vector index is HNSW (`hnswIndexFactory()`), as NodeRAG's paper builds it. */
const hnswContext = (): BuildContext => scriptedContext().ctx;

describe('noderag index directory', () => {
  let root: string;
  let index: NodeRagIndex;
  let saved: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'grag-noderag-persist-'));
    index = await nodeRag.build(DOCS, hnswContext(), { chunking: 'document' });
    saved = join(root, 'idx');
    await nodeRag.save(index, saved);
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  /** A copy of the saved index with `file` (JSON) edited by `edit`. */
  // biome-ignore lint/suspicious/noExplicitAny: edits reach into JSON of a known layout
  const edited = (name: string, file: string, edit: (json: any) => void) =>
    editedIndexCopy(saved, join(root, name), file, edit);
  const loadError = async (dir: string) => nodeRag.load(dir, scriptedContext().ctx).catch((e: unknown) => e);

  it('records the graph statistics, the storage size and the HNSW vector index in the manifest', async () => {
    const manifest = JSON.parse(await readFile(join(saved, 'manifest.json'), 'utf8'));
    expect(manifest.method).toBe('noderag');
    expect(manifest.stats.nodes).toEqual(index.graph.stats().nodes);
    expect(manifest.stats.storageBytes).toBeGreaterThan(0);
    // The manifest names the vector index of the context, which made vectors.bin.
    expect(manifest.providers.vectorIndex).toBe('hnsw');
    expect(index.providers.vectorIndex.kind).toBe('hnsw');
    expect(manifest.params).not.toHaveProperty('graphSearch');
  });

  it('lays the HNSW semantic edges again on load', async () => {
    const loaded = await nodeRag.load(saved, hnswContext());
    expect(loaded.graph.stats()).toEqual(index.graph.stats());
    expect(loaded.graph.stats().hnswEdges).toBeGreaterThan(0);
    expect(loaded.vectors).toBeInstanceOf(HnswIndex);
    expect((loaded.vectors as HnswIndex).efSearch).toBe(index.options.hnswEfSearch);
  });

  it('refuses vector keys that name no node of the graph, or repeat one', async () => {
    const missing = await edited('missing-key', 'chunks.json', (json) => {
      (json.vectorKeys as string[])[0] = 'T:nowhere';
    });
    const e1 = await loadError(missing);
    expect(IndexFormatError.isInstance(e1), String(e1)).toBe(true);
    expect((e1 as Error).message).toContain('vectorKeys[0] is "T:nowhere", not a node of graph.json');
    const repeated = await edited('repeated-key', 'chunks.json', (json) => {
      const keys = json.vectorKeys as string[];
      keys[1] = keys[0]!;
    });
    const e2 = await loadError(repeated);
    expect(IndexFormatError.isInstance(e2), String(e2)).toBe(true);
    expect((e2 as Error).message).toMatch(
      /chunks\.json: vectorKeys\[1\] repeats the key .*rebuild the index\.$/,
    );
  });

  it('refuses a graph that repeats a node or has an edge that does not join two of its nodes', async () => {
    const repeated = await edited('repeated-node', 'graph-text.json', (json) => {
      const keys = json.keys as string[];
      keys[1] = keys[0]!;
    });
    const e1 = await loadError(repeated);
    expect(IndexFormatError.isInstance(e1), String(e1)).toBe(true);
    expect((e1 as Error).message).toMatch(/graph\.arrays: the key .* repeats; rebuild the index\.$/);
    const dangling = join(root, 'dangling-edge');
    await cp(saved, dangling, { recursive: true });
    const arrays = decodeArrays(
      new Uint8Array(await readFile(join(dangling, 'graph.arrays'))),
      'graph.arrays',
    );
    (arrays.get('edgeB') as Uint32Array)[0] = 10_000;
    await writeFile(join(dangling, 'graph.arrays'), encodeArrays(Object.fromEntries(arrays)));
    const e2 = await loadError(dangling);
    expect(IndexFormatError.isInstance(e2), String(e2)).toBe(true);
    expect((e2 as Error).message).toMatch(/graph\.arrays: edge 0 joins nodes \d+ and 10000/);
  });

  it('refuses an index that kept retrieval settings as defaults, saying to give them to retrieve', async () => {
    // What noderag wrote when retrieval settings were build options too (`--set graphSearch=false`).
    const older = await edited('retrieval-defaults', 'manifest.json', (json) => {
      (json.params as Record<string, unknown>).graphSearch = false;
    });
    const error = await loadError(older);
    expect(IndexFormatError.isInstance(error), String(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /"graphSearch" as a default.*retrieve options.*rebuild the index\.$/,
    );
  });
});
