import { runIndexStoreSpec } from '@grag/core/test/vitest';
import pg from 'pg';
import { describe, it } from 'vitest';
import { postgresStore } from '../src/index.js';
import { killedWriterCheck } from './crash.js';
import { freshIndex, type SocketDb, useServedPglite } from './pglite.js';
import { concurrentWritersCheck } from './writers.js';

let server: SocketDb;
let pool: pg.Pool;
useServedPglite(4, (p, s) => {
  pool = p;
  server = s;
});

runIndexStoreSpec(
  'postgresStore on PGlite over the wire (pg.Pool)',
  () => postgresStore({ pool, index: freshIndex() }),
  {
    pinsVersions: true,
    makeForeign: async () => {
      const index = freshIndex('foreign');
      await pool.query(`CREATE SCHEMA grag_${index}; CREATE TABLE grag_${index}.customers (id int)`);
      return postgresStore({ pool, index });
    },
    reopen: (store) =>
      postgresStore({ url: server.url, index: store.location.slice(store.location.lastIndexOf('#') + 1) }),
  },
);

describe('postgresStore over the wire', () => {
  it('completes concurrent writers on separate pools, ending on one whole version', async () => {
    const pools: pg.Pool[] = [];
    try {
      await concurrentWritersCheck(() => {
        const own = new pg.Pool({ connectionString: server.url, max: 2 });
        pools.push(own);
        return postgresStore({ pool: own, index: 'race' });
      });
    } finally {
      for (const own of pools) await own.end();
    }
  });

  it('serves the old version after a writer is killed with SIGKILL inside its write', async () => {
    await killedWriterCheck(server.url, 'crash', 'callback');
  });
});
