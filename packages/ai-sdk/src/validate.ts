import { InvalidArgumentError } from '@grag/core';
import { PACKAGE } from './errors.js';

/** Check a model object passed to a factory; `call` names the factory in the message. */
export function assertModel(
  model: unknown,
  call: 'fromAiSdk' | 'fromAiSdkEmbedding' | 'detectEmbeddingDimensions',
  method: 'doGenerate' | 'doEmbed',
): void {
  const example =
    method === 'doGenerate' ? "openai('gpt-4o-mini')" : "openai.embedding('text-embedding-3-small')";
  if (typeof model === 'string') {
    throw new InvalidArgumentError(
      'model',
      `${PACKAGE}: ${call}(model): pass an AI SDK model object such as ${example}, not the id string '${model}'.`,
    );
  }
  const m = model as Record<string, unknown> | null;
  if (
    typeof m !== 'object' ||
    m === null ||
    typeof m.provider !== 'string' ||
    typeof m.modelId !== 'string' ||
    typeof m[method] !== 'function'
  ) {
    throw new InvalidArgumentError(
      'model',
      `${PACKAGE}: ${call}(model): model must be an AI SDK model object with provider, modelId and ${method}(), such as ${example}.`,
    );
  }
}

/** Check a `maxRetries` option (a non-negative integer when given). */
export function checkMaxRetries(value: unknown, call: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new InvalidArgumentError(
      'maxRetries',
      `${PACKAGE}: ${call}: maxRetries must be a non-negative integer, got ${String(value)}.`,
    );
  }
  return value;
}
