/**
 * The simulated embedder of `grag index --estimate`: the real embedder's identity, local vectors.
 * (The simulated chat model is `createSimulatedChat` in `@grag/core/tasks`, since it answers the
 * prompt task suite's calls and tests of the methods use it too.)
 */
import type { Embedder } from '@grag/core';
import { embedderAs, hashedBagOfWords } from '@grag/core/kit';

/**
 * An embedder that reports the identity of another (provider, model, dimensions) but computes
 * `hashedBagOfWords` vectors locally: a dry run embeds what the real build would, without
 * calling anything. Usage is left out, so a metered wrapper counts tokens with its tokenizer.
 */
export function createSimulatedEmbedder(identity: {
  provider: string;
  modelId: string;
  dimensions: number;
  maxBatchSize?: number;
}): Embedder {
  return embedderAs(identity, async ({ values }) => {
    return { embeddings: values.map((v) => hashedBagOfWords(v, identity.dimensions)) };
  });
}
