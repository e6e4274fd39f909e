import {
  AbortError,
  type EmbedCallOptions,
  type Embedder,
  type EmbedResult,
  InvalidArgumentError,
  ProviderError,
} from '@grag/core';
import { assertEmbedValues, embedInBatches, positiveIntegerSetting, probeVectorLength } from '@grag/core/kit';
import { type EmbeddingModel, embedMany } from 'ai';
import type { AiSdkProviderOptions } from './chat.js';
import { type CallTarget, label, mapAiSdkError, PACKAGE } from './errors.js';
import { assertModel, checkMaxRetries } from './validate.js';

/**
 * An AI SDK embedding model object, e.g. `openai.embedding('text-embedding-3-small')`,
 * `ollama.embedding('nomic-embed-text')`, or a mock from `ai/test`.
 */
export type AiSdkEmbeddingModel = Exclude<EmbeddingModel, string>;

/** Call settings shared by {@link fromAiSdkEmbedding} and {@link detectEmbeddingDimensions}. */
export interface AiSdkEmbeddingCallOptions {
  /**
   * Retries after the first attempt, passed to the AI SDK as `maxRetries`.
   * @default the AI SDK's own default (2)
   */
  maxRetries?: number;
  /** Provider-specific options sent with every call, e.g. `{ openai: { dimensions: 512 } }`. */
  providerOptions?: AiSdkProviderOptions;
  /** Extra HTTP headers sent with every call (for HTTP-based providers). */
  headers?: Record<string, string>;
}

/** Options of {@link fromAiSdkEmbedding}. */
export interface AiSdkEmbeddingOptions extends AiSdkEmbeddingCallOptions {
  /**
   * Length of the model's vectors (required: AI SDK embedding models do not report it). Every
   * returned vector is checked against it. Unknown? `await detectEmbeddingDimensions(model)`.
   */
  dimensions: number;
  /**
   * Largest number of values one `doEmbed` call sends to `embedMany` (the embedder's
   * `maxBatchSize`); a larger call is split into batches sent one after another.
   * @default the model's `maxEmbeddingsPerCall` when it states a number, else unbounded (the AI
   * SDK still splits by the model's own limit)
   */
  batchSize?: number;
  /**
   * Requests `embedMany` may run at once when it splits a batch by the model's own limit and the
   * model supports parallel calls.
   * @default the AI SDK's own default (unbounded)
   */
  maxParallelCalls?: number;
}

function positiveInteger(name: string, value: unknown, call: string): number {
  return positiveIntegerSetting(name, value, `${PACKAGE}: ${call}`);
}

/** The model's `maxEmbeddingsPerCall` when it is a plain positive integer (it may also be a promise). */
function modelBatchLimit(model: AiSdkEmbeddingModel): number | undefined {
  const limit = (model as { maxEmbeddingsPerCall?: unknown }).maxEmbeddingsPerCall;
  return typeof limit === 'number' && Number.isInteger(limit) && limit > 0 ? limit : undefined;
}

/** The `embedMany` settings of `options` (only those given). */
function callSettings(options: AiSdkEmbeddingCallOptions & { maxParallelCalls?: number }) {
  return {
    ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
    ...(options.maxParallelCalls !== undefined ? { maxParallelCalls: options.maxParallelCalls } : {}),
    ...(options.providerOptions !== undefined ? { providerOptions: options.providerOptions } : {}),
    ...(options.headers !== undefined ? { headers: options.headers } : {}),
  };
}

/**
 * grag's {@link Embedder} on an AI SDK embedding model. Create it with {@link fromAiSdkEmbedding}.
 * Every batch goes through the AI SDK's `embedMany`, which handles every model specification
 * version, splits by the model's own limit and retries per `maxRetries`.
 */
export class AiSdkEmbedder implements Embedder {
  readonly specificationVersion = 'v1' as const;
  /** The AI SDK model's provider id, e.g. `'openai.embedding'`. */
  readonly provider: string;
  readonly modelId: string;
  readonly dimensions: number;
  /** Values per `embedMany` call; `Infinity` when neither the options nor the model bound it. */
  readonly maxBatchSize: number;
  /** The wrapped AI SDK model. */
  readonly model: AiSdkEmbeddingModel;
  readonly #settings: ReturnType<typeof callSettings>;

  /** @internal Use {@link fromAiSdkEmbedding}. */
  constructor(model: AiSdkEmbeddingModel, options: AiSdkEmbeddingOptions) {
    assertModel(model, 'fromAiSdkEmbedding', 'doEmbed');
    const call = 'fromAiSdkEmbedding(model, options)';
    if (options?.dimensions === undefined) {
      throw new InvalidArgumentError(
        'dimensions',
        `${PACKAGE}: ${call}: dimensions is required (AI SDK embedding models do not report their vector length) — pass it, e.g. { dimensions: 1536 }, or find it with await detectEmbeddingDimensions(model).`,
      );
    }
    this.model = model;
    this.provider = model.provider;
    this.modelId = model.modelId;
    this.dimensions = positiveInteger('dimensions', options.dimensions, call);
    this.maxBatchSize =
      options.batchSize !== undefined
        ? positiveInteger('batchSize', options.batchSize, call)
        : (modelBatchLimit(model) ?? Number.POSITIVE_INFINITY);
    if (options.maxParallelCalls !== undefined)
      positiveInteger('maxParallelCalls', options.maxParallelCalls, call);
    checkMaxRetries(options.maxRetries, call);
    this.#settings = callSettings(options);
  }

