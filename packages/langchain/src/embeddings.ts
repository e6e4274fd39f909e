import {
  type EmbedCallOptions,
  type Embedder,
  type EmbedResult,
  InvalidArgumentError,
  ProviderError,
} from '@grag/core';
import { assertEmbedValues, embedInBatches, probeVectorLength } from '@grag/core/kit';
import { abortable, abortError, callFailure, describe, PROVIDER } from './errors.js';

/**
 * What {@link fromLangChainEmbeddings} accepts: a LangChain `Embeddings` (`OpenAIEmbeddings`,
 * `OllamaEmbeddings`, `HuggingFaceTransformersEmbeddings`, …) or anything with its
 * `embedDocuments(texts): Promise<number[][]>`.
 */
export interface LangChainEmbeddingsLike {
  embedDocuments(documents: string[]): Promise<number[][]>;
}

/** Settings of {@link fromLangChainEmbeddings} and {@link probeLangChainEmbeddings}. */
export interface LangChainEmbeddingsSettings {
  /**
   * Length of every vector; checked on each call. @default the embeddings object's own numeric
   * `dimensions` field when it has one (e.g. `new OpenAIEmbeddings({ dimensions: 512 })`);
   * otherwise required, or learn it with {@link probeLangChainEmbeddings}.
   */
  dimensions?: number;
  /**
   * Model id for the meter and the index's provider fingerprint (`langchain:<modelId>:<dimensions>`,
   * checked when an index is loaded). @default the object's `model` / `modelName` field, else its
   * class name
   */
  modelId?: string;
  /** Provider name in fingerprints and the meter. @default 'langchain' */
  provider?: string;
  /**
   * Values per `embedDocuments` call (`maxBatchSize`): grag splits larger batches and checks for an
   * abort between them; the LangChain class batches again inside a call as it is configured to.
   * @default 256
   */
  batchSize?: number;
}

/** Default {@link LangChainEmbeddingsSettings.batchSize}. */
export const LANGCHAIN_EMBEDDING_BATCH_SIZE = 256;

/** The text embedded by {@link probeLangChainEmbeddings} to learn the vector length. */
export const DIMENSION_PROBE_TEXT = 'dimension probe';

function isPositiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0;
}

function inferModelId(embeddings: object): string {
  const e = embeddings as { model?: unknown; modelName?: unknown };
  for (const candidate of [e.model, e.modelName, embeddings.constructor?.name]) {
    if (typeof candidate === 'string' && candidate.length > 0 && candidate !== 'Object') return candidate;
  }
  return 'unknown';
}

function checkEmbeddings(embeddings: unknown, caller: string): asserts embeddings is LangChainEmbeddingsLike {
  if (
    typeof embeddings !== 'object' ||
    embeddings === null ||
    typeof (embeddings as { embedDocuments?: unknown }).embedDocuments !== 'function'
  ) {
    throw new InvalidArgumentError(
      'embeddings',
      `@grag/langchain: ${caller} needs a LangChain Embeddings (with \`embedDocuments\`), e.g. \`new OpenAIEmbeddings()\`; got ${describe(embeddings)}.`,
    );
  }
}

/** A grag {@link Embedder} on a LangChain.js `Embeddings`. Create it with {@link fromLangChainEmbeddings}. */
export class LangChainEmbedder implements Embedder {
  readonly specificationVersion = 'v1' as const;
  readonly provider: string;
  readonly modelId: string;
  readonly dimensions: number;
  /** Values per `embedDocuments` call (see {@link LangChainEmbeddingsSettings.batchSize}). */
  readonly maxBatchSize: number;
  /** The LangChain embeddings called. */
  readonly embeddings: LangChainEmbeddingsLike;

  constructor(embeddings: LangChainEmbeddingsLike, settings: LangChainEmbeddingsSettings = {}) {
    checkEmbeddings(embeddings, 'fromLangChainEmbeddings');
    const own = (embeddings as { dimensions?: unknown }).dimensions;
    const dimensions = settings.dimensions ?? (isPositiveInteger(own) ? own : undefined);
    if (dimensions === undefined) {
      throw new InvalidArgumentError(
        'dimensions',
        '@grag/langchain: fromLangChainEmbeddings needs `dimensions` (the vector length of the model), e.g. `fromLangChainEmbeddings(embeddings, { dimensions: 1536 })`, or learn it with `await probeLangChainEmbeddings(embeddings)`.',
      );
    }
    if (!isPositiveInteger(dimensions)) {
      throw new InvalidArgumentError(
        'dimensions',
        `@grag/langchain: fromLangChainEmbeddings \`dimensions\` must be a positive integer (got ${describe(dimensions)}).`,
      );
    }
    const batchSize = settings.batchSize ?? LANGCHAIN_EMBEDDING_BATCH_SIZE;
    if (!isPositiveInteger(batchSize) && batchSize !== Number.POSITIVE_INFINITY) {
      throw new InvalidArgumentError(
        'batchSize',
        `@grag/langchain: fromLangChainEmbeddings \`batchSize\` must be a positive integer or Infinity (got ${describe(batchSize)}).`,
      );
    }
    this.embeddings = embeddings;
    this.dimensions = dimensions;
    this.maxBatchSize = batchSize;
    this.provider = settings.provider ?? PROVIDER;
    this.modelId = settings.modelId ?? inferModelId(embeddings);
  }

