import type { Document, TaskSuite } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { createScriptedEmbedder } from '@grag/core/test';
import { describe, expect, it } from 'vitest';
import { bm25Rag, denseRag } from '../src/index.js';

const docs: Document[] = [
  { id: 'paris', title: 'Paris', text: 'Paris is the capital of France and sits on the Seine.' },
  { id: 'berlin', title: 'Berlin', text: 'Berlin is the capital of Germany and sits on the Spree.' },
  {
    id: 'nile',
    title: 'Nile',
    text: 'The Nile is a long river in Africa that flows into the Mediterranean.',
  },
];

const noTasks = {} as TaskSuite;
const context = () =>
  createBuildContext({ embedder: createScriptedEmbedder({ dimensions: 64 }), tasks: noTasks });

describe('naive baselines', () => {
  it('dense retrieval ranks the passage sharing the query words first, with provenance', async () => {
    const ctx = context();
    const index = await denseRag.build(docs, ctx, { chunking: 'document' });
    const r = await denseRag.retrieve(index, 'Which river flows into the Mediterranean in Africa?', {
      topK: 2,
    });
    expect(r.items[0]).toMatchObject({
      id: 'nile',
      kind: 'chunk',
      source: { chunkIds: ['nile'], docIds: ['nile'] },
    });
    expect(r.items).toHaveLength(2);
    expect(r.context).toContain('[nile] Nile\nThe Nile is a long river');
    expect(r.tokens).toBe(ctx.tokenizer.count(r.context));
    expect(ctx.meter.snapshot().stages.embed!.embeddedValues).toBe(3);
  });

  it('BM25 retrieval finds the passage by its rare terms', async () => {
    const index = await bm25Rag.build(docs, context(), { chunking: 'document' });
    const r = await bm25Rag.retrieve(index, 'capital on the Spree', { topK: 1 });
    expect(r.items.map((i) => i.id)).toEqual(['berlin']);
  });

  it('chunks long documents into overlapping token windows by default', async () => {
    const long: Document = {
      id: 'long',
      text: Array.from({ length: 400 }, (_, i) => `Sentence number ${i}.`).join(' '),
    };
    const index = await bm25Rag.build([long], context(), { chunkSize: 200, overlap: 20 });
    expect(index.chunks.length).toBeGreaterThan(5);
    expect(index.chunks.every((c) => c.tokens <= 200)).toBe(true);
    expect(index.chunks.map((c) => c.order)).toEqual(index.chunks.map((_, i) => i));
  });

  it('respects the token budget', async () => {
    const index = await bm25Rag.build(docs, context(), { chunking: 'document' });
    const r = await bm25Rag.retrieve(index, 'capital river Seine Spree Nile', { budgetTokens: 20 });
    expect(r.tokens).toBeLessThanOrEqual(20);
  });

  it('refuses an empty corpus with a clear error', async () => {
    await expect(bm25Rag.build([], context())).rejects.toThrow(/corpus is empty/);
  });
});
