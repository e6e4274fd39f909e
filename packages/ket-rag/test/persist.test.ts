import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IndexFormatError } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { createScriptedEmbedder, editedIndexCopy } from '@grag/core/test';
import { createOfflineTasks } from '@grag/offline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKetRag } from '../src/index.js';
import { CORPUS } from './corpus.js';

const context = () =>
  createBuildContext({ embedder: createScriptedEmbedder({ dimensions: 16 }), tasks: createOfflineTasks() });
const method = createKetRag();

/** The checks across the parts of an index, beyond each file's shape (which the contract suite covers). */
describe('ket-rag index loading: cross-file checks', () => {
  let root: string;
  let saved: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'ket-rag-persist-'));
    saved = join(root, 'index');
    await method.save(
      await method.build(CORPUS, context(), { chunking: 'document', subChunkSize: 16 }),
      saved,
    );
  });
  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  /** Load a copy whose JSON `file` was changed by `edit`; the error it is refused with. */
  async function refusal(name: string, file: string, edit: (json: Record<string, unknown[]>) => void) {
    const dir = await editedIndexCopy(saved, join(root, name), file, edit);
    const error = await method.load(dir, context()).catch((e: unknown) => e);
    expect(IndexFormatError.isInstance(error), String(error)).toBe(true);
    expect((error as Error).message).toContain(join(dir, file));
    return (error as Error).message;
  }

  it('refuses core chunks and KNN edges that name no chunk', async () => {
    expect(await refusal('core', 'units.json', (u) => u.core!.splice(0, 1, 'nowhere'))).toContain('core[0]');
    const knn = await refusal('knn', 'units.json', (u) => {
      const graph = u.knn as unknown as { edges: { source: number }[] };
      graph.edges[0]!.source = 99;
    });
    expect(knn).toContain('knn.edges[0]');
  });

  it('refuses texts that do not match their chunks', async () => {
    expect(await refusal('texts', 'units.json', (u) => u.subChunkTexts!.pop())).toContain('subChunkTexts');
  });

  it('refuses entities and keywords that name sub-chunks the index does not have', async () => {
    const entity = await refusal('entity-unit', 'skeleton.json', (s) => {
      (s.entities![0] as { textUnitIds: string[] }).textUnitIds.push('nowhere/0');
    });
    expect(entity).toMatch(/entities\[0\]\.textUnitIds\[\d+\]/);
    const keyword = await refusal('keyword-unit', 'keywords.json', (k) => {
      (k.keywordUnits![0] as number[]).push(10_000);
    });
    expect(keyword).toMatch(/keywordUnits\[0\]/);
  });

  it('refuses vectors of other dimensions than the embedder', async () => {
    const message = await refusal('dimensions', 'units.json', (u) => {
      (u as Record<string, unknown>).dimensions = 8;
    });
    expect(message).toContain('dimensions is 8, but the embedder has 16');
  });
});
