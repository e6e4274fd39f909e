/**
 * The vector indexes of a KET-RAG index on disk (format 4): an index whose graph can be exported
 * without its vectors (HNSW) is stored as that graph, `<name>.hnsw` (core's `saveVectorGraph`), and
 * restored over the vectors the index stores once as rows; any other is saved whole, `<name>.vec`,
 * unless the factory is exact (then it is built again from the rows at load). Formats 2 and 3 saved
 * every non-exact index whole.
 */
import {
  isStoredVectors,
  type SearchableVectors,
  type StoredVectors,
  type VectorIndex,
  type VectorIndexFactory,
} from '@grag/core';
import {
  exportsVectorGraph,
  type IndexWriter,
  loadVectorGraph,
  type OpenedIndex,
  readVectorCollection,
  saveVectorGraph,
  writeVectorCollection,
} from '@grag/core/kit';
import type { KetRagOptions } from './options.js';
import type { KetRagIndex, KetRagUpdateState } from './types.js';

/** The keyword vectors (sentence-vector means) of a keyword index saved as its graph (format 4). */
export const KEYWORD_ROWS = 'keywords.rows';
/** The endings of a vector index saved whole and of one saved as its graph alone (format 4). */
const VEC = '.vec';
const GRAPH = '.hnsw';

/**
 * Save vector index `name` over `rows` kept as vector rows (or not kept: then always saved whole):
 * as its graph alone (`<name>.hnsw`) when it exports one, else as `<name>.vec` when the factory is
 * not exact.
 */
export async function saveIndex(
  out: IndexWriter,
  factory: VectorIndexFactory,
  name: string,
  index: VectorIndex,
  rows: unknown,
): Promise<void> {
  if (rows && exportsVectorGraph(index, factory)) {
    await saveVectorGraph(out, `${name}${GRAPH}`, index);
  } else if (rows) await out.vectorIndex(`${name}${VEC}`, index);
  else await out.vectors(`${name}${VEC}`, index);
}

/**
 * Vector index `name` of `count` vectors: restored from its graph over `vectors()` (format 4), or
 * loaded, or built from `vectors()` by an exact factory (see `OpenedIndex.vectorIndex`).
 */
export async function loadIndex(
  opened: OpenedIndex<KetRagOptions, unknown>,
  name: string,
  count: number,
  vectors: () => readonly ArrayLike<number>[],
): Promise<VectorIndex> {
  const graph = `${name}${GRAPH}`;
  if (opened.names.includes(graph)) return loadVectorGraph(opened, graph, vectors(), count);
  return opened.vectorIndex(`${name}${VEC}`, count, vectors);
}

/** `rows`, or the error that the vector file an index needs is missing. */
export function required<T>(
  opened: OpenedIndex<KetRagOptions, unknown>,
  rows: T | undefined,
  file: string,
): T {
  if (rows === undefined) throw opened.error(file, 'is missing (the vectors its index is built from)');
  return rows;
}

/**
 * The vector collections a KET-RAG index keeps in a store that has them (`postgresStore({ vectors:
 * true })`), by raw-vector key: the vectors its query path searches by k-NN alone. The sub-chunk
 * vectors only without the keyword channel, which scores candidate sub-chunks by their vectors in
 * the process (and so keeps them there); keyword and sentence vectors always stay rows.
 */
export const COLLECTIONS = { chunks: 'chunks', entities: 'entities', subChunks: 'subchunks' } as const;

/** A key of {@link COLLECTIONS}. */
export type CollectionKey = keyof typeof COLLECTIONS;

/** The searched vectors of `index` that may be a collection, by key. */
function collectible(index: KetRagIndex): Partial<Record<CollectionKey, SearchableVectors>> {
  const found: Partial<Record<CollectionKey, SearchableVectors>> = {};
  if (index.chunkVectors) found.chunks = index.chunkVectors;
  if (index.skeleton) found.entities = index.skeleton.entityVectors;
  if (index.entry?.vectors && !index.keyword) found.subChunks = index.entry.vectors;
  return found;
}

/**
 * Store the searched vectors of `index` as collections of `out`'s store when it keeps them (`rows`:
 * the raw vectors the index holds, by key; a stored collection gives its own). Resolves to the keys
 * stored so: their rows and indexes are not written as artifacts.
 * @throws StateError when the vectors are stored elsewhere and `out` keeps no collections.
 */
export async function saveCollections(
  out: IndexWriter,
  method: string,
  index: KetRagIndex,
  rows: Partial<Record<CollectionKey, Float32Array[]>>,
): Promise<Set<CollectionKey>> {
  const collected = new Set<CollectionKey>();
  for (const [key, vectors] of Object.entries(collectible(index)) as [CollectionKey, SearchableVectors][]) {
    if (await writeVectorCollection(out, method, COLLECTIONS[key], vectors, rows[key])) collected.add(key);
  }
  return collected;
}

/** The collections of `opened` (checked to hold `counts` vectors), by key; none in a store without them. */
export async function loadCollections(
  opened: OpenedIndex<KetRagOptions, unknown>,
  counts: Record<CollectionKey, number>,
): Promise<Partial<Record<CollectionKey, StoredVectors>>> {
  const found: Partial<Record<CollectionKey, StoredVectors>> = {};
  for (const key of Object.keys(COLLECTIONS) as CollectionKey[]) {
    const stored = await readVectorCollection(opened, COLLECTIONS[key], counts[key]);
    if (stored) found[key] = stored;
  }
  return found;
}

/**
 * `kept` with the raw vectors an update needs that the index keeps as stored collections instead
 * of rows, read from them (the update state holds the rest).
 */
export async function withCollectedRows(
  index: KetRagIndex,
  kept: KetRagUpdateState,
): Promise<KetRagUpdateState> {
  const { chunkVectors, skeleton, entry } = index;
  const read = (vectors: SearchableVectors | undefined) =>
    vectors && isStoredVectors(vectors) ? vectors.all() : undefined;
  const [chunks, entities, subChunks] = await Promise.all([
    kept.chunkVectors ? undefined : read(chunkVectors),
    kept.entityVectors ? undefined : read(skeleton?.entityVectors),
    kept.subChunkVectors ? undefined : read(entry?.vectors),
  ]);
  if (!chunks && !entities && !subChunks) return kept;
  return {
    ...kept,
    ...(chunks ? { chunkVectors: chunks } : {}),
    ...(entities ? { entityVectors: entities } : {}),
    ...(subChunks ? { subChunkVectors: subChunks } : {}),
  };
}
