/**
 * The schema of one index: its name, the versioned migrations that create it, and what a schema
 * found in the database is (absent, empty, grag's, or someone else's).
 */
import { IndexFormatError, InvalidArgumentError, OutputError } from '@grag/core';
import type { PgQueryable } from './db.js';

/** The layout version of an index schema this package writes and reads. */
export const SCHEMA_VERSION = 2;

/** PostgreSQL's longest identifier. */
const MAX_IDENTIFIER = 63;

/**
 * The migrations, in order: migration `i` (1-based) takes a schema from version `i - 1` to `i`.
 * `%s` is the quoted schema name.
 */
const MIGRATIONS: readonly string[][] = [
  [
    'CREATE TABLE %s.grag_meta (key text PRIMARY KEY, value text NOT NULL)',
    `CREATE TABLE %s.versions (
       id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
       manifest jsonb,
       created timestamptz NOT NULL DEFAULT now(),
       current boolean NOT NULL DEFAULT false)`,
    'CREATE UNIQUE INDEX versions_one_current ON %s.versions (current) WHERE current',
    `CREATE TABLE %s.artifacts (
       version integer NOT NULL REFERENCES %s.versions (id) ON DELETE CASCADE,
       name text NOT NULL,
       bytes bytea NOT NULL,
       PRIMARY KEY (version, name))`,
    `CREATE TABLE %s.collections (
       name text PRIMARY KEY,
       dimensions integer NOT NULL,
       metric text NOT NULL)`,
  ],
  [
    // The vector collections of each version (postgresStore with `vectors: true`): one table each.
    `CREATE TABLE %s.version_collections (
       version integer NOT NULL REFERENCES %s.versions (id) ON DELETE CASCADE,
       name text NOT NULL,
       tbl text NOT NULL,
       dimensions integer NOT NULL,
       metric text NOT NULL,
       exact boolean NOT NULL,
       size integer NOT NULL,
       PRIMARY KEY (version, name))`,
  ],
];

/** `name` as a double-quoted SQL identifier. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * Check an index name: lower-case letters, digits and `_`, starting with a letter, short enough
 * that `grag_<index>` is a PostgreSQL identifier.
 */
export function checkIndexName(fn: string, index: unknown): string {
  if (typeof index !== 'string' || !/^[a-z][a-z0-9_]*$/.test(index) || index.length > MAX_IDENTIFIER - 5) {
    throw new InvalidArgumentError(
      'index',
      `${fn}: index ${JSON.stringify(index)} is not a valid index name; use lower-case letters, digits and _ (starting with a letter, at most ${MAX_IDENTIFIER - 5} characters), e.g. 'docs'.`,
    );
  }
  return index;
}

/** Check a schema name (the same rule as an identifier: lower-case, at most 63 characters). */
export function checkSchemaName(fn: string, schema: unknown): string {
  if (
    typeof schema !== 'string' ||
    !/^[a-z_][a-z0-9_]*$/.test(schema) ||
    schema.length > MAX_IDENTIFIER ||
    schema.startsWith('pg_') ||
    schema === 'public' ||
    schema === 'information_schema'
  ) {
    throw new InvalidArgumentError(
      'schema',
      `${fn}: schema ${JSON.stringify(schema)} cannot hold an index; use lower-case letters, digits and _ (at most ${MAX_IDENTIFIER} characters, not public, information_schema or pg_*), e.g. 'grag_docs'.`,
    );
  }
  return schema;
}

/** What a schema in the database is. */
export type SchemaState =
  | { kind: 'absent' }
  | { kind: 'empty' }
  | { kind: 'grag'; version: number }
  | { kind: 'foreign'; tables: string[] };

/** Look at `schema`: absent, empty (no tables), grag's (with its layout version), or another's. */
export async function inspectSchema(q: PgQueryable, schema: string): Promise<SchemaState> {
  const found = await q.query<{ n: number }>('SELECT 1 AS n FROM pg_namespace WHERE nspname = $1', [schema]);
  if (found.rows.length === 0) return { kind: 'absent' };
  const tables = await q.query<{ relname: string }>(
    `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $1 AND c.relkind IN ('r', 'v', 'm', 'p', 'f', 'S') ORDER BY c.relname`,
    [schema],
  );
  const names = tables.rows.map((row) => row.relname);
  if (names.length === 0) return { kind: 'empty' };
  if (!names.includes('grag_meta')) return { kind: 'foreign', tables: names };
  const meta = await q.query<{ value: string }>(
    `SELECT value FROM ${quoteIdent(schema)}.grag_meta WHERE key = 'schema_version'`,
  );
  const version = Number(meta.rows[0]?.value);
  if (!Number.isInteger(version)) return { kind: 'foreign', tables: names };
  return { kind: 'grag', version };
}

/** The OutputError for a schema that exists and is not grag's. */
export function foreignSchema(location: string, schema: string, tables: string[]): OutputError {
  const shown = tables.slice(0, 3).join(', ') + (tables.length > 3 ? ', …' : '');
  return new OutputError(
    location,
    `Refusing to write the index to ${location}: schema ${schema} exists and is not a grag index (it holds ${shown}). Choose another index name or schema.`,
  );
}

/** The IndexFormatError for a schema written by a newer @grag/postgres. */
export function newerSchema(location: string, schema: string, version: number): IndexFormatError {
  return new IndexFormatError(
    location,
    version,
    `${location}: schema ${schema} has layout version ${version}, but this @grag/postgres reads up to version ${SCHEMA_VERSION}; upgrade @grag/postgres.`,
  );
}

/** A 64-bit advisory lock key for `schema` (the same in every process). */
export function lockSql(schema: string): { text: string; params: unknown[] } {
  return { text: 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', params: [`grag:${schema}`] };
}

/**
 * Make `schema` a grag index schema of layout {@link SCHEMA_VERSION}, inside the caller's
 * transaction (which must hold the schema's advisory lock): create it when absent or empty,
 * run the migrations it lacks, refuse a newer or a foreign schema.
 */
export async function migrate(tx: PgQueryable, schema: string, location: string): Promise<void> {
  const state = await inspectSchema(tx, schema);
  if (state.kind === 'foreign') throw foreignSchema(location, schema, state.tables);
  if (state.kind === 'grag' && state.version > SCHEMA_VERSION)
    throw newerSchema(location, schema, state.version);
  if (state.kind === 'grag' && state.version === SCHEMA_VERSION) return;
  const q = quoteIdent(schema);
  if (state.kind === 'absent') await tx.query(`CREATE SCHEMA ${q}`);
  const from = state.kind === 'grag' ? state.version : 0;
  for (let version = from + 1; version <= SCHEMA_VERSION; version++) {
    for (const statement of MIGRATIONS[version - 1]!) {
      await tx.query(statement.replaceAll('%s', q));
    }
  }
  await tx.query(
    `INSERT INTO ${q}.grag_meta (key, value) VALUES ('schema_version', $1)
     ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`,
    [String(SCHEMA_VERSION)],
  );
}
