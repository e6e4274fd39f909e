import { type BuildContext, type IndexStore, isStoredVectors } from '@grag/core';
import {
  compress,
  encodeArrays,
  type MethodIndexFormat,
  openMethodIndex,
  readVectorCollection,
  type Schema,
  shapeIssue,
  sourceLocationSchema,
  v,
  writeMethodIndex,
  writeVectorCollection,
} from '@grag/core/kit';
import { type DominanceEmbedder, loadDominanceEmbedder } from '@grag/dominance-gnn';
import { RStarTree } from '@grag/rstar-index';
import { graphOfStored, graphTablesSchema, gunzippedArrays, storedGraph } from './graph-store.js';
import { adjacencyOf, exactLabelIndex, pairKey, type SgGraph } from './kg.js';
import { resolveSavedOptions } from './options.js';
import type { SgRagIndex } from './types.js';
import { loadUpdateState, saveUpdateState } from './update-state.js';

const GRAPH_FILE = 'graph.json';
/** Format 3: the edges as typed arrays (graph.json then holds the string tables; see graph-store.ts). */
const GRAPH_ARRAYS_FILE = 'graph.bin';
const PATHS_FILE = 'paths.bin';
const TREE_FILE = 'tree.bin';
const DOMINANCE_FILE = 'dominance.json';
const LABELS_FILE = 'labels.bin';
/** The vector collection of the label embeddings, in a store that keeps collections. */
const LABEL_COLLECTION = 'labels';

/** The serialized kind each named embedder choice must have (`'custom'`: any). */
const KIND_OF: Record<string, string | undefined> = {
  'training-free': 'training-free',
  gat: 'gat',
  monotone: 'monotone-gat',
};

const strings = v.array(v.string());
const graphSchema: Schema<SgGraph> = v.object({
  ids: strings,
  labels: strings,
  descriptions: strings,
  edges: v.array(
    v.object({
      a: v.int({ min: 0 }),
      b: v.int({ min: 0 }),
      facts: v.array(v.object({ relation: v.string(), forward: v.boolean() })),
      chunkIds: strings,
      docIds: strings,
      locations: v.optional(v.array(sourceLocationSchema)),
    }),
  ),
});

const dominanceSchema = v.object({
  format: v.literal('grag-dominance-embedder'),
  version: v.literal(1),
  kind: v.literal('training-free', 'gat', 'monotone-gat'),
  dimensions: v.int({ min: 1, max: 4096 }),
  seed: v.int(),
  config: v.record(v.union(v.number(), v.string(), v.boolean())),
  weights: v.record(v.array(v.number())),
});

/** Node arrays agree, ids are distinct, and edges join two distinct nodes once. */
function checkGraph(graph: SgGraph): void {
  const n = graph.ids.length;
  if (graph.labels.length !== n) shapeIssue('labels', `has ${graph.labels.length} labels for ${n} nodes`);
  if (graph.descriptions.length !== n) {
    shapeIssue('descriptions', `has ${graph.descriptions.length} descriptions for ${n} nodes`);
  }
  if (new Set(graph.ids).size !== n) shapeIssue('ids', 'repeat an id');
  const pairs = new Set<number>();
  graph.edges.forEach((e, i) => {
    if (!(e.a < e.b && e.b < n))
      shapeIssue(`edges[${i}]`, `joins ${e.a} and ${e.b}, not two nodes a < b of ${n}`);
    const key = pairKey(e.a, e.b, n);
    if (pairs.has(key)) shapeIssue(`edges[${i}]`, 'repeats a pair of nodes');
    pairs.add(key);
  });
}

/**
 * Write an index: the manifest (params, stats, provider fingerprints), the data graph
 * (`graph.json`, its strings once each, and `graph.bin`, its edges as typed arrays: format 3), the path nodes (`paths.bin`, int32), the R*-tree (`tree.bin`), the dominance
 * embedder with its choice, config and weights (`dominance.json`, exact float64 values: the query
 * side must reproduce the data side's model), the label vectors (`labels.bin`, the context's vector
 * index) and, for an index built from documents, what updates reuse (see `saveUpdateState`).
 */
export async function saveSgRagIndex(
  index: SgRagIndex,
  target: string | IndexStore,
  format: MethodIndexFormat,
): Promise<void> {
  const { pathNodes, tree, embedder } = index.paths;
  await writeMethodIndex(
    target,
    { ...format, providers: index.providers, params: index.options, stats: index.stats },
    async (out) => {
      const stored = storedGraph(index.graph);
      await out.json(GRAPH_FILE, stored.tables, { compress: true });
      await out.bytes(GRAPH_ARRAYS_FILE, compress(encodeArrays(stored.arrays)));
      await out.bytes(
        PATHS_FILE,
        new Uint8Array(pathNodes.buffer, pathNodes.byteOffset, pathNodes.byteLength),
      );
      await out.bytes(TREE_FILE, tree.save());
      await out.json(DOMINANCE_FILE, embedder.toJSON());
      // A store that keeps collections keeps the label vectors once, as the collection searched.
      const { labelVectors } = index;
      const collected = await writeVectorCollection(
        out,
        format.method,
        LABEL_COLLECTION,
        labelVectors,
        index.kept?.labelEmbeddings,
      );
      await saveUpdateState(out, index, collected);
      if (collected || isStoredVectors(labelVectors)) return;
      // With update state the label embeddings are stored once (`labels.rows`): the vector index
      // is saved only when the factory cannot rebuild it from them (not exact).
      if (index.kept) await out.vectorIndex(LABELS_FILE, labelVectors);
      else await out.vectors(LABELS_FILE, labelVectors);
    },
  );
}

