/**
 * The vector collections of an index version (`postgresStore({ vectors: true })`): each is a
 * pgvector table of the index's schema, `vc_<version>_<name>`, written in the version's transaction,
 * listed in `version_collections`, searched in the database and dropped with its version.
 */
import {
  IndexFormatError,
  InvalidArgumentError,
  type Metric,
  type StoredVectorSearchOptions,
  type StoredVectors,
  type VectorCollectionOptions,
  type VectorHit,
} from '@grag/core';
import { assertK, assertVector, FlatIndex } from '@grag/core/kit';
import { guard, type PgDatabase, type PgQueryable } from './db.js';
import { quoteIdent } from './schema.js';
import { BATCH, HNSW_MAX_DIMENSIONS, hnswSettings, OPS, vectorText } from './vector.js';

/** Candidates beyond `k` an exact search scores again (at least `k` more). */
const EXACT_MARGIN = 16;

/** A vector from pgvector's text output, `[1,2,3]`. */
function parseVector(text: string): Float32Array {
  return Float32Array.from(JSON.parse(text) as number[]);
}

/** A collection as `version_collections` lists it. */
interface CollectionRow {
  name: string;
  tbl: string;
  dimensions: number;
  metric: Metric;
  exact: boolean;
  size: number;
}

/** Check a collection name (it becomes part of a table name). */
export function checkCollectionName(owner: string, name: unknown): string {
  if (typeof name !== 'string' || !/^[a-z][a-z0-9_]{0,40}$/.test(name)) {
    throw new InvalidArgumentError(
      'name',
      `${owner}: vector collection ${JSON.stringify(name)} is not a valid name; use lower-case letters, digits and _ (starting with a letter, at most 41 characters), e.g. 'chunks'.`,
    );
  }
  return name;
}

/**
 * Write collection `name` of version `version` inside the caller's transaction: its table, the
 * rows (id = position) in batches, an HNSW index unless the collection is exact, and its entry in
 * `version_collections`. The transaction must hold the index's lock and have checked pgvector.
 */
