import type { PGlite } from '@electric-sql/pglite';
import {
  IndexFormatError,
  InvalidArgumentError,
  type ManifestInput,
  OutputError,
  StateError,
} from '@grag/core';
import { describe, expect, it } from 'vitest';
import { postgresStore, SCHEMA_VERSION } from '../src/index.js';
import { freshIndex, usePglite } from './pglite.js';
import { concurrentWritersCheck } from './writers.js';

let db: PGlite;
usePglite(false, (fresh) => {
  db = fresh;
});

const manifest = (n: number): ManifestInput => ({
  method: 'm',
  formatVersion: 1,
  params: { n },
  providers: {},
});
const encode = (text: string) => new TextEncoder().encode(text);
const write = (store: ReturnType<typeof postgresStore>, n: number) =>
  store.writeVersion(manifest(n), async (out) => {
    await out.write('n.txt', encode(String(n)));
  });
const versionIds = async (index: string) =>
  (await db.query<{ id: number }>(`SELECT id FROM grag_${index}.versions ORDER BY id`)).rows.map((r) => r.id);

describe('postgresStore', () => {
  it('names its location by database and index, and its schema grag_<index>', () => {
    const store = postgresStore({ db, index: 'docs' });
    expect([store.kind, store.location, store.schema]).toEqual(['postgres', 'pglite#docs', 'grag_docs']);
    expect(postgresStore({ db, index: 'docs', schema: 'search' }).schema).toBe('search');
  });

  it('leaves the password out of the location of a URL', async () => {
    const store = postgresStore({ url: 'postgres://reader:s3cret@db.example:6543/rag', index: 'docs' });
    expect(store.location).toBe('postgres://reader@db.example:6543/rag#docs');
    await store.close();
  });

  it('refuses bad names and connection options with one line each', () => {
    expect(() => postgresStore({ db, index: 'My-Docs' })).toThrow(
      `postgresStore: index "My-Docs" is not a valid index name; use lower-case letters, digits and _ (starting with a letter, at most 58 characters), e.g. 'docs'.`,
    );
    expect(() => postgresStore({ db, index: 'docs', schema: 'public' })).toThrow(InvalidArgumentError);
    expect(() => postgresStore({ db, index: 'x'.repeat(59) })).toThrow(/not a valid index name/);
    expect(() => postgresStore({ index: 'docs' })).toThrow(
      'postgresStore: pass exactly one of url (a postgres:// URL), pool (a pg.Pool) or db (e.g. a PGlite instance); got none.',
    );
    expect(() => postgresStore({ db, url: 'postgres://h/d', index: 'docs' })).toThrow(/got url and db/);
    expect(() => postgresStore({ url: 'mysql://h/d', index: 'docs' })).toThrow(
      'postgresStore: mysql://h/d is not a postgres:// URL; use postgres://user:password@host:5432/database.',
    );
    expect(() => postgresStore({ db, index: 'docs', keepVersions: 0 })).toThrow(
      /keepVersions must be an integer >= 1/,
    );
  });

  it('creates its schema by migration on the first write, recording the layout version', async () => {
    const index = freshIndex();
    const store = postgresStore({ db, index });
    expect(await store.target()).toBe('absent');
    await write(store, 1);
    const meta = await db.query<{ key: string; value: string }>(
      `SELECT key, value FROM grag_${index}.grag_meta`,
    );
    expect(meta.rows).toEqual([{ key: 'schema_version', value: String(SCHEMA_VERSION) }]);
    const manifestRow = await db.query<{ method: string }>(
      `SELECT manifest->>'method' AS method FROM grag_${index}.versions WHERE current`,
    );
    expect(manifestRow.rows).toEqual([{ method: 'm' }]);
  });

  it('writes into an empty schema made by someone else', async () => {
    const index = freshIndex();
    await db.exec(`CREATE SCHEMA grag_${index}`);
    const store = postgresStore({ db, index });
    expect(await store.target()).toBe('empty');
    await write(store, 1);
    expect(await store.target()).toBe('index');
  });

  it('refuses a schema of a newer layout in one line, for reads and writes, changing nothing', async () => {
    const index = freshIndex();
    const store = postgresStore({ db, index });
    await write(store, 1);
    await db.query(`UPDATE grag_${index}.grag_meta SET value = '7' WHERE key = 'schema_version'`);
    const expected = `pglite#${index}: schema grag_${index} has layout version 7, but this @grag/postgres reads up to version ${SCHEMA_VERSION}; upgrade @grag/postgres.`;
    for (const attempt of [store.target(), store.open(), write(store, 2)]) {
      const error = await attempt.catch((e: unknown) => e);
      expect(IndexFormatError.isInstance(error), String(error)).toBe(true);
      expect((error as Error).message).toBe(expected);
      expect((error as IndexFormatError).version).toBe(7);
    }
    expect(await versionIds(index)).toHaveLength(1);
  });

  it('refuses a foreign schema naming its tables', async () => {
    const index = freshIndex();
    await db.exec(`CREATE SCHEMA grag_${index}; CREATE TABLE grag_${index}.orders (id int)`);
    const error = await postgresStore({ db, index })
      .target()
      .catch((e: unknown) => e);
    expect(OutputError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      `Refusing to write the index to pglite#${index}: schema grag_${index} exists and is not a grag index (it holds orders). Choose another index name or schema.`,
    );
  });

  it('keeps the current and the previous version by default', async () => {
    const index = freshIndex();
    const store = postgresStore({ db, index });
    for (let n = 1; n <= 4; n++) await write(store, n);
    const ids = await versionIds(index);
    expect(ids).toHaveLength(2);
    const artifacts = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM grag_${index}.artifacts`);
    expect(artifacts.rows[0]!.n).toBe(2);
  });

  it('keeps a version its own open snapshots read, and tells a snapshot whose version another writer deleted', async () => {
    const index = freshIndex();
    const store = postgresStore({ db, index, keepVersions: 1 });
    await write(store, 1);
    const snapshot = await store.open();
    await write(store, 2);
    await write(store, 3);
    expect(new TextDecoder().decode(await snapshot.read('n.txt'))).toBe('1');
    expect(await versionIds(index)).toHaveLength(2); // 1 (pinned) and 3 (current)
    // Another process's store does not know the pin: with keepVersions 1 it deletes version 1.
    await write(postgresStore({ db, index, keepVersions: 1 }), 4);
    const error = await snapshot.read('n.txt').catch((e: unknown) => e);
    expect(IndexFormatError.isInstance(error), String(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /the version this snapshot opened \(\d+\) was replaced and deleted by newer writes \(the store keeps 1\); open the index again\.$/,
    );
    await snapshot.release();
    await write(store, 5);
    expect(await versionIds(index)).toHaveLength(1);
  });

  it('completes concurrent writers of one index, ending on one whole version', async () => {
    const index = freshIndex('race');
    await concurrentWritersCheck(() => postgresStore({ db, index }));
  });

  it('rejects writes after the callback returned, and use after close', async () => {
    const store = postgresStore({ db, index: freshIndex() });
    let late: ((name: string, data: Uint8Array) => Promise<void>) | undefined;
    await store.writeVersion(manifest(1), async (out) => {
      late = out.write.bind(out);
    });
    await expect(late!('x.bin', new Uint8Array([1]))).rejects.toSatisfy(StateError.isInstance);
    await store.close();
    await expect(store.target()).rejects.toThrow(/the store was closed/);
  });
});
