/**
 * `postgresStore({ vectors: true })`: a method's vectors kept as a pgvector collection of each
 * index version and searched in the database (naive-dense), on PGlite over the wire.
 */
import { type Document, IndexFormatError, isStoredVectors, StateError, type TaskSuite } from '@grag/core';
import { createBuildContext, FlatIndex } from '@grag/core/kit';
import { createScriptedEmbedder, entityDocuments, randomVectors } from '@grag/core/test';
import { type DenseRagIndex, denseRag } from '@grag/naive-rag';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { postgresStore } from '../src/index.js';
import { freshIndex, makePglite, useServedPglite } from './pglite.js';

let pool: pg.Pool;
useServedPglite(2, (p) => {
  pool = p;
});

const ctx = () =>
  createBuildContext({
    embedder: createScriptedEmbedder({ dimensions: 32 }),
    tasks: { id: 'no-tasks' } as TaskSuite,
  });
const corpus = entityDocuments(12);
const OPTIONS = { chunkSize: 40, overlap: 5 };
const QUERIES = [
  'Anton Kessler visited Varnholm',
  'Who worked for the shipyard?',
  'Record 5 in 1885',
  'Dunmore Lighthouse',
];

/** The items and context of each query (not the timing). */
async function results(index: DenseRagIndex) {
  const all = await Promise.all(QUERIES.map((q) => denseRag.retrieve(index, q, { topK: 8 })));
  return all.map(({ items, context }) => ({ items, context }));
}

/** The tables of a schema whose names start with `vc_` (the version collections). */
/**
 * `vectors` written as the collection `points` (cosine, `exact` or HNSW) of a version in a fresh
 * store (schema `name`) and read back, with a FlatIndex of them to compare its searches with.
 */
async function pointsCollection(name: string, vectors: readonly Float32Array[], exact: boolean) {
  const dimensions = vectors[0]!.length;
  const store = postgresStore({ pool, index: freshIndex(name), vectors: true });
  await store.writeVersion({ method: 'test', formatVersion: 1, params: {}, providers: {} }, async (out) => {
    await out.vectorCollection!('points', vectors, { dimensions, metric: 'cosine', exact });
  });
  const snapshot = await store.open();
  const stored = await snapshot.vectorCollection!('points');
  await snapshot.release();
  const flat = new FlatIndex({ dimensions });
  vectors.forEach((v, i) => {
    flat.add(i, v);
  });
  return { store, stored, flat };
}

async function collectionTables(schema: string): Promise<string[]> {
  const rows = await pool.query<{ relname: string }>(
    `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $1 AND c.relkind = 'r' AND c.relname LIKE 'vc\\_%' ORDER BY c.relname`,
    [schema],
  );
  return rows.rows.map((r) => r.relname);
}

