/**
 * KET-RAG's KNN chunk graph (Algorithm 3, lines 2-7): each chunk linked to its top-k chunks by lexical
 * similarity (number of shared distinct keywords) and its top-k chunks by cosine similarity of
 * embeddings.
 */
import { InvalidArgumentError, type VectorIndex } from '@grag/core';
import { buildKnnGraph, type Csr, csrFromEdges } from '@grag/core/graph';
import { assertUniqueIds } from './bipartite.js';

/** Options of {@link buildChunkKnnGraph}. */
export interface ChunkKnnOptions {
  /**
   * Lexical neighbours per chunk (most shared distinct keywords). @default 1 (official KET-RAG code,
   * `knn_edges`; the paper shows k from 2 to 10 changes little, §6.5)
   */
  lexicalK: number;
  /** Semantic neighbours per chunk (highest cosine similarity). @default 1 (official KET-RAG code) */
  semanticK: number;
  /**
   * Keywords found in more than this fraction of the chunks are ignored by the lexical similarity,
   * which bounds the inverted-index work on large corpora (a keyword in every chunk costs n² pair
   * updates and adds the same count to almost every pair). `1` keeps every keyword: the exact
   * definition. @default 1
   */
  maxDocumentFrequency: number;
  /**
   * Answer the semantic neighbours from this index (ids = chunk positions) instead of the exact
   * brute-force scan of `buildKnnGraph`; an approximate index (HNSW) trades exactness for speed.
   */
  vectorIndex?: VectorIndex;
}

/** Defaults of {@link buildChunkKnnGraph}. */
export const CHUNK_KNN_DEFAULTS: Omit<ChunkKnnOptions, 'vectorIndex'> = {
  lexicalK: 1,
  semanticK: 1,
  maxDocumentFrequency: 1,
};

/** A node of the KNN chunk graph. */
export interface KnnChunk {
  /** Node key. */
  id: string;
  /** The chunk's keywords (duplicates count once). */
  keywords: Iterable<string>;
  /** The chunk's embedding; required when `semanticK > 0` and no `vectorIndex` is given. */
  vector?: ArrayLike<number>;
}

/** Neighbours of each chunk, best first, with their scores. */
export interface Neighbors {
  neighbors: Int32Array[];
  scores: Float64Array[];
}

/**
 * Each chunk's `k` chunks sharing the most distinct keywords (best first; ties by lower position),
 * computed through an inverted index: each pair of chunks that share a keyword is counted once, from
 * its lower position, by walking the tail of each of the lower chunk's keyword postings, and offered
 * to both chunks' best `k`. The work is Σ over keywords of (chunks containing it)² / 2, not n².
 * Chunks that share no keyword are never neighbours, so a chunk may get fewer than `k`.
 *
 * @param keywordSets the distinct keywords of each chunk.
 */
