/**
 * `@grag/postgres`: grag indexes in PostgreSQL. {@link postgresStore} is an `IndexStore` (every
 * method saves and loads through it), {@link pgVectorIndexFactory} keeps vectors in pgvector and
 * searches them in the database.
 *
 * @packageDocumentation
 */
export {
  type PgConnectionOptions,
  type PgQueryable,
  type PgRows,
  type PgTransactional,
  redactUrl,
} from './db.js';
export { PROVIDER } from './errors.js';
export { listPostgresIndexes } from './list.js';
export { SCHEMA_VERSION } from './schema.js';
export { type PostgresStore, type PostgresStoreOptions, postgresStore } from './store.js';
export {
  HNSW_MAX_DIMENSIONS,
  PgVectorIndex,
  type PgVectorIndexFactory,
  type PgVectorOptions,
  pgVectorIndexFactory,
} from './vector.js';
export type { AsyncVectorIndex, AsyncVectorSearchOptions } from './vector-types.js';
