import {
  AbortError,
  type EmbedCallOptions,
  type Embedder,
  type EmbedResult,
  InvalidArgumentError,
  ProviderError,
} from '@grag/core';
import { assertEmbedValues, embeddingBatches, positiveIntegerSetting } from '@grag/core/kit';
import type OpenAI from 'openai';
import {
  assertModelId,
  type CallTarget,
  malformedResponse,
  PROVIDER,
  parseJsonBody,
  type RequestRuntime,
  sendWithRetry,
} from './request.js';

/** Settings of one embedding model (`provider.embedding(modelId, settings)`). */
export interface OpenAIEmbeddingSettings {
  /**
   * Length of the vectors. Required unless `modelId` is in {@link KNOWN_EMBEDDING_DIMENSIONS}; for
   * `text-embedding-3-*` a smaller value shortens the vectors server-side.
   */
  dimensions?: number;
  /** Largest number of inputs per request; `doEmbed` splits larger calls itself. @default 256 */
  batchSize?: number;
  /**
   * Send `dimensions` in the request. Only `text-embedding-3-*` models accept it on OpenAI; turn it
   * on for other servers that do.
   * @default true for models whose id starts with `text-embedding-3`, false otherwise
   */
  sendDimensions?: boolean;
}

/** Defaults of {@link OpenAIEmbeddingSettings}. */
export const OPENAI_EMBEDDING_DEFAULTS = {
  batchSize: 256,
} as const;

/** Native output sizes of OpenAI's embedding models. */
export const KNOWN_EMBEDDING_DIMENSIONS: Readonly<Record<string, number>> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
};

type EmbeddingParams = OpenAI.EmbeddingCreateParams;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function positiveInteger(name: string, value: number, modelId: string): number {
  return positiveIntegerSetting(name, value, `@grag/openai: embedding('${modelId}')`);
}

/**
 * {@link Embedder} on an OpenAI-compatible `/embeddings` endpoint. Create it with
 * `createOpenAI(settings).embedding(modelId, { dimensions })`; retries, timeout and concurrency come
 * from the provider. Batches of one `doEmbed` call run concurrently within the provider's limit.
 */
export class OpenAIEmbedder implements Embedder {
  readonly specificationVersion = 'v1' as const;
  readonly provider = PROVIDER;
  readonly modelId: string;
  readonly dimensions: number;
  readonly maxBatchSize: number;
  /** Whether requests carry `dimensions`. */
  readonly sendDimensions: boolean;
  readonly #runtime: RequestRuntime;

  /** @internal Use `createOpenAI().embedding(modelId, settings)`. */
  constructor(modelId: string, settings: OpenAIEmbeddingSettings | undefined, runtime: RequestRuntime) {
    assertModelId(modelId, 'embedding');
    this.modelId = modelId;
    const dimensions = settings?.dimensions ?? KNOWN_EMBEDDING_DIMENSIONS[modelId];
    if (dimensions === undefined) {
      throw new InvalidArgumentError(
        'dimensions',
        `@grag/openai: embedding('${modelId}'): the output size of this model is unknown — pass it, e.g. embedding('${modelId}', { dimensions: 768 }).`,
      );
    }
    this.dimensions = positiveInteger('dimensions', dimensions, modelId);
    this.maxBatchSize = positiveInteger(
      'batchSize',
      settings?.batchSize ?? OPENAI_EMBEDDING_DEFAULTS.batchSize,
      modelId,
    );
    this.sendDimensions = settings?.sendDimensions ?? modelId.startsWith('text-embedding-3');
    this.#runtime = runtime;
  }

  /** The request body sent for one batch. */
  requestBody(batch: string[]): EmbeddingParams {
    // 'float' because the SDK otherwise asks for base64, which not every compatible server speaks.
    const body: EmbeddingParams = { model: this.modelId, input: batch, encoding_format: 'float' };
    if (this.sendDimensions) body.dimensions = this.dimensions;
    return body;
  }

