/**
 * TLS as libpq does it: the `sslmode`, `sslrootcert`, `sslcert`, `sslkey` parameters of a
 * `postgres://` URL (or `PGSSLMODE`, `PGSSLROOTCERT`, `PGSSLCERT`, `PGSSLKEY`) read with libpq's
 * meanings and handed to `pg` as an explicit `ssl` option, so `pg`'s own reading of `sslmode`
 * (which verifies the certificate for `require` and warns about it) never runs.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ConnectionOptions } from 'node:tls';
import { InvalidArgumentError } from '@grag/core';

/** libpq's `sslmode` values. */
export const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;

/** One of {@link SSL_MODES}. */
export type SslMode = (typeof SSL_MODES)[number];

/** URL parameters about TLS, taken out of the URL `pg` sees. */
const TLS_PARAMETERS = [
  'sslmode',
  'sslrootcert',
  'sslcert',
  'sslkey',
  'sslcrl',
  'sslpassword',
  'sslnegotiation',
  'ssl',
  'uselibpqcompat',
] as const;

/** How to connect: the URL without its TLS parameters, and the `ssl` option of each attempt. */
export interface TlsPlan {
  /** The URL `pg` gets: the given one without the parameters read here. */
  readonly connectionString: string;
  /** The mode in effect. */
  readonly mode: SslMode;
  /** `ssl` of the first attempt: `false` for a plain connection. */
  readonly ssl: false | ConnectionOptions;
  /**
   * `allow` and `prefer`: the `ssl` of the second attempt, made when the server refuses the first
   * (`prefer`: the server has no TLS; `allow`: the server wants TLS).
   */
  readonly fallback?: false | ConnectionOptions;
  /** `sslnegotiation=direct` (TLS from the first byte, PostgreSQL 17), when asked for. */
  readonly sslnegotiation?: 'postgres' | 'direct';
}

/** The text of the file `path` names (`parameter` for the message). */
function readPem(fn: string, parameter: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException)?.code ?? String(error);
    throw new InvalidArgumentError(
      'url',
      `${fn}: cannot read ${parameter}=${path} (${code}); give the path of a PEM file the process can read.`,
      { cause: error },
    );
  }
}

/**
 * The TLS plan of `url` (already checked to be a `postgres://` URL), as libpq reads it:
 * - `disable`: plain; `allow`: plain, TLS if the server insists; `prefer`: TLS without checking
 *   the certificate, plain if the server has no TLS; `require`: TLS without checking the certificate
 *   (with `sslrootcert`, as `verify-ca`); `verify-ca`: the certificate must be signed by a trusted
 *   CA; `verify-full`: and be for the host connected to.
 * - The trusted CAs are those of `sslrootcert` (a PEM file), else `~/.postgresql/root.crt` when it
 *   exists, else Node's (`sslrootcert=system` asks for Node's explicitly).
 * - Without `sslmode` in the URL, `PGSSLMODE`; without either, plain (libpq would say `prefer`,
 *   `pg` has always connected plain).
 * - `ssl=true` / `ssl=1` alone (a `pg` parameter) means `verify-full`, as in `pg`; `ssl=false` / `ssl=0`
 *   means `disable`; `sslmode=no-verify` (`pg`'s) means `require`.
 * @throws InvalidArgumentError for an unknown `sslmode` or a certificate file that cannot be read.
 */
