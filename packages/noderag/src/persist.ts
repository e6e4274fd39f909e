/**
 * NodeRAG's index (a directory or any IndexStore), through core's persistence envelope: the graph
 * (`graph.arrays` and `graph-text.json` since format 3, see `persist-graph.ts`; `graph.json` without
 * the HNSW edges before), `chunks.json` (chunks, the node key of each vector id and, since format 4,
 * the SHA-256 of `update.json`), `build-stats.json`, the vector index (`hnsw-graph.bin`, or
 * `vectors.bin` when it cannot be stored as its graph; an exact index's semantic edges go to
 * `base-layer.json`), BM25 over the embedded nodes' texts (`lexical.bm25`, since format 4; see
 * `persist-lexical.ts`), what updates reuse (`update.json`, `embeddings.rows`; see
 * `persist-kept.ts`), and the manifest (params, graph statistics and storage size, provider
 * fingerprints, the fitted embedder's state).
 */
import {
  type BuildContext,
  type IndexStore,
  isGraphVectorIndex,
  isStoredVectors,
  type SearchableVectors,
  type VectorIndex,
} from '@grag/core';
import {
  chunkSchema,
  exportsVectorGraph,
  type IndexWriter,
  lazyField,
  loadVectorGraph,
  type MethodIndexFormat,
  type OpenedIndex,
  openMethodIndex,
  readVectorCollection,
  type Schema,
  saveVectorGraph,
  shapeIssue,
  v,
  writeMethodIndex,
  writeVectorCollection,
} from '@grag/core/kit';
import { type EdgeKind, HeteroGraph, type HeteroGraphStats, type NodeType } from '@grag/heterograph';
import { exactBaseLayer, layBaseLayer, layLinks } from './hnsw.js';
import { savedNodeRagOptions } from './options.js';
import { HNSW_GRAPH_FILE, loadGraph, saveGraph } from './persist-graph.js';
import { keptBytes, keptDigest, type LoadedKept, loadKept, saveKept } from './persist-kept.js';
import { loadLexical, saveLexical } from './persist-lexical.js';
import { searchStructures } from './search.js';
import type { NodeRagBuildStats, NodeRagIndex } from './types.js';

/** Compact serialized graph: structural edges only (HNSW edges are rebuilt from the vector index). */
interface StoredGraph {
  nodes: [
    key: string,
    type: NodeType,
    text: string,
    weight: number,
    chunks: string[],
    docs: string[],
    extra?: Record<string, unknown>,
  ][];
  edges: [a: number, b: number, kind: EdgeKind, baseWeight: number][];
}

const GRAPH_FILE = 'graph.json';
const CHUNKS_FILE = 'chunks.json';
const BUILD_STATS_FILE = 'build-stats.json';
const VECTORS_FILE = 'vectors.bin';
/** The semantic edges of an index on an exact vector index (see `NodeRagIndex.baseLayer`). */
const BASE_LAYER_FILE = 'base-layer.json';
/** The vector collection of the embedded nodes, in a store that keeps collections. */
const NODE_COLLECTION = 'nodes';
const baseLayerSchema = v.object({ links: v.array(v.array(v.int({ min: 0 }))) });

const NODE_TYPE_VALUES = ['T', 'S', 'N', 'R', 'A', 'O', 'H'] as const satisfies readonly NodeType[];
const STORED_EDGE_KINDS = ['d', 'r', 'a', 'h', 'o', 's'] as const satisfies readonly EdgeKind[];

const storedGraphSchema: Schema<StoredGraph> = v.object({
  nodes: v.array(
    v.tuple(
      v.string(),
      v.literal(...NODE_TYPE_VALUES),
      v.string(),
      v.number(),
      v.array(v.string()),
      v.array(v.string()),
      v.optional(v.record(v.unknown())),
    ),
  ),
  edges: v.array(
    v.tuple(v.int({ min: 0 }), v.int({ min: 0 }), v.literal(...STORED_EDGE_KINDS), v.number({ min: 0 })),
  ),
});

const count = v.int({ min: 0 });
const buildStatsSchema: Schema<NodeRagBuildStats> = v.object({
  documents: count,
  chunks: count,
  extractedUnits: count,
  importantEntities: count,
  attributes: count,
  communities: count,
  emptyCommunities: count,
  highLevelElements: count,
  semanticMatchingEdges: count,
  semanticClusters: count,
  hnsw: v.object({ added: count, reinforced: count }),
  skipped: v.record(count),
  parseIssues: v.record(count),
  linking: v.optional(
    v.object({ names: count, entities: count, titleEntities: count, textMentions: count, folded: count }),
  ),
});

/** `updateSha256`: the SHA-256 of `update.json` (format 4; absent without kept data). */
const storedChunksSchema = v.object({
  chunks: v.array(chunkSchema),
  vectorKeys: v.array(v.string()),
  updateSha256: v.optional(v.string()),
});