export function lexicalNeighbors(
  keywordSets: readonly Iterable<string>[],
  k: number,
  options: { maxDocumentFrequency?: number } = {},
): Neighbors {
  checkK('lexicalK', k);
  const maxDf = options.maxDocumentFrequency ?? CHUNK_KNN_DEFAULTS.maxDocumentFrequency;
  if (!(maxDf > 0 && maxDf <= 1)) {
    throw new InvalidArgumentError(
      'maxDocumentFrequency',
      `lexicalNeighbors: maxDocumentFrequency must be in (0, 1], got ${maxDf}.`,
    );
  }
  const n = keywordSets.length;
  // Keyword ids and each chunk's distinct keyword ids; then the postings (chunk positions,
  // ascending) of every keyword, as one array.
  const vocabulary = new Map<string, number>();
  const chunkTerms: number[][] = [];
  const df: number[] = [];
  for (let i = 0; i < n; i++) {
    const terms: number[] = [];
    for (const word of new Set(keywordSets[i]!)) {
      let id = vocabulary.get(word);
      if (id === undefined) {
        id = df.length;
        vocabulary.set(word, id);
        df.push(0);
      }
      df[id]!++;
      terms.push(id);
    }
    chunkTerms.push(terms);
  }
  const maxPostings = Math.floor(maxDf * n);
  const starts = new Int32Array(df.length + 1);
  for (let t = 0; t < df.length; t++) starts[t + 1] = starts[t]! + df[t]!;
  const postings = new Int32Array(starts[df.length]!);
  // `next[t]`: where keyword t's postings continue after the chunk being read (they ascend, and
  // chunks are read in order, so the chunk itself is always at `next[t]`).
  const next = starts.slice(0, df.length);
  for (let i = 0; i < n; i++) for (const t of chunkTerms[i]!) postings[next[t]!++] = i;
  next.set(starts.subarray(0, df.length));
  const best = new TopCounts(n, k);
  const counts = new Int32Array(n);
  const touched = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    let size = 0;
    for (const t of chunkTerms[i]!) {
      const at = next[t]!++;
      if (k === 0 || df[t]! > maxPostings) continue;
      const end = starts[t + 1]!;
      for (let p = at + 1; p < end; p++) {
        const j = postings[p]!;
        if (counts[j]!++ === 0) touched[size++] = j;
      }
    }
    for (let q = 0; q < size; q++) {
      const j = touched[q]!;
      const c = counts[j]!;
      counts[j] = 0;
      best.offer(i, j, c);
      best.offer(j, i, c);
    }
  }
  const neighbors: Int32Array[] = new Array(n);
  const scores: Float64Array[] = new Array(n);
  for (let i = 0; i < n; i++) [neighbors[i], scores[i]] = best.row(i);
  return { neighbors, scores };
}

/**
 * The best `k` (count, position) of each of `n` chunks: the higher count first, then the lower
 * position; each row kept sorted, positions −1 where fewer were offered.
 */
class TopCounts {
  readonly #k: number;
  readonly #ids: Int32Array;
  readonly #counts: Int32Array;

  constructor(n: number, k: number) {
    this.#k = k;
    this.#ids = new Int32Array(n * k).fill(-1);
    this.#counts = new Int32Array(n * k);
  }

  /** Offer `j` with `count` to chunk `i`'s best. */
  offer(i: number, j: number, count: number): void {
    const k = this.#k;
    const ids = this.#ids;
    const counts = this.#counts;
    const base = i * k;
    let at = base + k - 1;
    if (k === 0 || !(ids[at]! < 0 || count > counts[at]! || (count === counts[at]! && j < ids[at]!))) return;
    // Shift worse entries down, from the last.
    while (at > base) {
      const prev = at - 1;
      const pc = counts[prev]!;
      const pid = ids[prev]!;
      if (pid >= 0 && (pc > count || (pc === count && pid < j))) break;
      ids[at] = pid;
      counts[at] = pc;
      at = prev;
    }
    ids[at] = j;
    counts[at] = count;
  }

