/**
 * Vector collections on pgvector: one table per collection in the index's schema, an HNSW index
 * on it, searched in the database. The API is asynchronous (`AsyncVectorIndex`): core's
 * `VectorIndex` is synchronous and a query over the network cannot be.
 */
import { IndexFormatError, InvalidArgumentError, type Metric, type VectorIndexOptions } from '@grag/core';
import { assertK, assertVector, assertVectorId } from '@grag/core/kit';
import { connect, guard, type PgConnectionOptions, type PgDatabase, type PgQueryable } from './db.js';
import { missingPgvector } from './errors.js';
import { checkIndexName, checkSchemaName, lockSql, migrate, quoteIdent } from './schema.js';
import type { AsyncVectorIndex, AsyncVectorSearchOptions, VectorHit } from './vector-types.js';

/** pgvector's largest dimension an HNSW index accepts on the `vector` type. */
export const HNSW_MAX_DIMENSIONS = 2000;

export const OPS: Record<Metric, { operator: string; opclass: string; score: (distance: number) => number }> =
  {
    cosine: { operator: '<=>', opclass: 'vector_cosine_ops', score: (d) => 1 - d },
    ip: { operator: '<#>', opclass: 'vector_ip_ops', score: (d) => -d },
    l2: { operator: '<->', opclass: 'vector_l2_ops', score: (d) => -(d * d) },
  };

/** Options of {@link pgVectorIndexFactory}. */
export interface PgVectorOptions extends PgConnectionOptions {
  /** The index whose schema holds the collection (as in `postgresStore`). */
  index: string;
  /** The schema. @default `grag_<index>` */
  schema?: string;
  /** The collection's name: lower-case letters, digits and `_`, e.g. `'chunks'`. */
  collection: string;
}

/** Creates and opens one pgvector collection of one index. */
export interface PgVectorIndexFactory {
  /** Always `'pgvector'`. */
  readonly kind: 'pgvector';
  /** `<database>#<index>/<collection>`, for messages. */
  readonly location: string;
  /**
   * Create the collection, empty (replacing one of the same name): its table, and an HNSW index
   * for `metric` when `dimensions` ≤ {@link HNSW_MAX_DIMENSIONS} (above, searches are exact scans).
   * @throws StateError when the database has no pgvector.
   */
  create(options: VectorIndexOptions): Promise<PgVectorIndex>;
  /** Open the existing collection. @throws IndexFormatError when there is none. */
  open(): Promise<PgVectorIndex>;
  /** Drop the collection (nothing when there is none). */
  drop(): Promise<void>;
  /** End the pool made from `url` (a `pool` or `db` you passed stays open). */
  close(): Promise<void>;
}

/** `vector` as pgvector's text input, `[1,2,3]`. */
export function vectorText(vector: ArrayLike<number>): string {
  return `[${Array.from(vector, (x) => String(x)).join(',')}]`;
}

/** Make sure the `vector` extension exists in the database, or throw the one-line StateError. */
export async function ensurePgvector(tx: PgQueryable, label: string): Promise<void> {
  const installed = await tx.query('SELECT 1 AS n FROM pg_extension WHERE extname = $1', ['vector']);
  if (installed.rows.length > 0) return;
  const available = await tx.query('SELECT 1 AS n FROM pg_available_extensions WHERE name = $1', ['vector']);
  if (available.rows.length === 0) throw missingPgvector(label);
  await tx.query('CREATE EXTENSION IF NOT EXISTS vector');
}

/**
 * A factory of one pgvector collection: vectors of index `index` live in table
 * `grag_<index>.vec_<collection>` (`id integer`, `embedding vector(n)`) with an HNSW index, so a
 * search never sees another index's vectors and runs in the database.
 *
 * @example
 * ```ts
 * const vectors = pgVectorIndexFactory({ url, index: 'docs', collection: 'chunks' });
 * const chunks = await vectors.create({ dimensions: 768, metric: 'cosine' });
 * await chunks.addMany(embeddings.map((e, id) => [id, e]));
 * const hits = await chunks.search(queryEmbedding, 10);
 * ```
 */
