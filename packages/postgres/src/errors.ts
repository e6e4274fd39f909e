/**
 * Database failures as grag errors: one line that names the database and says what to do.
 */
import { GragError, ProviderError, StateError } from '@grag/core';

/** The provider name of errors this package throws for the database (`ProviderError.provider`). */
export const PROVIDER = '@grag/postgres';

/** Socket error codes that mean the server could not be reached. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
  'EPIPE',
]);

/** Fields of a `pg` (or PGlite) error. */
interface DbErrorFields {
  code?: unknown;
  message?: unknown;
  errors?: unknown;
}

/** The first line of an error's message. */
function firstLine(error: unknown): string {
  const message = (error as DbErrorFields)?.message;
  return typeof message === 'string' ? (message.split('\n')[0] ?? '') : String(error);
}

/** A socket error code of `error`, or of the first error of an `AggregateError` (`connect` to several addresses). */
function socketCode(error: unknown): string | undefined {
  const fields = error as DbErrorFields;
  if (typeof fields?.code === 'string' && UNREACHABLE.has(fields.code)) return fields.code;
  if (Array.isArray(fields?.errors)) {
    for (const inner of fields.errors) {
      const code = socketCode(inner);
      if (code) return code;
    }
  }
  return undefined;
}

/**
 * `error` (thrown while talking to the database `label`) as a grag error with a one-line message:
 * - unreachable server: `ProviderError` (retryable);
 * - refused credentials, missing database, missing privilege, any other server error:
 *   `ProviderError` (not retryable), with the server's SQLSTATE;
 * - grag errors are returned unchanged.
 */
export function describeDbError(label: string, error: unknown): unknown {
  if (GragError.isInstance(error)) return error;
  const code = socketCode(error);
  const message = firstLine(error);
  if (code !== undefined) {
    return new ProviderError(
      PROVIDER,
      `${PROVIDER}: cannot reach PostgreSQL at ${label} (${code}); check the host and port in the URL and that the server is running.`,
      { retryable: true, cause: error },
    );
  }
  if (/timeout exceeded when trying to connect|Connection terminated/i.test(message)) {
    return new ProviderError(
      PROVIDER,
      `${PROVIDER}: cannot reach PostgreSQL at ${label} (${message}); check the URL and that the server is running.`,
      { retryable: true, cause: error },
    );
  }
  const sqlState = (error as DbErrorFields)?.code;
  if (sqlState === '28P01' || sqlState === '28000') {
    return new ProviderError(
      PROVIDER,
      `${PROVIDER}: PostgreSQL at ${label} refused the credentials (${sqlState}: ${message}); check the user and password in the URL.`,
      { retryable: false, cause: error },
    );
  }
  if (sqlState === '3D000') {
    return new ProviderError(
      PROVIDER,
      `${PROVIDER}: ${message} at ${label} (3D000); create it (createdb) or fix the database name in the URL.`,
      { retryable: false, cause: error },
    );
  }
  if (sqlState === '42501') {
    return new ProviderError(
      PROVIDER,
      `${PROVIDER}: the user of ${label} lacks a privilege (42501: ${message}); grant it CREATE on the database, or use a user that has it.`,
      { retryable: false, cause: error },
    );
  }
  if (typeof sqlState === 'string' && /^[0-9A-Z]{5}$/.test(sqlState)) {
    return new ProviderError(
      PROVIDER,
      `${PROVIDER}: PostgreSQL at ${label} failed (${sqlState}: ${message}).`,
      {
        retryable: sqlState.startsWith('40') || sqlState.startsWith('08'),
        cause: error,
      },
    );
  }
  return error;
}

/**
 * The one line said when a vector collection is asked of a database without pgvector, as a
 * `StateError`.
 */
export function missingPgvector(label: string): StateError {
  return new StateError(
    `pgvector is not installed in ${label}; install it (CREATE EXTENSION vector, after installing the server package, e.g. postgresql-16-pgvector) or use the directory store.`,
  );
}
