/**
 * Error helpers shared by the adapters: abort races and the mapping of LangChain failures onto
 * grag's errors. Internal; not exported from the package entry.
 */
import { AbortError, GragError, ProviderError } from '@grag/core';
import { isRetryableStatus } from '@grag/core/kit';

/** Provider name of the LangChain adapters in errors, fingerprints and the meter. */
export const PROVIDER = 'langchain';

/** How a value reads in an error message: its type, or a short quoted string. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'object')
    return `an object (${Object.keys(value).slice(0, 5).join(', ') || 'no keys'})`;
  return `${typeof value} ${String(value)}`;
}

/** The first line of an error's message, trimmed, for one-line errors. */
export function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const line = text.trim().split('\n')[0]?.trim() ?? '';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line || 'no message';
}

/**
 * `promise`, or an {@link AbortError} as soon as `signal` aborts (the LangChain call may go on in
 * the background, but the caller is released at once). A rejection of `promise` after the abort is
 * handled, not left unhandled.
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined, what: string): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(abortError(what, signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(what, signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** The {@link AbortError} of an aborted `what` (e.g. "chat call to model 'gpt-4o-mini'"). */
export function abortError(what: string, signal: AbortSignal): AbortError {
  return new AbortError(`@grag/langchain: ${what} was aborted.`, { cause: signal.reason });
}

/** HTTP status carried by an SDK error (`status`, `statusCode` or `response.status`), if any. */
function statusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as { status?: unknown; statusCode?: unknown; response?: { status?: unknown } };
  for (const candidate of [e.status, e.statusCode, e.response?.status]) {
    if (typeof candidate === 'number' && Number.isInteger(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Map a failure of a LangChain call onto grag's errors: an {@link AbortError} when `signal` was
 * aborted, a grag error as it is, anything else a {@link ProviderError} with a one-line message
 * (`status` and `retryable` from the SDK error's HTTP status when it has one: 408, 409, 429 and 5xx
 * may pass on retry, after the LangChain model's own retries are spent).
 */
export function callFailure(what: string, error: unknown, signal: AbortSignal | undefined): Error {
  if (signal?.aborted) return abortError(what, signal);
  if (GragError.isInstance(error)) return error;
  const status = statusOf(error);
  const retryable = status !== undefined && isRetryableStatus(status);
  return new ProviderError(
    PROVIDER,
    `@grag/langchain: ${what} failed${status !== undefined ? ` (HTTP ${status})` : ''}: ${firstLine(error)} — check the LangChain model's settings (API key, model name, endpoint); its own retries (maxRetries) are spent.`,
    { cause: error, retryable, ...(status !== undefined ? { status } : {}) },
  );
}