export function pgVectorIndexFactory(options: PgVectorOptions): PgVectorIndexFactory {
  const fn = 'pgVectorIndexFactory';
  if (options === null || typeof options !== 'object') {
    throw new InvalidArgumentError('options', `${fn}: pass { url | pool | db, index, collection }.`);
  }
  const index = checkIndexName(fn, options.index);
  const schema = checkSchemaName(fn, options.schema ?? `grag_${index}`);
  const collection = options.collection;
  if (typeof collection !== 'string' || !/^[a-z][a-z0-9_]{0,50}$/.test(collection)) {
    throw new InvalidArgumentError(
      'collection',
      `${fn}: collection ${JSON.stringify(collection)} is not a valid name; use lower-case letters, digits and _ (starting with a letter, at most 51 characters), e.g. 'chunks'.`,
    );
  }
  const db = connect(fn, options);
  const location = `${db.label}#${index}/${collection}`;
  const table = `${quoteIdent(schema)}.${quoteIdent(`vec_${collection}`)}`;
  const registry = `${quoteIdent(schema)}.collections`;

  return {
    kind: 'pgvector',
    location,
    async create(settings) {
      const dimensions = settings?.dimensions;
      const metric = settings?.metric ?? 'cosine';
      if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 16000) {
        throw new InvalidArgumentError(
          'dimensions',
          `${fn}: dimensions must be an integer from 1 to 16000 (pgvector's limit), got ${String(dimensions)}.`,
        );
      }
      if (!(metric in OPS)) {
        throw new InvalidArgumentError(
          'metric',
          `${fn}: metric must be 'cosine', 'ip' or 'l2', got ${String(metric)}.`,
        );
      }
      return await guard(db.label, async () => {
        await db.transaction(async (tx) => {
          await ensurePgvector(tx, db.label);
          const lock = lockSql(schema);
          await tx.query(lock.text, lock.params);
          await migrate(tx, schema, `${db.label}#${index}`);
          await tx.query(`DROP TABLE IF EXISTS ${table}`);
          await tx.query(
            `CREATE TABLE ${table} (id integer PRIMARY KEY, embedding vector(${dimensions}) NOT NULL)`,
          );
          if (dimensions <= HNSW_MAX_DIMENSIONS) {
            await tx.query(
              `CREATE INDEX ${quoteIdent(`vec_${collection}_hnsw`)} ON ${table} USING hnsw (embedding ${OPS[metric].opclass})`,
            );
          }
          await tx.query(
            `INSERT INTO ${registry} (name, dimensions, metric) VALUES ($1, $2, $3)
             ON CONFLICT (name) DO UPDATE SET dimensions = EXCLUDED.dimensions, metric = EXCLUDED.metric`,
            [collection, dimensions, metric],
          );
        });
        return new PgVectorIndex(db, location, table, dimensions, metric);
      });
    },
    open() {
      return guard(db.label, async () => {
        await ensurePgvector(db, db.label);
        const found = await db
          .query<{ dimensions: number; metric: Metric }>(
            `SELECT dimensions, metric FROM ${registry} WHERE name = $1`,
            [collection],
          )
          .catch((error: { code?: string }) => {
            if (error?.code === '42P01') return { rows: [] }; // no schema or registry yet
            throw error;
          });
        const row = found.rows[0];
        if (row === undefined) {
          throw new IndexFormatError(
            location,
            undefined,
            `${location}: there is no vector collection '${collection}' in index '${index}'; create it first (factory.create({ dimensions })).`,
          );
        }
        return new PgVectorIndex(db, location, table, row.dimensions, row.metric);
      });
    },
    drop() {
      return guard(db.label, async () => {
        await db.transaction(async (tx) => {
          const lock = lockSql(schema);
          await tx.query(lock.text, lock.params);
          await tx.query(`DROP TABLE IF EXISTS ${table}`);
          const registered = await tx.query<{ table: string | null }>(
            'SELECT to_regclass($1)::text AS table',
            [`${quoteIdent(schema)}.collections`],
          );
          if (registered.rows[0]?.table != null) {
            await tx.query(`DELETE FROM ${registry} WHERE name = $1`, [collection]);
          }
        });
      });
    },
    close: () => db.close(),
  };
}

/** Rows written per statement by {@link PgVectorIndex.addMany}. */
export const BATCH = 500;

/**
 * One pgvector collection: vectors under non-negative integer ids, searched in the database.
 * Scores are higher-is-better as in core: cosine similarity, inner product, or minus the squared
 * L2 distance. Made by {@link PgVectorIndexFactory}.
 */
export class PgVectorIndex implements AsyncVectorIndex {
  /** Always `'pgvector'`. */
  readonly kind = 'pgvector';

  /** @internal made by {@link pgVectorIndexFactory} */
  constructor(
    private readonly db: PgDatabase,
    /** `<database>#<index>/<collection>`, for messages. */
    readonly location: string,
    private readonly table: string,
    readonly dimensions: number,
    readonly metric: Metric,
  ) {}

