/**
 * DA-RAG's index (a directory or any IndexStore), through core's persistence envelope, format 2:
 * `chunks.json` (chunks, texts, titles, descriptions), `graph.json` (entities, relations, the chunk
 * and Similarity layer edges) and `update.json` (what updates reuse; see `persist-kept.ts`) as
 * gzipped JSON, `chunk-vectors.rows` and `entity-vectors.rows` (the unit-length vectors as core's
 * lossless vector rows), and the manifest (params, stats with the embedding dimensions, provider
 * fingerprints, the fitted embedder's state), and `line-counts.bin` (the token counts of the chunk
 * and entity texts, see `line-counts.ts`; indexes saved without it load and count as before).
 * Format 1 (plain JSON, `chunk-vectors.f32` and `entity-vectors.f32` as float32 rows) still loads.
 */
import type { BuildContext, Chunk, IndexStore, KgEntity, KgRelation } from '@grag/core';
import {
  chunkSchema,
  lazyField,
  MANIFEST_FILE,
  type MethodIndexFormat,
  type OpenedIndex,
  openMethodIndex,
  type Schema,
  shapeIssue,
  v,
  writeMethodIndex,
} from '@grag/core/kit';
import { trussGraphFromEdges } from '@grag/ktruss';
import { loadChunkTruss, saveChunkTruss } from './chunk-truss.js';
import { PART_CHARS, readJsonParts, writeJsonParts } from './json-parts.js';
import { flatEdges, graphLinks } from './layers.js';
import { loadLineCounts, saveLineCounts } from './line-counts.js';
import { savedDaRagOptions } from './options.js';
import { keptChecksums, keptFiles, loadKept, saveKept } from './persist-kept.js';
import { loadLexical, saveLexical } from './persist-lexical.js';
import type { DaRagIndex, DaRagStats } from './types.js';

interface StoredUnits {
  chunks: Chunk[];
  texts: string[];
  titles: string[];
  descriptions: string[];
}

/** `chunks.json`: the units, and the SHA-256 of each file of the kept update data (since it is decoded on first use). */
interface StoredUnitsFile extends StoredUnits {
  keptChecksums?: [string, string][];
}

interface StoredGraph {
  entities: KgEntity[];
  relations: KgRelation[];
  chunkLayer: number[];
  simLayer: number[] | null;
}

const UNITS_FILE = 'chunks.json';
const GRAPH_FILE = 'graph.json';
const CHUNK_VECTORS_FILE = 'chunk-vectors.rows';
const ENTITY_VECTORS_FILE = 'entity-vectors.rows';
/** Format 1's float32 rows of the same vectors. */
const V1_VECTOR_FILES: Record<string, string> = {
  [CHUNK_VECTORS_FILE]: 'chunk-vectors.f32',
  [ENTITY_VECTORS_FILE]: 'entity-vectors.f32',
};

/** Read vectors `file` (or format 1's float32 copy of them): `rows` of the embedder's dimensions. */
function readVectors(
  opened: OpenedIndex<unknown, unknown>,
  file: string,
  rows: number,
): Promise<Float32Array[]> {
  return opened.names.includes(file)
    ? opened.vectorRows(file, rows)
    : opened.float32Rows(V1_VECTOR_FILES[file]!, rows);
}

const count = v.int({ min: 0 });
const strings = v.array(v.string());
const unitsSchema: Schema<StoredUnitsFile> = v.object({
  chunks: v.array(chunkSchema),
  texts: strings,
  titles: strings,
  descriptions: strings,
  keptChecksums: v.optional(v.array(v.tuple(v.string(), v.string()))),
});
const edgeList = v.refine(v.array(count), (list) =>
  list.length % 2 === 0 ? undefined : 'has an odd length; it lists edges as pairs',
);
const graphSchema: Schema<StoredGraph> = v.object({
  entities: v.array(
    v.object({ id: v.string(), name: v.string(), types: strings, descriptions: strings, chunkIds: strings }),
  ),
  relations: v.array(
    v.object({
      id: v.string(),
      source: v.string(),
      target: v.string(),
      descriptions: strings,
      weight: v.number(),
      keywords: strings,
      chunkIds: strings,
    }),
  ),
  chunkLayer: edgeList,
  simLayer: v.nullable(edgeList),
});
const statsSchema: Schema<DaRagStats & { dimensions: number }> = v.object({
  documents: count,
  chunks: count,
  entities: count,
  relations: count,
  chunkLayerEdges: count,
  similarityLayerEdges: count,
  hubEntities: count,
  skippedRecords: count,
  parseIssues: count,
  undescribedChunks: count,
  dimensions: v.int({ min: 1 }),
});

/** The parallel arrays of chunks.json agree and chunk ids are distinct. */
function checkUnits(units: StoredUnits): void {
  const n = units.chunks.length;
  for (const key of ['texts', 'titles', 'descriptions'] as const) {
    if (units[key].length !== n) shapeIssue(key, `has ${units[key].length} entries for ${n} chunks`);
  }
  const chunkIds = new Set<string>();
  units.chunks.forEach((c, i) => {
    if (chunkIds.has(c.id)) shapeIssue(`chunks[${i}].id`, `repeats ${JSON.stringify(c.id)}`);
    chunkIds.add(c.id);
  });
}

