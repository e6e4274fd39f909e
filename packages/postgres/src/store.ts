/**
 * `postgresStore`: an {@link IndexStore} that keeps each version of an index in tables of its own
 * schema, written in one transaction under an advisory lock.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type ArtifactWriter,
  IndexFormatError,
  type IndexStore,
  InvalidArgumentError,
  StateError,
  type StoredIndex,
  type StoreLock,
  type StoreLockOptions,
  type StoreTarget,
  type VectorCollectionOptions,
  type VectorPrecision,
} from '@grag/core';
import { assertVector, indexFileError } from '@grag/core/kit';
import {
  artifactLocator,
  checkArtifactName,
  completeManifest,
  lockInTurn,
  manifestText,
  parseManifest,
  Scratch,
  vectorPrecisionOption,
} from '@grag/core/store';
import {
  checkCollectionName,
  dropCollections,
  listCollections,
  PgStoredVectors,
  writeCollection,
} from './collections.js';
import { connect, guard, type PgConnectionOptions, type PgDatabase, type PgQueryable } from './db.js';
import { acquireWriterLock, type WriterLock } from './lock.js';
import {
  checkIndexName,
  checkSchemaName,
  foreignSchema,
  inspectSchema,
  lockSql,
  migrate,
  newerSchema,
  quoteIdent,
  SCHEMA_VERSION,
} from './schema.js';
import { ensurePgvector } from './vector.js';

/** Options of {@link postgresStore}. */
export interface PostgresStoreOptions extends PgConnectionOptions {
  /** The index's name: lower-case letters, digits and `_`, e.g. `'docs'`. */
  index: string;
  /** The schema that holds the index. @default `grag_<index>` */
  schema?: string;
  /**
   * How many versions to keep, the current one included (at least 1). Older versions are deleted
   * by the write that makes them older, except those opened by a snapshot of this store object
   * that is not released yet. A snapshot of another process whose version was deleted gets an
   * `IndexFormatError` telling it to open the index again. @default 2 (current and previous)
   */
  keepVersions?: number;
  /**
   * Keep the vectors of methods that can search them in place (`naive-dense`) as pgvector tables of
   * each version, searched in the database, instead of an artifact every reader loads into memory.
   * Needs pgvector: a write without it fails with one line saying how to install it. Readers need
   * no option: a version's collections are opened whatever this says.
   * @default as the current version: with collections when it has some (so an update keeps them), else without
   */
  vectors?: boolean;
  /**
   * How long a write (or `lock()`) waits for another writer of the same index before an
   * `OutputError` naming it; `0` refuses at once. @default 60000
   */
  lockTimeoutMs?: number;
  /** Called when a write starts waiting for another writer (`holder`: `pid 123, since 14:02:07`). */
  onLockWait?: (holder: string) => void;
  /**
   * How vector rows are written (see `IndexStore.vectorPrecision`). @default the precision of the
   * version a write replaces, `'float32'` for a new index
   */
  vectorPrecision?: VectorPrecision;
}

/** An {@link IndexStore} in PostgreSQL, with the connection it owns. */
export interface PostgresStore extends IndexStore {
  /** Always `'postgres'`. */
  readonly kind: 'postgres';
  /** The schema that holds the index. */
  readonly schema: string;
  /**
   * Take the index's writer lock for a read-modify-write (see `IndexStore.lock` and
   * `withStoreLock`): a session-level advisory lock held on a connection of its own until
   * `release()`, or until that connection ends (PostgreSQL releases it when its process dies).
   */
  lock(options?: StoreLockOptions): Promise<StoreLock>;
  /** End the pool made from `url` (a `pool` or `db` you passed stays open). */
  close(): Promise<void>;
}