  /** Number of vectors stored. */
  size(): Promise<number> {
    return guard(this.db.label, async () => {
      const rows = await this.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.table}`);
      return rows.rows[0]?.n ?? 0;
    });
  }

  /** Add (or replace) the vector of `id`. */
  add(id: number, vector: ArrayLike<number>): Promise<void> {
    return this.addMany([[id, vector]]);
  }

  /** Add (or replace) many vectors, in batches of 500 rows per statement. */
  async addMany(entries: Iterable<readonly [number, ArrayLike<number>]>): Promise<void> {
    const rows = [...entries];
    for (const [id, vector] of rows) {
      assertVectorId('PgVectorIndex.add', id);
      assertVector('PgVectorIndex.add', 'vector', vector, this.dimensions);
    }
    await guard(this.db.label, async () => {
      for (let at = 0; at < rows.length; at += BATCH) {
        const batch = rows.slice(at, at + BATCH);
        await this.db.query(
          `INSERT INTO ${this.table} (id, embedding)
           SELECT * FROM unnest($1::int[], $2::text[]::vector[])
           ON CONFLICT (id) DO UPDATE SET embedding = EXCLUDED.embedding`,
          [batch.map(([id]) => id), batch.map(([, vector]) => vectorText(vector))],
        );
      }
    });
  }

  /** Whether `id` has a vector. */
  async has(id: number): Promise<boolean> {
    assertVectorId('PgVectorIndex.has', id);
    return await guard(this.db.label, async () => {
      const rows = await this.db.query(`SELECT 1 AS n FROM ${this.table} WHERE id = $1`, [id]);
      return rows.rows.length > 0;
    });
  }

  /** Remove the vectors of `ids` (ids without one are skipped). */
  async remove(ids: readonly number[]): Promise<void> {
    for (const id of ids) assertVectorId('PgVectorIndex.remove', id);
    await guard(this.db.label, async () => {
      await this.db.query(`DELETE FROM ${this.table} WHERE id = ANY($1::int[])`, [[...ids]]);
    });
  }

  /**
   * The `k` nearest ids to `query`, best first (equal scores by lower id), ranked by the database
   * (through the HNSW index when the planner uses it, so approximate like any HNSW search).
   * `ids` keeps only those ids; the search's `hnsw.ef_search` is at least `k` and `ef` (see
   * `hnswSettings`: pgvector's default of 40 would return at most 40 rows).
   */
  async search(
    query: ArrayLike<number>,
    k: number,
    options: AsyncVectorSearchOptions = {},
  ): Promise<VectorHit[]> {
    assertVector('PgVectorIndex.search', 'query', query, this.dimensions);
    assertK('PgVectorIndex.search', k);
    const { ef, ids } = options;
    if (ef !== undefined && (!Number.isInteger(ef) || ef < 1 || ef > 1000)) {
      throw new InvalidArgumentError(
        'ef',
        `PgVectorIndex.search: ef must be an integer from 1 to 1000, got ${String(ef)}.`,
      );
    }
    if (k === 0 || ids?.length === 0) return [];
    if (ids !== undefined) for (const id of ids) assertVectorId('PgVectorIndex.search', id);
    const op = OPS[this.metric];
    const params: unknown[] = [vectorText(query), k];
    if (ids !== undefined) params.push([...ids]);
    const sql = `SELECT id, (embedding ${op.operator} $1::vector)::float8 AS distance FROM ${this.table}
      ${ids !== undefined ? 'WHERE id = ANY($3::int[])' : ''}
      ORDER BY embedding ${op.operator} $1::vector LIMIT $2`;
    return await guard(this.db.label, async () => {
      const rows = await this.db.transaction(async (tx) => {
        for (const setting of hnswSettings(k, ef)) await tx.query(setting);
        return (await tx.query<{ id: number; distance: number }>(sql, params)).rows;
      });
      return rows
        .map((row) => ({ id: row.id, score: op.score(Number(row.distance)) }))
        .sort((a, b) => b.score - a.score || a.id - b.id);
    });
  }
}

/** pgvector's largest `hnsw.ef_search`. */
const MAX_EF_SEARCH = 1000;

/**
 * The settings of an HNSW collection's search for `k` hits: pgvector's index scan returns at most
 * `hnsw.ef_search` rows (40 by default), so the breadth is at least `k` (and `ef` when given, up to
 * pgvector's 1000); past 1000 hits the scan cannot give them, so the collection is scanned whole
 * instead (exact, as a search that asks for that many wants every candidate anyway).
 */
export function hnswSettings(k: number, ef: number | undefined): string[] {
  if (k > MAX_EF_SEARCH) return ['SET LOCAL enable_indexscan = off'];
  const breadth = Math.min(MAX_EF_SEARCH, Math.max(k, ef ?? 0, 40));
  return [`SET LOCAL hnsw.ef_search = ${breadth}`];
}
