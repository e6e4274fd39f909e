import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { IndexFormatError } from '@grag/core';
import { createBuildContext, decodeArrays, encodeArrays, type StoredArray } from '@grag/core/kit';
import { createScriptedEmbedder, editedIndexCopy } from '@grag/core/test';
import { temporaryRoot } from '@grag/core/test/vitest';
import { createOfflineTasks } from '@grag/offline';
import { beforeAll, describe, expect, it } from 'vitest';
import { createKetRag } from '../src/index.js';
import { CORPUS } from './corpus.js';

const context = () =>
  createBuildContext({ embedder: createScriptedEmbedder({ dimensions: 16 }), tasks: createOfflineTasks() });
const method = createKetRag();

/** The checks across the parts of an index, beyond each file's shape (which the contract suite covers). */
describe('ket-rag index loading: cross-file checks', () => {
  const root = temporaryRoot('ket-rag-persist-');
  let saved: string;
  beforeAll(async () => {
    saved = join(root(), 'index');
    await method.save(
      await method.build(CORPUS, context(), { chunking: 'document', subChunkSize: 16 }),
      saved,
    );
  });

  /** Load a copy whose JSON `file` was changed by `edit`; the error it is refused with. */
  async function refusal(name: string, file: string, edit: (json: Record<string, unknown[]>) => void) {
    const dir = await editedIndexCopy(saved, join(root(), name), file, edit);
    const error = await method.load(dir, context()).catch((e: unknown) => e);
    expect(IndexFormatError.isInstance(error), String(error)).toBe(true);
    expect((error as Error).message).toContain(join(dir, file));
    return (error as Error).message;
  }

  /** Load a copy whose typed-arrays `file` was changed by `edit`; the error it is refused with. */
  async function arraysRefusal(name: string, file: string, edit: (arrays: Map<string, StoredArray>) => void) {
    const dir = await editedIndexCopy(saved, join(root(), name), 'units.json', () => {});
    const arrays = decodeArrays(new Uint8Array(await readFile(join(dir, file))), file);
    edit(arrays);
    await writeFile(join(dir, file), encodeArrays(Object.fromEntries(arrays)));
    const error = await method.load(dir, context()).catch((e: unknown) => e);
    expect(IndexFormatError.isInstance(error), String(error)).toBe(true);
    return (error as Error).message;
  }

  it('refuses core chunks and KNN edges that name no chunk', async () => {
    expect(await refusal('core', 'units.json', (u) => u.core!.splice(0, 1, 'nowhere'))).toContain('core[0]');
    const knn = await arraysRefusal('knn', 'knn.bin', (a) => {
      (a.get('source') as Int32Array)[0] = 99;
    });
    expect(knn).toContain('knn.edges[0]');
  });

  it('refuses texts that do not match their chunks', async () => {
    // Format 4 stores each text once: sub-chunk texts as prefixes of their sub-chunks' texts, those
    // as spans of their chunks' texts, chunk texts as cuts of the texts they are searched by.
    expect(await refusal('texts', 'units.json', (u) => u.subPrefixes!.pop())).toContain('subPrefixes');
    expect(
      await refusal('spans', 'units.json', (u) => {
        u.subSpans![1] = 10 ** 6;
      }),
    ).toContain("subSpans[0] is 0…1000000, not a span of its chunk's text");
    expect(
      await refusal('cuts', 'units.json', (u) => {
        u.chunkCuts![0] = 10 ** 6;
      }),
    ).toContain('chunkCuts[0] is 1000000, beyond its text');
  });

  it('refuses entities and keywords that name sub-chunks the index does not have', async () => {
    const entity = await arraysRefusal('entity-unit', 'skeleton.bin', (a) => {
      (a.get('entityUnits') as Int32Array)[0] = 10_000;
    });
    expect(entity).toMatch(/skeleton\.bin: entityUnits: target 0 is 10000/);
    const keyword = await arraysRefusal('keyword-unit', 'keywords.bin', (a) => {
      (a.get('units') as Int32Array)[0] = 10_000;
    });
    expect(keyword).toMatch(/keywords\.bin: units: target 0 is 10000/);
    const relation = await arraysRefusal('relation-end', 'skeleton.bin', (a) => {
      (a.get('relationSource') as Int32Array)[0] = -1;
    });
    expect(relation).toContain('relationship endpoints');
  });

  it('refuses vectors of other dimensions than the embedder', async () => {
    const message = await refusal('dimensions', 'units.json', (u) => {
      (u as Record<string, unknown>).dimensions = 8;
    });
    expect(message).toContain('dimensions is 8, but the embedder has 16');
  });
});
