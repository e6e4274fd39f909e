/**
 * The edges of DA-RAG's layers and the inter-layer links (§3), as pure functions over indices: the
 * build derives them from the extracted graph, `load` rebuilds the links from the stored graph.
 */

/** Unique sorted pairs (as a flat array) from numeric pair keys `a * n + b`, a < b. */
export function pairsToEdges(keys: Iterable<number>, n: number): Uint32Array {
  const sorted = Float64Array.from(keys).sort();
  const out = new Uint32Array(sorted.length * 2);
  for (let i = 0; i < sorted.length; i++) {
    const key = sorted[i]!;
    out[2 * i] = Math.floor(key / n);
    out[2 * i + 1] = key % n;
  }
  return out;
}

/** Input of {@link chunkLayerEdges}. */
export interface ChunkLayerInput {
  /** Number of chunks (the nodes of the layer). */
  chunkCount: number;
  /** KG relations, as entity indices. */
  relations: readonly { source: number; target: number }[];
  /** The chunk indices of each entity, ascending. */
  entityChunks: readonly Uint32Array[];
  /** Entities in more chunks than this link none; `null`: no cap (the paper's rule). */
  maxLinkEntityChunks: number | null;
}

/**
 * Semantic Chunk layer edges (DA-RAG §3): chunks i ≠ j are linked when a relation joins an entity of
 * chunk i to an entity of chunk j. Entities in more than `maxLinkEntityChunks` chunks do not link
 * (`hubEntities` counts them). Edges are a flat `[a0, b0, a1, b1, …]` array, a < b, sorted.
 */
export function chunkLayerEdges(input: ChunkLayerInput): { edges: Uint32Array; hubEntities: number } {
  const { chunkCount, relations, entityChunks } = input;
  const cap = input.maxLinkEntityChunks ?? Number.POSITIVE_INFINITY;
  const keys = new Set<number>();
  for (const { source, target } of relations) {
    const a = entityChunks[source]!;
    const b = entityChunks[target]!;
    if (a.length > cap || b.length > cap) continue;
    for (const i of a) {
      for (const j of b) {
        if (i !== j) keys.add(i < j ? i * chunkCount + j : j * chunkCount + i);
      }
    }
  }
  let hubEntities = 0;
  for (const chunks of entityChunks) if (chunks.length > cap) hubEntities++;
  return { edges: pairsToEdges(keys, chunkCount), hubEntities };
}

/** Input of {@link graphLinks}: the chunks and the KG, by id. */
export interface GraphLinksInput {
  chunkIds: readonly string[];
  entities: readonly { id: string; chunkIds: readonly string[] }[];
  relations: readonly { source: string; target: string }[];
}

/** The KG in indices, and the links between the chunk and entity layers. */
export interface GraphLinks {
  /** Entity index by entity id. */
  entityIndex: Map<string, number>;
  /** The chunk indices of each entity, ascending. */
  entityChunks: Uint32Array[];
  /** The entity indices of each chunk, ascending (the inter-layer links). */
  chunkEntities: Uint32Array[];
  /** Each relation as entity indices. */
  relationPairs: { source: number; target: number }[];
  /** The relations as a flat `[s0, t0, s1, t1, …]` edge list (edge `e` is relation `e`). */
  kgEdges: Uint32Array;
}

/**
 * Index the KG: entity and chunk positions for ids, the chunks of each entity and the entities of
 * each chunk, the relations as edges. Every id named must exist (the caller checks stored data).
 */
export function graphLinks(input: GraphLinksInput): GraphLinks {
  const { chunkIds, entities, relations } = input;
  const chunkIndex = new Map(chunkIds.map((id, i) => [id, i]));
  const entityIndex = new Map(entities.map((e, i) => [e.id, i]));
  const entityChunks = entities.map((e) =>
    Uint32Array.from(e.chunkIds.map((id) => chunkIndex.get(id)!)).sort(),
  );
  const perChunk: number[][] = chunkIds.map(() => []);
  entityChunks.forEach((list, e) => {
    for (const c of list) perChunk[c]!.push(e);
  });
  const relationPairs = relations.map((r) => ({
    source: entityIndex.get(r.source)!,
    target: entityIndex.get(r.target)!,
  }));
  const kgEdges = new Uint32Array(relations.length * 2);
  relationPairs.forEach((r, e) => {
    kgEdges[2 * e] = r.source;
    kgEdges[2 * e + 1] = r.target;
  });
  return {
    entityIndex,
    entityChunks,
    chunkEntities: perChunk.map((list) => Uint32Array.from(list).sort()),
    relationPairs,
    kgEdges,
  };
}

/** The edges of a graph (`m` edges in `sources` / `targets`) as a flat `[s0, t0, s1, t1, …]` array. */
export function flatEdges(g: {
  m: number;
  sources: ArrayLike<number>;
  targets: ArrayLike<number>;
}): number[] {
  const out = new Array<number>(2 * g.m);
  for (let e = 0; e < g.m; e++) {
    out[2 * e] = g.sources[e]!;
    out[2 * e + 1] = g.targets[e]!;
  }
  return out;
}
