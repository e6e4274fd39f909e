/**
 * The entity graph of E2GraphRAG (§3.1) with its two indexes: entities are nodes, an undirected edge
 * joins two entities that occur in one sentence, weighted by how many sentences they share;
 * I(e→c) maps an entity to the chunks it occurs in and I(c→e) a chunk to its entities, both with
 * occurrence counts. Typed arrays inside; plain data out.
 */

import { UndirectedGraph } from 'graphology';
import { IndexFormatError, InvalidArgumentError } from '../contracts/errors.js';
import { stringTable } from '../string-table.js';

/** {@link EntityGraph} as JSON-serializable data. */
export interface EntityGraphData {
  formatVersion: 1;
  /** Entity keys; an entity's id is its position. */
  entities: string[];
  /** Undirected edges as flat triples `a, b, weight` with `a < b` (entity ids). */
  edges: number[];
  /** Per chunk: entity ids and occurrence counts as flat pairs `entity, count`. */
  chunks: number[][];
}

/** Largest number of entities an {@link EntityGraph} holds (edge keys pack two ids into one number). */
const MAX_ENTITIES = 2 ** 26;

/** Entity graph, entity→chunk and chunk→entity indexes, and bounded shortest-path search. */
export class EntityGraph {
  /** Entity keys; an entity's id is its position. */
  readonly entities: readonly string[];
  /** Number of chunks indexed (chunk ids are 0 .. chunkCount − 1). */
  readonly chunkCount: number;
  readonly #ids: Map<string, number>;
  // adjacency (CSR, both directions)
  readonly #adjOffsets: Uint32Array;
  readonly #adjTargets: Uint32Array;
  readonly #adjWeights: Float64Array;
  // I(e→c): chunk ids ascending, with counts
  readonly #postOffsets: Uint32Array;
  readonly #postChunks: Uint32Array;
  readonly #postCounts: Uint32Array;
  // I(c→e)
  readonly #chunkOffsets: Uint32Array;
  readonly #chunkEntities: Uint32Array;
  readonly #chunkCounts: Uint32Array;
  // bounded BFS scratch space
  #stampS = new Uint32Array(0);
  #stampT = new Uint32Array(0);
  #stamp = 0;

  private constructor(entities: string[], edges: ArrayLike<number>, chunks: readonly ArrayLike<number>[]) {
    const n = entities.length;
    if (n > MAX_ENTITIES) {
      throw new InvalidArgumentError('entities', `EntityGraph: at most ${MAX_ENTITIES} entities, got ${n}.`);
    }
    this.entities = entities;
    this.chunkCount = chunks.length;
    this.#ids = new Map(entities.map((e, i) => [e, i]));
    // Adjacency in CSR form.
    const m = edges.length / 3;
    const degree = new Uint32Array(n + 1);
    for (let e = 0; e < m; e++) {
      degree[edges[3 * e]!]!++;
      degree[edges[3 * e + 1]!]!++;
    }
    this.#adjOffsets = prefix(degree, n);
    this.#adjTargets = new Uint32Array(2 * m);
    this.#adjWeights = new Float64Array(2 * m);
    const fill = this.#adjOffsets.slice(0, n);
    for (let e = 0; e < m; e++) {
      const a = edges[3 * e]!;
      const b = edges[3 * e + 1]!;
      const w = edges[3 * e + 2]!;
      this.#adjTargets[fill[a]!] = b;
      this.#adjWeights[fill[a]!++] = w;
      this.#adjTargets[fill[b]!] = a;
      this.#adjWeights[fill[b]!++] = w;
    }
    // I(c→e).
    let pairs = 0;
    for (const c of chunks) pairs += c.length / 2;
    this.#chunkOffsets = new Uint32Array(chunks.length + 1);
    this.#chunkEntities = new Uint32Array(pairs);
    this.#chunkCounts = new Uint32Array(pairs);
    const postingLength = new Uint32Array(n + 1);
    let at = 0;
    chunks.forEach((c, ci) => {
      this.#chunkOffsets[ci] = at;
      for (let k = 0; k < c.length; k += 2) {
        this.#chunkEntities[at] = c[k]!;
        this.#chunkCounts[at++] = c[k + 1]!;
        postingLength[c[k]!]!++;
      }
    });
    this.#chunkOffsets[chunks.length] = at;
    // I(e→c): chunks visited in order, so each posting list is ascending.
    this.#postOffsets = prefix(postingLength, n);
    this.#postChunks = new Uint32Array(pairs);
    this.#postCounts = new Uint32Array(pairs);
    const cursor = this.#postOffsets.slice(0, n);
    for (let ci = 0; ci < chunks.length; ci++) {
      for (let p = this.#chunkOffsets[ci]!; p < this.#chunkOffsets[ci + 1]!; p++) {
        const e = this.#chunkEntities[p]!;
        this.#postChunks[cursor[e]!] = ci;
        this.#postCounts[cursor[e]!++] = this.#chunkCounts[p]!;
      }
    }
  }