/** The graph of `stored`; a repeated key or an edge that does not join two nodes is a shape issue. */
function restoreGraph(stored: StoredGraph): HeteroGraph {
  const graph = new HeteroGraph();
  const keys: string[] = [];
  const seen = new Set<string>();
  stored.nodes.forEach(([key, type, text, weight, chunks, docs, extra], i) => {
    if (seen.has(key)) shapeIssue(`nodes[${i}]`, `repeats the key ${JSON.stringify(key)}`);
    seen.add(key);
    graph.addNode(key, type, { text, weight, chunks, docs, ...(extra ? { extra } : {}) });
    keys.push(key);
  });
  stored.edges.forEach(([a, b, kind, weight], i) => {
    const ka = keys[a];
    const kb = keys[b];
    if (ka === undefined || kb === undefined || a === b) {
      shapeIssue(`edges[${i}]`, `joins nodes ${a} and ${b}, not two of the ${keys.length} nodes`);
    }
    // The schema admits only the stored kinds: HNSW edges are rebuilt from the vector index.
    graph.connect(ka, kb, kind as Exclude<EdgeKind, 'hnsw'>, weight);
  });
  return graph;
}

/** The graph of formats 1 and 2 (`graph.json`), without its semantic edges. */
async function loadJsonGraph<P, S>(opened: OpenedIndex<P, S>): Promise<HeteroGraph> {
  const stored = await opened.json(GRAPH_FILE, storedGraphSchema);
  return opened.check(GRAPH_FILE, () => restoreGraph(stored));
}

/** `links` has one list per vector, each of other vector ids below `count`. */
function checkBaseLayer(links: number[][], count: number): number[][] {
  if (links.length !== count) shapeIssue('links', `has ${links.length} lists for ${count} vectors`);
  links.forEach((list, id) => {
    for (const other of list) {
      if (other >= count || other === id)
        shapeIssue(`links[${id}]`, `links to ${other}, not another of the ${count} vectors`);
    }
  });
  return links;
}

/** Every vector key is a node of the graph, once. */
function checkVectorKeys(graph: HeteroGraph, vectorKeys: readonly string[]): void {
  const seen = new Set<string>();
  vectorKeys.forEach((key, i) => {
    if (!graph.hasNode(key))
      shapeIssue(`vectorKeys[${i}]`, `is ${JSON.stringify(key)}, not a node of graph.json`);
    if (seen.has(key)) shapeIssue(`vectorKeys[${i}]`, `repeats the key ${JSON.stringify(key)}`);
    seen.add(key);
  });
}

/** The heterograph statistics of an index (NodeRAG Table 4) plus the build counts. */
export function nodeRagStats(index: NodeRagIndex): HeteroGraphStats & { build: NodeRagBuildStats } {
  return { ...index.graph.stats(), build: index.stats };
}

/** Write `index` to `target`, a directory or any store (atomically; see core `writeMethodIndex`). */
export async function saveNodeRag(
  index: NodeRagIndex,
  target: string | IndexStore,
  format: MethodIndexFormat,
): Promise<void> {
  const stats: Record<string, unknown> = { ...nodeRagStats(index) };
  await writeMethodIndex(
    target,
    { ...format, providers: index.providers, params: index.options, stats },
    async (out) => {
      await saveGraph(out, index.graph);
      const kept = index.kept;
      const update = kept && keptBytes(kept);
      await out.json(
        CHUNKS_FILE,
        {
          chunks: index.chunks,
          vectorKeys: index.vectorKeys,
          ...(update ? { updateSha256: keptDigest(update) } : {}),
        },
        { compress: true },
      );
      await out.json(BUILD_STATS_FILE, index.stats);
      const collected = await saveVectors(out, index, format.method);
      await saveLexical(out, index.lexical);
      if (kept) await saveKept(out, kept, index.providers.embedder.dimensions, update, collected);
      // The bytes of the artifacts above (as a directory: the size of its files but the manifest
      // and the embedder state), recorded in the manifest written next.
      stats.storageBytes = out.bytesWritten();
    },
  );
}

/**
 * Write the vectors of `index` and its semantic edges: as the store's vector collection when it
 * keeps them (with `base-layer.json` for `hnswEdges`, since a collection cannot give the graph's
 * base layer back), else as before. Resolves to whether they were stored as a collection.
 */
async function saveVectors(out: IndexWriter, index: NodeRagIndex, method: string): Promise<boolean> {
  const { kept, vectors } = index;
  const collected = await writeVectorCollection(out, method, NODE_COLLECTION, vectors, kept?.embeddings);
  let baseLayer = index.baseLayer;
  if (collected) {
    if (!baseLayer && index.options.hnswEdges && !isStoredVectors(vectors) && isGraphVectorIndex(vectors)) {
      const layer = await vectors.baseLayerGraph();
      baseLayer = index.vectorKeys.map((_, id) => layer.get(id) ?? []);
    }
  } else if (!isStoredVectors(vectors)) {
    // With kept embeddings the vectors are stored once (`embeddings.rows`): the vector index is
    // saved only when the factory cannot rebuild it from them (not exact).
    // An HNSW index whose graph can be exported is stored without its vectors (see persist-graph.ts).
    if (kept && exportsVectorGraph(vectors, index.providers.vectorIndex))
      await saveVectorGraph(out, HNSW_GRAPH_FILE, vectors);
    else if (kept) await out.vectorIndex(VECTORS_FILE, vectors);
    else await out.vectors(VECTORS_FILE, vectors);
  }
  if (baseLayer) await out.json(BASE_LAYER_FILE, { links: baseLayer }, { compress: true });
  return collected;
}

