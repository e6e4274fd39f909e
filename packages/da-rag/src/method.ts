import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  assertKnownOptions,
  assertSameProviders,
  type BuildContext,
  type Chunk,
  checkIndexFile,
  chunkSchema,
  float32Rows,
  indexFileError,
  type KgEntity,
  type KgRelation,
  MANIFEST_FILE,
  type Method,
  modelFingerprint,
  optionKeys,
  readBinary,
  readJson,
  readManifest,
  restoreEmbedderState,
  type Schema,
  saveEmbedderState,
  shapeIssue,
  v,
  validate,
  writeIndexDir,
  writeJson,
} from '@grag/core';
import { type TrussGraph, trussGraphFromEdges } from '@grag/ktruss';
import { buildDaRagIndex } from './build.js';
import {
  checkOptions,
  DA_RAG_DEFAULTS,
  DA_RAG_RETRIEVE_OPTION_KEYS,
  type DaRagOptions,
  type DaRagRetrieveOptions,
} from './options.js';
import { retrieveDaRag } from './retrieve.js';
import type { DaRagIndex, DaRagStats } from './types.js';

/** Every build option key; others are refused. */
const BUILD_OPTION_KEYS = optionKeys<DaRagOptions>({ ...DA_RAG_DEFAULTS, concurrency: undefined });

/** Options that take `null`, given as the string `'null'` (e.g. `grag --set maxCommunityNodes=null`). */
const NULLABLE = ['kMax', 'maxLinkEntityChunks', 'maxCommunityNodes'] as const;

function nulls(options: Partial<DaRagOptions>): Partial<DaRagOptions> {
  const out: Record<string, unknown> = { ...options };
  for (const key of NULLABLE) if (out[key] === 'null') out[key] = null;
  return out as Partial<DaRagOptions>;
}

/** Settings of {@link createDaRag}. */
export interface DaRagSettings {
  /** Method name used in manifests and the CLI. @default 'da-rag' */
  name?: string;
  /** Option defaults of this instance (over {@link DA_RAG_DEFAULTS}). */
  defaults?: Partial<DaRagOptions>;
}

/** On-disk format version written by `save`. */
export const DA_RAG_FORMAT_VERSION = 1;

/** Write vectors of equal length as one little-endian float32 file. */
async function writeVectors(
  path: string,
  vectors: readonly Float32Array[],
  dimensions: number,
): Promise<void> {
  const out = new Float32Array(vectors.length * dimensions);
  vectors.forEach((v, i) => {
    out.set(v, i * dimensions);
  });
  await writeFile(path, new Uint8Array(out.buffer, out.byteOffset, out.byteLength));
}

async function readVectors(path: string, count: number, dimensions: number): Promise<Float32Array[]> {
  return float32Rows(await readBinary(path), count, dimensions, path);
}

/** The edges of a graph as a flat `[s0, t0, s1, t1, ...]` array (edge-id order). */
function flatEdges(g: TrussGraph): number[] {
  const out = new Array<number>(2 * g.m);
  for (let e = 0; e < g.m; e++) {
    out[2 * e] = g.sources[e]!;
    out[2 * e + 1] = g.targets[e]!;
  }
  return out;
}

interface StoredUnits {
  chunks: Chunk[];
  texts: string[];
  titles: string[];
  descriptions: string[];
}

interface StoredGraph {
  entities: KgEntity[];
  relations: KgRelation[];
  chunkLayer: number[];
  simLayer: number[] | null;
}

