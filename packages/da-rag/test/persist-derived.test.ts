import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IndexFormatError } from '@grag/core';
import { directoryStore } from '@grag/core/store';
import { copyStoredIndex } from '@grag/core/test';
import { TrussIndex } from '@grag/ktruss';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CHUNK_TRUSS_FILE } from '../src/chunk-truss.js';
import { type DaRagIndex, daRag } from '../src/index.js';
import { CHUNKS_BM25_FILE, ENTITIES_BM25_FILE } from '../src/persist-lexical.js';
import { CORPUS } from './corpus.js';
import { offlineContext } from './offline-context.js';

let root: string;
let built: DaRagIndex;
let saved: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'grag-da-derived-'));
  built = await daRag.build(CORPUS, offlineContext(), { preset: 'offline' });
  saved = join(root, 'offline');
  await daRag.save(built, saved);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const QUESTIONS = ['Who founded the observatory?', 'Which river runs through the town?'];

/** Items with scores and sources, and the context, of each question. */
async function answers(index: DaRagIndex, options: Record<string, unknown> = {}) {
  const out: unknown[] = [];
  for (const q of QUESTIONS) {
    const r = await daRag.retrieve(index, q, options);
    out.push([r.items.map((x) => [x.id, x.score, x.source]), r.context]);
  }
  return out;
}

/** A copy of the saved index with `name`'s bytes replaced (`null`: left out). */
const copyWith = (copy: string, edit: (name: string, data: Uint8Array) => Uint8Array | null | undefined) =>
  copyStoredIndex(directoryStore(saved), directoryStore(join(root, copy)), { artifact: edit });

async function refusal(store: Awaited<ReturnType<typeof copyWith>>, file: string, problem: RegExp) {
  const error = await daRag.load(store, offlineContext()).catch((e: unknown) => e);
  expect(IndexFormatError.isInstance(error), String(error)).toBe(true);
  expect((error as Error).message).toContain(file);
  expect((error as Error).message).toMatch(problem);
}

describe('what a DA-RAG index keeps so that its first query does not make it', () => {
  test('an index keeps its BM25 indexes and the chunk layer decomposition; a loaded index reads them and retrieves alike', async () => {
    expect(await readdir(saved)).toEqual(
      expect.arrayContaining([CHUNKS_BM25_FILE, ENTITIES_BM25_FILE, CHUNK_TRUSS_FILE]),
    );
    const loaded = await daRag.load(saved, offlineContext());
    // Read from the files, not made from the texts or the layer.
    expect(loaded.cache.lexicalChunks?.size).toBe(loaded.chunks.length);
    expect(loaded.cache.lexicalEntities?.size).toBe(loaded.entities.length);
    const fresh = new TrussIndex(loaded.chunkLayer).decomposition;
    expect(loaded.cache.chunk?.decomposition.trussness).toEqual(fresh.trussness);
    expect(loaded.cache.chunk?.maxTrussness).toBe(fresh.maxTrussness);
    expect(await answers(loaded)).toEqual(await answers(built));
  });

  test('the paper preset (dense relevance) keeps the same files: they do not depend on query options', async () => {
    const paper = await daRag.build(CORPUS, offlineContext(), { preset: 'paper' });
    const dir = join(root, 'paper');
    await daRag.save(paper, dir);
    expect(await readdir(dir)).toEqual(
      expect.arrayContaining([CHUNKS_BM25_FILE, ENTITIES_BM25_FILE, CHUNK_TRUSS_FILE]),
    );
    const loaded = await daRag.load(dir, offlineContext());
    expect(await answers(loaded)).toEqual(await answers(paper));
    expect(await answers(loaded, { relevance: 'hybrid' })).toEqual(
      await answers(paper, { relevance: 'hybrid' }),
    );
  });

  test('an index saved before they were kept loads, makes them on first use and retrieves alike', async () => {
    const older = await copyWith('older', (name) =>
      [CHUNKS_BM25_FILE, ENTITIES_BM25_FILE, CHUNK_TRUSS_FILE].includes(name) ? null : undefined,
    );
    const loaded = await daRag.load(older, offlineContext());
    expect(loaded.cache.lexicalChunks).toBeUndefined();
    expect(loaded.cache.chunk).toBeUndefined();
    expect(await answers(loaded)).toEqual(await answers(built));
  });

  test('a damaged chunk layer decomposition is refused, naming the file', async () => {
    const other = await directoryStore(saved).open();
    const bm25 = await other.read(ENTITIES_BM25_FILE);
    await other.release();
    await refusal(
      await copyWith('not-truss', (name) => (name === CHUNK_TRUSS_FILE ? bm25 : undefined)),
      CHUNK_TRUSS_FILE,
      /lacks the arrays of a truss decomposition/,
    );
    // The decomposition of another index's chunk layer (fewer edges).
    const small = await daRag.build(CORPUS.slice(0, 3), offlineContext(), { preset: 'offline' });
    await daRag.save(small, join(root, 'small'));
    const smallStore = await directoryStore(join(root, 'small')).open();
    const smallTruss = await smallStore.read(CHUNK_TRUSS_FILE);
    await smallStore.release();
    await refusal(
      await copyWith('other-layer', (name) => (name === CHUNK_TRUSS_FILE ? smallTruss : undefined)),
      CHUNK_TRUSS_FILE,
      /edges, but the chunk layer has \d+/,
    );
  });
});
