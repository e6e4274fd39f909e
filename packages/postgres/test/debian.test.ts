/**
 * The store on Debian's PostgreSQL server (the `postgresql` package), started by this file: the
 * shared store contract, refused credentials, and a vector collection refused for want of pgvector.
 */
import { type GragError, ProviderError, StateError } from '@grag/core';
import { runIndexStoreSpec } from '@grag/core/test/vitest';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PostgresStore, pgVectorIndexFactory, postgresStore } from '../src/index.js';
import { killedWriterCheck } from './crash.js';
import { type DebianServer, debianPostgresBin, startDebianServer } from './debian-server.js';
import { freshIndex } from './pglite.js';
import { concurrentWritersCheck } from './writers.js';

const bin = debianPostgresBin();
const reason = bin
  ? `Debian PostgreSQL (${bin})`
  : 'SKIPPED: no Debian PostgreSQL server (/usr/lib/postgresql/*/bin/initdb); apt-get install -y postgresql to run it';

describe.skipIf(bin === undefined)(reason, () => {
  let server: DebianServer;
  const stores: PostgresStore[] = [];
  beforeAll(async () => {
    server = await startDebianServer(bin!);
  }, 120_000);
  afterAll(async () => {
    for (const store of stores) await store.close();
    await server?.stop();
  }, 60_000);

  const make = () => {
    const store = postgresStore({ url: server.url, index: freshIndex('debian') });
    stores.push(store);
    return store;
  };

  runIndexStoreSpec('postgresStore on Debian PostgreSQL', make, {
    pinsVersions: true,
    makeForeign: async () => {
      const index = freshIndex('foreign');
      const pool = new pg.Pool({ connectionString: server.url });
      await pool.query(`CREATE SCHEMA grag_${index}; CREATE TABLE grag_${index}.customers (id int)`);
      await pool.end();
      const store = postgresStore({ url: server.url, index });
      stores.push(store);
      return store;
    },
    reopen: (store) => {
      const again = postgresStore({
        url: server.url,
        index: store.location.slice(store.location.lastIndexOf('#') + 1),
      });
      stores.push(again);
      return again;
    },
  });

  it('completes two concurrent writers from separate pools, ending on one whole version', async () => {
    await concurrentWritersCheck(() => {
      const store = postgresStore({ url: server.url, index: 'race' });
      stores.push(store);
      return store;
    });
  });

  it('serves the old version after a writer is killed with SIGKILL inside its write', async () => {
    await killedWriterCheck(server.url, 'crash_callback', 'callback');
  });

  it('serves the old version after a writer is killed with SIGKILL during its commit', async () => {
    await killedWriterCheck(server.url, 'crash_commit', 'commit');
  }, 120_000);

  it('refuses wrong credentials in one line naming the database, not the password', async () => {
    const store = postgresStore({ url: server.wrongPasswordUrl, index: 'docs' });
    stores.push(store);
    const error = await store.target().catch((e: unknown) => e);
    expect(ProviderError.isInstance(error), String(error)).toBe(true);
    const message = (error as Error).message;
    expect(message).toMatch(
      /^@grag\/postgres: PostgreSQL at postgres:\/\/grag_test@127\.0\.0\.1:\d+\/postgres refused the credentials \(28P01: .*\); check the user and password in the URL\.$/,
    );
    expect(message).not.toContain('wrong');
    expect((error as ProviderError).retryable).toBe(false);
  });

  it('refuses a store that keeps vector collections with the one pgvector line, creating nothing', async () => {
    const index = freshIndex('debvec');
    const store = postgresStore({ url: server.url, index, vectors: true });
    stores.push(store);
    const error = await store
      .writeVersion({ method: 'test', formatVersion: 1, params: {}, providers: {} }, async (out) => {
        await out.vectorCollection!('chunks', [[1, 0, 0, 0]], {
          dimensions: 4,
          metric: 'cosine',
          exact: true,
        });
      })
      .catch((e: unknown) => e);
    expect(StateError.isInstance(error), String(error)).toBe(true);
    expect((error as GragError).message).toMatch(
      /^pgvector is not installed in postgres:\/\/grag_test@127\.0\.0\.1:\d+\/postgres; install it/,
    );
    expect(await store.target()).toBe('absent');
  });

  it('refuses a vector collection with the one pgvector line, creating nothing', async () => {
    const vectors = pgVectorIndexFactory({ url: server.url, index: 'vec', collection: 'chunks' });
    try {
      const error = await vectors.create({ dimensions: 4 }).catch((e: unknown) => e);
      expect(StateError.isInstance(error), String(error)).toBe(true);
      expect((error as GragError).message).toMatch(
        /^pgvector is not installed in postgres:\/\/grag_test@127\.0\.0\.1:\d+\/postgres; install it \(CREATE EXTENSION vector.*\) or use the directory store\.$/,
      );
      const probe = postgresStore({ url: server.url, index: 'vec' });
      stores.push(probe);
      expect(await probe.target()).toBe('absent');
    } finally {
      await vectors.close();
    }
  });
});
