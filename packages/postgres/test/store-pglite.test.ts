import type { PGlite } from '@electric-sql/pglite';
import { runIndexStoreSpec } from '@grag/core/test/vitest';
import { afterAll, beforeAll } from 'vitest';
import { postgresStore } from '../src/index.js';
import { freshIndex, makePglite } from './pglite.js';

let db: PGlite;
beforeAll(async () => {
  db = await makePglite(false);
}, 120_000);
afterAll(async () => {
  await db?.close();
});

runIndexStoreSpec('postgresStore on PGlite in-process', () => postgresStore({ db, index: freshIndex() }), {
  pinsVersions: true,
  makeForeign: async () => {
    const index = freshIndex('foreign');
    await db.exec(`CREATE SCHEMA grag_${index}; CREATE TABLE grag_${index}.customers (id int)`);
    return postgresStore({ db, index });
  },
  reopen: (store) => postgresStore({ db, index: store.location.slice(store.location.lastIndexOf('#') + 1) }),
});
