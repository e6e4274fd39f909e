/**
 * bridge-rag's index (a directory or any IndexStore), through core's persistence envelope:
 * `chunks.json` (the chunks and their searched texts), `graph.json` (the passage–entity graph with
 * its entity↔chunk indexes), `links.json` (each chunk's title entity), `update.json` (documents,
 * titles, extracted entities), `lexical.bm25` (BM25 over the searched texts), `embeddings.rows`
 * (every chunk's embedding, core's lossless vector rows), `vectors.bin` (the vector index, saved
 * only when the factory is not exact; an exact one is built again from the rows at load) and the
 * manifest (params, stats with the entity extractor's id, provider fingerprints, a fitted
 * embedder's state). The JSON files are gzipped. The vocabulary and the home chunks are rebuilt at
 * load, and BM25 when the index was saved without it.
 */
import type { BuildContext, IndexStore } from '@grag/core';
import type { EntityExtractor } from '@grag/core/graph';
import {
  chunkSchema,
  entityIndexHeader,
  ENTITY_INDEX_FILES as FILES,
  loadBm25File,
  type MethodIndexFormat,
  openEntityIndex,
  readEntityGraph,
  readEntityIndexKept,
  readHomes,
  readVectorCollection,
  type Schema,
  v,
  writeEntityIndexFiles,
  writeMethodIndex,
  writeVectorCollection,
} from '@grag/core/kit';
import { queryViews } from './build.js';
import { resolveBridgeRagOptions } from './options.js';
import type { BridgeRagIndex, BridgeRagStats } from './types.js';

const CHUNKS_FILE = 'chunks.json';
/** The vector collection of the chunk embeddings, in a store that keeps collections. */
const CHUNK_COLLECTION = 'chunks';

const count = v.int({ min: 0 });
const statsSchema: Schema<BridgeRagStats & { entityExtractor: string }> = v.object({
  documents: count,
  skippedDocuments: count,
  chunks: count,
  entities: count,
  edges: count,
  titleEntities: count,
  textMentions: count,
  entityExtractor: v.string(),
});
const chunksSchema = v.refine(v.object({ chunks: v.array(chunkSchema), texts: v.array(v.string()) }), (c) =>
  c.texts.length !== c.chunks.length
    ? `has ${c.texts.length} texts for ${c.chunks.length} chunks`
    : undefined,
);

/** Write `index` to `target`, a directory or any store (atomically; see core `writeMethodIndex`). */
export async function saveBridgeRag(
  index: BridgeRagIndex,
  target: string | IndexStore,
  format: MethodIndexFormat,
): Promise<void> {
  await writeMethodIndex(target, entityIndexHeader(index, format), async (out) => {
    await out.json(CHUNKS_FILE, { chunks: index.chunks, texts: index.texts }, { compress: true });
    const { vectors, kept } = index;
    // A store that keeps collections keeps the chunk vectors once, as the collection searched.
    const collected = await writeVectorCollection(
      out,
      format.method,
      CHUNK_COLLECTION,
      vectors,
      kept.embeddings,
    );
    await writeEntityIndexFiles(out, {
      graph: index.graph,
      homes: index.homes,
      kept,
      vectors,
      dimensions: index.providers.embedder.dimensions,
      collected,
      lexical: index.lexical,
    });
  });
}

/**
 * Load the index in `target` with the providers of `ctx` and `extractor`: the envelope checks the
 * method, format version, providers and params; the extractor must be the one the index was built
 * with; every file and cross-file count is checked.
 * @throws IndexFormatError naming the file, saying to rebuild.
 */
export async function loadBridgeRag(
  target: string | IndexStore,
  ctx: BuildContext,
  extractor: EntityExtractor,
  format: MethodIndexFormat,
): Promise<BridgeRagIndex> {
  const { opened, stats } = await openEntityIndex(target, ctx, extractor, {
    ...format,
    params: (saved) => resolveBridgeRagOptions(`${format.method} load`, saved),
    stats: statsSchema,
  });
  const { chunks, texts } = await opened.json(CHUNKS_FILE, chunksSchema);
  const graph = await readEntityGraph(
    opened,
    FILES.graph,
    chunks.length,
    (found) => `indexes ${found} chunks, but the index has ${chunks.length}`,
  );
  const homes = await readHomes(opened, FILES.links, chunks.length);
  const lexical = await loadBm25File(opened, FILES.lexical, chunks.length);
  const stored = await readVectorCollection(opened, CHUNK_COLLECTION, chunks.length);
  const kept = await readEntityIndexKept(opened, chunks.length, chunks.length, stored !== undefined);
  const vectors =
    stored ?? (await opened.vectorIndex(FILES.vectors, chunks.length, () => kept.embeddings ?? []));
  return {
    providers: opened.providers,
    options: opened.params,
    chunks,
    texts,
    vectors,
    graph,
    extractor,
    homes,
    stats,
    kept,
    ...queryViews({ texts, graph, homes, lexical }),
  };
}
