/**
 * Model prices, to turn metered tokens into US dollars. Core holds no vendor's prices: a provider
 * package ships its list prices (`OPENAI_PRICES` in `@grag/openai`), and the meter's owner passes
 * the table it wants (`new Meter({ prices })`).
 */

/** Price of a model in USD per million tokens. Embedding models have input tokens only. */
export interface ModelPrice {
  /** USD per 1M input (prompt) tokens. */
  input: number;
  /** USD per 1M output (completion) tokens. @default 0 */
  output?: number;
}

/**
 * Prices by model. A key is `provider:modelId`, a bare `modelId`, or `provider:*` for every model
 * of a provider. A dated model id (`gpt-4o-mini-2024-07-18`) falls back to the longest key that
 * is a prefix of it.
 */
export type PriceTable = Record<string, ModelPrice>;

/**
 * The price of `model` (`provider:modelId`) in `table`, or `undefined` when it has none: exact
 * key, then the bare model id, then the longest key that prefixes the model id, then `provider:*`.
 */
export function findPrice(model: string, table: Readonly<PriceTable>): ModelPrice | undefined {
  const colon = model.indexOf(':');
  const provider = colon >= 0 ? model.slice(0, colon) : '';
  const modelId = colon >= 0 ? model.slice(colon + 1) : model;
  const exact = table[model] ?? table[modelId];
  if (exact) return exact;
  let best: string | undefined;
  for (const key of Object.keys(table)) {
    const bare = key.startsWith(`${provider}:`)
      ? key.slice(provider.length + 1)
      : key.includes(':')
        ? undefined
        : key;
    if (bare && bare !== '*' && modelId.startsWith(bare) && (!best || bare.length > best.length)) best = key;
  }
  return best ? table[best] : table[`${provider}:*`];
}

/** USD of `inputTokens` and `outputTokens` at `price`. */
export function priceTokens(price: ModelPrice, inputTokens: number, outputTokens: number): number {
  return (inputTokens * price.input + outputTokens * (price.output ?? 0)) / 1_000_000;
}
