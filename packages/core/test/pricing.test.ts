import { findPrice, Meter, type PriceTable, priceTokens } from '@grag/core/kit';
import { describe, expect, it } from 'vitest';

const TABLE: PriceTable = {
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  'gpt-4o': { input: 2.5, output: 10 },
  'offline:*': { input: 0, output: 0 },
};

describe('price table', () => {
  it('finds exact, bare, dated and provider-wide prices, and nothing for an unknown model', () => {
    expect(findPrice('openai:gpt-4o-mini', TABLE)).toEqual({ input: 0.15, output: 0.6 });
    // A dated id falls back to the longest prefix: gpt-4o-mini, not gpt-4o.
    expect(findPrice('openai:gpt-4o-mini-2024-07-18', TABLE)).toBe(TABLE['gpt-4o-mini']);
    expect(findPrice('openai:gpt-4o-2024-08-06', TABLE)).toBe(TABLE['gpt-4o']);
    expect(findPrice('offline:tfidf-hash-512', TABLE)).toEqual({ input: 0, output: 0 });
    expect(findPrice('openai:llama3.1:8b', TABLE)).toBeUndefined();
    expect(findPrice('openai:llama3.1:8b', { 'llama3.1:8b': { input: 0, output: 0 } })).toEqual({
      input: 0,
      output: 0,
    });
    expect(findPrice('vllm:my-model', { 'vllm:*': { input: 1 } })).toEqual({ input: 1 });
  });

  it('the meter prices each stage from its per-model tokens (hand-computed)', async () => {
    const meter = new Meter({
      prices: { 'gpt-4o-mini': { input: 1, output: 2 }, 'text-embedding-3-small': { input: 0.02 } },
    });
    await meter.stage('extract', () => {
      meter.recordChat('openai:gpt-4o-mini', { inputTokens: 1_000_000, outputTokens: 500_000 });
      meter.recordChat('openai:unknown-model', { inputTokens: 10, outputTokens: 10 });
    });
    await meter.stage('embed', () => {
      meter.recordEmbedding('openai:text-embedding-3-small', 3, 2_000_000);
    });
    const snap = meter.snapshot();
    expect(snap.stages.extract!.usd).toBeCloseTo(1 + 2 * 0.5, 12);
    expect(snap.stages.embed!.usd).toBeCloseTo(2 * 0.02, 12);
    expect(snap.total.usd).toBeCloseTo(2.04, 12);
    expect(meter.unpricedModels()).toEqual(['openai:unknown-model']);
    expect(priceTokens({ input: 0.15, output: 0.6 }, 2000, 1000)).toBeCloseTo(0.0009, 12);
  });

  it('holds no vendor prices: a meter without a table prices nothing and names every model', async () => {
    const meter = new Meter();
    meter.recordChat('openai:gpt-4o-mini', { inputTokens: 1_000_000, outputTokens: 1_000_000 });
    expect(meter.prices).toEqual({});
    expect(meter.snapshot().total.usd).toBe(0);
    expect(meter.unpricedModels()).toEqual(['openai:gpt-4o-mini']);
  });
});