  /** Names this model's calls in error messages. */
  get #target(): CallTarget {
    return { kind: 'embedding', provider: this.provider, modelId: this.modelId };
  }

  /**
   * Embed `values` in batches of `maxBatchSize` (one after another, each through `embedMany`) and
   * return the vectors in input order, with `usage.tokens` summed over the batches when the
   * provider reports it. Throws `ProviderError` (also for a vector whose length is not
   * `dimensions`), `AbortError` or `InvalidArgumentError`.
   */
  async doEmbed(options: EmbedCallOptions): Promise<EmbedResult> {
    const { values, abortSignal } = options;
    assertEmbedValues(values, PACKAGE, this.modelId);
    const aborted = () =>
      new AbortError(`${label(this.#target)} was aborted.`, { cause: abortSignal?.reason });
    if (abortSignal?.aborted) throw aborted();
    return embedInBatches(
      values,
      this.maxBatchSize,
      (batch, start) => this.#embedBatch(batch, start, abortSignal),
      {
        abortSignal,
        aborted,
      },
    );
  }

  /** One `embedMany` call for the values from `start`, checked: its vectors and its usage when reported. */
  async #embedBatch(
    batch: string[],
    start: number,
    abortSignal: AbortSignal | undefined,
  ): Promise<EmbedResult> {
    let result: Awaited<ReturnType<typeof embedMany>>;
    try {
      result = await embedMany({
        model: this.model,
        values: batch,
        ...this.#settings,
        ...(abortSignal !== undefined ? { abortSignal } : {}),
      });
    } catch (error) {
      throw mapAiSdkError(error, this.#target, abortSignal);
    }
    if (result.embeddings.length !== batch.length) {
      throw new ProviderError(
        this.provider,
        `${label(this.#target)} returned ${result.embeddings.length} embeddings for ${batch.length} values — check the provider and the model.`,
        { retryable: false },
      );
    }
    const embeddings = result.embeddings.map((vector, i) => {
      if (vector.length !== this.dimensions) {
        throw new ProviderError(
          this.provider,
          `${label(this.#target)} returned a vector of length ${vector.length} for value ${start + i}, expected ${this.dimensions} — set dimensions to the model's output size (await detectEmbeddingDimensions(model) finds it).`,
          { retryable: false },
        );
      }
      return Float32Array.from(vector);
    });
    // The AI SDK reports NaN tokens for a provider that sends no usage.
    const tokens = result.usage?.tokens;
    return typeof tokens === 'number' && Number.isFinite(tokens)
      ? { embeddings, usage: { tokens } }
      : { embeddings };
  }
}

/**
 * grag's {@link Embedder} on any Vercel AI SDK embedding model, so it serves every grag method.
 * `dimensions` is required (AI SDK models do not state their vector length); find it once with
 * {@link detectEmbeddingDimensions}. `maxBatchSize` is `options.batchSize`, else the model's
 * `maxEmbeddingsPerCall`. Usage (`tokens`) is returned in the result, so a metered wrapper counts it.
 *
 * Throws `InvalidArgumentError` (`argument: 'model'`, `'dimensions'`, `'batchSize'`,
 * `'maxParallelCalls'` or `'maxRetries'`) for a value that cannot be used.
 *
 * @example
 * ```ts
 * import { openai } from '@ai-sdk/openai';
 * const embedder = fromAiSdkEmbedding(openai.embedding('text-embedding-3-small'), { dimensions: 1536 });
 * ```
 */
export function fromAiSdkEmbedding(
  model: AiSdkEmbeddingModel,
  options: AiSdkEmbeddingOptions,
): AiSdkEmbedder {
  return new AiSdkEmbedder(model, options);
}

/**
 * The vector length of an AI SDK embedding model, found by embedding one short probe text (one
 * model call). Use it once, when the model's dimensions are not documented, and pass the result
 * to {@link fromAiSdkEmbedding}. Throws what `doEmbed` throws.
 *
 * @example
 * ```ts
 * const model = ollama.embedding('nomic-embed-text');
 * const embedder = fromAiSdkEmbedding(model, { dimensions: await detectEmbeddingDimensions(model) });
 * ```
 */
export async function detectEmbeddingDimensions(
  model: AiSdkEmbeddingModel,
  options: AiSdkEmbeddingCallOptions & { abortSignal?: AbortSignal } = {},
): Promise<number> {
  assertModel(model, 'detectEmbeddingDimensions', 'doEmbed');
  checkMaxRetries(options.maxRetries, 'detectEmbeddingDimensions(model, options)');
  const target: CallTarget = { kind: 'embedding', provider: model.provider, modelId: model.modelId };
  const { abortSignal } = options;
  return probeVectorLength(
    () =>
      embedMany({
        model,
        values: ['dimensions probe'],
        ...callSettings(options),
        ...(abortSignal !== undefined ? { abortSignal } : {}),
      }),
    {
      abortSignal,
      aborted: () => new AbortError(`${label(target)} was aborted.`, { cause: abortSignal?.reason }),
      failure: (error) => mapAiSdkError(error, target, abortSignal),
      lengthOf: (result) => result.embeddings[0]?.length ?? 0,
      none: () =>
        new ProviderError(
          model.provider,
          `${label(target)} returned no vector for the probe text — check the provider and the model.`,
          { retryable: false },
        ),
    },
  );
}
