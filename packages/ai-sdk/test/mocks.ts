/** Results and errors for the AI SDK's mock models (`ai/test`), in the provider spec's shapes. */
import type {
  EmbeddingModelV3Result,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
} from '@ai-sdk/provider';
import { APICallError } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';

/** A `doGenerate` result of one text part: the same shape in the V3 and V4 specifications. */
export type TextResult = Omit<LanguageModelV3GenerateResult, 'content'> & {
  content: { type: 'text'; text: string }[];
};

/** A `doGenerate` result with one text part. `usage: null` leaves both token counts unknown. */
export function textResult(
  text: string,
  usage: { input: number; output: number } | null = { input: 12, output: 5 },
  finish: LanguageModelV3GenerateResult['finishReason']['unified'] = 'stop',
): TextResult {
  return {
    content: [{ type: 'text', text }],
    finishReason: { unified: finish, raw: finish },
    usage: v3Usage(usage),
    warnings: [],
  };
}

/** Token usage in the V3 specification's shape (no cached or reasoning tokens); `null`: unknown. */
export function v3Usage(
  usage: { input: number; output: number } | null,
): LanguageModelV3GenerateResult['usage'] {
  return {
    inputTokens: { total: usage?.input, noCache: usage?.input, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: usage?.output, text: usage?.output, reasoning: undefined },
  };
}

/**
 * A mock model whose stream writes `delta` and then waits for its abort signal, and on abort does
 * `onAbort` with the stream's controller and the abort reason (error the stream, or close it).
 */
export function stalledModel(
  delta: string,
  onAbort: (c: ReadableStreamDefaultController<LanguageModelV3StreamPart>, reason: unknown) => void,
): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    doStream: async ({ abortSignal }) => ({
      stream: new ReadableStream<LanguageModelV3StreamPart>({
        async start(c) {
          c.enqueue({ type: 'stream-start', warnings: [] });
          c.enqueue({ type: 'text-start', id: 't1' });
          c.enqueue({ type: 'text-delta', id: 't1', delta });
          await untilAborted(abortSignal).catch((reason: unknown) => onAbort(c, reason));
        },
      }),
    }),
  });
}

/** A V3 `doEmbed` result: vector `[length of the value, index in the batch, 1]` per value. */
export function embedResult(values: string[], tokens: number | undefined): EmbeddingModelV3Result {
  return {
    embeddings: values.map((v, i) => [v.length, i, 1]),
    ...(tokens !== undefined ? { usage: { tokens } } : {}),
    warnings: [],
  };
}

/** An HTTP error as an AI SDK provider throws it; `retry-after-ms: 1` keeps the AI SDK's backoff short. */
export function httpError(status: number, message: string, retryable = status === 429 || status >= 500) {
  return new APICallError({
    message,
    url: 'http://127.0.0.1/v1/chat/completions',
    requestBodyValues: {},
    statusCode: status,
    responseHeaders: { 'retry-after-ms': '1' },
    responseBody: JSON.stringify({ error: { message } }),
    isRetryable: retryable,
  });
}

/** A promise that rejects with the signal's reason when it aborts, and never resolves otherwise. */
export function untilAborted(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_, reject) => {
    signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}