/**
 * The vector index of `opened` over `count` vectors: an HNSW index's graph with the kept embeddings
 * put back, an index saved whole, or an exact index built again from the kept embeddings.
 */
function loadVectors<P, S>(
  opened: OpenedIndex<P, S>,
  kept: LoadedKept | undefined,
  count: number,
): Promise<VectorIndex> {
  if (kept?.embeddings && opened.names.includes(HNSW_GRAPH_FILE))
    return loadVectorGraph(opened, HNSW_GRAPH_FILE, kept.embeddings, count);
  if (kept?.embeddings) return opened.vectorIndex(VECTORS_FILE, count, () => kept.embeddings ?? []);
  return opened.vectors(VECTORS_FILE, count);
}

/**
 * Load the index in `target` (a directory or any store) with the providers of `ctx`: the envelope checks the method, format
 * version and providers (the vector index among them: an index built with HNSW loads with
 * `hnswIndexFactory()`, one built on the flat index with core's) and validates the saved params;
 * each file is checked, and so is every cross-file reference. A graph index's semantic edges are
 * laid again from it, an exact index's from `base-layer.json`. @throws IndexFormatError naming the file.
 */
export async function loadNodeRag(
  target: string | IndexStore,
  ctx: BuildContext,
  format: MethodIndexFormat,
): Promise<NodeRagIndex> {
  const opened = await openMethodIndex(target, ctx, {
    ...format,
    params: (saved) => savedNodeRagOptions(`${format.method} load`, saved),
  });
  const options = opened.params;
  const { chunks, vectorKeys, updateSha256 } = await opened.json(CHUNKS_FILE, storedChunksSchema);
  // Indexes saved before updates existed keep nothing for them: they load, but only rebuild.
  // Format 4 records the SHA-256 of update.json, which is then decoded only when an update reads it.
  const format4 = opened.manifest.formatVersion >= 4;
  const stored = await readVectorCollection(opened, NODE_COLLECTION, vectorKeys.length);
  const kept = await loadKept(
    opened,
    { chunks: chunks.length, vectors: vectorKeys.length },
    format4 ? updateSha256 : undefined,
    stored !== undefined,
  );
  // The vector index is restored while the graph and BM25 are read (an HNSW index's file is
  // written and read by hnswlib off the main thread); a failure is thrown where it is awaited.
  const pending: Promise<SearchableVectors> = stored
    ? Promise.resolve(stored)
    : loadVectors(opened, kept, vectorKeys.length);
  pending.catch(() => undefined);
  // Format 3 stores the graph as arrays, semantic edges included; formats 1 and 2 as JSON without them.
  const arrays = opened.manifest.formatVersion >= 3;
  const graph = arrays ? await loadGraph(opened) : await loadJsonGraph(opened);
  opened.check(CHUNKS_FILE, () => checkVectorKeys(graph, vectorKeys));
  const stats = await opened.json(BUILD_STATS_FILE, buildStatsSchema);
  // Format 4 stores BM25; earlier formats build it again from the node texts.
  const lexical = format4 ? await loadLexical(opened, vectorKeys.length) : undefined;
  const vectors = await pending;
  const graphIndex = !isStoredVectors(vectors) && isGraphVectorIndex(vectors) ? vectors : undefined;
  if (graphIndex) graphIndex.efSearch = options.hnswEfSearch;
  let baseLayer: number[][] | undefined;
  if (options.hnswEdges && !graphIndex) {
    // An exact index (the flat one): its links were saved beside it; an index that lacks them
    // gets them again from the embeddings it was built from.
    if (opened.names.includes(BASE_LAYER_FILE)) {
      const { links } = await opened.json(BASE_LAYER_FILE, baseLayerSchema);
      baseLayer = opened.check(BASE_LAYER_FILE, () => checkBaseLayer(links, vectorKeys.length));
    } else if (kept?.embeddings) {
      const layer = exactBaseLayer(kept.embeddings, {
        M: options.hnswM,
        efConstruction: options.hnswEfConstruction,
      });
      baseLayer = vectorKeys.map((_, id) => layer.get(id) ?? []);
    } else throw opened.error(BASE_LAYER_FILE, 'is missing (an exact index keeps its semantic edges there)');
    if (!arrays) layLinks(graph, new Map(baseLayer.map((links, id) => [id, links])), vectorKeys);
  } else if (options.hnswEdges && !arrays && graphIndex) {
    await layBaseLayer(graph, graphIndex, vectorKeys);
  }
  const index: NodeRagIndex = {
    providers: opened.providers,
    options,
    graph,
    vectors,
    vectorKeys,
    ...(baseLayer ? { baseLayer } : {}),
    chunks,
    stats,
    ...searchStructures(graph, vectorKeys, lexical),
  };
  if (kept) lazyField(index, 'kept', kept.kept);
  return index;
}
