/**
 * A vector index stored as its graph alone, for a method that keeps the index's vectors elsewhere
 * (as vector rows): an index that exports its graph without its vectors (`@grag/hnsw`'s
 * `HnswIndex.exportGraph`) is written as that export, and a factory that restores one
 * (`hnswIndexFactory().fromGraph`) puts the kept vectors back, exactly. Methods reach it by duck
 * typing, so that they import no provider package.
 */
import type { VectorIndex, VectorIndexFactory } from './contracts/vector.js';
import type { IndexWriter, OpenedIndex } from './method-index.js';

/** An index that exports its graph without its vectors. */
interface GraphExporting {
  exportGraph(): Promise<Uint8Array>;
}

/** A factory that restores such an index from the export and the vectors (ids = positions). */
interface GraphRestoring {
  fromGraph(bytes: Uint8Array, vectors: readonly ArrayLike<number>[], source?: string): Promise<VectorIndex>;
}

/** Whether `index`, of `factory`, can be stored as its graph alone ({@link saveVectorGraph}). */
export function exportsVectorGraph(index: VectorIndex, factory: VectorIndexFactory): boolean {
  return (
    typeof (index as Partial<GraphExporting>).exportGraph === 'function' &&
    typeof (factory as Partial<GraphRestoring>).fromGraph === 'function'
  );
}

/** Write the graph of `index` (without its vectors) as `file`; see {@link exportsVectorGraph}. */
export async function saveVectorGraph(out: IndexWriter, file: string, index: VectorIndex): Promise<void> {
  await out.bytes(file, await (index as unknown as GraphExporting).exportGraph());
}

/**
 * The vector index {@link saveVectorGraph} wrote as `file`, with `vectors` (vector id = position,
 * the vectors the index was built from) put back by the context's factory, checked to hold `count`
 * vectors. @throws IndexFormatError naming the file (also when the factory cannot restore a graph).
 */
export async function loadVectorGraph<P, S>(
  opened: OpenedIndex<P, S>,
  file: string,
  vectors: readonly ArrayLike<number>[],
  count: number,
): Promise<VectorIndex> {
  const factory = opened.providers.vectorIndex as VectorIndexFactory & Partial<GraphRestoring>;
  if (typeof factory.fromGraph !== 'function') {
    throw opened.error(
      file,
      `is a vector index's graph, which the vector-index factory '${factory.kind}' cannot restore; load it with hnswIndexFactory() from @grag/hnsw`,
    );
  }
  if (vectors.length !== count) {
    throw opened.error(file, `is restored over ${vectors.length} vectors, expected ${count}`);
  }
  const index = await factory.fromGraph(await opened.bytes(file), vectors, opened.locate(file));
  if (index.size !== count) throw opened.error(file, `holds ${index.size} vectors, expected ${count}`);
  return index;
}
