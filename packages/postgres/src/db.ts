/**
 * The connection layer: one small interface ({@link PgQueryable}, {@link PgDatabase}) that both a
 * `pg.Pool` and an in-process database such as PGlite satisfy, so the store and the vector
 * collections run the same SQL over the wire and in-process.
 */
import { InvalidArgumentError } from '@grag/core';
import pg from 'pg';
import { describeDbError } from './errors.js';
import { needsFallback, type TlsPlan, tlsPlan } from './tls.js';

/** A result of {@link PgQueryable.query}: the rows, as objects keyed by column name. */
export interface PgRows<R> {
  rows: R[];
}

/** Something that runs one SQL statement with `$1…` parameters. */
export interface PgQueryable {
  /** Run `text` with `params` and return its rows. */
  query<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<PgRows<R>>;
}

/**
 * A database the store can use directly: statements, and transactions on one connection. PGlite
 * (`new PGlite(...)`) has exactly this shape, so it can be passed as is; a `pg.Pool` is wrapped by
 * the store itself.
 */
export interface PgTransactional extends PgQueryable {
  /**
   * Run `fn` in one transaction on one connection: committed when `fn` resolves, rolled back
   * when it throws.
   */
  transaction<T>(fn: (tx: PgQueryable) => Promise<T>): Promise<T>;
}

/** Where the store or a vector collection connects: exactly one of `url`, `pool` or `db`. */
export interface PgConnectionOptions {
  /**
   * A `postgres://user:password@host:port/database` URL; the store then owns a `pg.Pool`. TLS
   * follows libpq: `?sslmode=require` encrypts without checking the certificate (as `psql` does),
   * `verify-ca` / `verify-full` check it against `sslrootcert` (a PEM file) or the trusted CAs,
   * `prefer` / `allow` try both, `disable` and no `sslmode` (nor `PGSSLMODE`) connect in plain text.
   */
  url?: string;
  /** A `pg.Pool` of your own (left open by `close()`). */
  pool?: pg.Pool;
  /** An in-process database with `query` and `transaction`, e.g. a PGlite instance (left open by `close()`). */
  db?: PgTransactional;
  /** Connections of the pool made from `url`. @default 10 */
  maxConnections?: number;
  /** How long to wait for a connection from `url`, in milliseconds. @default 10000 */
  connectTimeoutMs?: number;
}

/** A connection of its own, for a session-level lock (see {@link PgDatabase.session}). */
export interface PgSession extends PgQueryable {
  /** Close the connection (nothing for a database given as `db`). */
  end(): Promise<void>;
}

/** The connection a store or collection works with. */
export interface PgDatabase extends PgTransactional {
  /** The database, for messages: the URL without its password, or `pglite` / `pg pool`. */
  readonly label: string;
  /**
   * A connection of its own, outside the pool (so a pool of one connection still has one for its
   * statements), with `applicationName` as its `application_name`; for a database given as `db`
   * (one session, as PGlite), the database itself.
   */
  session(applicationName: string): Promise<PgSession>;
  /** End the pool if this object made it. */
  close(): Promise<void>;
}

/** `url` without its password (for messages and `location`). */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '';
    return parsed.toString().replace(/:@/, '@');
  } catch {
    return '<invalid url>';
  }
}

