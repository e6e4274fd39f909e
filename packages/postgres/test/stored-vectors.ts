/**
 * The check every method passes with its vectors in pgvector: built from a small invented corpus,
 * saved to a PGlite store that keeps vector collections and to a directory (the flat index in
 * memory), both load and give the same items in the same order with scores within 1e-5 (pgvector
 * computes distances in float4) for several queries, and so again after an update.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BuildContext, Document, IndexChange, Method, Retrieval, RetrieveOptions } from '@grag/core';
import type pg from 'pg';
import { expect } from 'vitest';
import { postgresStore } from '../src/index.js';
import { freshIndex } from './pglite.js';

/** Invented documents: a harbour town, its people, ships and institutions. */
export const STORED_CORPUS: Document[] = [
  {
    id: 'quay',
    title: 'Orsmark Quay',
    text: 'Orsmark Quay is the old stone pier of Tellhaven. Mira Solberg rebuilt the quay in 1921 after the great storm.',
  },
  {
    id: 'solberg',
    title: 'Mira Solberg',
    text: 'Mira Solberg was an engineer born in Karsby. She designed the Tellhaven tide gauge and rebuilt Orsmark Quay.',
  },
  {
    id: 'gauge',
    title: 'Tellhaven tide gauge',
    text: 'The Tellhaven tide gauge records the sea level every hour. The Brisk Institute reads its charts each winter.',
  },
  {
    id: 'brisk',
    title: 'Brisk Institute',
    text: 'The Brisk Institute studies currents in the Hollow Sound. Its director Jon Aalto sailed on the Grey Wren.',
  },
  {
    id: 'wren',
    title: 'Grey Wren',
    text: 'The Grey Wren is a survey boat launched at Tellhaven in 1958. Jon Aalto charted the Hollow Sound aboard her.',
  },
  {
    id: 'aalto',
    title: 'Jon Aalto',
    text: 'Jon Aalto grew up in Karsby and directed the Brisk Institute for twenty years before retiring to Vesby.',
  },
  {
    id: 'karsby',
    title: 'Karsby',
    text: 'Karsby is a fishing village north of Tellhaven, known for its herring market and its wooden chapel.',
  },
  {
    id: 'sound',
    title: 'Hollow Sound',
    text: 'The Hollow Sound separates Tellhaven from the island of Vesby. Ferries cross it twice a day in summer.',
  },
  {
    id: 'ferry',
    title: 'Vesby ferry',
    text: 'The Vesby ferry leaves Orsmark Quay at dawn. Its captain Liv Dahl also pilots the Grey Wren in spring.',
  },
];

/** Queries over {@link STORED_CORPUS}. */
export const STORED_QUERIES = [
  'Who rebuilt Orsmark Quay?',
  'Where was the director of the Brisk Institute born?',
  'Which boat charted the Hollow Sound?',
  'When does the ferry to Vesby leave?',
];

/** An update of {@link STORED_CORPUS}: two documents added, one removed. */
export const STORED_CHANGE: IndexChange = {
  add: [
    {
      id: 'dahl',
      title: 'Liv Dahl',
      text: 'Liv Dahl captains the Vesby ferry. She learned to sail in Karsby from her uncle, a herring fisher.',
    },
    {
      id: 'chapel',
      title: 'Karsby chapel',
      text: 'The wooden chapel of Karsby was built in 1702. Mira Solberg repaired its roof in 1930.',
    },
  ],
  remove: ['karsby'],
};

/** What a retrieval gives a reader, its scores apart: items (ids, kinds, texts, sources) and context. */
function shape(r: Retrieval) {
  return { context: r.context, items: r.items.map(({ score: _score, ...item }) => item) };
}

/** The same items in the same order, with scores within 1e-5. */
export function expectSameRetrievals(got: Retrieval[], want: Retrieval[]): void {
  expect(got.map(shape)).toEqual(want.map(shape));
  got.forEach((r, q) => {
    r.items.forEach((item, i) => {
      const expected = want[q]!.items[i]!.score;
      expect(
        Math.abs(item.score - expected),
        `query ${q} item ${i}: ${item.score} vs ${expected}`,
      ).toBeLessThan(1e-5);
    });
  });
}

/** How {@link checkStoredVectors} builds, queries and inspects one method. */
export interface StoredVectorsCase<I, O, R extends RetrieveOptions> {
  method: Method<I, O, R>;
  /** A context with the flat vector index. */
  makeContext: () => BuildContext;
  buildOptions?: Partial<O>;
  retrieveOptions?: R;
  /** The collections the store must hold. */
  collections: string[];
  /** Artifacts the store must not hold (the vectors kept as files otherwise). */
  absent: string[];
  /** Whether the loaded index searches stored vectors (checked on the index loaded from the store). */
  stored: (index: I) => boolean;
}

/**
 * Build {@link STORED_CORPUS} with `c.method`, save it to a PGlite store with collections and to a
 * directory, load both and compare the retrievals of {@link STORED_QUERIES}; update both with
 * {@link STORED_CHANGE} and compare again, and once more after saving and loading the updated
 * index through the store.
 */
export async function checkStoredVectors<I, O, R extends RetrieveOptions>(
  pool: pg.Pool,
  c: StoredVectorsCase<I, O, R>,
): Promise<void> {
  const { method } = c;
  const retrieveAll = (index: I) =>
    Promise.all(STORED_QUERIES.map((q) => method.retrieve(index, q, c.retrieveOptions)));
  const built = await method.build(STORED_CORPUS, c.makeContext(), c.buildOptions);
  const dir = await mkdtemp(join(tmpdir(), 'grag-stored-'));
  const store = postgresStore({ pool, index: freshIndex('stored'), vectors: true });
  try {
    await method.save(built, join(dir, 'index'));
    await method.save(built, store);
    const snapshot = await store.open();
    expect(snapshot.collections).toEqual([...c.collections].sort());
    expect(snapshot.names.filter((n) => c.absent.includes(n))).toEqual([]);
    await snapshot.release();
    const fromFiles = await method.load(join(dir, 'index'), c.makeContext());
    const fromDb = await method.load(store, c.makeContext());
    expect(c.stored(fromDb)).toBe(true);
    expect(c.stored(fromFiles)).toBe(false);
    const want = await retrieveAll(fromFiles);
    expect(want.some((r) => r.items.length > 0)).toBe(true);
    expectSameRetrievals(await retrieveAll(fromDb), want);
    // An update of each gives the same index again, its vectors read from the database.
    const updatedFiles = await method.update!(fromFiles, STORED_CHANGE, c.makeContext());
    const updatedDb = await method.update!(fromDb, STORED_CHANGE, c.makeContext());
    const wantUpdated = await retrieveAll(updatedFiles.index);
    expectSameRetrievals(await retrieveAll(updatedDb.index), wantUpdated);
    await method.save(updatedDb.index, store);
    const reloaded = await method.load(store, c.makeContext());
    expect(c.stored(reloaded)).toBe(true);
    expectSameRetrievals(await retrieveAll(reloaded), wantUpdated);
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}
