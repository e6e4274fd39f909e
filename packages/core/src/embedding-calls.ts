/**
 * What an {@link Embedder} provider is written with (`@grag/openai`, `@grag/ai-sdk`,
 * `@grag/langchain`): the check of a positive integer setting, the check of the values a `doEmbed`
 * call sends, a call's values split into batches, and the loop that embeds them one batch after
 * another.
 */
import { InvalidArgumentError } from './contracts/errors.js';
import type { EmbedResult } from './contracts/models.js';

/**
 * `value`, when it is a positive integer.
 * @throws InvalidArgumentError naming `name`: "`where`: `name` must be a positive integer, got …".
 */
export function positiveIntegerSetting(name: string, value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new InvalidArgumentError(
      name,
      `${where}: ${name} must be a positive integer, got ${String(value)}.`,
    );
  }
  return value;
}

/**
 * The check every `doEmbed` makes first: `values` is an array of strings.
 * @throws InvalidArgumentError (`argument: 'values'`) naming the package `pkg` and the model.
 */
export function assertEmbedValues(values: unknown, pkg: string, modelId: string): asserts values is string[] {
  if (!Array.isArray(values) || values.some((v) => typeof v !== 'string')) {
    throw new InvalidArgumentError(
      'values',
      `${pkg}: doEmbed on '${modelId}': values must be an array of strings.`,
    );
  }
}

/** `values` split into consecutive batches of at most `size` (a positive integer or `Infinity`). */
export function embeddingBatches(values: readonly string[], size: number): string[][] {
  const batches: string[][] = [];
  for (let start = 0; start < values.length; start += size) batches.push(values.slice(start, start + size));
  return batches;
}

/**
 * Embed `values` in batches of at most `size`, one after another: `embedBatch(batch, start)` embeds
 * (and checks) the batch that starts at value `start`. An abort is checked before every batch
 * (`aborted()` is the error thrown). The vectors come back in input order, with `usage.tokens`
 * summed over the batches when every batch reports it (0 for no values).
 */
export async function embedInBatches(
  values: readonly string[],
  size: number,
  embedBatch: (batch: string[], start: number) => Promise<EmbedResult>,
  options: { abortSignal?: AbortSignal | undefined; aborted: () => Error },
): Promise<EmbedResult> {
  const embeddings: Float32Array[] = [];
  let tokens: number | undefined = 0;
  for (let start = 0; start < values.length; start += size) {
    // Between batches too, so an abort stops before the next request.
    if (options.abortSignal?.aborted) throw options.aborted();
    const result = await embedBatch(values.slice(start, start + size), start);
    embeddings.push(...result.embeddings);
    tokens = tokens !== undefined && result.usage !== undefined ? tokens + result.usage.tokens : undefined;
  }
  return tokens === undefined ? { embeddings } : { embeddings, usage: { tokens } };
}

/**
 * The vector length of an embedding model, learned from one call: `embed()` embeds one short probe
 * text. An abort is checked first (`aborted()` is the error thrown); a failed call is thrown as
 * `failure(error)`; an answer whose first vector has no component (`lengthOf(answer)` below 1) as
 * `none(answer)`.
 */
export async function probeVectorLength<T>(
  embed: () => Promise<T>,
  options: {
    abortSignal?: AbortSignal | undefined;
    aborted: () => Error;
    failure: (error: unknown) => Error;
    lengthOf: (answer: T) => number;
    none: (answer: T) => Error;
  },
): Promise<number> {
  if (options.abortSignal?.aborted) throw options.aborted();
  let answer: T;
  try {
    answer = await embed();
  } catch (error) {
    throw options.failure(error);
  }
  const length = options.lengthOf(answer);
  if (length < 1) throw options.none(answer);
  return length;
}
