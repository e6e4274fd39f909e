import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  assertSameProviders,
  type BuildContext,
  type Chunk,
  IndexFormatError,
  type KgEntity,
  type KgRelation,
  type Method,
  modelFingerprint,
  readJson,
  readManifest,
  restoreEmbedderState,
  saveEmbedderState,
  writeIndexDir,
  writeJson,
} from '@grag/core';
import { type TrussGraph, trussGraphFromEdges } from '@grag/ktruss';
import { buildDaRagIndex } from './build.js';
import { checkOptions, DA_RAG_DEFAULTS, type DaRagOptions, type DaRagRetrieveOptions } from './options.js';
import { retrieveDaRag } from './retrieve.js';
import type { DaRagIndex, DaRagStats } from './types.js';

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
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new IndexFormatError(path, DA_RAG_FORMAT_VERSION, `Cannot read ${path}; rebuild the index.`, {
      cause: error,
    });
  }
  if (bytes.byteLength !== count * dimensions * 4) {
    throw new IndexFormatError(
      path,
      DA_RAG_FORMAT_VERSION,
      `${path} holds ${bytes.byteLength} bytes, expected ${count} vectors of ${dimensions} float32; rebuild the index.`,
    );
  }
  const all = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  return Array.from({ length: count }, (_, i) => all.subarray(i * dimensions, (i + 1) * dimensions));
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
    const o: DaRagOptions = { ...DA_RAG_DEFAULTS, ...settings.defaults, ...options };
    checkOptions(o, `${name} build`);
    return o;
  };
  return {
    name,
    formatVersion,
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
      const stats = manifest.stats as unknown as DaRagStats & { dimensions: number };
      const units = await readJson<StoredUnits>(join(dir, 'chunks.json'));
      const graph = await readJson<StoredGraph>(join(dir, 'graph.json'));
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
