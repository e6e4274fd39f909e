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
 * computed through an inverted index: for each chunk, only the chunks that share a keyword with it
 * are touched, so the work is Σ over keywords of (chunks containing it)², not n². Chunks that share no
 * keyword are never neighbours, so a chunk may get fewer than `k`.
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
  // Inverted index: keyword id → chunk positions (ascending); chunk → keyword ids.
  const vocabulary = new Map<string, number>();
  const postings: number[][] = [];
  const chunkTerms: number[][] = [];
  for (let i = 0; i < n; i++) {
    const terms: number[] = [];
    for (const word of new Set(keywordSets[i]!)) {
      let id = vocabulary.get(word);
      if (id === undefined) {
        id = postings.length;
        vocabulary.set(word, id);
        postings.push([]);
      }
      postings[id]!.push(i);
      terms.push(id);
    }
    chunkTerms.push(terms);
  }
  const maxPostings = Math.floor(maxDf * n);
  const counts = new Int32Array(n);
  const touched: number[] = [];
  const neighbors: Int32Array[] = new Array(n);
  const scores: Float64Array[] = new Array(n);
  for (let i = 0; i < n; i++) {
    if (k > 0) {
      for (const term of chunkTerms[i]!) {
        const list = postings[term]!;
        if (list.length > maxPostings) continue;
        for (const j of list) {
          if (j === i) continue;
          if (counts[j] === 0) touched.push(j);
          counts[j]!++;
        }
      }
    }
    const best = topK(touched, counts, k);
    neighbors[i] = Int32Array.from(best);
    scores[i] = Float64Array.from(best, (j) => counts[j]!);
    for (const j of touched) counts[j] = 0;
    touched.length = 0;
  }
  return { neighbors, scores };
}

/** The `k` positions of `candidates` with the highest count, ties by lower position, best first. */
function topK(candidates: number[], counts: Int32Array, k: number): number[] {
  if (k === 0 || candidates.length === 0) return [];
  if (candidates.length <= k || k > 16) {
    return candidates
      .slice()
      .sort((a, b) => counts[b]! - counts[a]! || a - b)
      .slice(0, k);
  }
  // Small k (the default is 1): one pass keeping a sorted array of the best k.
  const best: number[] = [];
  for (const j of candidates) {
    const c = counts[j]!;
    let at = best.length;
    while (at > 0) {
      const prev = best[at - 1]!;
      const pc = counts[prev]!;
      if (pc > c || (pc === c && prev < j)) break;
      at--;
    }
    if (at >= k) continue;
    best.splice(at, 0, j);
    if (best.length > k) best.pop();
  }
  return best;
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