/**
 * A store that keeps one index in PostgreSQL: schema `grag_<index>` holds a table of versions
 * (manifest as `jsonb`, creation time, a current flag) and a table of artifacts (version, name,
 * bytes). The schema is created and migrated by the store itself on the first write.
 *
 * - `writeVersion` spools the artifacts the callback writes to a private temporary directory, then
 *   stores them in one transaction, holding the index's writer lock (below) and
 *   `pg_advisory_xact_lock` on the schema's name: two writers of one index commit one after the
 *   other, each a whole version; the manifest is stored last and the version becomes current at
 *   commit, so readers see the old version or the new one. A callback that throws stores nothing;
 *   a process that dies mid-commit is rolled back. No transaction is open while the callback runs,
 *   so it may read the same database (even a single-session one such as PGlite).
 * - One writer at a time: `lock()` takes a session-level advisory lock (key: the schema) on a
 *   connection of its own and holds it across a read-modify-write (`withStoreLock`: load, update,
 *   save); writes and `lock()` calls through other stores (other processes) wait up to
 *   `lockTimeoutMs`, then are refused with an `OutputError` naming the holder (`pid 123, since
 *   14:02:07`); `lock()` calls on one store take turns; a write through the store that holds the
 *   lock does not wait. A holder's lock ends with its connection, so a writer killed with SIGKILL
 *   keeps nobody out. On a database with one session for every connection (PGlite, as `db` or over
 *   `pglite-socket`), a lock held by that session counts as another writer's, and one whose
 *   process is gone (on this host) is released by the next writer.
 * - `open()` pins the current version's id: the snapshot keeps reading that version after newer
 *   ones are stored (see `keepVersions`).
 * - `target()` is `'absent'` (no schema), `'empty'` (an empty schema, or grag's with no version
 *   yet) or `'index'`; a schema with tables of someone else is refused with `OutputError`, and one
 *   written by a newer `@grag/postgres` with `IndexFormatError`.
 *
 * @example
 * ```ts
 * const store = postgresStore({ url: process.env.DATABASE_URL, index: 'docs' });
 * await denseRag.save(index, store);
 * const again = await denseRag.load(store, ctx);
 * await store.close();
 * ```
 */
export function postgresStore(options: PostgresStoreOptions): PostgresStore {
  const fn = 'postgresStore';
  if (options === null || typeof options !== 'object') {
    throw new InvalidArgumentError('options', `${fn}: pass { url | pool | db, index }.`);
  }
  const index = checkIndexName(fn, options.index);
  const schema = checkSchemaName(fn, options.schema ?? `grag_${index}`);
  const keep = options.keepVersions ?? 2;
  if (!Number.isInteger(keep) || keep < 1) {
    throw new InvalidArgumentError(
      'keepVersions',
      `${fn}: keepVersions must be an integer >= 1, got ${String(keep)}.`,
    );
  }
  const precision = vectorPrecisionOption(fn, options.vectorPrecision);
  const db: PgDatabase = connect(fn, options);
  const location = `${db.label}#${index}`;
  const s: PgStoreState = {
    db,
    location,
    owner: `postgresStore(${location})`,
    schema,
    q: quoteIdent(schema),
    keep,
    vectors: options.vectors,
    lockTimeoutMs: options.lockTimeoutMs,
    onLockWait: options.onLockWait,
    pinned: new Map(),
    closed: false,
    holding: undefined,
    inTurn: lockInTurn(),
  };
  return {
    kind: 'postgres',
    location,
    ...precision,
    schema,
    target: () => storeTarget(s),
    lock: (given) => lockStore(s, given),
    writeVersion: (manifest, write) => writeStoreVersion(s, manifest, write),
    open: () => openStoreVersion(s),
    close: () => closeStore(s),
  };
}