/** Every id and position the graph names exists. */
function checkGraph(units: StoredUnits, graph: StoredGraph): void {
  const n = units.chunks.length;
  const chunkIds = new Set(units.chunks.map((c) => c.id));
  const entityIds = new Set<string>();
  graph.entities.forEach((e, i) => {
    if (entityIds.has(e.id)) shapeIssue(`entities[${i}].id`, `repeats ${JSON.stringify(e.id)}`);
    entityIds.add(e.id);
    e.chunkIds.forEach((id, j) => {
      if (!chunkIds.has(id)) shapeIssue(`entities[${i}].chunkIds[${j}]`, 'names no chunk of chunks.json');
    });
  });
  graph.relations.forEach((r, i) => {
    if (!entityIds.has(r.source) || !entityIds.has(r.target))
      shapeIssue(`relations[${i}]`, 'joins an unknown entity');
  });
  const checkLayer = (at: string, edges: readonly number[], nodes: number) =>
    edges.forEach((x, i) => {
      if (x >= nodes) shapeIssue(`${at}[${i}]`, `is ${x}, beyond the ${nodes} nodes of the layer`);
    });
  checkLayer('chunkLayer', graph.chunkLayer, n);
  if (graph.simLayer) checkLayer('simLayer', graph.simLayer, graph.entities.length);
}

/** Write `index` to `target`, a directory or any store (atomically; see core `writeMethodIndex`). */
export async function saveDaRag(
  index: DaRagIndex,
  target: string | IndexStore,
  format: MethodIndexFormat,
  partChars: number = PART_CHARS,
): Promise<void> {
  const dimensions = index.providers.embedder.dimensions;
  await writeMethodIndex(
    target,
    { ...format, providers: index.providers, params: index.options, stats: { ...index.stats, dimensions } },
    async (out) => {
      const kept = index.kept ? await keptFiles(index.kept, partChars) : undefined;
      const units: StoredUnitsFile = {
        chunks: index.chunks,
        texts: index.texts,
        titles: index.titles,
        descriptions: index.descriptions,
        ...(kept ? { keptChecksums: keptChecksums(kept) } : {}),
      };
      const graph: StoredGraph = {
        entities: index.entities,
        relations: index.relations,
        chunkLayer: flatEdges(index.chunkLayer),
        simLayer: index.simLayer ? flatEdges(index.simLayer) : null,
      };
      await writeJsonParts(out, UNITS_FILE, { ...units }, partChars);
      await writeJsonParts(out, GRAPH_FILE, { ...graph }, partChars, { chunkLayer: 2, simLayer: 2 });
      await out.vectorRows(CHUNK_VECTORS_FILE, index.chunkVectors, dimensions);
      await out.vectorRows(ENTITY_VECTORS_FILE, index.entityVectors, dimensions);
      if (kept) await saveKept(out, kept);
      await saveLineCounts(out, index);
      await saveLexical(out, index);
      await saveChunkTruss(out, index);
    },
  );
}

/**
 * Load the index in `target` (a directory or any store) with the providers of `ctx`: the envelope checks the method, format
 * version and providers and validates the saved params; each file is checked, and so is every
 * cross-file reference. @throws IndexFormatError naming the file, saying to rebuild.
 */
export async function loadDaRag(
  target: string | IndexStore,
  ctx: BuildContext,
  format: MethodIndexFormat,
): Promise<DaRagIndex> {
  const opened = await openMethodIndex(target, ctx, {
    ...format,
    // An index written before an option existed gets its default.
    params: (saved) => savedDaRagOptions(`${format.method} load`, saved),
    stats: statsSchema,
  });
  const { providers, stats } = opened;
  opened.check(MANIFEST_FILE, () => {
    if (stats.dimensions !== providers.embedder.dimensions) {
      shapeIssue(
        'stats.dimensions',
        `is ${stats.dimensions}, but the embedder has ${providers.embedder.dimensions}`,
      );
    }
  });
  const { keptChecksums: checksums, ...units } = await readJsonParts(opened, UNITS_FILE, unitsSchema);
  opened.check(UNITS_FILE, () => checkUnits(units));
  const graph = await readJsonParts(opened, GRAPH_FILE, graphSchema);
  opened.check(GRAPH_FILE, () => checkGraph(units, graph));
  const chunkIds = units.chunks.map((c) => c.id);
  const entityIds = graph.entities.map((e) => e.id);
  const links = graphLinks({ chunkIds, entities: graph.entities, relations: graph.relations });
  // Indexes saved before updates existed have no kept data: they load, but only rebuild. The
  // checksums are trusted from format 3 on (a file rewritten as an older format changes bytes).
  const kept = await loadKept(
    opened,
    units.chunks,
    opened.manifest.formatVersion >= 3 ? checksums : undefined,
  );
  const index: DaRagIndex = {
    providers,
    options: opened.params,
    ...units,
    chunkVectors: await readVectors(opened, CHUNK_VECTORS_FILE, units.chunks.length),
    entities: graph.entities,
    relations: graph.relations,
    entityVectors: await readVectors(opened, ENTITY_VECTORS_FILE, graph.entities.length),
    entityIndex: links.entityIndex,
    chunkEntities: links.chunkEntities,
    chunkLayer: trussGraphFromEdges(units.chunks.length, Uint32Array.from(graph.chunkLayer), {
      ids: chunkIds,
    }),
    kgLayer: trussGraphFromEdges(graph.entities.length, links.kgEdges, { ids: entityIds }),
    simLayer: graph.simLayer
      ? trussGraphFromEdges(graph.entities.length, Uint32Array.from(graph.simLayer), { ids: entityIds })
      : null,
    stats,
    cache: {},
  };
  const lineCounts = await loadLineCounts(opened, units.chunks.length, graph.entities.length);
  if (lineCounts) index.cache.lineCounts = lineCounts;
  await loadLexical(opened, index);
  await loadChunkTruss(opened, index);
  // Decoded when first read (by an update or a save).
  if (kept) lazyField(index, 'kept', kept);
  return index;
}
