import { AbortError, GragError, InvalidArgumentError, ProviderError } from '@grag/core';
import { LoadAPIKeyError } from 'ai';
import { MockEmbeddingModelV3, MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { fromAiSdk, fromAiSdkEmbedding, mapAiSdkError } from '../src/index.js';
import { embedResult, httpError, textResult } from './mocks.js';

const ask = { messages: [{ role: 'user' as const, content: 'go' }] };

/** A model that fails with `errors` in turn, then answers. */
function flaky(...errors: Error[]) {
  let n = 0;
  return new MockLanguageModelV3({
    doGenerate: async () => {
      const error = errors[n++];
      if (error) throw error;
      return textResult('recovered', { input: 2, output: 1 });
    },
  });
}

async function failure(promise: Promise<unknown>): Promise<GragError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!GragError.isInstance(error)) throw new Error(`expected a grag error, got ${String(error)}`);
  return error;
}

describe('retries', () => {
  it('retries a retryable failure as often as maxRetries allows (the AI SDK’s own backoff)', async () => {
    const model = flaky(httpError(503, 'overloaded'), httpError(429, 'slow down'));
    const result = await fromAiSdk(model, { maxRetries: 2 }).doGenerate(ask);
    expect(result.text).toBe('recovered');
    expect(model.doGenerateCalls).toHaveLength(3);
  });

  it('gives up after maxRetries + 1 attempts with a retryable ProviderError naming the count and the last failure', async () => {
    const model = flaky(
      httpError(503, 'overloaded'),
      httpError(503, 'overloaded'),
      httpError(429, 'slow down'),
    );
    const error = await failure(fromAiSdk(model, { maxRetries: 1 }).doGenerate(ask));
    expect(model.doGenerateCalls).toHaveLength(2);
    expect(ProviderError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ provider: 'mock-provider', status: 503, retryable: true });
    expect(error.message).toBe(
      "@grag/ai-sdk: chat call to mock-provider model 'mock-model-id' failed after 2 attempts (last: HTTP 503: overloaded) — the provider is overloaded or failing; try again later or raise maxRetries.",
    );
  });

  it('uses the AI SDK’s default of 2 retries when maxRetries is not set', async () => {
    const model = flaky(...Array.from({ length: 5 }, () => httpError(500, 'boom')));
    const error = await failure(fromAiSdk(model).doGenerate(ask));
    expect(model.doGenerateCalls).toHaveLength(3);
    expect(error.message).toContain('failed after 3 attempts (last: HTTP 500: boom)');
  });

  it('does not retry with maxRetries 0, nor a failure the provider marks not retryable', async () => {
    const once = flaky(httpError(429, 'slow down'));
    const rateLimited = await failure(fromAiSdk(once, { maxRetries: 0 }).doGenerate(ask));
    expect(once.doGenerateCalls).toHaveLength(1);
    expect(rateLimited).toMatchObject({ status: 429, retryable: true });
    expect(rateLimited.message).toBe(
      "@grag/ai-sdk: chat call to mock-provider model 'mock-model-id' failed: HTTP 429: slow down — raise maxRetries or send fewer calls at once, and check the rate limits of the account.",
    );
    const auth = flaky(httpError(401, 'Incorrect API key provided'));
    const refused = await failure(fromAiSdk(auth, { maxRetries: 5 }).doGenerate(ask));
    expect(auth.doGenerateCalls).toHaveLength(1);
    expect(refused).toMatchObject({ status: 401, retryable: false });
    expect(refused.message).toMatch(/failed: HTTP 401: Incorrect API key provided — check the API key/);
  });

  it('retries embedding calls the same way', async () => {
    let n = 0;
    const model = new MockEmbeddingModelV3({
      maxEmbeddingsPerCall: 10,
      doEmbed: async ({ values }) => {
        if (n++ === 0) throw httpError(502, 'bad gateway');
        return embedResult(values, 4);
      },
    });
    const result = await fromAiSdkEmbedding(model, { dimensions: 3, maxRetries: 1 }).doEmbed({
      values: ['a', 'b'],
    });
    expect(result.embeddings).toHaveLength(2);
    expect(model.doEmbedCalls).toHaveLength(2);
    const failing = new MockEmbeddingModelV3({
      doEmbed: async () => {
        throw httpError(413, 'payload too large');
      },
    });
    const error = await failure(fromAiSdkEmbedding(failing, { dimensions: 3 }).doEmbed({ values: ['a'] }));
    expect(error.message).toBe(
      "@grag/ai-sdk: embedding call to mock-provider model 'mock-model-id' failed: HTTP 413: payload too large — send fewer or shorter inputs (lower batchSize).",
    );
  });
});

describe('mapAiSdkError', () => {
  const target = { kind: 'chat' as const, provider: 'acme.chat', modelId: 'acme-1' };

  it('maps a missing API key to InvalidArgumentError on apiKey', () => {
    const error = mapAiSdkError(
      new LoadAPIKeyError({
        message: 'Acme API key is missing. Pass it using the apiKey parameter or ACME_API_KEY.',
      }),
      target,
    );
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect((error as InvalidArgumentError).argument).toBe('apiKey');
    expect(error.message).toBe(
      "@grag/ai-sdk: chat call to acme.chat model 'acme-1': Acme API key is missing. Pass it using the apiKey parameter or ACME_API_KEY.",
    );
  });

  it('maps a failure without a status (connection refused) to a retryable ProviderError', () => {
    const refused = httpError(0, 'Cannot connect to API: connect ECONNREFUSED 127.0.0.1:9', true);
    Object.defineProperty(refused, 'statusCode', { value: undefined });
    const error = mapAiSdkError(refused, target) as ProviderError;
    expect(error).toMatchObject({ status: undefined, retryable: true });
    expect(error.message).toBe(
      "@grag/ai-sdk: chat call to acme.chat model 'acme-1' failed: could not reach the provider (Cannot connect to API: connect ECONNREFUSED 127.0.0.1:9) — check the provider's baseURL and the network.",
    );
  });

  it('keeps every message on one line and passes grag errors through', () => {
    const error = mapAiSdkError(new Error('first line\n  second line\n\tthird'), target);
    expect(error.message).toBe(
      "@grag/ai-sdk: chat call to acme.chat model 'acme-1' failed: first line second line third — check the AI SDK provider and its settings.",
    );
    const own = new AbortError();
    expect(mapAiSdkError(own, target)).toBe(own);
  });

  it('reports an aborted signal as AbortError whatever the model threw', () => {
    const controller = new AbortController();
    controller.abort();
    const error = mapAiSdkError(httpError(500, 'boom'), target, controller.signal);
    expect(AbortError.isInstance(error)).toBe(true);
  });

  it('maps a provider’s own abort or timeout (not the caller’s) to a retryable ProviderError', () => {
    const timeout = new DOMException('The operation timed out.', 'TimeoutError');
    const error = mapAiSdkError(timeout, target) as ProviderError;
    expect(ProviderError.isInstance(error)).toBe(true);
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('failed: cut short (TimeoutError: The operation timed out.)');
  });
});
