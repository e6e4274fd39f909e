/**
 * What went wrong with one attempt of a request, classified: retryable or not, the HTTP status,
 * the delay a server asked for, a one-line reason and what the user can do about it.
 */
import { isRetryableStatus, oneLine, statusHint } from '@grag/core/kit';
import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';

/** Names the call in error messages. */
export interface CallTarget {
  kind: 'chat' | 'embedding';
  modelId: string;
}

/** HTTP statuses worth retrying: request timeout, conflict (lock timeout), rate limit, server errors (core's). */
export { isRetryableStatus };

/**
 * The delay a server asks for in `retry-after-ms` (milliseconds) or `Retry-After` (seconds or an
 * HTTP date), in milliseconds; `undefined` when neither header is present or parseable.
 */
export function parseRetryAfter(headers: Headers | undefined, now: number = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '') {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const raw = headers.get('retry-after');
  if (raw === null || raw.trim() === '') return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(raw);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** @internal A failed attempt, classified. */
export interface Failure {
  retryable: boolean;
  status: number | undefined;
  /** Server-requested delay before the next attempt. */
  retryAfterMs: number | undefined;
  /** What went wrong, without the provider/model prefix. */
  reason: string;
  /** What the user can do about it. */
  hint: string;
  cause: unknown;
}

/** @internal `text` on one line, cut to `max` characters (core's). */
export { oneLine };

/** @internal `@grag/openai: <kind> request for model '<id>'`, the start of every message. */
export function label(target: CallTarget): string {
  return `@grag/openai: ${target.kind} request for model '${target.modelId}'`;
}

function hintOf(status: number, target: CallTarget, code: string | null | undefined): string {
  if (status === 429 && code === 'insufficient_quota') return 'the account is out of quota; check billing';
  return statusHint(status, {
    unauthorized: 'check OPENAI_API_KEY (or the apiKey setting of createOpenAI)',
    forbidden: 'check that the API key, organization and project may use this model',
    notFound: 'check the model id and the baseURL (OpenAI-compatible servers usually serve under /v1)',
    tooLarge: 'send fewer or shorter inputs (lower batchSize)',
    rateLimited: 'lower concurrency or raise maxRetries, and check the rate limits of the account',
    badRequest:
      target.kind === 'chat'
        ? 'check the request options; for a server that rejects response_format set jsonResponseFormat: false, for a model that needs max_completion_tokens set maxTokensParam'
        : 'check the inputs (empty or over the token limit) and dimensions (set sendDimensions: false for servers that reject it)',
    overloaded: 'the server is overloaded or failing; try again later or raise maxRetries',
    other: 'check the request and the server logs',
  });
}

function serverMessage(error: APIError): string {
  const status = error.status;
  const text =
    status !== undefined && error.message.startsWith(`${status} `)
      ? error.message.slice(String(status).length + 1)
      : error.message;
  return oneLine(text);
}

/** A failure without an HTTP status that a retry may get past (a timeout, a lost connection). */
function retryableFailure(reason: string, hint: string, cause: unknown): Failure {
  return { retryable: true, status: undefined, retryAfterMs: undefined, reason, hint, cause };
}

/** @internal Classify what an attempt threw: retryable or not, status, reason and hint. */
export function classify(
  error: unknown,
  phase: 'request' | 'body',
  timedOut: boolean,
  timeoutMs: number,
  target: CallTarget,
): Failure {
  if (timedOut || error instanceof APIConnectionTimeoutError) {
    return retryableFailure(
      `timed out after ${timeoutMs} ms`,
      'raise timeoutMs, or check that the server at baseURL is responsive',
      error,
    );
  }
  if (error instanceof APIConnectionError) {
    const cause = (error as { cause?: unknown }).cause;
    const detail = cause instanceof Error ? `${cause.message}${causeCode(cause)}` : error.message;
    const code = cause instanceof Error ? codeOf(cause) : undefined;
    if (code !== undefined && DROPPED.has(code)) {
      // Connected, then the server or something on the way closed the connection.
      return retryableFailure(
        `lost the connection before the response arrived (${oneLine(detail, 160)})`,
        'check the network and the server at baseURL',
        error,
      );
    }
    return retryableFailure(
      `could not connect (${oneLine(detail, 160)})`,
      'check the baseURL and that the server is running',
      error,
    );
  }
  if (error instanceof APIError && typeof error.status === 'number') {
    const status = error.status;
    const quota = status === 429 && error.code === 'insufficient_quota';
    return {
      retryable: isRetryableStatus(status) && !quota,
      status,
      retryAfterMs: parseRetryAfter(error.headers),
      reason: `failed with HTTP ${status}: ${serverMessage(error)}`,
      hint: hintOf(status, target, error.code),
      cause: error,
    };
  }
  if (phase === 'body') {
    // The connection broke while the body was streaming in (reset, truncated chunked encoding).
    const message = error instanceof Error ? `${error.message}${causeCode(error)}` : String(error);
    return retryableFailure(
      `lost the connection while reading the response (${oneLine(message, 160)})`,
      'check the network and the server at baseURL',
      error,
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return {
    retryable: false,
    status: undefined,
    retryAfterMs: undefined,
    reason: `failed: ${oneLine(message, 160)}`,
    hint: 'check the settings passed to createOpenAI (fetch, headers, baseURL)',
    cause: error,
  };
}

/** Error codes of a connection that was open and then dropped (as opposed to refused or unresolved). */
const DROPPED = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

/** The `code` of an error's cause (`'ECONNRESET'`, `'UND_ERR_SOCKET'`), if any. */
function codeOf(error: Error): string | undefined {
  const cause = (error as { cause?: unknown }).cause;
  if (cause && typeof cause === 'object' && 'code' in cause && typeof cause.code === 'string') {
    return cause.code;
  }
  return undefined;
}

/** ` [CODE]` of an error's cause, or `''`. */
function causeCode(error: Error): string {
  const code = codeOf(error);
  return code === undefined ? '' : ` [${code}]`;
}
