/**
 * `listPostgresIndexes`: the grag indexes a database holds, by name, as `grag serve --store` lists
 * them.
 */
import { connect, guard, type PgConnectionOptions } from './db.js';
import { inspectSchema, quoteIdent, SCHEMA_VERSION } from './schema.js';

/**
 * The names of the grag indexes in a database: every schema `grag_<index>` (where `postgresStore`
 * keeps the index `<index>` by default) that is grag's and has a current version, sorted. A schema
 * of that name that is someone else's, is empty, has no version yet, or was written by a newer
 * `@grag/postgres` is left out. Connects with `options` (exactly one of `url`, `pool`, `db`) and
 * closes what it opened.
 *
 * @example
 * ```ts
 * const names = await listPostgresIndexes({ url: process.env.DATABASE_URL });
 * const stores = names.map((index) => postgresStore({ url: process.env.DATABASE_URL, index }));
 * ```
 */
export async function listPostgresIndexes(options: PgConnectionOptions): Promise<string[]> {
  const db = connect('listPostgresIndexes', options);
  try {
    return await guard(db.label, async () => {
      const schemas = await db.query<{ nspname: string }>(
        `SELECT nspname FROM pg_namespace WHERE nspname LIKE 'grag\\_%' ORDER BY nspname`,
      );
      const names: string[] = [];
      for (const { nspname } of schemas.rows) {
        const index = nspname.slice('grag_'.length);
        if (!/^[a-z][a-z0-9_]*$/.test(index)) continue;
        const state = await inspectSchema(db, nspname);
        if (state.kind !== 'grag' || state.version > SCHEMA_VERSION) continue;
        const current = await db.query(`SELECT 1 AS n FROM ${quoteIdent(nspname)}.versions WHERE current`);
        if (current.rows.length > 0) names.push(index);
      }
      return names;
    });
  } finally {
    await db.close();
  }
}
