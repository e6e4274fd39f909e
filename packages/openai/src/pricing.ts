import type { PriceTable } from '@grag/core/kit';

/**
 * List prices of OpenAI's API (USD per 1M tokens, 2025) for the meter:
 * `new Meter({ prices: OPENAI_PRICES })`, or spread your own entries over it. Keys are bare model
 * ids, so a dated id (`gpt-4o-mini-2024-07-18`) falls back to the longest key that prefixes it.
 * Prices change: treat these as a starting point and pass your own where they differ.
 */
export const OPENAI_PRICES: Readonly<PriceTable> = Object.freeze({
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  'gpt-4o': { input: 2.5, output: 10 },
  'gpt-4.1': { input: 2, output: 8 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4 },
  'o4-mini': { input: 1.1, output: 4.4 },
  'text-embedding-3-small': { input: 0.02 },
  'text-embedding-3-large': { input: 0.13 },
  'text-embedding-ada-002': { input: 0.1 },
});
