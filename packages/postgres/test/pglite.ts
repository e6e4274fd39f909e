/**
 * Test servers: PGlite in-process (with or without its pgvector extension) and PGlite over the
 * wire through `@electric-sql/pglite-socket`, on 127.0.0.1 and a port the OS picks.
 */
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';

/** A fresh in-memory PGlite database; with the pgvector extension unless `vectors` is false. */
export async function makePglite(vectors = true): Promise<PGlite> {
  const db = vectors ? new PGlite({ extensions: { vector } }) : new PGlite();
  await db.waitReady;
  return db;
}

/**
 * A fresh in-memory PGlite database for the enclosing suite (or file): opened before its tests (with
 * pgvector unless `vectors` is false) and handed to `use`, closed after them.
 */
export function usePglite(vectors: boolean, use: (db: PGlite) => void): void {
  let db: PGlite | undefined;
  beforeAll(async () => {
    db = await makePglite(vectors);
    use(db);
  }, 120_000);
  afterAll(async () => {
    await db?.close();
  });
}

/** A PGlite database served over TCP, with the URL a `pg` client connects to. */
export interface SocketDb {
  db: PGlite;
  url: string;
  stop(): Promise<void>;
}

/**
 * Serve a fresh PGlite database on 127.0.0.1 (a random port), accepting `maxConnections` clients;
 * with pgvector unless `pgvector` is false, reached with `password` in the URL (PGlite checks none).
 */
export async function servePglite(
  maxConnections = 8,
  options: { pgvector?: boolean; password?: string } = {},
): Promise<SocketDb> {
  const db = await makePglite(options.pgvector ?? true);
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections });
  await server.start();
  const url = `postgres://postgres:${options.password ?? 'postgres'}@${server.getServerConn()}/postgres`;
  return {
    db,
    url,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}

/**
 * A fresh PGlite database served over the wire ({@link servePglite}) for the enclosing suite (or
 * file), with a `pg.Pool` of at most `max` clients on it: started before its tests and handed to
 * `use`, the pool ended and the server stopped after them.
 */
export function useServedPglite(max: number, use: (pool: pg.Pool, server: SocketDb) => void): void {
  let server: SocketDb | undefined;
  let pool: pg.Pool | undefined;
  beforeAll(async () => {
    server = await servePglite();
    pool = new pg.Pool({ connectionString: server.url, max });
    use(pool, server);
  }, 120_000);
  afterAll(async () => {
    await pool?.end();
    await server?.stop();
  });
}

/** A unique index name per call, so every store of a test file gets a fresh schema. */
let counter = 0;
export const freshIndex = (prefix = 'spec') => `${prefix}_${++counter}_${process.pid}`;
