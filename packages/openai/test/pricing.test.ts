import { findPrice, Meter } from '@grag/core/kit';
import { OPENAI_PRICES } from '@grag/openai';
import { describe, expect, it } from 'vitest';

describe('OPENAI_PRICES', () => {
  it('prices OpenAI models by bare id, dated ids by their longest prefix, and nothing else', () => {
    expect(findPrice('openai:gpt-4o-mini', OPENAI_PRICES)).toEqual({ input: 0.15, output: 0.6 });
    // A dated id falls back to the longest prefix: gpt-4o-mini, not gpt-4o.
    expect(findPrice('openai:gpt-4o-mini-2024-07-18', OPENAI_PRICES)).toBe(OPENAI_PRICES['gpt-4o-mini']);
    expect(findPrice('openai:gpt-4o-2024-08-06', OPENAI_PRICES)).toBe(OPENAI_PRICES['gpt-4o']);
    expect(findPrice('openai:text-embedding-3-small', OPENAI_PRICES)).toEqual({ input: 0.02 });
    expect(findPrice('openai:llama3.1:8b', OPENAI_PRICES)).toBeUndefined();
    expect(findPrice('offline:tfidf-hash-512', OPENAI_PRICES)).toBeUndefined();
  });

  it('is frozen, so a run cannot change the list prices of another', () => {
    expect(Object.isFrozen(OPENAI_PRICES)).toBe(true);
  });

  it('turns a metered build into US dollars (hand-computed)', async () => {
    const meter = new Meter({ prices: OPENAI_PRICES });
    await meter.stage('extract', () => {
      meter.recordChat('openai:gpt-4o-mini', { inputTokens: 2_000_000, outputTokens: 1_000_000 });
      meter.recordEmbedding('openai:text-embedding-3-small', 10, 5_000_000);
    });
    // 2 x 0.15 + 1 x 0.6 + 5 x 0.02 = 1.0
    expect(meter.snapshot().total.usd).toBeCloseTo(1.0, 12);
    expect(meter.unpricedModels()).toEqual([]);
  });
});