describe('naive-dense with its vectors in pgvector', () => {
  it('keeps the chunk vectors as a collection, not as an artifact, and searches them in the database', async () => {
    const index = await denseRag.build(corpus, ctx(), OPTIONS);
    const store = postgresStore({ pool, index: freshIndex('coll'), vectors: true });
    await denseRag.save(index, store);
    const snapshot = await store.open();
    expect(snapshot.collections).toEqual(['chunks']);
    expect(snapshot.names).not.toContain('vectors.bin');
    expect(snapshot.names).not.toContain('embeddings.f32');
    await snapshot.release();
    const loaded = await denseRag.load(store, ctx());
    expect(isStoredVectors(loaded.vectors)).toBe(true);
    expect(loaded.vectors).toMatchObject({ kind: 'pgvector', size: index.chunks.length, exact: true });
    expect(loaded.embeddings).toBeUndefined();
    // The same items and scores as the in-process exact index.
    expect(await results(loaded)).toEqual(await results(index));
    await store.close();
  });

  it('updates an index loaded from the database like the in-memory one, and stores the new version', async () => {
    const index = await denseRag.build(corpus.slice(0, 9), ctx(), OPTIONS);
    const name = freshIndex('coll');
    const store = postgresStore({ pool, index: name, vectors: true });
    await denseRag.save(index, store);
    const loaded = await denseRag.load(store, ctx());
    const change = { add: corpus.slice(9), remove: ['d1', 'd4'] };
    const fromDb = await denseRag.update!(loaded, change, ctx());
    const inMemory = await denseRag.update!(index, change, ctx());
    expect(await results(fromDb.index)).toEqual(await results(inMemory.index));
    expect(fromDb.report.embedded).toBe(inMemory.report.embedded);
    // A store made without the option keeps what the current version has: collections.
    const plain = postgresStore({ pool, index: name });
    await denseRag.save(fromDb.index, plain);
    const snapshot = await plain.open();
    expect([snapshot.collections, snapshot.names.includes('vectors.bin')]).toEqual([['chunks'], false]);
    await snapshot.release();
    const again = await denseRag.load(store, ctx());
    expect(again.vectors.size).toBe(inMemory.index.chunks.length);
    expect(await results(again)).toEqual(await results(inMemory.index));
    await Promise.all([store.close(), plain.close()]);
  });

  it('drops the collection of a version the store no longer keeps, and says so to a reader of it', async () => {
    const name = freshIndex('coll');
    const store = postgresStore({ pool, index: name, vectors: true, keepVersions: 2 });
    const docs = (n: number): Document[] => corpus.slice(0, n);
    await denseRag.save(await denseRag.build(docs(6), ctx(), OPTIONS), store);
    const first = await denseRag.load(store, ctx());
    await denseRag.save(await denseRag.build(docs(8), ctx(), OPTIONS), store);
    expect((await collectionTables(`grag_${name}`)).length).toBe(2);
    // The first version is still kept (the previous one): its reader goes on searching.
    expect((await denseRag.retrieve(first, QUERIES[0]!)).items.length).toBeGreaterThan(0);
    await denseRag.save(await denseRag.build(docs(10), ctx(), OPTIONS), store);
    expect((await collectionTables(`grag_${name}`)).length).toBe(2);
    const error = await denseRag.retrieve(first, QUERIES[0]!).catch((e: unknown) => e);
    expect(IndexFormatError.isInstance(error), String(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /was replaced and deleted by newer writes; load the index again\.$/,
    );
    await store.close();
  });

  it('refuses to save stored vectors to a store without collections, in one line', async () => {
    const store = postgresStore({ pool, index: freshIndex('coll'), vectors: true });
    await denseRag.save(await denseRag.build(corpus, ctx(), OPTIONS), store);
    const loaded = await denseRag.load(store, ctx());
    const plain = postgresStore({ pool, index: freshIndex('plain') });
    const error = await denseRag.save(loaded, plain).catch((e: unknown) => e);
    expect(StateError.isInstance(error), String(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /^naive-dense save: the vectors of this index are stored in .*\/chunks and .* keeps no vector collections; save it to a store that does, or rebuild it\.$/,
    );
    expect(await plain.target()).toBe('absent');
    await Promise.all([store.close(), plain.close()]);
  });

  it('refuses a store without pgvector in one line, creating nothing', async () => {
    const db = await makePglite(false);
    try {
      const store = postgresStore({ db, index: 'novec', vectors: true });
      const error = await denseRag
        .save(await denseRag.build(corpus, ctx(), OPTIONS), store)
        .catch((e: unknown) => e);
      expect(StateError.isInstance(error), String(error)).toBe(true);
      expect((error as Error).message).toMatch(
        /^pgvector is not installed in .*; install it \(CREATE EXTENSION vector/,
      );
      expect(await store.target()).toBe('absent');
    } finally {
      await db.close();
    }
  });
});

describe('a schema of layout 1 (before version collections)', () => {
  it('is read as it is and migrated by the next write', async () => {
    const name = freshIndex('v1');
    const store = postgresStore({ pool, index: name });
    const index = await denseRag.build(corpus, ctx(), OPTIONS);
    await denseRag.save(index, store);
    // What @grag/postgres with layout 1 left: no version_collections, schema_version 1.
    await pool.query(`DROP TABLE grag_${name}.version_collections`);
    await pool.query(`UPDATE grag_${name}.grag_meta SET value = '1' WHERE key = 'schema_version'`);
    expect(await results(await denseRag.load(store, ctx()))).toEqual(await results(index));
    await denseRag.save(index, postgresStore({ pool, index: name, vectors: true }));
    const meta = await pool.query<{ value: string }>(
      `SELECT value FROM grag_${name}.grag_meta WHERE key = 'schema_version'`,
    );
    expect(meta.rows[0]!.value).toBe('2');
    expect((await collectionTables(`grag_${name}`)).length).toBe(1);
    expect(await results(await denseRag.load(store, ctx()))).toEqual(await results(index));
    await store.close();
  });
});

describe('an HNSW collection', () => {
  it('is searched through its index with recall of at least 0.95 against an exact scan', async () => {
    const vectors = randomVectors(600, 24, 7);
    const queries = randomVectors(30, 24, 8);
    const { store, stored, flat } = await pointsCollection('hnsw', vectors, false);
    expect(stored.exact).toBe(false);
    let found = 0;
    for (const q of queries) {
      const want = new Set(flat.search(q, 10).map((h) => h.id));
      found += (await stored.search(q, 10)).filter((h) => want.has(h.id)).length;
    }
    expect(found / (queries.length * 10)).toBeGreaterThanOrEqual(0.95);
    // The collection's HNSW index serves the search's ORDER BY (on a table this small the planner
    // prefers a scan unless told not to).
    const schema = `grag_${store.location.split('#')[1]}`;
    const [table] = await collectionTables(schema);
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SET LOCAL enable_seqscan = off');
      const plan = await client.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN SELECT id FROM ${schema}.${table} ORDER BY embedding <=> $1::vector LIMIT 10`,
        [`[${Array.from(queries[0]!).join(',')}]`],
      );
      expect(plan.rows.map((row) => row['QUERY PLAN']).join('\n')).toMatch(/Index Scan using \S+ on vc_/);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    await store.close();
  });
});

describe('an exact collection', () => {
  it('searches among the ids given or without the ids left out as FlatIndex with a filter, and gives rows by id', async () => {
    const vectors = randomVectors(80, 12, 3);
    const queries = randomVectors(5, 12, 4);
    const { store, stored, flat } = await pointsCollection('filter', vectors, true);
    const ids = [3, 9, 10, 41, 42, 77];
    for (const q of queries) {
      expect(await stored.search(q, 4, { ids })).toEqual(
        flat.search(q, 4, { filter: (id) => ids.includes(id) }),
      );
      expect(await stored.search(q, 7, { exclude: ids })).toEqual(
        flat.search(q, 7, { filter: (id) => !ids.includes(id) }),
      );
      expect(await stored.search(q, 4, { ids: [] })).toEqual([]);
    }
    const rows = await stored.get!([42, 3, 42]);
    expect(rows.map((r) => Array.from(r))).toEqual(
      [42, 3, 42].map((i) => Array.from(Float32Array.from(vectors[i]!))),
    );
    await expect(stored.get!([80])).rejects.toThrow(/has no vector 80/);
    await store.close();
  });
});

describe('an HNSW collection searched through its index', () => {
  it('returns k hits past pgvector default breadth of 40, and more than its limit of 1000 by a scan', async () => {
    // In-process PGlite, one session told never to scan a table whole: every search goes through
    // the HNSW index, as on a table large enough for the planner to choose it.
    const db = await makePglite();
    await db.exec('SET enable_seqscan = off');
    const vectors = randomVectors(1100, 16, 11);
    const store = postgresStore({ db, index: freshIndex('breadth'), vectors: true });
    await store.writeVersion({ method: 'test', formatVersion: 1, params: {}, providers: {} }, async (out) => {
      await out.vectorCollection!('points', vectors, { dimensions: 16, metric: 'cosine', exact: false });
    });
    const snapshot = await store.open();
    const stored = await snapshot.vectorCollection!('points');
    await snapshot.release();
    const flat = new FlatIndex({ dimensions: 16 });
    vectors.forEach((v, i) => {
      flat.add(i, v);
    });
    const [query] = randomVectors(1, 16, 12);
    expect(await stored.search(query!, 100)).toHaveLength(100);
    expect(await stored.search(query!, 100, { ef: 400 })).toHaveLength(100);
    // 1,050 of 1,100: beyond what an HNSW scan of pgvector returns, so the collection is scanned.
    const many = await stored.search(query!, 1050);
    expect(new Set(many.map((h) => h.id))).toEqual(new Set(flat.search(query!, 1050).map((h) => h.id)));
    await store.close();
    await db.close();
  });
});
