/** HTTP errors: one JSON shape, the right status, one line, never a stack. */
import { AbortError, GragError, InvalidArgumentError, ModelOutputError, ProviderError } from '@grag/core';
import { oneLine as oneLineOf } from '@grag/core/kit';
import type { ErrorBody } from './types.js';

/** Status codes the server answers errors with. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 421 | 499 | 500 | 502;

/** An error to answer with `status` and `{"error": {code, message}}`. */
export class HttpError extends Error {
  readonly status: ErrorStatus;
  readonly code: string;
  constructor(status: ErrorStatus, code: string, message: string) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.code = code;
  }
}

/** A 400 `bad_request`. */
export function badRequest(message: string): HttpError {
  return new HttpError(400, 'bad_request', message);
}

/** `text` on one line (an error message shown to a client must not carry a multi-line dump). */
export function oneLine(text: string, max = 500): string {
  return oneLineOf(text, max);
}

/**
 * The HTTP error for anything a handler threw: an {@link HttpError} as it is; grag's own errors by
 * kind (a bad argument is the client's 400, a model provider's failure a 502) with their one-line
 * message; anything else a 500 that says only that the server failed (the details go to the log).
 */
export function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  if (InvalidArgumentError.isInstance(error)) return badRequest(oneLine(error.message));
  if (AbortError.isInstance(error)) return new HttpError(499, 'aborted', 'The request was aborted.');
  if (ProviderError.isInstance(error)) return new HttpError(502, 'provider_error', oneLine(error.message));
  if (ModelOutputError.isInstance(error))
    return new HttpError(502, 'model_output_error', oneLine(error.message));
  if (GragError.isInstance(error)) return new HttpError(500, 'internal_error', oneLine(error.message));
  return new HttpError(
    500,
    'internal_error',
    'The server failed to answer this request; see the server log.',
  );
}

/** The JSON body of an error. */
export function errorBody(error: HttpError): ErrorBody {
  return { error: { code: error.code, message: error.message } };
}