  /**
   * Embed `values` in batches of `maxBatchSize` (run concurrently within the provider's limit) and
   * return the vectors in input order. Throws `ProviderError`, `AbortError` or `InvalidArgumentError`.
   */
  async doEmbed(options: EmbedCallOptions): Promise<EmbedResult> {
    const { values, abortSignal } = options;
    assertEmbedValues(values, '@grag/openai', this.modelId);
    if (abortSignal?.aborted) throw this.#aborted(abortSignal);
    if (values.length === 0) return { embeddings: [], usage: { tokens: 0 } };

    const batches = embeddingBatches(values, this.maxBatchSize);
    if (batches.length === 1) return this.#embedBatch(batches[0]!, abortSignal);

    // One failed batch cancels its siblings; the first error is the one reported.
    const group = new AbortController();
    const onAbort = () => group.abort(abortSignal?.reason);
    abortSignal?.addEventListener('abort', onAbort, { once: true });
    try {
      const results = await Promise.all(
        batches.map((batch) =>
          this.#embedBatch(batch, group.signal).catch((error: unknown) => {
            group.abort(error);
            throw abortSignal?.aborted ? this.#aborted(abortSignal) : error;
          }),
        ),
      );
      const embeddings: Float32Array[] = [];
      let tokens: number | undefined;
      for (const result of results) {
        embeddings.push(...result.embeddings);
        if (result.usage) tokens = (tokens ?? 0) + result.usage.tokens;
      }
      return tokens === undefined ? { embeddings } : { embeddings, usage: { tokens } };
    } finally {
      abortSignal?.removeEventListener('abort', onAbort);
    }
  }

  #aborted(signal: AbortSignal): AbortError {
    return new AbortError(`@grag/openai: embedding request for model '${this.modelId}' was aborted.`, {
      cause: signal.reason,
    });
  }

  async #embedBatch(batch: string[], signal: AbortSignal | undefined): Promise<EmbedResult> {
    const target: CallTarget = { kind: 'embedding', modelId: this.modelId };
    const body = this.requestBody(batch);
    return sendWithRetry(
      this.#runtime,
      target,
      (client, request) => client.embeddings.create(body, request).asResponse(),
      signal,
      (raw) => parseEmbeddingResponse(target, raw, batch.length, this.dimensions),
    );
  }
}

function decodeBase64Floats(text: string): Float32Array {
  const bytes = Buffer.from(text, 'base64');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(Math.floor(bytes.byteLength / 4));
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}

/**
 * Read the vectors of an `/embeddings` response body, in input order (by each item's `index`), and
 * check their count and length. Throws `ProviderError`: `retryable: true` for a body that is not
 * JSON, `false` for JSON of the wrong shape.
 */
export function parseEmbeddingResponse(
  target: CallTarget,
  raw: string,
  count: number,
  dimensions: number,
): EmbedResult {
  const json = parseJsonBody(target, raw);
  if (!isRecord(json)) throw malformedResponse(target, 'not a JSON object', raw);
  const data = json['data'];
  if (!Array.isArray(data)) throw malformedResponse(target, 'no `data` array', raw);
  if (data.length !== count) {
    throw malformedResponse(target, `${data.length} embeddings for ${count} inputs`, raw);
  }
  const embeddings = new Array<Float32Array | undefined>(count);
  data.forEach((item: unknown, position) => {
    if (!isRecord(item)) throw malformedResponse(target, `data[${position}] is not an object`, raw);
    const index = item['index'] === undefined ? position : item['index'];
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count) {
      throw malformedResponse(
        target,
        `data[${position}].index ${JSON.stringify(index)} is out of range`,
        raw,
      );
    }
    if (embeddings[index] !== undefined) {
      throw malformedResponse(target, `index ${index} appears twice`, raw);
    }
    const vector = item['embedding'];
    let values: Float32Array;
    if (typeof vector === 'string') {
      values = decodeBase64Floats(vector);
    } else if (Array.isArray(vector) && vector.every((x) => typeof x === 'number')) {
      values = Float32Array.from(vector as number[]);
    } else {
      throw malformedResponse(target, `data[${position}].embedding is not an array of numbers`, raw);
    }
    if (values.length !== dimensions) {
      throw new ProviderError(
        PROVIDER,
        `@grag/openai: embedding request for model '${target.modelId}' returned a vector of length ${values.length} for input ${index}, expected ${dimensions} — set dimensions to the model's output size.`,
        { retryable: false },
      );
    }
    embeddings[index] = values;
  });
  const result: EmbedResult = { embeddings: embeddings as Float32Array[] };
  const usage = json['usage'];
  if (isRecord(usage)) {
    const tokens = usage['prompt_tokens'] ?? usage['total_tokens'];
    if (typeof tokens === 'number') result.usage = { tokens };
  }
  return result;
}
