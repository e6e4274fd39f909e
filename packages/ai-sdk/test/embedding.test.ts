import { AbortError, embedAll, InvalidArgumentError, modelFingerprint, ProviderError } from '@grag/core';
import { getTokenizer, Meter, meteredEmbedder } from '@grag/core/kit';
import { refusalOf } from '@grag/core/test/vitest';
import { MockEmbeddingModelV3, MockEmbeddingModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { detectEmbeddingDimensions, fromAiSdkEmbedding } from '../src/index.js';
import { embedResult, untilAborted } from './mocks.js';

/** A mock that embeds each value as `[length, index in batch, 1]` and reports `tokens` per call (`null`: none). */
function mockModel(maxEmbeddingsPerCall: number | null, tokens: number | null = 5) {
  return new MockEmbeddingModelV3({
    provider: 'acme.embedding',
    modelId: 'acme-embed',
    maxEmbeddingsPerCall,
    doEmbed: async ({ values }) => embedResult(values, tokens ?? undefined),
  });
}

const batches = (model: MockEmbeddingModelV3) => model.doEmbedCalls.map((c) => c.values);

describe('fromAiSdkEmbedding', () => {
  it('returns one Float32Array per value, in order, with the summed token usage', async () => {
    const model = mockModel(2);
    const embedder = fromAiSdkEmbedding(model, { dimensions: 3 });
    expect([embedder.provider, embedder.modelId, embedder.dimensions, embedder.maxBatchSize]).toEqual([
      'acme.embedding',
      'acme-embed',
      3,
      2,
    ]);
    expect(modelFingerprint(embedder)).toBe('acme.embedding:acme-embed:3');
    const { embeddings, usage } = await embedder.doEmbed({ values: ['a', 'bb', 'ccc'] });
    expect(embeddings.every((e) => e instanceof Float32Array)).toBe(true);
    // Index within the AI SDK's call: 'ccc' is the first value of the second call.
    expect(embeddings.map((e) => [...e])).toEqual([
      [1, 0, 1],
      [2, 1, 1],
      [3, 0, 1],
    ]);
    expect(usage).toEqual({ tokens: 10 });
    expect(batches(model)).toEqual([['a', 'bb'], ['ccc']]);
  });

  it('takes maxBatchSize from the model’s maxEmbeddingsPerCall, so embedAll sends batches the model accepts', async () => {
    const model = mockModel(2);
    const embedder = fromAiSdkEmbedding(model, { dimensions: 3 });
    const vectors = await embedAll(embedder, ['a', 'b', 'c', 'd', 'e']);
    expect(vectors).toHaveLength(5);
    expect(batches(model)).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
  });

  it('splits a call by batchSize itself, and the AI SDK splits each batch again by the model’s limit', async () => {
    const model = mockModel(2);
    const embedder = fromAiSdkEmbedding(model, { dimensions: 3, batchSize: 3 });
    expect(embedder.maxBatchSize).toBe(3);
    const { usage } = await embedder.doEmbed({ values: ['a', 'b', 'c', 'd', 'e'] });
    expect(batches(model)).toEqual([['a', 'b'], ['c'], ['d', 'e']]);
    expect(usage).toEqual({ tokens: 15 });
  });

  it('is unbounded when neither the options nor the model state a limit', async () => {
    const model = mockModel(null);
    const embedder = fromAiSdkEmbedding(model, { dimensions: 3 });
    expect(embedder.maxBatchSize).toBe(Number.POSITIVE_INFINITY);
    await embedder.doEmbed({ values: ['a', 'b', 'c', 'd'] });
    expect(batches(model)).toEqual([['a', 'b', 'c', 'd']]);
  });

  it('drives a V4 model the same way', async () => {
    const model = new MockEmbeddingModelV4({
      maxEmbeddingsPerCall: 8,
      doEmbed: async ({ values }) => embedResult(values, 2),
    });
    const result = await fromAiSdkEmbedding(model, { dimensions: 3 }).doEmbed({ values: ['xy'] });
    expect(result.embeddings.map((e) => [...e])).toEqual([[2, 0, 1]]);
    expect(result.usage).toEqual({ tokens: 2 });
  });

  it('reports embedding tokens to the Meter, and lets it count them when the provider reports none', async () => {
    const meter = new Meter();
    const tokenizer = getTokenizer();
    const reported = meteredEmbedder(
      fromAiSdkEmbedding(mockModel(10, 7), { dimensions: 3 }),
      meter,
      tokenizer,
    );
    await meter.stage('embed', () => reported.doEmbed({ values: ['graph', 'retrieval'] }));
    expect(meter.snapshot().stages.embed).toMatchObject({ embedCalls: 1, embeddedValues: 2, embedTokens: 7 });

    const silent = fromAiSdkEmbedding(mockModel(10, null), { dimensions: 3 });
    // The AI SDK reports NaN tokens for a provider without usage; the embedder leaves usage out.
    expect((await silent.doEmbed({ values: ['graph'] })).usage).toBeUndefined();
    await meter.stage('query', () =>
      meteredEmbedder(silent, meter, tokenizer).doEmbed({ values: ['graph rag'] }),
    );
    expect(meter.snapshot().stages.query?.embedTokens).toBe(tokenizer.count('graph rag'));
  });

  it('answers an empty call without calling the model', async () => {
    const model = mockModel(2);
    expect(await fromAiSdkEmbedding(model, { dimensions: 3 }).doEmbed({ values: [] })).toEqual({
      embeddings: [],
      usage: { tokens: 0 },
    });
    expect(model.doEmbedCalls).toHaveLength(0);
  });

  it('passes the options’ provider options, headers and the call’s abort signal to the model', async () => {
    const model = mockModel(4);
    const controller = new AbortController();
    await fromAiSdkEmbedding(model, {
      dimensions: 3,
      providerOptions: { acme: { truncate: 'end' } },
      headers: { 'x-team': 'search' },
    }).doEmbed({ values: ['a'], abortSignal: controller.signal });
    const call = model.doEmbedCalls[0];
    expect(call?.providerOptions).toEqual({ acme: { truncate: 'end' } });
    expect(call?.headers).toMatchObject({ 'x-team': 'search' });
    expect(call?.abortSignal).toBeDefined();
    controller.abort();
    expect(call?.abortSignal?.aborted).toBe(true);
  });

  it('stops at the batch in flight when aborted, with AbortError, and sends no further batch', async () => {
    const controller = new AbortController();
    const model = new MockEmbeddingModelV3({
      maxEmbeddingsPerCall: 1,
      doEmbed: async ({ values, abortSignal }) => {
        if (values[0] === 'b') {
          setTimeout(() => controller.abort(), 1);
          return untilAborted(abortSignal);
        }
        return embedResult(values, 1);
      },
    });
    const embedder = fromAiSdkEmbedding(model, { dimensions: 3, batchSize: 1 });
    const error = await embedder
      .doEmbed({ values: ['a', 'b', 'c'], abortSignal: controller.signal })
      .catch((e: unknown) => e);
    expect(AbortError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      "@grag/ai-sdk: embedding call to mock-provider model 'mock-model-id' was aborted.",
    );
    expect(batches(model)).toEqual([['a'], ['b']]);
  });

  it('checks every vector against dimensions', async () => {
    const embedder = fromAiSdkEmbedding(mockModel(4), { dimensions: 768 });
    const error = await embedder.doEmbed({ values: ['a'] }).catch((e: unknown) => e);
    expect(ProviderError.isInstance(error)).toBe(true);
    expect((error as ProviderError).retryable).toBe(false);
    expect((error as Error).message).toBe(
      "@grag/ai-sdk: embedding call to acme.embedding model 'acme-embed' returned a vector of length 3 for value 0, expected 768 — set dimensions to the model's output size (await detectEmbeddingDimensions(model) finds it).",
    );
  });

  it('requires dimensions and checks the numeric options, naming the argument', () => {
    const argumentOf = (fn: () => unknown) => refusalOf(fn, InvalidArgumentError).argument;
    const model = mockModel(2);
    expect(argumentOf(() => fromAiSdkEmbedding(model, {} as never))).toBe('dimensions');
    expect(argumentOf(() => fromAiSdkEmbedding(model, { dimensions: 0 }))).toBe('dimensions');
    expect(argumentOf(() => fromAiSdkEmbedding(model, { dimensions: 3, batchSize: 1.5 }))).toBe('batchSize');
    expect(argumentOf(() => fromAiSdkEmbedding(model, { dimensions: 3, maxParallelCalls: 0 }))).toBe(
      'maxParallelCalls',
    );
    expect(argumentOf(() => fromAiSdkEmbedding(model, { dimensions: 3, maxRetries: -2 }))).toBe('maxRetries');
    expect(argumentOf(() => fromAiSdkEmbedding('text-embedding-3-small' as never, { dimensions: 3 }))).toBe(
      'model',
    );
    expect(() => fromAiSdkEmbedding(model, {} as never)).toThrow(
      '@grag/ai-sdk: fromAiSdkEmbedding(model, options): dimensions is required (AI SDK embedding models do not report their vector length) — pass it, e.g. { dimensions: 1536 }, or find it with await detectEmbeddingDimensions(model).',
    );
  });
});

describe('detectEmbeddingDimensions', () => {
  it('finds the vector length with one probe call', async () => {
    const model = new MockEmbeddingModelV3({
      doEmbed: async ({ values }) => ({
        embeddings: values.map(() => [0.1, 0.2, 0.3, 0.4, 0.5]),
        warnings: [],
      }),
    });
    expect(await detectEmbeddingDimensions(model)).toBe(5);
    expect(model.doEmbedCalls).toHaveLength(1);
    const embedder = fromAiSdkEmbedding(model, { dimensions: await detectEmbeddingDimensions(model) });
    expect(embedder.dimensions).toBe(5);
  });
});
