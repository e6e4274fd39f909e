/**
 * The vector indexes of a KET-RAG index on disk (format 4): an index whose graph can be exported
 * without its vectors (HNSW) is stored as that graph, `<name>.hnsw` (core's `saveVectorGraph`), and
 * restored over the vectors the index stores once as rows; any other is saved whole, `<name>.vec`,
 * unless the factory is exact (then it is built again from the rows at load). Formats 2 and 3 saved
 * every non-exact index whole.
 */
import type { VectorIndex, VectorIndexFactory } from '@grag/core';
import {
  exportsVectorGraph,
  type IndexWriter,
  loadVectorGraph,
  type OpenedIndex,
  saveVectorGraph,
} from '@grag/core/kit';
import type { KetRagOptions } from './options.js';

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
