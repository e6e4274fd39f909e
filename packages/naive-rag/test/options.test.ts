import type { VectorSearchOptions } from '@grag/core';
import { type Document, InvalidArgumentError, type TaskSuite } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { createScriptedEmbedder, recordingIndexFactory } from '@grag/core/test';
import { describe, expect, it } from 'vitest';
import { BM25_DEFAULTS, bm25Rag, CHUNKING_DEFAULTS, denseRag } from '../src/index.js';

const docs: Document[] = [
  { id: 'paris', title: 'Paris', text: 'Paris is the capital of France and sits on the Seine.' },
  { id: 'nile', title: 'Nile', text: 'The Nile is a long river in Africa.' },
];
const context = () =>
  createBuildContext({ embedder: createScriptedEmbedder({ dimensions: 16 }), tasks: {} as TaskSuite });

describe('option keys', () => {
  it('a misspelled build option is an InvalidArgumentError that suggests the right key', async () => {
    for (const method of [denseRag, bm25Rag]) {
      const error = await method.build(docs, context(), { chunkSzie: 600 } as object).catch((e) => e);
      expect(InvalidArgumentError.isInstance(error)).toBe(true);
      expect(error.message).toContain(`${method.name} build: unknown option "chunkSzie"`);
      expect(error.message).toContain('did you mean "chunkSize"?');
    }
  });

  it('a key set to undefined is checked too', async () => {
    await expect(bm25Rag.build(docs, context(), { overlpa: undefined } as object)).rejects.toThrow(
      /unknown option "overlpa"; did you mean "overlap"\?/,
    );
  });

  it('BM25 keys belong to bm25 only', async () => {
    await expect(denseRag.build(docs, context(), { k1: 1.5 } as object)).rejects.toThrow(
      /naive-dense build: unknown option "k1"/,
    );
  });

  it('accepts every documented option', async () => {
    await expect(denseRag.build(docs, context(), { ...CHUNKING_DEFAULTS })).resolves.toBeDefined();
    const index = await bm25Rag.build(docs, context(), { ...CHUNKING_DEFAULTS, ...BM25_DEFAULTS });
    const r = await bm25Rag.retrieve(index, 'river', {
      budgetTokens: 1000,
      topK: 1,
      signal: new AbortController().signal,
    });
    expect(r.items).toHaveLength(1);
  });

  it('refuses an unknown retrieve option', async () => {
    const index = await bm25Rag.build(docs, context(), { chunking: 'document' });
    await expect(bm25Rag.retrieve(index, 'river', { topk: 1 } as object)).rejects.toThrow(
      /bm25 retrieve: unknown option "topk"; did you mean "topK"\?/,
    );
  });
});

describe('entryEf', () => {
  it('gives the dense search its breadth: 1024 by default, none with 0, and refuses a negative one', async () => {
    const calls: VectorSearchOptions[] = [];
    const ctx = createBuildContext({
      embedder: createScriptedEmbedder({ dimensions: 16 }),
      tasks: {} as TaskSuite,
      vectorIndex: recordingIndexFactory(calls),
    });
    const byDefault = await denseRag.build(docs, ctx, { chunking: 'document' });
    const same = await denseRag.retrieve(byDefault, 'river', { topK: 1 });
    const own = await denseRag.build(docs, ctx, { chunking: 'document', entryEf: 0 });
    const other = await denseRag.retrieve(own, 'river', { topK: 1 });
    expect(calls.map((c) => c.ef)).toEqual([1024, undefined]);
    // An exact index ignores it: the same hits either way.
    expect(other.items.map((i) => [i.id, i.score])).toEqual(same.items.map((i) => [i.id, i.score]));
    await expect(denseRag.build(docs, ctx, { entryEf: -1 })).rejects.toThrow(/entryEf/);
  });
});
