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

/** Node's codes for a server certificate that does not verify against the trusted CAs. */
const UNTRUSTED_CERTIFICATE = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
  'CERT_REJECTED',
  'INVALID_CA',
  'CERT_CHAIN_TOO_LONG',
  'PATH_LENGTH_EXCEEDED',
]);

/** Node's codes for a certificate outside its validity period. */
const EXPIRED_CERTIFICATE = new Set(['CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID']);

/** The `sslmode` of `label` (a URL without its password), for advice. */
function sslModeOf(label: string): string | undefined {
  try {
    return new URL(label).searchParams.get('sslmode') ?? undefined;
  } catch {
    return undefined;
  }
}

/**
 * A failure of TLS with the server as one `ProviderError` line naming the database and what to do,
 * or `undefined` when `error` is not about TLS.
 */
function describeTlsError(label: string, error: unknown): ProviderError | undefined {
  const code = (error as DbErrorFields)?.code;
  const message = firstLine(error);
  const mode = sslModeOf(label);
  const fail = (text: string) =>
    new ProviderError(PROVIDER, `${PROVIDER}: ${text}`, { retryable: false, cause: error });
  if (typeof code === 'string' && UNTRUSTED_CERTIFICATE.has(code)) {
    return fail(
      `the TLS certificate of PostgreSQL at ${label} is not signed by a trusted CA (${message}); put the CA that signed the server's certificate in the URL as sslrootcert=/path/to/root.crt, or use sslmode=require to encrypt without checking the certificate (as psql does).`,
    );
  }
  if (typeof code === 'string' && EXPIRED_CERTIFICATE.has(code)) {
    return fail(
      `the TLS certificate of PostgreSQL at ${label} is not valid now (${message}); renew the server's certificate, or use sslmode=require to encrypt without checking it.`,
    );
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return fail(
      `the TLS certificate of PostgreSQL at ${label} is not for this host (${message}); connect by a name the certificate lists, or use sslmode=verify-ca to check the CA but not the host name.`,
    );
  }
  if (/server does not support SSL/i.test(message)) {
    return fail(
      `PostgreSQL at ${label} does not accept TLS connections${mode ? ` (sslmode=${mode})` : ''}; turn on ssl in the server's postgresql.conf, or use sslmode=prefer or sslmode=disable.`,
    );
  }
  if (code === '28000' && /no encryption/i.test(message)) {
    return fail(
      `PostgreSQL at ${label} accepts only TLS connections (28000: ${message}); add sslmode=require (or verify-full with sslrootcert) to the URL.`,
    );
  }
  if (
    (typeof code === 'string' && /^ERR_(SSL|TLS)_/.test(code)) ||
    /^(SSL|TLS)\b|\bSSL routines\b/i.test(message)
  ) {
    return fail(
      `the TLS connection to PostgreSQL at ${label} failed (${message}); check sslmode, sslrootcert, sslcert and sslkey in the URL, and the server's ssl settings.`,
    );
  }
  return undefined;
}

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
 * - a TLS failure (untrusted or expired certificate, wrong host, a server without TLS or one that
 *   wants it): `ProviderError` (not retryable) saying what to change in the URL;
 * - unreachable server: `ProviderError` (retryable);
 * - refused credentials, missing database, missing privilege, any other server error:
 *   `ProviderError` (not retryable), with the server's SQLSTATE;
 * - grag errors are returned unchanged.
 */
export function describeDbError(label: string, error: unknown): unknown {
  if (GragError.isInstance(error)) return error;
  const tls = describeTlsError(label, error);
  if (tls !== undefined) return tls;
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
