/**
 * Issue 25, item 1 for PostgreSQL: one writer at a time per index. `postgresStore().lock()` holds a
 * session-level advisory lock from before a load until after the new version is committed;
 * writers through other stores (other processes) wait or are refused in one line naming the
 * holder; a holder killed with SIGKILL does not keep the index locked. On PGlite over the wire
 * (one server session shared by every connection), in-process PGlite, and Debian's PostgreSQL.
 */
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { postgresStore } from '../src/index.js';
import { type DebianServer, debianPostgresBin, startDebianServer } from './debian-server.js';
import { freshIndex, type SocketDb, servePglite, usePglite } from './pglite.js';
import {
  killedHolderCheck,
  type MakeStore,
  parallelMethodUpdatesCheck,
  parallelReadModifyWriteCheck,
  readIds,
  refusalAndWaitCheck,
  writeIds,
} from './writer-lock.js';

/**
 * The checks of a PostgreSQL server that other processes reach over the wire, each writer through
 * its own store (`url()` is read once the server has started); the SIGKILL check's title says what
 * the server does with the holder's session. `parallel: false` leaves out the checks with many
 * writers' queries in flight at once: PGlite over the wire serves every connection from one
 * session, and pglite-socket interleaves concurrent extended-protocol batches of different
 * connections (electric-sql/pglite#1046: "portal \"\" does not exist" under load), so there they
 * test the socket server, not the lock.
 */
function serverChecks(url: () => string, killed: string, parallel = true): void {
  const make: MakeStore = (index, options = {}) =>
    postgresStore({ url: url(), index, maxConnections: 2, ...options });

  it.runIf(parallel)(
    'loses no update of four bm25 updates at once, each through its own store',
    async () => {
      await parallelMethodUpdatesCheck(make, freshIndex('lockm'));
    },
    60_000,
  );

  it.runIf(parallel)(
    'loses no read-modify-write of six writers at once',
    async () => {
      await parallelReadModifyWriteCheck(make, freshIndex('lockr'));
    },
    60_000,
  );

  it('refuses a writer that may not wait in one line, and stores a waiting save after the holder', async () => {
    await refusalAndWaitCheck(make, freshIndex('lockw'));
  }, 60_000);

  it(`lets the next writer in once a holder is killed with SIGKILL${killed}`, async () => {
    await killedHolderCheck(url(), make, freshIndex('lockk'));
  }, 90_000);
}

describe('writer lock on PGlite over the wire', () => {
  let server: SocketDb;
  beforeAll(async () => {
    server = await servePglite(32, { pgvector: false });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });
  serverChecks(() => server.url, '', false);

  it('sends each statement of the lock connection as one message (simple protocol, no parameters)', async () => {
    // pglite-socket runs the messages of concurrent connections one by one, interleaved outside a
    // transaction: the Bind of an extended-protocol statement could meet another connection's
    // Parse (a holder's name bound to pg_try_advisory_lock's bigint, as the CLI's concurrent
    // writers once saw). A simple-protocol Query is one message and runs whole.
    const sent = new Map<pg.Client, { text: string; values: unknown }[]>();
    const query = pg.Client.prototype.query;
    const spy = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (
      this: pg.Client,
      ...args: unknown[]
    ) {
      const [config, values] = args as [string | { text: string; values?: unknown }, unknown];
      const statement =
        typeof config === 'string'
          ? { text: config, values }
          : { text: config.text, values: config.values ?? values };
      sent.set(this, [...(sent.get(this) ?? []), statement]);
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query);
    const index = freshIndex('lockq');
    const holder = postgresStore({ url: server.url, index, maxConnections: 2 });
    const refused = postgresStore({ url: server.url, index, maxConnections: 2, lockTimeoutMs: 0 });
    try {
      const lock = await (holder.lock as NonNullable<typeof holder.lock>)();
      const error = await (refused.lock as NonNullable<typeof refused.lock>)().catch((e: Error) => e);
      expect(String(error)).toMatch(
        new RegExp(`is being written by another grag \\(pid ${process.pid}, since `),
      );
      await lock.release();
    } finally {
      spy.mockRestore();
      await holder.close();
      await refused.close();
    }
    const lockConnections = [...sent.values()].filter((statements) =>
      statements.some((s) => s.text.includes('pg_try_advisory_lock')),
    );
    expect(lockConnections).toHaveLength(2);
    for (const statements of lockConnections) {
      expect(statements.length).toBeGreaterThanOrEqual(3);
      for (const s of statements)
        expect({ text: s.text, values: s.values }).toEqual({ text: s.text, values: undefined });
    }
  });
});

describe('writer lock on PGlite in-process', () => {
  let db: PGlite;
  usePglite(false, (fresh) => {
    db = fresh;
  });
  const make: MakeStore = (index, options = {}) => postgresStore({ db, index, ...options });

  it('loses no read-modify-write of six stores of one database at once', async () => {
    await parallelReadModifyWriteCheck(make, freshIndex('lockp'));
  }, 60_000);

  it('takes turns between lock() calls on one store', async () => {
    const store = make(freshIndex('lockt'));
    await writeIds(store, []);
    const { withStoreLock } = await import('@grag/core/store');
    await Promise.all(
      ['x', 'y', 'z'].map((id) =>
        withStoreLock(store, async () => {
          const ids = await readIds(store);
          await new Promise((resolve) => setTimeout(resolve, 5));
          await writeIds(store, [...ids, id]);
        }),
      ),
    );
    expect((await readIds(store)).sort()).toEqual(['x', 'y', 'z']);
  });
});

const bin = debianPostgresBin();
const reason = bin
  ? `writer lock on Debian PostgreSQL (${bin})`
  : 'SKIPPED: writer lock on Debian PostgreSQL: no /usr/lib/postgresql/*/bin/initdb; apt-get install -y postgresql to run it';

describe.skipIf(bin === undefined)(reason, () => {
  let server: DebianServer;
  beforeAll(async () => {
    server = await startDebianServer(bin!);
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  }, 60_000);
  serverChecks(() => server.url, ' (PostgreSQL ends its session)');
});
