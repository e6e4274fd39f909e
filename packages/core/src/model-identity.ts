/**
 * Models with the identity of another: what a wrapper of a chat model or embedder (a cache, a
 * meter, a call counter) or a stand-in for one returns, so calls keep the provider and model id
 * that cache keys, prices and reports read.
 */
import type { ChatModel, Embedder } from './contracts/models.js';

/**
 * A chat model with `identity`'s provider and model id, answering with `doGenerate` (no `doStream`:
 * a wrapper that streams adds its own).
 */
export function chatModelAs(
  identity: Pick<ChatModel, 'provider' | 'modelId'>,
  doGenerate: ChatModel['doGenerate'],
): ChatModel {
  return { specificationVersion: 'v1', provider: identity.provider, modelId: identity.modelId, doGenerate };
}

/**
 * An embedder with `identity`'s provider, model id, dimensions and (when it has one) batch limit,
 * embedding with `doEmbed`.
 */
export function embedderAs(
  identity: Pick<Embedder, 'provider' | 'modelId' | 'dimensions' | 'maxBatchSize'>,
  doEmbed: Embedder['doEmbed'],
): Embedder {
  return {
    specificationVersion: 'v1',
    provider: identity.provider,
    modelId: identity.modelId,
    dimensions: identity.dimensions,
    ...(identity.maxBatchSize !== undefined ? { maxBatchSize: identity.maxBatchSize } : {}),
    doEmbed,
  };
}
