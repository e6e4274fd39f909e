/**
 * `listPostgresIndexes`: the indexes of a database by name — grag's schemas with a current
 * version — and nothing else that sits beside them.
 */
import type { PGlite } from '@electric-sql/pglite';
import { createBuildContext } from '@grag/core/kit';
import { bm25Rag } from '@grag/naive-rag';
import { createOfflineProviders } from '@grag/offline';
import { describe, expect, it } from 'vitest';
import { listPostgresIndexes, postgresStore } from '../src/index.js';
import { usePglite } from './pglite.js';

let db: PGlite;
usePglite(false, (fresh) => {
  db = fresh;
});

const DOCS = [
  { id: 'ferry', text: 'The ferry Sable Gull crosses the Veskan Strait twice a day.' },
  { id: 'quay', text: 'Port Halvard has a stone quay built in 1881.' },
];

describe('listPostgresIndexes', () => {
  it('lists the saved indexes by name, sorted, leaving out empty, foreign and unversioned schemas', async () => {
    expect(await listPostgresIndexes({ db })).toEqual([]);
    const ctx = createBuildContext(createOfflineProviders());
    const index = await bm25Rag.build(DOCS, ctx);
    for (const name of ['strait', 'harbour_b', 'harbour_a']) {
      const store = postgresStore({ db, index: name });
      await bm25Rag.save(index, store);
      await store.close();
    }
    await db.exec('CREATE SCHEMA grag_empty');
    await db.exec('CREATE SCHEMA grag_crm; CREATE TABLE grag_crm.customers (id int)');
    await db.exec('CREATE SCHEMA other; CREATE TABLE other.t (id int)');
    // A store whose schema was made but that holds no version yet.
    await db.exec(
      "CREATE SCHEMA grag_pending; CREATE TABLE grag_pending.grag_meta (key text PRIMARY KEY, value text NOT NULL); INSERT INTO grag_pending.grag_meta VALUES ('schema_version', '1'); CREATE TABLE grag_pending.versions (id integer, manifest jsonb, current boolean NOT NULL DEFAULT false)",
    );
    expect(await listPostgresIndexes({ db })).toEqual(['harbour_a', 'harbour_b', 'strait']);
  });

  it('refuses to connect without exactly one of url, pool, db, in one line', async () => {
    await expect(listPostgresIndexes({})).rejects.toThrow(
      'listPostgresIndexes: pass exactly one of url (a postgres:// URL), pool (a pg.Pool) or db (e.g. a PGlite instance); got none.',
    );
  });
});