  /** Chunk `i`'s best, best first: positions and counts. */
  row(i: number): [Int32Array, Float64Array] {
    const base = i * this.#k;
    let size = 0;
    while (size < this.#k && this.#ids[base + size]! >= 0) size++;
    return [this.#ids.slice(base, base + size), Float64Array.from(this.#counts.subarray(base, base + size))];
  }
}

/**
 * Each chunk's `k` most cosine-similar chunks, best first: exact (core `buildKnnGraph`) from
 * `vectors`, or from `vectorIndex` (ids = chunk positions) when given.
 */
export function semanticNeighbors(
  vectors: readonly ArrayLike<number>[],
  k: number,
  vectorIndex?: VectorIndex,
): Neighbors {
  checkK('semanticK', k);
  const n = vectors.length;
  if (k === 0 || n < 2) {
    return {
      neighbors: Array.from({ length: n }, () => new Int32Array(0)),
      scores: Array.from({ length: n }, () => new Float64Array(0)),
    };
  }
  if (vectorIndex === undefined) {
    const knn = buildKnnGraph(vectors, { k, metric: 'cosine' });
    return { neighbors: knn.neighbors, scores: knn.scores };
  }
  const neighbors: Int32Array[] = new Array(n);
  const scores: Float64Array[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const hits = vectorIndex.search(vectors[i]!, k + 1, { filter: (id) => id !== i }).slice(0, k);
    neighbors[i] = Int32Array.from(hits, (h) => h.id);
    scores[i] = Float64Array.from(hits, (h) => h.score);
  }
  return { neighbors, scores };
}

/** An edge {source, target} of the KNN chunk graph (`source < target`), with the links it carries. */
export interface ChunkKnnEdge {
  source: number;
  target: number;
  /** Shared distinct keywords, when one endpoint is among the other's lexical neighbours. */
  lexical?: number;
  /** Cosine similarity, when one endpoint is among the other's semantic neighbours. */
  cosine?: number;
}

/** KET-RAG's KNN chunk graph: undirected, simple, one node per chunk. */
export interface ChunkKnnGraph {
  /** Node keys, in input order; edges refer to positions in this array. */
  ids: string[];
  /** Each undirected edge once, ordered by (source, target). */
  edges: ChunkKnnEdge[];
}

/**
 * Build KET-RAG's KNN chunk graph: an undirected simple graph with one node per chunk (in input
 * order) and an edge {i, j} whenever j is among i's `lexicalK` lexical or `semanticK` semantic
 * neighbours (or the reverse). Run PageRank on {@link chunkKnnCsr} of it, unweighted (KET-RAG's
 * P = A/deg).
 *
 * @throws InvalidArgumentError for duplicate ids, a negative k, or a missing vector when
 * `semanticK > 0` and no `vectorIndex` is given.
 * @example
 * const knn = buildChunkKnnGraph(chunks.map((c, i) => ({ id: c.id, keywords: distinctKeywords(c.text), vector: vectors[i] })));
 */
export function buildChunkKnnGraph(
  chunks: readonly KnnChunk[],
  options: Partial<ChunkKnnOptions> = {},
): ChunkKnnGraph {
  const o = { ...CHUNK_KNN_DEFAULTS, ...options };
  checkK('semanticK', o.semanticK);
  const ids = chunks.map((c) => c.id);
  assertUniqueIds(ids, 'chunks', 'buildChunkKnnGraph', 'chunk');
  const edges = new Map<number, ChunkKnnEdge>();
  const n = chunks.length;
  const link = (found: Neighbors, attribute: 'lexical' | 'cosine'): void => {
    found.neighbors.forEach((row, i) => {
      row.forEach((j, r) => {
        const [source, target] = i < j ? [i, j] : [j, i];
        const key = source * n + target;
        let edge = edges.get(key);
        if (!edge) {
          edge = { source, target };
          edges.set(key, edge);
        }
        edge[attribute] = found.scores[i]![r]!;
      });
    });
  };
  link(
    lexicalNeighbors(
      chunks.map((c) => c.keywords),
      o.lexicalK,
      { maxDocumentFrequency: o.maxDocumentFrequency },
    ),
    'lexical',
  );
  if (o.semanticK > 0 && n > 1) {
    const vectors = chunks.map((c, i) => {
      if (c.vector === undefined) {
        throw new InvalidArgumentError(
          'chunks',
          `buildChunkKnnGraph: chunk ${i} (${JSON.stringify(c.id)}) has no vector; give every chunk a vector or set semanticK to 0.`,
        );
      }
      return c.vector;
    });
    link(semanticNeighbors(vectors, o.semanticK, o.vectorIndex), 'cosine');
  }
  return {
    ids,
    edges: [...edges.values()].sort((a, b) => a.source - b.source || a.target - b.target),
  };
}

/** The {@link Csr} of a KNN chunk graph, both directions of every edge with weight 1 (for `pageRank`). */
export function chunkKnnCsr(graph: ChunkKnnGraph): Csr {
  return csrFromEdges(
    graph.ids.length,
    graph.edges.map((e) => [e.source, e.target] as const),
    { directed: false, ids: graph.ids },
  );
}

function checkK(name: string, k: number): void {
  if (!Number.isInteger(k) || k < 0) {
    throw new InvalidArgumentError(
      name,
      `buildChunkKnnGraph: ${name} must be a non-negative integer, got ${k}.`,
    );
  }
}