/** Throws InvalidArgumentError unless `url` is a `postgres://` or `postgresql://` URL. */
function checkUrl(fn: string, url: unknown): string {
  if (typeof url !== 'string' || url.length === 0) {
    throw new InvalidArgumentError('url', `${fn}: url must be a postgres:// URL string.`);
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (error) {
    throw new InvalidArgumentError(
      'url',
      `${fn}: ${JSON.stringify(redactUrl(url))} is not a URL; use postgres://user:password@host:5432/database.`,
      { cause: error },
    );
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new InvalidArgumentError(
      'url',
      `${fn}: ${redactUrl(url)} is not a postgres:// URL; use postgres://user:password@host:5432/database.`,
    );
  }
  return url;
}

/**
 * A {@link PgDatabase} over a `pg.Pool` (`pool()` gives the pool to use now): each transaction
 * checks out one client. `end` ends the pool when this object made it.
 */
function poolDatabase(
  pool: () => pg.Pool | Promise<pg.Pool>,
  label: string,
  end?: () => Promise<void>,
): PgDatabase {
  return {
    label,
    async query<R>(text: string, params?: unknown[]) {
      const result = await (await pool()).query(text, params);
      return { rows: result.rows as R[] };
    },
    async transaction<T>(fn: (tx: PgQueryable) => Promise<T>): Promise<T> {
      const client = await (await pool()).connect();
      let broken = false;
      try {
        await client.query('BEGIN');
        const tx: PgQueryable = {
          async query<R>(text: string, params?: unknown[]) {
            const result = await client.query(text, params);
            return { rows: result.rows as R[] };
          },
        };
        const value = await fn(tx);
        await client.query('COMMIT');
        return value;
      } catch (error) {
        try {
          await client.query('ROLLBACK');
        } catch {
          broken = true; // the connection is gone; the server rolls back on its own
        }
        throw error;
      } finally {
        client.release(broken);
      }
    },
    async session(applicationName: string): Promise<PgSession> {
      // The pool's own settings (URL, TLS, time-outs), on a client outside it.
      const client = new pg.Client((await pool()).options);
      // A connection dropped by the server must not crash the process; its lock is then gone.
      client.on('error', () => {});
      try {
        await client.connect();
        // After connecting: a URL's own application_name would win over a connect option. One
        // simple-protocol statement, the name written in as hex: a server that serves every
        // connection from one session (pglite-socket) could bind another connection's parameters
        // to an extended-protocol statement of this one.
        const hex = Buffer.from(applicationName, 'utf8').toString('hex');
        await client.query(
          `SELECT set_config('application_name', convert_from(decode('${hex}', 'hex'), 'UTF8'), false)`,
        );
      } catch (error) {
        await client.end().catch(() => {});
        throw error;
      }
      return {
        async query<R>(text: string, params?: unknown[]) {
          const result = await client.query(text, params);
          return { rows: result.rows as R[] };
        },
        async end() {
          await client.end().catch(() => {});
        },
      };
    },
    async close() {
      await end?.();
    },
  };
}

/**
 * The pools of a URL: one with the `ssl` option of `plan`; for `allow` and `prefer`, the first
 * connection tells whether the server takes that, and if it refuses, the pool of the fallback
 * replaces it for good.
 */
function urlDatabase(plan: TlsPlan, label: string, options: PgConnectionOptions): PgDatabase {
  const make = (ssl: TlsPlan['ssl']) => {
    const pool = new pg.Pool({
      connectionString: plan.connectionString,
      ssl,
      ...(plan.sslnegotiation !== undefined ? { sslnegotiation: plan.sslnegotiation } : {}),
      max: options.maxConnections ?? 10,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    });
    // An idle client dropped by the server must not crash the process; the next query reports it.
    pool.on('error', () => {});
    return pool;
  };
  let current = make(plan.ssl);
  let fallback = plan.fallback;
  let probing: Promise<pg.Pool> | undefined;
  const pool = (): pg.Pool | Promise<pg.Pool> => {
    if (fallback === undefined) return current;
    probing ??= (async () => {
      try {
        const client = await current.connect();
        client.release();
      } catch (error) {
        if (fallback === undefined || !needsFallback(plan.mode, error)) {
          probing = undefined; // unreachable now, perhaps not later: the next call asks again
          throw error;
        }
        const refused = current;
        current = make(fallback);
        void refused.end().catch(() => {});
      }
      fallback = undefined;
      return current;
    })();
    return probing;
  };
  return poolDatabase(pool, label, async () => {
    await probing?.catch(() => {});
    await current.end();
  });
}

/**
 * The database `options` names (exactly one of `url`, `pool`, `db`).
 * @throws InvalidArgumentError naming the option and what to pass.
 */
export function connect(fn: string, options: PgConnectionOptions): PgDatabase {
  const given = (['url', 'pool', 'db'] as const).filter((key) => options?.[key] !== undefined);
  if (given.length !== 1) {
    throw new InvalidArgumentError(
      given.length === 0 ? 'url' : given[1]!,
      `${fn}: pass exactly one of url (a postgres:// URL), pool (a pg.Pool) or db (e.g. a PGlite instance); got ${given.length === 0 ? 'none' : given.join(' and ')}.`,
    );
  }
  if (options.url !== undefined) {
    const url = checkUrl(fn, options.url);
    return urlDatabase(tlsPlan(fn, url), redactUrl(url), options);
  }
  if (options.pool !== undefined) {
    const pool = options.pool;
    if (typeof pool.connect !== 'function' || typeof pool.query !== 'function') {
      throw new InvalidArgumentError('pool', `${fn}: pool must be a pg.Pool.`);
    }
    const o = pool.options;
    const label = o?.host
      ? `postgres://${o.user ? `${o.user}@` : ''}${o.host}${o.port ? `:${o.port}` : ''}/${o.database ?? ''}`
      : 'pg pool';
    return poolDatabase(() => pool, label);
  }
  const db = options.db!;
  if (typeof db?.query !== 'function' || typeof db.transaction !== 'function') {
    throw new InvalidArgumentError(
      'db',
      `${fn}: db must have query(text, params) and transaction(fn), as a PGlite instance has.`,
    );
  }
  return {
    label: 'pglite',
    query: (text, params) => db.query(text, params),
    transaction: (fn) => db.transaction(fn),
    async session() {
      return { query: (text, params) => db.query(text, params), async end() {} };
    },
    async close() {},
  };
}

/**
 * Run `work` and turn a failure of the database (unreachable, refused credentials, a server
 * error) into one grag error whose message names `label`; grag's own errors pass through.
 */
export async function guard<T>(label: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw describeDbError(label, error);
  }
}