const count = v.int({ min: 0 });
const unitsSchema: Schema<StoredUnits> = v.object({
  chunks: v.array(chunkSchema),
  texts: v.array(v.string()),
  titles: v.array(v.string()),
  descriptions: v.array(v.string()),
});
const strings = v.array(v.string());
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
const statsSchema = v.object({
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
function checkStored(units: StoredUnits, graph: StoredGraph): void {
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

/**
 * DA-RAG (Dynamic Attributed community search for RAG): a chunk-layer oriented graph index — the
 * Semantic Chunk, Knowledge Graph and Similarity layers with inter-layer links — and a coarse-to-fine
 * retrieval that runs embedding-attributed community search (k-truss + Q-Peel) on the chunk layer, then
 * on the KG and Similarity working subgraphs of its entities, scores each candidate community with
 * the model over an adaptive range of k, and packs the best into the budget.
 */
export function createDaRag(
  settings: DaRagSettings = {},
): Method<DaRagIndex, DaRagOptions, DaRagRetrieveOptions> {
  const name = settings.name ?? 'da-rag';
  const formatVersion = DA_RAG_FORMAT_VERSION;
  const resolve = (options: Partial<DaRagOptions>): DaRagOptions => {
    assertKnownOptions(`${name} build`, options, BUILD_OPTION_KEYS);
    const o: DaRagOptions = { ...DA_RAG_DEFAULTS, ...settings.defaults, ...nulls(options) };
    checkOptions(o, `${name} build`);
    return o;
  };
  return {
    name,
    description: 'DA-RAG: chunk-layer graph index + query-time attributed community search (k-truss, Q-Peel)',
    capabilities: { uses: ['embedder', 'tasks', 'vectorIndex'] },
    formatVersion,
    optionKeys: { build: BUILD_OPTION_KEYS, retrieve: DA_RAG_RETRIEVE_OPTION_KEYS },
    passageRanking: { kinds: ['community', 'chunk'] },
    async build(docs, ctx, options = {}) {
      return buildDaRagIndex(docs, ctx, resolve(options));
    },
    retrieve(index, query, options = {}) {
      return retrieveDaRag(index, query, options, name);
    },
    async save(index, dir) {
      const { ctx } = index;
      const dimensions = ctx.embedder.dimensions;
      await writeIndexDir(
        dir,
        {
          method: name,
          formatVersion,
          params: { ...index.options },
          providers: { embedder: modelFingerprint(ctx.embedder), tasks: ctx.tasks.id },
          stats: { ...index.stats, dimensions },
        },
        async (tmp) => {
          const units: StoredUnits = {
            chunks: index.chunks,
            texts: index.texts,
            titles: index.titles,
            descriptions: index.descriptions,
          };
          const graph: StoredGraph = {
            entities: index.entities,
            relations: index.relations,
            chunkLayer: flatEdges(index.chunkLayer),
            simLayer: index.simLayer ? flatEdges(index.simLayer) : null,
          };
          await writeJson(join(tmp, 'chunks.json'), units);
          await writeJson(join(tmp, 'graph.json'), graph);
          await writeVectors(join(tmp, 'chunk-vectors.f32'), index.chunkVectors, dimensions);
          await writeVectors(join(tmp, 'entity-vectors.f32'), index.entityVectors, dimensions);
          await saveEmbedderState(ctx.embedder, tmp);
        },
      );
    },
    async load(dir, ctx: BuildContext) {
      const manifest = await readManifest(dir, { method: name, formatVersion });
      // Vectors of another embedder are meaningless; another task suite is fine (it only assesses).
      assertSameProviders(dir, manifest, { embedder: modelFingerprint(ctx.embedder) });
      await restoreEmbedderState(ctx.embedder, dir);
      const options = { ...DA_RAG_DEFAULTS, ...(manifest.params as Partial<DaRagOptions>) };
      checkOptions(options, `${name} load`);
      const manifestPath = join(dir, MANIFEST_FILE);
      const stats: DaRagStats & { dimensions: number } = validate(
        statsSchema,
        manifest.stats,
        `${manifestPath} stats`,
      );
      if (stats.dimensions !== ctx.embedder.dimensions) {
        throw indexFileError(
          manifestPath,
          `stats.dimensions is ${stats.dimensions}, but the embedder has ${ctx.embedder.dimensions}`,
        );
      }
      const unitsPath = join(dir, 'chunks.json');
      const units = await readJson(unitsPath, unitsSchema);
      checkIndexFile(unitsPath, () => checkUnits(units));
      const graphPath = join(dir, 'graph.json');
      const graph = await readJson(graphPath, graphSchema);
      checkIndexFile(graphPath, () => checkStored(units, graph));
      const entityIds = graph.entities.map((e) => e.id);
      const entityIndex = new Map(entityIds.map((id, i) => [id, i]));
      const chunkIndex = new Map(units.chunks.map((c, i) => [c.id, i]));
      const perChunk: number[][] = units.chunks.map(() => []);
      graph.entities.forEach((entity, e) => {
        for (const id of entity.chunkIds) perChunk[chunkIndex.get(id)!]!.push(e);
      });
      const kgEdges = new Uint32Array(graph.relations.length * 2);
      graph.relations.forEach((r, e) => {
        kgEdges[2 * e] = entityIndex.get(r.source)!;
        kgEdges[2 * e + 1] = entityIndex.get(r.target)!;
      });
      return {
        ctx,
        options,
        ...units,
        chunkVectors: await readVectors(
          join(dir, 'chunk-vectors.f32'),
          units.chunks.length,
          stats.dimensions,
        ),
        entities: graph.entities,
        relations: graph.relations,
        entityVectors: await readVectors(
          join(dir, 'entity-vectors.f32'),
          graph.entities.length,
          stats.dimensions,
        ),
        entityIndex,
        chunkEntities: perChunk.map((list) => Uint32Array.from(list).sort()),
        chunkLayer: trussGraphFromEdges(units.chunks.length, Uint32Array.from(graph.chunkLayer), {
          ids: units.chunks.map((c) => c.id),
        }),
        kgLayer: trussGraphFromEdges(graph.entities.length, kgEdges, { ids: entityIds }),
        simLayer: graph.simLayer
          ? trussGraphFromEdges(graph.entities.length, Uint32Array.from(graph.simLayer), { ids: entityIds })
          : null,
        stats,
        cache: {},
      };
    },
  };
}

/** DA-RAG with default settings (method name `'da-rag'`). */
export const daRag = createDaRag();
