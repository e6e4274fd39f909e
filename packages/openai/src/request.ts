import { AbortError, InvalidArgumentError, ProviderError } from '@grag/core';
import type OpenAI from 'openai';
import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import type { Semaphore } from './semaphore.js';

/** Provider name reported by every model of this package (`ChatModel.provider`, `Embedder.provider`). */
export const PROVIDER = 'openai';

/** Check the model id a factory was given; `call` names the factory in the message. */
export function assertModelId(modelId: unknown, call: 'chat' | 'embedding'): asserts modelId is string {
  if (typeof modelId !== 'string' || modelId.trim() === '') {
    throw new InvalidArgumentError(
      'modelId',
      `@grag/openai: ${call}(modelId): modelId must be a non-empty string.`,
    );
  }
}

/** How failed requests are retried. */
export interface RetryPolicy {
  /** Retries after the first attempt (so `maxRetries + 1` attempts at most). */
  maxRetries: number;
  /** Backoff cap of the first retry; doubles per retry (full jitter picks a delay in `[0, cap)`). */
  baseDelayMs: number;
  /** Largest delay between two attempts, also the cap on a server's `Retry-After`. */
  maxDelayMs: number;
}

/** What a model needs to send requests; shared by all models of one provider instance. */
export interface RequestRuntime {
  /** The SDK client (built on first use, so a missing API key surfaces at the first call). */
  client(): OpenAI;
  /** Bounds the requests in flight of the provider instance. */
  readonly limiter: Semaphore;
  readonly retry: RetryPolicy;
  /** Per-attempt timeout, covering the response headers and body. */
  readonly timeoutMs: number;
  /** Random source in `[0, 1)` for backoff jitter. */
  readonly random: () => number;
}

/** Names the call in error messages. */
export interface CallTarget {
  kind: 'chat' | 'embedding';
  modelId: string;
}

/** Options this package passes to every SDK request. */
export interface SdkRequestOptions {
  signal: AbortSignal;
  timeout: number;
  maxRetries: 0;
}

/** Sends one request through the SDK and resolves with the raw HTTP response (`.asResponse()`). */
export type SendRequest = (client: OpenAI, options: SdkRequestOptions) => Promise<Response>;

interface Failure {
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

/** HTTP statuses worth retrying: request timeout, conflict (lock timeout), rate limit, server errors. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

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

/**
 * Delay before retry number `retry` (0 for the first retry): exponential backoff with full jitter,
 * `random() * min(maxDelayMs, baseDelayMs * 2^retry)`.
 */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return random() * cap;
}

function oneLine(text: string, max = 240): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function label(target: CallTarget): string {
  return `@grag/openai: ${target.kind} request for model '${target.modelId}'`;
}

function statusHint(status: number, target: CallTarget, code: string | null | undefined): string {
  if (status === 401) return 'check OPENAI_API_KEY (or the apiKey setting of createOpenAI)';
  if (status === 403) return 'check that the API key, organization and project may use this model';
  if (status === 404) {
    return 'check the model id and the baseURL (OpenAI-compatible servers usually serve under /v1)';
  }
  if (status === 413) return 'send fewer or shorter inputs (lower batchSize)';
  if (status === 429 && code === 'insufficient_quota') return 'the account is out of quota; check billing';
  if (status === 429)
    return 'lower concurrency or raise maxRetries, and check the rate limits of the account';
  if (status === 400 || status === 422) {
    return target.kind === 'chat'
      ? 'check the request options; for a server that rejects response_format set jsonResponseFormat: false, for a model that needs max_completion_tokens set maxTokensParam'
      : 'check the inputs (empty or over the token limit) and dimensions (set sendDimensions: false for servers that reject it)';
  }
  if (isRetryableStatus(status))
    return 'the server is overloaded or failing; try again later or raise maxRetries';
  return 'check the request and the server logs';
}