/** What the store's schema holds (see `IndexStore.target`). */
async function storeTarget(s: PgStoreState): Promise<StoreTarget> {
  const { db, location, schema, q } = s;
  checkOpen(s);
  return await guard(db.label, async () => {
    const state = await inspectSchema(db, schema);
    if (state.kind === 'absent' || state.kind === 'empty') return state.kind;
    if (state.kind === 'foreign') throw foreignSchema(location, schema, state.tables);
    if (state.version > SCHEMA_VERSION) throw newerSchema(location, schema, state.version);
    const current = await db.query(`SELECT 1 AS n FROM ${q}.versions WHERE current`);
    return current.rows.length > 0 ? 'index' : 'empty';
  });
}

/** Take the index's writer lock (see `PostgresStore.lock`). */
async function lockStore(s: PgStoreState, given: StoreLockOptions | undefined): Promise<StoreLock> {
  const { db } = s;
  checkOpen(s);
  const { held, lock } = await s.inTurn(
    () => {
      checkOpen(s);
      return guard(db.label, () => acquireWriterLock(db, lockOptions(s, given)));
    },
    (released) => {
      if (s.holding === released) s.holding = undefined;
    },
  );
  s.holding = lock;
  return held;
}

/** Release the writer lock and end the pool made from `url`. */
async function closeStore(s: PgStoreState): Promise<void> {
  const { db } = s;
  if (s.closed) return;
  s.closed = true;
  await s.holding?.release();
  s.holding = undefined;
  await db.close();
}

/**
 * What every operation of one `postgresStore` shares: its connection, names, the versions its
 * snapshots hold open, whether it is closed, and the writer lock `lock()` holds.
 */
interface PgStoreState {
  readonly db: PgDatabase;
  /** `<database>#<index>`, how messages name the index. */
  readonly location: string;
  /** `postgresStore(<location>)`, how messages name the store. */
  readonly owner: string;
  readonly schema: string;
  /** The schema name quoted for SQL. */
  readonly q: string;
  /** Versions kept, the current one included. */
  readonly keep: number;
  /** `PostgresStoreOptions.vectors`. */
  readonly vectors: boolean | undefined;
  readonly lockTimeoutMs: number | undefined;
  readonly onLockWait: ((holder: string) => void) | undefined;
  /** Version ids opened by unreleased snapshots of this store, with how many hold each. */
  readonly pinned: Map<number, number>;
  closed: boolean;
  /** The lock `lock()` took, while it is held. */
  holding: WriterLock | undefined;
  /** Callers of `lock()` in one process take turns. */
  readonly inTurn: ReturnType<typeof lockInTurn>;
}

/** Refuse to work on a closed store. */
function checkOpen(s: PgStoreState): void {
  if (s.closed)
    throw new StateError(`${s.owner}: the store was closed; make a new postgresStore to use it again.`);
}

/** The options of the writer lock of this store's index. */
function lockOptions(s: PgStoreState, given: StoreLockOptions = {}) {
  return {
    what: s.location,
    schema: s.schema,
    ...(s.lockTimeoutMs !== undefined ? { timeoutMs: s.lockTimeoutMs } : {}),
    ...(s.onLockWait !== undefined ? { onWait: s.onLockWait } : {}),
    ...given,
  };
}

/** The current version's id and manifest text, after checking the schema is grag's and readable. */
async function currentVersion(
  s: PgStoreState,
  tx: PgQueryable,
): Promise<{ id: number; manifest: string } | undefined> {
  const { schema, location, q } = s;
  const state = await inspectSchema(tx, schema);
  if (state.kind === 'foreign') {
    throw new IndexFormatError(
      location,
      undefined,
      `${location}: schema ${schema} is not a grag index (it holds ${state.tables.slice(0, 3).join(', ')}); check the index name.`,
    );
  }
  if (state.kind === 'grag' && state.version > SCHEMA_VERSION)
    throw newerSchema(location, schema, state.version);
  if (state.kind !== 'grag') return undefined;
  const rows = await tx.query<{ id: number; manifest: string }>(
    `SELECT id, manifest::text AS manifest FROM ${q}.versions WHERE current`,
  );
  return rows.rows[0];
}

