/**
 * E2GraphRAG's index (a directory or any IndexStore), through core's persistence envelope: `tree.json` (the summary tree,
 * written and checked by `@grag/summary-tree`'s io), `graph.json` (the entity graph with its
 * entity↔chunk indexes), `links.json` (each chunk's title entity; linked indexes only),
 * `update.json` (documents, titles, extracted entities), `lexical.bm25` (BM25 over the tree node
 * texts, which queries search), `embeddings.rows` (every tree node's
 * embedding, core's lossless vector rows), `vectors.bin` (the vector index over them, saved only
 * when the vector-index factory is not exact; an exact one is built again from the rows at load),
 * and the manifest (params, stats with the entity extractor's id, provider fingerprints, the
 * fitted embedder's state). The JSON files are gzipped. Format 1 kept the embeddings as
 * `embeddings.f32` next to an always-saved `vectors.bin`, in plain JSON; it still loads.
 */
import type { BuildContext, IndexStore } from '@grag/core';
import type { EntityExtractor } from '@grag/core/graph';
import {
  entityIndexHeader,
  ENTITY_INDEX_FILES as FILES,
  loadBm25File,
  type MethodIndexFormat,
  type OpenedIndex,
  openEntityIndex,
  readEntityGraph,
  readEntityIndexKept,
  readEntityKept,
  readHomes,
  readVectorCollection,
  type Schema,
  v,
  writeEntityIndexFiles,
  writeMethodIndex,
  writeVectorCollection,
} from '@grag/core/kit';
import { validateSummaryTree } from '@grag/summary-tree';
import { lexicalOf, queryViews } from './build.js';
import { resolveE2GraphRagOptions, savedParams } from './options.js';
import type { E2GraphRagIndex, E2GraphRagKept, E2GraphRagStats } from './types.js';

const TREE_FILE = 'tree.json';
/** The vector collection of the tree nodes' embeddings, in a store that keeps collections. */
const NODE_COLLECTION = 'nodes';
/** Format 1's float32 rows of the embeddings (format 2: core's vector rows, `embeddings.rows`). */
const EMBEDDINGS_V1_FILE = 'embeddings.f32';

const count = v.int({ min: 0 });
/** The manifest's stats: the index's counts and the id of the entity extractor it was built with. */
const statsSchema: Schema<E2GraphRagStats & { entityExtractor?: string }> = v.object({
  documents: count,
  skippedDocuments: count,
  chunks: count,
  summaries: count,
  levels: v.array(count),
  entities: count,
  edges: count,
  textMentions: v.optional(count),
  entityExtractor: v.optional(v.string()),
});

/** Write `index` to `target`, a directory or any store (atomically; see core `writeMethodIndex`). */
export async function saveE2GraphRag(
  index: E2GraphRagIndex,
  target: string | IndexStore,
  format: MethodIndexFormat,
): Promise<void> {
  await writeMethodIndex(target, entityIndexHeader(index, format), async (out) => {
    // The layout `@grag/summary-tree`'s saveSummaryTree writes, read back by validateSummaryTree.
    await out.json(TREE_FILE, index.tree, { compress: true });
    // With kept embeddings the vectors are stored once (`embeddings.rows`): the vector index is
    // saved only when the factory cannot rebuild it from them (not exact). A store that keeps
    // collections keeps them once as the collection searched instead.
    const { vectors, kept } = index;
    const collected = await writeVectorCollection(
      out,
      format.method,
      NODE_COLLECTION,
      vectors,
      kept?.embeddings,
    );
    await writeEntityIndexFiles(out, {
      graph: index.graph,
      homes: index.homes.length > 0 ? index.homes : undefined,
      kept,
      vectors,
      dimensions: index.providers.embedder.dimensions,
      collected,
      lexical: lexicalOf(index),
    });
  });
}

/**
 * Load the index in `target` (a directory or any store) with the providers of `ctx` and `extractor`: the envelope checks the
 * method, format version and providers and validates the saved params; the extractor must be the
 * one the index was built with; each file is checked, and so is every cross-file count.
 * @throws IndexFormatError naming the file, saying to rebuild.
 */
export async function loadE2GraphRag(
  target: string | IndexStore,
  ctx: BuildContext,
  extractor: EntityExtractor,
  format: MethodIndexFormat,
): Promise<E2GraphRagIndex> {
  const { opened, stats } = await openEntityIndex(target, ctx, extractor, {
    ...format,
    params: (saved) => resolveE2GraphRagOptions(`${format.method} load`, savedParams(saved)),
    stats: statsSchema,
  });
  const options = opened.params;
  const tree = validateSummaryTree(await opened.json(TREE_FILE, v.unknown()), opened.locate(TREE_FILE));
  const leaves = tree.levels[0]!.length;
  const graph = await readEntityGraph(
    opened,
    FILES.graph,
    leaves,
    (found) => `index ${found} chunks, but the summary tree has ${leaves} leaves`,
  );
  const homes = options.entityLinking ? await readHomes(opened, FILES.links, graph.chunkCount) : [];
  const lexical = await loadBm25File(opened, FILES.lexical, tree.nodes.length);
  const stored = await readVectorCollection(opened, NODE_COLLECTION, tree.nodes.length);
  const kept = stored
    ? await readEntityIndexKept(opened, graph.chunkCount, tree.nodes.length, true)
    : await loadKept(opened, tree.nodes.length, graph.chunkCount);
  const vectors =
    stored ??
    (kept?.embeddings
      ? await opened.vectorIndex(FILES.vectors, tree.nodes.length, () => kept.embeddings ?? [])
      : await opened.vectors(FILES.vectors, tree.nodes.length));
  return {
    providers: opened.providers,
    options,
    tree,
    vectors,
    graph,
    extractor,
    stats,
    homes,
    ...queryViews({ tree, graph, homes, options, lexical }),
    ...(kept ? { kept } : {}),
  };
}

/** What an update reuses, checked against the tree; `undefined` for an index saved before updates existed. */
async function loadKept(
  opened: Pick<OpenedIndex<unknown, unknown>, 'names' | 'json' | 'check' | 'float32Rows' | 'vectorRows'>,
  nodes: number,
  chunks: number,
): Promise<E2GraphRagKept | undefined> {
  const v1 = !opened.names.includes(FILES.embeddings) && opened.names.includes(EMBEDDINGS_V1_FILE);
  if (
    !opened.names.includes(FILES.kept) ||
    !opened.names.includes(v1 ? EMBEDDINGS_V1_FILE : FILES.embeddings)
  ) {
    return undefined;
  }
  if (!v1) return readEntityIndexKept(opened, chunks, nodes);
  const data = await readEntityKept(opened, FILES.kept, chunks);
  return { ...data, embeddings: await opened.float32Rows(EMBEDDINGS_V1_FILE, nodes) };
}