/**
 * Read an index written by {@link saveSgRagIndex}: the manifest's params are resolved and checked
 * like a build's, and every file is checked against the others (path nodes name graph nodes, the
 * tree holds one entry per path with keys of the params' dimensions, the dominance embedder has
 * the params' dimensions, one label vector per node).
 */
export async function loadSgRagIndex(
  target: string | IndexStore,
  ctx: BuildContext,
  format: MethodIndexFormat,
  customEmbedder?: DominanceEmbedder,
): Promise<SgRagIndex> {
  const opened = await openMethodIndex(target, ctx, {
    ...format,
    params: (saved) => resolveSavedOptions(`${format.method} load`, saved),
    stats: v.record(v.number()),
  });
  const options = opened.params;
  const graph =
    opened.manifest.formatVersion >= 3
      ? graphOfStored(
          opened,
          GRAPH_ARRAYS_FILE,
          await opened.json(GRAPH_FILE, graphTablesSchema),
          gunzippedArrays(opened, GRAPH_ARRAYS_FILE, await opened.bytes(GRAPH_ARRAYS_FILE)),
        )
      : await opened.json(GRAPH_FILE, graphSchema);
  opened.check(GRAPH_FILE, () => checkGraph(graph));
  const n = graph.ids.length;
  const k = options.pathLength + 1;
  const bytes = await opened.bytes(PATHS_FILE);
  if (bytes.byteLength % (4 * k) !== 0) {
    throw opened.error(PATHS_FILE, `holds ${bytes.byteLength} bytes, not a whole number of ${k}-node paths`);
  }
  const pathNodes = new Int32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  const badNode = pathNodes.findIndex((node) => node < 0 || node >= n);
  if (badNode >= 0) {
    throw opened.error(
      PATHS_FILE,
      `path ${Math.floor(badNode / k)} names node ${pathNodes[badNode]}, not one of the ${n} nodes`,
    );
  }
  const tree = RStarTree.load(await opened.bytes(TREE_FILE), opened.locate(TREE_FILE));
  const pathCount = pathNodes.length / k;
  const treeProblem =
    tree.dimensions !== k * options.dominanceDimensions || tree.labelDimensions !== k
      ? `indexes ${tree.dimensions}-dimensional keys, expected ${k * options.dominanceDimensions}`
      : tree.size !== pathCount
        ? `holds ${tree.size} paths, but ${PATHS_FILE} holds ${pathCount}`
        : undefined;
  if (treeProblem !== undefined) throw opened.error(TREE_FILE, treeProblem);
  for (let id = 0; id < pathCount; id++) {
    if (!tree.has(id)) throw opened.error(TREE_FILE, `has no entry for path ${id}`);
  }
  const dominance = await opened.json(DOMINANCE_FILE, dominanceSchema);
  const expectedKind = KIND_OF[options.dominanceEmbedder];
  if (expectedKind !== undefined && dominance.kind !== expectedKind) {
    throw opened.error(
      DOMINANCE_FILE,
      `holds a ${dominance.kind} embedder, but the manifest says dominanceEmbedder "${options.dominanceEmbedder}"`,
    );
  }
  let embedder: DominanceEmbedder;
  if (options.dominanceEmbedder === 'custom' && customEmbedder !== undefined) {
    // The instance's own embedder object, if it is the one the index was built with.
    if (JSON.stringify(customEmbedder.toJSON()) !== JSON.stringify(dominance)) {
      throw opened.error(
        DOMINANCE_FILE,
        'holds another embedder than the `dominanceEmbedder` object of this sg-rag instance (its toJSON() differs)',
      );
    }
    embedder = customEmbedder;
  } else {
    try {
      embedder = loadDominanceEmbedder(dominance);
    } catch (error) {
      // The embedder checks its own weights; name the file they came from.
      throw opened.error(DOMINANCE_FILE, (error as Error).message.replace(/\.$/, ''), { cause: error });
    }
  }
  if (embedder.dimensions !== options.dominanceDimensions) {
    throw opened.error(
      DOMINANCE_FILE,
      `holds a ${embedder.dimensions}-dimensional embedder, expected ${options.dominanceDimensions}`,
    );
  }
  // Indexes saved before updates existed (and triple indexes) have no update state: they load, but only rebuild.
  const stored = await readVectorCollection(opened, LABEL_COLLECTION, n);
  const kept = await loadUpdateState(opened, { graph }, stored !== undefined);
  const labelVectors =
    stored ??
    (kept?.labelEmbeddings
      ? await opened.vectorIndex(LABELS_FILE, n, () => kept.labelEmbeddings ?? [])
      : await opened.vectors(LABELS_FILE, n));
  return {
    providers: opened.providers,
    options,
    graph,
    adjacency: adjacencyOf(graph),
    exactLabels: exactLabelIndex(graph),
    labelVectors,
    paths: {
      tree,
      pathNodes,
      pathLength: options.pathLength,
      dimensions: options.dominanceDimensions,
      embedder,
    },
    stats: opened.stats,
    ...(kept ? { kept } : {}),
  };
}