function serverMessage(error: APIError): string {
  const status = error.status;
  const text =
    status !== undefined && error.message.startsWith(`${status} `)
      ? error.message.slice(String(status).length + 1)
      : error.message;
  return oneLine(text);
}

function classify(
  error: unknown,
  phase: 'request' | 'body',
  timedOut: boolean,
  timeoutMs: number,
  target: CallTarget,
): Failure {
  if (timedOut || error instanceof APIConnectionTimeoutError) {
    return {
      retryable: true,
      status: undefined,
      retryAfterMs: undefined,
      reason: `timed out after ${timeoutMs} ms`,
      hint: 'raise timeoutMs, or check that the server at baseURL is responsive',
      cause: error,
    };
  }
  if (error instanceof APIConnectionError) {
    const cause = (error as { cause?: unknown }).cause;
    const detail = cause instanceof Error ? `${cause.message}${causeCode(cause)}` : error.message;
    const code = cause instanceof Error ? codeOf(cause) : undefined;
    if (code !== undefined && DROPPED.has(code)) {
      // Connected, then the server or something on the way closed the connection.
      return {
        retryable: true,
        status: undefined,
        retryAfterMs: undefined,
        reason: `lost the connection before the response arrived (${oneLine(detail, 160)})`,
        hint: 'check the network and the server at baseURL',
        cause: error,
      };
    }
    return {
      retryable: true,
      status: undefined,
      retryAfterMs: undefined,
      reason: `could not connect (${oneLine(detail, 160)})`,
      hint: 'check the baseURL and that the server is running',
      cause: error,
    };
  }
  if (error instanceof APIError && typeof error.status === 'number') {
    const status = error.status;
    const quota = status === 429 && error.code === 'insufficient_quota';
    return {
      retryable: isRetryableStatus(status) && !quota,
      status,
      retryAfterMs: parseRetryAfter(error.headers),
      reason: `failed with HTTP ${status}: ${serverMessage(error)}`,
      hint: statusHint(status, target, error.code),
      cause: error,
    };
  }
  if (phase === 'body') {
    // The connection broke while the body was streaming in (reset, truncated chunked encoding).
    const message = error instanceof Error ? `${error.message}${causeCode(error)}` : String(error);
    return {
      retryable: true,
      status: undefined,
      retryAfterMs: undefined,
      reason: `lost the connection while reading the response (${oneLine(message, 160)})`,
      hint: 'check the network and the server at baseURL',
      cause: error,
    };
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

function abortError(target: CallTarget, signal: AbortSignal): AbortError {
  return new AbortError(`${label(target)} was aborted.`, { cause: signal.reason });
}

function sleep(ms: number, signal: AbortSignal | undefined, target: CallTarget): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortError(target, signal));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(target, signal as AbortSignal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

type AttemptOutcome = { ok: true; body: string } | { ok: false; failure: Failure };

async function attempt(
  runtime: RequestRuntime,
  client: OpenAI,
  send: SendRequest,
  target: CallTarget,
  signal: AbortSignal | undefined,
): Promise<AttemptOutcome> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error(`timed out after ${runtime.timeoutMs} ms`));
  }, runtime.timeoutMs);
  const onAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  let phase: 'request' | 'body' = 'request';
  try {
    const response = await send(client, {
      signal: controller.signal,
      timeout: runtime.timeoutMs,
      maxRetries: 0,
    });
    phase = 'body';
    return { ok: true, body: await response.text() };
  } catch (error) {
    if (signal?.aborted) throw abortError(target, signal);
    return { ok: false, failure: classify(error, phase, timedOut, runtime.timeoutMs, target) };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * Send a request with this package's retry policy and resolve with what `read` makes of the
 * response body.
 *
 * - Each attempt holds one permit of the provider's semaphore (released during backoff).
 * - Retries 408, 409, 429, 5xx, connection errors, timeouts, bodies cut off in transit, and 2xx
 *   bodies that are not JSON (`read` throws a retryable {@link malformedResponse}), waiting
 *   `Retry-After` / `retry-after-ms` when the server sends it (capped at `maxDelayMs`), else
 *   exponential backoff with full jitter.
 * - Throws {@link ProviderError} (`retryable: false`) at once for any other status and for a JSON
 *   body of the wrong shape, and (`retryable: true`) when the retries are used up;
 *   {@link AbortError} when `signal` aborts.
 */
export async function sendWithRetry<T>(
  runtime: RequestRuntime,
  target: CallTarget,
  send: SendRequest,
  signal: AbortSignal | undefined,
  read: (body: string) => T,
): Promise<T> {
  if (signal?.aborted) throw abortError(target, signal);
  const client = runtime.client();
  const attempts = runtime.retry.maxRetries + 1;
  for (let n = 1; ; n++) {
    const release = await runtime.limiter.acquire(signal).catch((error: unknown) => {
      throw signal?.aborted ? abortError(target, signal) : error;
    });
    let outcome: AttemptOutcome;
    try {
      outcome = await attempt(runtime, client, send, target, signal);
    } finally {
      release();
    }
    let failure: Failure;
    if (outcome.ok) {
      const body = readBody(outcome.body, read);
      if (body.ok) return body.value;
      failure = body.failure;
    } else {
      failure = outcome.failure;
    }
    if (!failure.retryable) {
      throw new ProviderError(PROVIDER, `${label(target)} ${failure.reason} — ${failure.hint}.`, {
        status: failure.status,
        retryable: false,
        cause: failure.cause,
      });
    }
    if (n >= attempts) {
      const tries = attempts === 1 ? '1 attempt' : `${attempts} attempts`;
      throw new ProviderError(
        PROVIDER,
        `${label(target)} failed after ${tries} (last: ${failure.reason}) — ${failure.hint}.`,
        { status: failure.status, retryable: true, cause: failure.cause },
      );
    }
    const delay =
      failure.retryAfterMs !== undefined
        ? Math.min(failure.retryAfterMs, runtime.retry.maxDelayMs)
        : backoffDelay(n - 1, runtime.retry, runtime.random);
    await sleep(delay, signal, target);
  }
}

/** Reason and hint of each retryable {@link malformedResponse}, for the message after the last attempt. */
const malformedDetails = new WeakMap<object, { reason: string; hint: string }>();

/**
 * Apply `read` to a 2xx body. A retryable {@link malformedResponse} it throws becomes a retryable
 * failure; any other error is thrown as it is.
 */
function readBody<T>(
  body: string,
  read: (body: string) => T,
): { ok: true; value: T } | { ok: false; failure: Failure } {
  try {
    return { ok: true, value: read(body) };
  } catch (error) {
    const detail = typeof error === 'object' && error !== null ? malformedDetails.get(error) : undefined;
    if (!detail) throw error;
    return {
      ok: false,
      failure: { retryable: true, status: undefined, retryAfterMs: undefined, ...detail, cause: error },
    };
  }
}

const MALFORMED_HINT = 'check that baseURL points to an OpenAI-compatible API (usually ending in /v1)';

/**
 * A {@link ProviderError} for a response that arrived (HTTP 2xx) but cannot be used: not JSON, or
 * missing the fields the contract needs. With `retryable` (a body that is not JSON: cut short or
 * garbled on the way, or an error page of a proxy) {@link sendWithRetry} tries again.
 */
export function malformedResponse(
  target: CallTarget,
  problem: string,
  body: string,
  retryable = false,
): ProviderError {
  const reason = `returned a malformed response (${problem}; body starts ${JSON.stringify(oneLine(body, 80))})`;
  const error = new ProviderError(PROVIDER, `${label(target)} ${reason} — ${MALFORMED_HINT}.`, { retryable });
  if (retryable) malformedDetails.set(error, { reason, hint: MALFORMED_HINT });
  return error;
}

/** Parse a response body as JSON, or throw a retryable {@link malformedResponse}. */
export function parseJsonBody(target: CallTarget, body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    throw malformedResponse(target, 'not JSON', body, true);
  }
}
