import { AbortError, GragError, InvalidArgumentError, ProviderError } from '@grag/core';
import { isRetryableStatus, oneLine, statusHint } from '@grag/core/kit';
import { APICallError, RetryError } from 'ai';

/** Package name that starts every message of this package. */
export const PACKAGE = '@grag/ai-sdk';

/** Names the call in error messages. */
export interface CallTarget {
  kind: 'chat' | 'embedding';
  /** The AI SDK model's provider id, e.g. `'openai.chat'`. */
  provider: string;
  modelId: string;
}

/** `@grag/ai-sdk: chat call to openai.chat model 'gpt-4o-mini'`. */
export function label(target: CallTarget): string {
  return `${PACKAGE}: ${target.kind} call to ${target.provider} model '${target.modelId}'`;
}

/** `text` on one line, cut to `max` characters (core's `oneLine`). */
export { oneLine };

function hintOf(status: number, target: CallTarget): string {
  const auth =
    'check the API key of the AI SDK provider (its apiKey setting or environment variable, e.g. OPENAI_API_KEY) and that it may use this model';
  return statusHint(status, {
    unauthorized: auth,
    forbidden: auth,
    notFound: "check the model id and the provider's baseURL",
    tooLarge: 'send fewer or shorter inputs (lower batchSize)',
    rateLimited: 'raise maxRetries or send fewer calls at once, and check the rate limits of the account',
    badRequest:
      target.kind === 'chat'
        ? 'check the call options; for a model that rejects JSON mode pass jsonResponseFormat: false'
        : 'check the inputs (empty or over the token limit) and batchSize',
    overloaded: 'the provider is overloaded or failing; try again later or raise maxRetries',
    other: 'check the request and the provider settings',
  });
}

function messageOf(error: unknown): string {
  return oneLine(error instanceof Error ? error.message : String(error), 200);
}

function nameOf(error: unknown): string | undefined {
  return error instanceof Error || (typeof error === 'object' && error !== null && 'name' in error)
    ? String((error as { name: unknown }).name)
    : undefined;
}

/** A status code on an error that is not an `APICallError` (e.g. the AI Gateway's errors). */
function statusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null || !('statusCode' in error)) return undefined;
  const status = (error as { statusCode: unknown }).statusCode;
  return typeof status === 'number' ? status : undefined;
}

/** Errors of a call the runtime cut short: an abort, a timeout, a response stream closed early. */
const ABORT_NAMES = new Set(['AbortError', 'TimeoutError', 'ResponseAborted']);

/** Errors of a response that arrived but could not be read; `true` when retrying may help. */
const UNREADABLE: Record<string, boolean> = {
  AI_JSONParseError: true,
  AI_EmptyResponseBodyError: true,
  AI_InvalidResponseDataError: false,
  AI_TypeValidationError: false,
  AI_NoContentGeneratedError: false,
  AI_NoOutputGeneratedError: false,
};

/**
 * Map what an AI SDK call threw onto grag's errors, with a one-line message naming the call, the
 * provider and the model:
 *
 * - the caller's `signal` aborted → `AbortError`;
 * - `APICallError` (after the AI SDK's retries, unwrapped from its `RetryError`) → `ProviderError`
 *   with the HTTP `status` and the AI SDK's `isRetryable`;
 * - a missing API key or setting (`LoadAPIKeyError`, `LoadSettingError`) → `InvalidArgumentError`
 *   (`argument: 'apiKey'` / `'settings'`); an invalid call option or prompt → `InvalidArgumentError`;
 * - a response that could not be read, unsupported functionality, anything else → `ProviderError`.
 *
 * A grag error passes through unchanged.
 */
export function mapAiSdkError(error: unknown, target: CallTarget, signal?: AbortSignal): GragError {
  if (signal?.aborted) return new AbortError(`${label(target)} was aborted.`, { cause: signal.reason });
  if (GragError.isInstance(error)) return error;
  let last = error;
  let attempts = 1;
  if (RetryError.isInstance(error) && error.errors.length > 0) {
    last = error.lastError;
    attempts = error.errors.length;
  }
  const after = attempts > 1 ? ` after ${attempts} attempts (last: ` : ': ';
  const close = attempts > 1 ? ')' : '';
  const fail = (reason: string, hint: string, details: { status?: number; retryable: boolean }) =>
    new ProviderError(target.provider, `${label(target)} failed${after}${reason}${close} — ${hint}.`, {
      ...details,
      cause: error,
    });

  const name = nameOf(last);
  const status = APICallError.isInstance(last) ? last.statusCode : statusOf(last);
  if (status !== undefined) {
    const retryable = APICallError.isInstance(last) ? last.isRetryable : isRetryableStatus(status);
    return fail(`HTTP ${status}: ${messageOf(last)}`, hintOf(status, target), { status, retryable });
  }
  if (APICallError.isInstance(last)) {
    // No status: the request never got an answer (refused, reset, DNS).
    return fail(
      `could not reach the provider (${messageOf(last)})`,
      "check the provider's baseURL and the network",
      {
        retryable: last.isRetryable,
      },
    );
  }
  if (name !== undefined && ABORT_NAMES.has(name)) {
    return fail(
      `cut short (${name}: ${messageOf(last)})`,
      'check the network and the provider, or raise maxRetries',
      {
        retryable: true,
      },
    );
  }
  if (name === 'AI_LoadAPIKeyError' || name === 'AI_LoadSettingError') {
    const argument = name === 'AI_LoadAPIKeyError' ? 'apiKey' : 'settings';
    return new InvalidArgumentError(argument, `${label(target)}: ${messageOf(last)}`, { cause: error });
  }
  if (name === 'AI_InvalidArgumentError') {
    const parameter = (last as { parameter?: unknown }).parameter;
    return new InvalidArgumentError(
      typeof parameter === 'string' ? parameter : 'options',
      `${label(target)}: ${messageOf(last)}`,
      { cause: error },
    );
  }
  if (name === 'AI_InvalidPromptError' || name === 'AI_InvalidMessageRoleError') {
    return new InvalidArgumentError('messages', `${label(target)}: ${messageOf(last)}`, { cause: error });
  }
  if (name === 'AI_UnsupportedFunctionalityError') {
    return fail(
      `asked for something the provider does not support (${messageOf(last)})`,
      'leave that option out',
      {
        retryable: false,
      },
    );
  }
  if (name !== undefined && name in UNREADABLE) {
    return fail(
      `returned a response that could not be read (${messageOf(last)})`,
      'check the provider and the model',
      {
        retryable: UNREADABLE[name]!,
      },
    );
  }
  return fail(messageOf(last), 'check the AI SDK provider and its settings', {
    retryable: false,
  });
}