export async function writeCollection(
  tx: PgQueryable,
  schema: string,
  version: number,
  name: string,
  vectors: readonly ArrayLike<number>[],
  options: VectorCollectionOptions,
): Promise<void> {
  const q = quoteIdent(schema);
  const tbl = `vc_${version}_${name}`;
  const table = `${q}.${quoteIdent(tbl)}`;
  const { dimensions, metric, exact } = options;
  await tx.query(`CREATE TABLE ${table} (id integer PRIMARY KEY, embedding vector(${dimensions}) NOT NULL)`);
  for (let at = 0; at < vectors.length; at += BATCH) {
    const batch = vectors.slice(at, at + BATCH);
    await tx.query(
      `INSERT INTO ${table} (id, embedding) SELECT * FROM unnest($1::int[], $2::text[]::vector[])`,
      [batch.map((_, i) => at + i), batch.map((vector) => vectorText(vector))],
    );
  }
  if (!exact && dimensions <= HNSW_MAX_DIMENSIONS) {
    await tx.query(`CREATE INDEX ON ${table} USING hnsw (embedding ${OPS[metric].opclass})`);
  }
  await tx.query(
    `INSERT INTO ${q}.version_collections (version, name, tbl, dimensions, metric, exact, size)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [version, name, tbl, dimensions, metric, exact, vectors.length],
  );
}

/** Drop the collection tables of `versions` (their rows go with the versions). */
export async function dropCollections(
  tx: PgQueryable,
  schema: string,
  versions: readonly number[],
): Promise<void> {
  if (versions.length === 0) return;
  const q = quoteIdent(schema);
  const found = await tx.query<{ tbl: string }>(
    `SELECT tbl FROM ${q}.version_collections WHERE version = ANY($1::int[])`,
    [[...versions]],
  );
  for (const { tbl } of found.rows) await tx.query(`DROP TABLE IF EXISTS ${q}.${quoteIdent(tbl)}`);
}

/** The collections of `version`, by name (none in a schema written before collections existed). */
export async function listCollections(
  db: PgQueryable,
  schema: string,
  version: number,
): Promise<Map<string, CollectionRow>> {
  const q = quoteIdent(schema);
  const known = await db.query<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [
    `${q}.version_collections`,
  ]);
  if (known.rows[0]?.t == null) return new Map();
  const rows = await db.query<CollectionRow>(
    `SELECT name, tbl, dimensions, metric, exact, size FROM ${q}.version_collections WHERE version = $1`,
    [version],
  );
  return new Map(rows.rows.map((row) => [row.name, row]));
}

/**
 * A collection of one version, searched in the database through `db` (the store's pool). When
 * writes have deleted its version (see `keepVersions`), a search throws an `IndexFormatError`
 * saying to load the index again.
 */
export class PgStoredVectors implements StoredVectors {
  readonly kind = 'pgvector';
  readonly dimensions: number;
  readonly metric: Metric;
  readonly size: number;
  readonly exact: boolean;
  private readonly table: string;

  /** @internal made by `postgresStore`'s snapshots */
  constructor(
    private readonly db: PgDatabase,
    schema: string,
    row: CollectionRow,
    /** `<database>#<index>/<name>`, for messages. */
    readonly location: string,
  ) {
    this.dimensions = row.dimensions;
    this.metric = row.metric;
    this.size = row.size;
    this.exact = row.exact;
    this.table = `${quoteIdent(schema)}.${quoteIdent(row.tbl)}`;
  }

  /**
   * The `k` nearest ids to `query`, best first (equal scores by lower id). An exact collection is
   * scanned in the database, and its best candidates (k plus a margin, as pgvector computes in
   * single precision) are scored again by `FlatIndex`: the hits and scores of an in-process exact
   * index. Otherwise the HNSW index ranks them, with pgvector's scores, searching with a breadth
   * (`hnsw.ef_search`) of at least `k` and `options.ef` (pgvector's default, 40, would return at
   * most 40 hits), up to pgvector's 1000; more than 1000 hits are found by a scan of the whole
   * collection. `options` restricts the ids searched (`WHERE id = ANY(…)`; on an HNSW collection
   * pgvector filters what the index returns, so fewer than `k` hits may come back, as with any
   * filtered approximate search).
   */
  async search(
    query: ArrayLike<number>,
    k: number,
    options: StoredVectorSearchOptions = {},
  ): Promise<VectorHit[]> {
    assertVector('PgStoredVectors.search', 'query', query, this.dimensions);
    assertK('PgStoredVectors.search', k);
    if (k === 0 || options.ids?.length === 0) return [];
    const op = OPS[this.metric];
    const params: unknown[] = [vectorText(query)];
    const where: string[] = [];
    if (options.ids) {
      params.push([...options.ids]);
      where.push(`id = ANY($${params.length}::int[])`);
    }
    if (options.exclude && options.exclude.length > 0) {
      params.push([...options.exclude]);
      where.push(`NOT (id = ANY($${params.length}::int[]))`);
    }
    const filter = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
    if (this.exact) {
      const rows = await this.run<{ id: number; embedding: string }>(
        `SELECT id, embedding::text AS embedding FROM ${this.table} ${filter}
         ORDER BY embedding ${op.operator} $1::vector, id LIMIT $${params.length + 1}`,
        [...params, k + Math.max(EXACT_MARGIN, k)],
      );
      const flat = new FlatIndex({ dimensions: this.dimensions, metric: this.metric, capacity: rows.length });
      for (const row of rows) flat.add(row.id, parseVector(row.embedding));
      return flat.search(query, k);
    }
    const rows = await this.run<{ id: number; distance: number }>(
      `SELECT id, (embedding ${op.operator} $1::vector)::float8 AS distance FROM ${this.table} ${filter}
       ORDER BY embedding ${op.operator} $1::vector LIMIT $${params.length + 1}`,
      [...params, k],
      hnswSettings(k, options.ef),
    );
    return rows
      .map((row) => ({ id: row.id, score: op.score(Number(row.distance)) }))
      .sort((a, b) => b.score - a.score || a.id - b.id);
  }

  /** Every vector, by id. */
  async all(): Promise<Float32Array[]> {
    const rows = await this.run<{ id: number; embedding: string }>(
      `SELECT id, embedding::text AS embedding FROM ${this.table} ORDER BY id`,
    );
    return rows.map((row) => parseVector(row.embedding));
  }

  /** The vectors of `ids`, in that order (`IndexFormatError` when one is not in the collection). */
  async get(ids: readonly number[]): Promise<Float32Array[]> {
    if (ids.length === 0) return [];
    const rows = await this.run<{ id: number; embedding: string }>(
      `SELECT id, embedding::text AS embedding FROM ${this.table} WHERE id = ANY($1::int[])`,
      [[...new Set(ids)]],
    );
    const byId = new Map(rows.map((row) => [row.id, parseVector(row.embedding)]));
    return ids.map((id) => {
      const found = byId.get(id);
      if (!found)
        throw new IndexFormatError(this.location, undefined, `${this.location} has no vector ${id}.`);
      return found;
    });
  }

  /** Rows of `sql`, with `settings` (`SET LOCAL` statements) in a transaction of its own. */
  private async run<R>(sql: string, params: unknown[] = [], settings: readonly string[] = []): Promise<R[]> {
    return await guard(this.db.label, async () => {
      try {
        if (settings.length === 0) return (await this.db.query<R>(sql, params)).rows;
        return await this.db.transaction(async (tx) => {
          for (const setting of settings) await tx.query(setting);
          return (await tx.query<R>(sql, params)).rows;
        });
      } catch (error) {
        if ((error as { code?: string })?.code === '42P01') {
          throw new IndexFormatError(
            this.location,
            undefined,
            `${this.location}: the index version these vectors belong to was replaced and deleted by newer writes; load the index again.`,
            { cause: error },
          );
        }
        throw error;
      }
    });
  }
}
