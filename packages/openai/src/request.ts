import { AbortError, InvalidArgumentError, ProviderError } from '@grag/core';
import type OpenAI from 'openai';
import {
  type CallTarget,
  classify,
  type Failure,
  isRetryableStatus,
  label,
  oneLine,
  parseRetryAfter,
} from './failure.js';
import type { Semaphore } from './semaphore.js';

/** Provider name reported by every model of this package (`ChatModel.provider`, `Embedder.provider`). */
export const PROVIDER = 'openai';

export { type CallTarget, classify, type Failure, isRetryableStatus, label, oneLine, parseRetryAfter };

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

/** Options this package passes to every SDK request. */
export interface SdkRequestOptions {
  signal: AbortSignal;
  timeout: number;
  maxRetries: 0;
}

/** Sends one request through the SDK and resolves with the raw HTTP response (`.asResponse()`). */
export type SendRequest = (client: OpenAI, options: SdkRequestOptions) => Promise<Response>;

/**
 * Delay before retry number `retry` (0 for the first retry): exponential backoff with full jitter,
 * `random() * min(maxDelayMs, baseDelayMs * 2^retry)`.
 */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return random() * cap;
}

/** @internal The {@link AbortError} of a call aborted by its caller. */
export function abortError(target: CallTarget, signal: AbortSignal): AbortError {
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

/**
 * One attempt: the request and its whole body within `runtime.timeoutMs`. A failure is classified
 * (see {@link classify}); `signal` aborting throws an {@link AbortError}.
 */
async function attempt(
  runtime: RequestRuntime,
  client: OpenAI,
  send: SendRequest,
  target: CallTarget,
  signal: AbortSignal | undefined,
): Promise<AttemptOutcome> {
  const deadline = attemptDeadline(runtime, signal);
  let phase: 'request' | 'body' = 'request';
  try {
    const response = await send(client, {
      signal: deadline.controller.signal,
      timeout: runtime.timeoutMs,
      maxRetries: 0,
    });
    phase = 'body';
    return { ok: true, body: await response.text() };
  } catch (error) {
    if (signal?.aborted) throw abortError(target, signal);
    return { ok: false, failure: classify(error, phase, deadline.timedOut(), runtime.timeoutMs, target) };
  } finally {
    deadline.clearTimer();
    deadline.detach();
  }
}

/** The abort controller of one attempt, and what {@link attemptDeadline} set up around it. */
export interface AttemptDeadline {
  /** Aborted when `runtime.timeoutMs` passes or the caller's signal aborts. */
  controller: AbortController;
  /** Whether the timeout (not the caller) aborted the attempt. */
  timedOut(): boolean;
  /** Stops the timeout. */
  clearTimer(): void;
  /** Removes the listener on the caller's signal. */
  detach(): void;
}

/**
 * One attempt's abort controller: aborted after `runtime.timeoutMs`, and when `signal` aborts. The
 * caller clears the timer and detaches the listener when it is done (a stream keeps the listener
 * while its body is read).
 */
export function attemptDeadline(runtime: RequestRuntime, signal: AbortSignal | undefined): AttemptDeadline {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error(`timed out after ${runtime.timeoutMs} ms`));
  }, runtime.timeoutMs);
  const onAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  return {
    controller,
    timedOut: () => timedOut,
    clearTimer: () => clearTimeout(timer),
    detach: () => signal?.removeEventListener('abort', onAbort),
  };
}

/** What one try of {@link withRetries} gives: a value, or a failure to retry or report. */
export type TryOutcome<T> = { ok: true; value: T } | { ok: false; failure: Failure };

/**
 * The retry loop of this package. `once` makes one attempt (holding a permit of the provider's
 * semaphore, which it is given and releases itself); a retryable failure waits `Retry-After` /
 * `retry-after-ms` (capped at `maxDelayMs`) or the backoff, then tries again, up to
 * `maxRetries` times. Throws {@link ProviderError} for a failure that is not retryable or once the
 * retries are used up, {@link AbortError} when `signal` aborts.
 */
export async function withRetries<T>(
  runtime: RequestRuntime,
  target: CallTarget,
  signal: AbortSignal | undefined,
  once: (client: OpenAI, release: () => void) => Promise<TryOutcome<T>>,
): Promise<T> {
  if (signal?.aborted) throw abortError(target, signal);
  const client = runtime.client();
  const attempts = runtime.retry.maxRetries + 1;
  for (let n = 1; ; n++) {
    const release = await runtime.limiter.acquire(signal).catch((error: unknown) => {
      throw signal?.aborted ? abortError(target, signal) : error;
    });
    const outcome = await once(client, release);
    if (outcome.ok) return outcome.value;
    const { failure } = outcome;
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
export function sendWithRetry<T>(
  runtime: RequestRuntime,
  target: CallTarget,
  send: SendRequest,
  signal: AbortSignal | undefined,
  read: (body: string) => T,
): Promise<T> {
  return withRetries(runtime, target, signal, async (client, release) => {
    let outcome: AttemptOutcome;
    try {
      outcome = await attempt(runtime, client, send, target, signal);
    } finally {
      release();
    }
    if (!outcome.ok) return outcome;
    const body = readBody(outcome.body, read);
    return body.ok ? body : { ok: false, failure: body.failure };
  });
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