  /**
   * Build the graph and indexes from extracted entities: `chunks[c][s]` lists the entities of
   * sentence `s` of chunk `c` (repeats count as occurrences). Every distinct pair of entities in one
   * sentence adds 1 to their edge; an entity never links to itself.
   */
  static fromSentences(chunks: readonly (readonly (readonly string[])[])[]): EntityGraph {
    const { strings: entities, ref: idOf } = stringTable();
    const weights = new Map<number, number>();
    const perChunk: number[][] = [];
    for (const sentences of chunks) {
      const counts = new Map<number, number>();
      for (const sentence of sentences) {
        const distinct = new Set<number>();
        for (const entity of sentence) {
          const id = idOf(entity);
          counts.set(id, (counts.get(id) ?? 0) + 1);
          distinct.add(id);
        }
        const list = [...distinct].sort((a, b) => a - b);
        for (let i = 0; i < list.length; i++) {
          for (let j = i + 1; j < list.length; j++) {
            const key = list[i]! * MAX_ENTITIES + list[j]!;
            weights.set(key, (weights.get(key) ?? 0) + 1);
          }
        }
      }
      const flat: number[] = [];
      for (const [id, count] of [...counts].sort((a, b) => a[0] - b[0])) flat.push(id, count);
      perChunk.push(flat);
    }
    const edges: number[] = [];
    for (const [key, w] of weights) edges.push(Math.floor(key / MAX_ENTITIES), key % MAX_ENTITIES, w);
    return new EntityGraph(entities, edges, perChunk);
  }

  /**
   * Restore a graph from {@link EntityGraph.toJSON} data.
   * @throws IndexFormatError when the data is not a valid entity graph.
   */
  static fromJSON(data: unknown, where = 'entity graph'): EntityGraph {
    const d = data as Partial<EntityGraphData> | null;
    const bad = (reason: string): never => {
      throw new IndexFormatError(
        where,
        undefined,
        `${where}: not an entity graph (${reason}); rebuild the index.`,
      );
    };
    if (typeof d !== 'object' || d === null || d.formatVersion !== 1) bad('missing or of another version');
    if (!Array.isArray(d!.entities) || !Array.isArray(d!.edges) || !Array.isArray(d!.chunks))
      bad('fields missing');
    if (!d!.entities!.every((e) => typeof e === 'string')) bad('an entity is not a string');
    const n = d!.entities!.length;
    const isId = (x: unknown) => Number.isInteger(x) && (x as number) >= 0 && (x as number) < n;
    const edges = d!.edges!;
    if (edges.length % 3 !== 0) bad('edges are not triples');
    for (let e = 0; e < edges.length; e += 3) {
      if (!isId(edges[e]) || !isId(edges[e + 1]) || !(edges[e + 2]! > 0)) bad(`bad edge at ${e / 3}`);
    }
    for (const c of d!.chunks!) {
      if (!Array.isArray(c) || c.length % 2 !== 0) bad('bad chunk entry');
      for (let k = 0; k < c.length; k += 2) if (!isId(c[k]) || !(c[k + 1]! > 0)) bad('bad chunk entity');
    }
    return new EntityGraph(d!.entities!, edges, d!.chunks!);
  }