/** Whether the current version has vector collections (false when there is no index yet). */
async function currentHasCollections(s: PgStoreState): Promise<boolean> {
  const { db, schema, q } = s;
  // Anything but a readable grag schema is the commit's to refuse (migrate says why).
  const state = await inspectSchema(db, schema);
  if (state.kind !== 'grag' || state.version > SCHEMA_VERSION) return false;
  const current = await db.query<{ id: number }>(`SELECT id FROM ${q}.versions WHERE current`);
  const id = current.rows[0]?.id;
  return id !== undefined && (await listCollections(db, schema, id)).size > 0;
}

/** One snapshot of version `id` released. */
function unpin(s: PgStoreState, id: number): void {
  const n = (s.pinned.get(id) ?? 0) - 1;
  if (n <= 0) s.pinned.delete(id);
  else s.pinned.set(id, n);
}

/** A snapshot of the current version (see `IndexStore.open`). */
async function openStoreVersion(s: PgStoreState): Promise<StoredIndex> {
  const { db, owner, location, schema, q, keep } = s;
  checkOpen(s);
  const found = await guard(db.label, async () => {
    const current = await currentVersion(s, db);
    if (current === undefined) return undefined;
    const names = await db.query<{ name: string }>(`SELECT name FROM ${q}.artifacts WHERE version = $1`, [
      current.id,
    ]);
    const collections = await listCollections(db, schema, current.id);
    return { ...current, names: names.rows.map((row) => row.name).sort(), collections };
  });
  if (found === undefined) {
    throw new IndexFormatError(
      location,
      undefined,
      `${location} holds no index yet. Build one into it first (method.save(index, store), or grag index --store).`,
    );
  }
  const manifest = parseManifest(found.manifest, location);
  const { id } = found;
  s.pinned.set(id, (s.pinned.get(id) ?? 0) + 1);
  const scratch = new Scratch(owner);
  const locate = (name: string) => artifactLocator(location, name);
  let released = false;
  const { collections } = found;
  return {
    manifest,
    names: found.names,
    collections: [...collections.keys()].sort(),
    async vectorCollection(name) {
      const row = collections.get(name);
      if (row === undefined) throw indexFileError(locate(name), 'is missing (no such vector collection)');
      return new PgStoredVectors(db, schema, row, `${location}/${name}`);
    },
    locate,
    async read(name) {
      const checked = checkArtifactName(name, owner);
      if (released) throw new StateError(`${owner}: this snapshot was released; open the index again.`);
      const rows = await guard(db.label, () =>
        db.query<{ bytes: Uint8Array | null; live: boolean }>(
          `SELECT a.bytes, true AS live FROM ${q}.artifacts a WHERE a.version = $1 AND a.name = $2
           UNION ALL SELECT NULL, false WHERE NOT EXISTS (SELECT 1 FROM ${q}.versions WHERE id = $1)`,
          [id, checked],
        ),
      );
      const row = rows.rows[0];
      if (row !== undefined && !row.live) {
        throw new IndexFormatError(
          location,
          manifest.formatVersion,
          `${location}: the version this snapshot opened (${id}) was replaced and deleted by newer writes (the store keeps ${keep}); open the index again.`,
        );
      }
      if (row?.bytes == null) throw indexFileError(locate(checked), 'is missing');
      return new Uint8Array(row.bytes);
    },
    scratch: () => scratch.get(),
    async release() {
      if (!released) {
        released = true;
        unpin(s, id);
      }
      await scratch.remove();
    },
  };
}

