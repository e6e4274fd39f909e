import type { PGlite } from '@electric-sql/pglite';
import { runIndexStoreSpec } from '@grag/core/test/vitest';
import { postgresStore } from '../src/index.js';
import { freshIndex, usePglite } from './pglite.js';

let db: PGlite;
usePglite(false, (fresh) => {
  db = fresh;
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