  /** Plain data for saving. */
  toJSON(): EntityGraphData {
    const edges: number[] = [];
    for (let a = 0; a < this.entities.length; a++) {
      for (let p = this.#adjOffsets[a]!; p < this.#adjOffsets[a + 1]!; p++) {
        const b = this.#adjTargets[p]!;
        if (a < b) edges.push(a, b, this.#adjWeights[p]!);
      }
    }
    const chunks: number[][] = [];
    for (let c = 0; c < this.chunkCount; c++) {
      const flat: number[] = [];
      for (let p = this.#chunkOffsets[c]!; p < this.#chunkOffsets[c + 1]!; p++) {
        flat.push(this.#chunkEntities[p]!, this.#chunkCounts[p]!);
      }
      chunks.push(flat);
    }
    return { formatVersion: 1, entities: [...this.entities], edges, chunks };
  }

  /** Number of undirected edges. */
  get edgeCount(): number {
    return this.#adjTargets.length / 2;
  }

  /** Id of an entity key, or `undefined` when it is not in the graph. */
  id(entity: string): number | undefined {
    return this.#ids.get(entity);
  }

  /** Neighbours of entity `id` and the weights of the edges to them. */
  neighbors(id: number): { ids: Uint32Array; weights: Float64Array } {
    const from = this.#adjOffsets[id]!;
    const to = this.#adjOffsets[id + 1]!;
    return { ids: this.#adjTargets.subarray(from, to), weights: this.#adjWeights.subarray(from, to) };
  }

  /** I(e→c): the chunks entity `id` occurs in (ascending) and its occurrence count in each. */
  chunksOf(id: number): { chunks: Uint32Array; counts: Uint32Array } {
    const from = this.#postOffsets[id]!;
    const to = this.#postOffsets[id + 1]!;
    return { chunks: this.#postChunks.subarray(from, to), counts: this.#postCounts.subarray(from, to) };
  }

  /** I(c→e): the entities of chunk `chunk` (ascending ids) and their occurrence counts. */
  entitiesOf(chunk: number): { entities: Uint32Array; counts: Uint32Array } {
    const from = this.#chunkOffsets[chunk]!;
    const to = this.#chunkOffsets[chunk + 1]!;
    return { entities: this.#chunkEntities.subarray(from, to), counts: this.#chunkCounts.subarray(from, to) };
  }

  /** Chunks that contain both entities: I(e→c)(a) ∩ I(e→c)(b), ascending. */
  sharedChunks(a: number, b: number): number[] {
    const x = this.chunksOf(a).chunks;
    const y = this.chunksOf(b).chunks;
    const out: number[] = [];
    let i = 0;
    let j = 0;
    while (i < x.length && j < y.length) {
      const u = x[i]!;
      const v = y[j]!;
      if (u === v) {
        out.push(u);
        i++;
        j++;
      } else if (u < v) i++;
      else j++;
    }
    return out;
  }

  /**
   * Hop count of a shortest path between two entities when it is at most `maxHops`, else
   * `Infinity` (also when no path exists). A bidirectional breadth-first search that expands the
   * cheaper frontier and never looks further than `maxHops` in total, so its cost is bounded by the
   * neighbourhoods of radius ⌈maxHops/2⌉-ish around the two entities, not by the graph.
   */
  distance(a: number, b: number, maxHops: number): number {
    const n = this.entities.length;
    if (!(a >= 0 && a < n && b >= 0 && b < n)) {
      throw new InvalidArgumentError('entity', `EntityGraph.distance: no entity ${a} or ${b}.`);
    }
    if (a === b) return 0;
    if (!(maxHops >= 1)) return Number.POSITIVE_INFINITY;
    if (this.#stampS.length !== n) {
      this.#stampS = new Uint32Array(n);
      this.#stampT = new Uint32Array(n);
      this.#stamp = 0;
    }
    if (++this.#stamp === 0xffffffff) {
      this.#stampS.fill(0);
      this.#stampT.fill(0);
      this.#stamp = 1;
    }
    const stamp = this.#stamp;
    const offsets = this.#adjOffsets;
    const targets = this.#adjTargets;
    this.#stampS[a] = stamp;
    this.#stampT[b] = stamp;
    let frontS = [a];
    let frontT = [b];
    let dS = 0;
    let dT = 0;
    const cost = (front: number[]) => front.reduce((s, u) => s + offsets[u + 1]! - offsets[u]!, 0);
    // Invariant: the two visited sets are disjoint, so the distance is at least dS + dT + 1.
    while (dS + dT + 1 <= maxHops && frontS.length > 0 && frontT.length > 0) {
      const fromS = cost(frontS) <= cost(frontT);
      const [front, mine, other] = fromS
        ? [frontS, this.#stampS, this.#stampT]
        : [frontT, this.#stampT, this.#stampS];
      const depth = (fromS ? dS : dT) + 1;
      const next: number[] = [];
      for (const u of front) {
        for (let p = offsets[u]!; p < offsets[u + 1]!; p++) {
          const v = targets[p]!;
          if (other[v] === stamp) return dS + dT + 1;
          if (mine[v] !== stamp) {
            mine[v] = stamp;
            next.push(v);
          }
        }
      }
      if (fromS) {
        frontS = next;
        dS = depth;
      } else {
        frontT = next;
        dT = depth;
      }
    }
    return Number.POSITIVE_INFINITY;
  }

  /** The entity graph as a graphology `UndirectedGraph` (node keys = entity keys, edge attribute `weight`). */
  toGraphology(): UndirectedGraph {
    const graph = new UndirectedGraph();
    for (const e of this.entities) graph.addNode(e);
    for (let a = 0; a < this.entities.length; a++) {
      for (let p = this.#adjOffsets[a]!; p < this.#adjOffsets[a + 1]!; p++) {
        const b = this.#adjTargets[p]!;
        if (a < b) graph.addEdge(this.entities[a]!, this.entities[b]!, { weight: this.#adjWeights[p]! });
      }
    }
    return graph;
  }
}

/** Exclusive prefix sums of `counts[0..n-1]` into an array of length n + 1. */
function prefix(counts: Uint32Array, n: number): Uint32Array {
  const out = new Uint32Array(n + 1);
  for (let i = 0; i < n; i++) out[i + 1] = out[i]! + counts[i]!;
  return out;
}
