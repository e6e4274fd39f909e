/**
 * The truss index of the Semantic Chunk layer (made on first use and kept in the index cache), and
 * its truss decomposition on disk (`chunk-layer.truss`: each chunk-layer edge's trussness and
 * support), so that the first query after a load does not decompose the layer again. Indexes saved
 * before it was kept decompose the layer on first use, as before.
 */
import type { IndexWriter, OpenedIndex } from '@grag/core/kit';
import { TrussIndex } from '@grag/ktruss';
import type { DaRagIndex } from './types.js';

/** The file of the chunk layer's truss decomposition. */
export const CHUNK_TRUSS_FILE = 'chunk-layer.truss';

/** The truss index of the chunk layer (made on first use, kept in the index cache). */
export function chunkTruss(index: DaRagIndex): TrussIndex {
  index.cache.chunk ??= new TrussIndex(index.chunkLayer);
  return index.cache.chunk;
}

/** Write the chunk layer's truss decomposition (made now if not yet). */
export async function saveChunkTruss(out: Pick<IndexWriter, 'arrays'>, index: DaRagIndex): Promise<void> {
  const { trussness, support } = chunkTruss(index).decomposition;
  await out.arrays(CHUNK_TRUSS_FILE, { trussness, support });
}

/**
 * Put the chunk layer's truss index, from the decomposition the index holds, into its cache (none
 * when it holds none). @throws IndexFormatError naming the file when its arrays are not a
 * decomposition of the chunk layer.
 */
export async function loadChunkTruss<P, S>(opened: OpenedIndex<P, S>, index: DaRagIndex): Promise<void> {
  if (!opened.names.includes(CHUNK_TRUSS_FILE)) return;
  const stored = await opened.arrays(CHUNK_TRUSS_FILE);
  const trussness = stored.get('trussness');
  const support = stored.get('support');
  if (!(trussness instanceof Uint32Array) || !(support instanceof Uint32Array)) {
    throw opened.error(CHUNK_TRUSS_FILE, 'lacks the arrays of a truss decomposition (trussness, support)');
  }
  const { m } = index.chunkLayer;
  if (trussness.length !== m || support.length !== m) {
    throw opened.error(
      CHUNK_TRUSS_FILE,
      `covers ${trussness.length} and ${support.length} edges, but the chunk layer has ${m}`,
    );
  }
  let maxTrussness = 0;
  for (let e = 0; e < m; e++) {
    const t = trussness[e]!;
    // An edge in s triangles is in no k-truss with k − 2 > s; every edge is in the 2-truss.
    if (t < 2 || t - 2 > support[e]!) {
      throw opened.error(CHUNK_TRUSS_FILE, `gives edge ${e} trussness ${t} with support ${support[e]}`);
    }
    if (t > maxTrussness) maxTrussness = t;
  }
  index.cache.chunk = new TrussIndex(index.chunkLayer, {
    decomposition: { graph: index.chunkLayer, trussness, support, maxTrussness },
  });
}