/** Store a new version of the index: the artifacts and collections `write` writes, then `manifest`. */
async function writeStoreVersion(
  s: PgStoreState,
  manifest: Parameters<IndexStore['writeVersion']>[0],
  write: Parameters<IndexStore['writeVersion']>[1],
): Promise<void> {
  const { db, owner, location, schema, q, keep } = s;
  checkOpen(s);
  const text = manifestText(completeManifest(manifest));
  const scratch = new Scratch(owner);
  const spool = new Scratch(owner);
  /** Artifact name → its spool file, in the order written (a name written again keeps its last bytes). */
  const spooled = new Map<string, string>();
  /** Vector collections to store with the version, by name. */
  const collections = new Map<
    string,
    { vectors: readonly ArrayLike<number>[]; options: VectorCollectionOptions }
  >();
  let ended = false;
  try {
    const keepVectors = s.vectors ?? (await guard(db.label, () => currentHasCollections(s)));
    const out: ArtifactWriter = {
      async write(name, data) {
        if (ended) {
          throw new StateError(
            `${owner}: this artifact writer belongs to a version that was already stored or abandoned; write artifacts inside the writeVersion callback.`,
          );
        }
        const checked = checkArtifactName(name, owner);
        if (!(data instanceof Uint8Array)) {
          throw new InvalidArgumentError('data', `${owner}: artifact ${checked} must be a Uint8Array.`);
        }
        const file = join(await spool.get(), String(spooled.size));
        await writeFile(file, data);
        spooled.set(checked, file);
      },
      scratch: () => scratch.get(),
      ...(keepVectors
        ? {
            async vectorCollection(name, vectors, collection) {
              const checked = checkCollectionName(owner, name);
              for (const vector of vectors) assertVector(owner, 'vectors', vector, collection.dimensions);
              collections.set(checked, { vectors: [...vectors], options: { ...collection } });
            },
          }
        : {}),
    };
    try {
      await write(out);
    } finally {
      ended = true;
    }
    // The writer lock: the one lock() holds, else taken for this commit alone.
    const held = s.holding;
    if (held !== undefined && !(await held.alive())) {
      throw new StateError(
        `${owner}: the connection holding the writer lock of ${location} was lost, so another writer may have stored a version meanwhile; run the update again.`,
      );
    }
    const own =
      held === undefined ? await guard(db.label, () => acquireWriterLock(db, lockOptions(s))) : undefined;
    try {
      await commit();
    } finally {
      await own?.release();
    }
  } finally {
    ended = true;
    await Promise.all([scratch.remove(), spool.remove()]);
  }

  async function commit(): Promise<void> {
    await guard(db.label, () =>
      db.transaction(async (tx) => {
        if (collections.size > 0) await ensurePgvector(tx, db.label);
        const lock = lockSql(schema);
        await tx.query(lock.text, lock.params);
        await migrate(tx, schema, location);
        const made = await tx.query<{ id: number }>(
          `INSERT INTO ${q}.versions (manifest) VALUES (NULL) RETURNING id`,
        );
        const id = made.rows[0]!.id;
        for (const [name, file] of spooled) {
          await tx.query(`INSERT INTO ${q}.artifacts (version, name, bytes) VALUES ($1, $2, $3)`, [
            id,
            name,
            await readFile(file),
          ]);
        }
        for (const [name, collection] of collections) {
          await writeCollection(tx, schema, id, name, collection.vectors, collection.options);
        }
        await tx.query(`UPDATE ${q}.versions SET manifest = $1::jsonb WHERE id = $2`, [text, id]);
        await tx.query(`UPDATE ${q}.versions SET current = false WHERE current`);
        await tx.query(`UPDATE ${q}.versions SET current = true WHERE id = $1`, [id]);
        const old = await tx.query<{ id: number }>(
          `SELECT id FROM ${q}.versions WHERE NOT current AND NOT (id = ANY($1::int[]))
           AND id NOT IN (SELECT id FROM ${q}.versions WHERE NOT current ORDER BY id DESC LIMIT $2)`,
          [[...s.pinned.keys()], keep - 1],
        );
        const gone = old.rows.map((row) => row.id);
        await dropCollections(tx, schema, gone);
        await tx.query(`DELETE FROM ${q}.versions WHERE id = ANY($1::int[])`, [gone]);
      }),
    );
  }
}