  /**
   * `embedDocuments(values)` of the LangChain embeddings, as `Float32Array`s in input order (no
   * usage: LangChain reports none, so a metered embedder counts tokens with its tokenizer). Throws
   * `ProviderError` when the call fails or answers the wrong number or length of vectors,
   * `AbortError` when `abortSignal` aborts (LangChain's `embedDocuments` takes no signal: the call
   * is abandoned, not cancelled).
   */
  async doEmbed(options: EmbedCallOptions): Promise<EmbedResult> {
    const { values, abortSignal: signal } = options ?? ({} as EmbedCallOptions);
    assertEmbedValues(values, '@grag/langchain', this.modelId);
    const what = `embedding call to model '${this.modelId}'`;
    // Callers split by maxBatchSize (embedAll does); a larger call is split here rather than refused.
    const { embeddings } = await embedInBatches(
      values,
      this.maxBatchSize,
      async (batch, start) => {
        let vectors: unknown;
        try {
          vectors = await abortable(this.embeddings.embedDocuments(batch), signal, what);
        } catch (error) {
          throw callFailure(what, error, signal);
        }
        return { embeddings: this.#check(vectors, batch.length, start, what) };
      },
      { abortSignal: signal, aborted: () => abortError(what, signal!) },
    );
    if (signal?.aborted) throw abortError(what, signal);
    return { embeddings };
  }

  #check(vectors: unknown, count: number, offset: number, what: string): Float32Array[] {
    const fail = (problem: string) =>
      new ProviderError(
        this.provider,
        `@grag/langchain: ${what} ${problem} — check the embeddings class and the \`dimensions\` given to fromLangChainEmbeddings.`,
      );
    if (!Array.isArray(vectors)) throw fail(`answered ${describe(vectors)}, not an array of vectors`);
    if (vectors.length !== count) throw fail(`answered ${vectors.length} vectors for ${count} values`);
    return vectors.map((vector: unknown, j) => {
      const i = offset + j;
      if (!Array.isArray(vector) && !ArrayBuffer.isView(vector))
        throw fail(`answered ${describe(vector)} as vector ${i}`);
      const row = Float32Array.from(vector as ArrayLike<number>);
      if (row.length !== this.dimensions) {
        throw fail(
          `answered a vector of length ${row.length} (value ${i}), not the ${this.dimensions} dimensions expected`,
        );
      }
      if (!row.every(Number.isFinite)) throw fail(`answered a vector with a non-finite number (value ${i})`);
      return row;
    });
  }
}

/**
 * A LangChain.js `Embeddings` as a grag {@link Embedder}, so it builds and queries every dense
 * grag index. `dimensions` is given (or read from the object's own `dimensions` field) and checked
 * against every vector; to learn it from the model instead, use {@link probeLangChainEmbeddings}.
 * Every value is embedded with `embedDocuments` (grag's `Embedder` does not tell queries from
 * documents).
 */
export function fromLangChainEmbeddings(
  embeddings: LangChainEmbeddingsLike,
  settings: LangChainEmbeddingsSettings = {},
): LangChainEmbedder {
  return new LangChainEmbedder(embeddings, settings);
}

/**
 * {@link fromLangChainEmbeddings} with `dimensions` learned by embedding one short text
 * ({@link DIMENSION_PROBE_TEXT}) when `settings.dimensions` is not given — one model call at
 * creation. Throws `ProviderError` when that call fails or answers no vector.
 */
export async function probeLangChainEmbeddings(
  embeddings: LangChainEmbeddingsLike,
  settings: LangChainEmbeddingsSettings & { abortSignal?: AbortSignal } = {},
): Promise<LangChainEmbedder> {
  const { abortSignal, ...rest } = settings;
  if (rest.dimensions !== undefined) return fromLangChainEmbeddings(embeddings, rest);
  checkEmbeddings(embeddings, 'probeLangChainEmbeddings');
  const modelId = rest.modelId ?? inferModelId(embeddings);
  const what = `dimension probe of embedding model '${modelId}'`;
  const length = await probeVectorLength(
    (): Promise<unknown> => abortable(embeddings.embedDocuments([DIMENSION_PROBE_TEXT]), abortSignal, what),
    {
      abortSignal,
      aborted: () => abortError(what, abortSignal!),
      failure: (error) => callFailure(what, error, abortSignal),
      lengthOf: (probe) => {
        const first = Array.isArray(probe) ? (probe[0] as unknown) : undefined;
        return Array.isArray(first) || ArrayBuffer.isView(first) ? (first as ArrayLike<number>).length : 0;
      },
      none: (probe) =>
        new ProviderError(
          rest.provider ?? PROVIDER,
          `@grag/langchain: ${what} answered ${describe(probe)}, not a vector — pass \`dimensions\` to fromLangChainEmbeddings instead.`,
        ),
    },
  );
  return fromLangChainEmbeddings(embeddings, { ...rest, dimensions: length });
}