export function tlsPlan(fn: string, url: string, env: NodeJS.ProcessEnv = process.env): TlsPlan {
  const parsed = new URL(url);
  const param = (name: string): string | undefined => parsed.searchParams.get(name) ?? undefined;
  const fromEnv = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value === '' ? undefined : value;
  };
  const sslParam = param('ssl');
  let given = param('sslmode') ?? fromEnv('PGSSLMODE');
  if (given === undefined && sslParam !== undefined) {
    if (/^(true|1|on|yes)$/i.test(sslParam)) given = 'verify-full';
    else if (/^(false|0|off|no)$/i.test(sslParam)) given = 'disable';
    else if (sslParam === 'no-verify') given = 'require';
  }
  if (given === 'no-verify') given = 'require';
  const negotiation = param('sslnegotiation') ?? fromEnv('PGSSLNEGOTIATION');
  if (negotiation !== undefined && negotiation !== 'postgres' && negotiation !== 'direct') {
    throw new InvalidArgumentError(
      'url',
      `${fn}: sslnegotiation=${negotiation} is not one of postgres, direct.`,
    );
  }
  const rootcert = param('sslrootcert') ?? fromEnv('PGSSLROOTCERT');
  const certPath = param('sslcert') ?? fromEnv('PGSSLCERT');
  const keyPath = param('sslkey') ?? fromEnv('PGSSLKEY');
  let mode: SslMode;
  if (given === undefined) mode = negotiation === 'direct' ? 'require' : 'disable';
  else if ((SSL_MODES as readonly string[]).includes(given)) mode = given as SslMode;
  else {
    throw new InvalidArgumentError('url', `${fn}: sslmode=${given} is not one of ${SSL_MODES.join(', ')}.`);
  }
  if (negotiation === 'direct' && (mode === 'disable' || mode === 'allow' || mode === 'prefer')) {
    throw new InvalidArgumentError(
      'url',
      `${fn}: sslnegotiation=direct needs sslmode=require, verify-ca or verify-full, not ${mode}.`,
    );
  }
  if (rootcert !== undefined && rootcert !== 'system' && mode === 'require') mode = 'verify-ca';

  let connectionString = url;
  if (TLS_PARAMETERS.some((name) => parsed.searchParams.has(name))) {
    for (const name of TLS_PARAMETERS) parsed.searchParams.delete(name);
    connectionString = parsed.toString();
  }
  const extra = negotiation !== undefined ? { sslnegotiation: negotiation as 'postgres' | 'direct' } : {};

  const client: ConnectionOptions = {};
  if (certPath !== undefined) client.cert = readPem(fn, 'sslcert', certPath);
  if (keyPath !== undefined) client.key = readPem(fn, 'sslkey', keyPath);
  const noCheck: ConnectionOptions = { ...client, rejectUnauthorized: false };

  switch (mode) {
    case 'disable':
      return { connectionString, mode, ssl: false, ...extra };
    case 'allow':
      return { connectionString, mode, ssl: false, fallback: noCheck, ...extra };
    case 'prefer':
      return { connectionString, mode, ssl: noCheck, fallback: false, ...extra };
    case 'require':
      return { connectionString, mode, ssl: noCheck, ...extra };
    default: {
      const checked: ConnectionOptions = { ...client, rejectUnauthorized: true };
      if (rootcert !== undefined && rootcert !== 'system') {
        checked.ca = readPem(fn, 'sslrootcert', rootcert);
      } else if (rootcert === undefined) {
        const home = join(homedir(), '.postgresql', 'root.crt');
        try {
          checked.ca = readFileSync(home, 'utf8');
        } catch {
          // no libpq default file: Node's trusted CAs
        }
      }
      // verify-ca: the chain is checked, the host name is not.
      if (mode === 'verify-ca') checked.checkServerIdentity = () => undefined;
      return { connectionString, mode, ssl: checked, ...extra };
    }
  }
}

/**
 * Whether `error` of a first attempt in mode `mode` calls for its fallback: for `prefer`, the
 * server has no TLS; for `allow`, the server refuses connections without encryption.
 */
export function needsFallback(mode: SslMode, error: unknown): boolean {
  const message = String((error as { message?: unknown })?.message ?? '');
  if (mode === 'prefer') return /does not support SSL/i.test(message);
  if (mode === 'allow') {
    return (error as { code?: unknown })?.code === '28000' && /no encryption/i.test(message);
  }
  return false;
}
