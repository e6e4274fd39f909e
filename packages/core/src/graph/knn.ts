import { DirectedGraph, UndirectedGraph } from 'graphology';
import type { AbstractGraph } from 'graphology-types';
import { InvalidArgumentError } from '../contracts/errors.js';
import type { Metric } from '../contracts/vector.js';
import { TopK } from '../top-k.js';

/** Options of {@link buildKnnGraph}. */
export interface KnnOptions {
  /** Neighbours per vector (fewer when there are at most `k` other vectors). Required. */
  k: number;
  /**
   * Similarity: `'cosine'` (a zero vector has similarity 0 to everything), `'ip'` (inner product), or
   * `'l2'` (score = minus the squared Euclidean distance). Higher is nearer, as in `VectorHit`.
   * @default 'cosine'
   */
  metric: Metric;
  /**
   * `false`: the directed graph i → each of its k nearest. `true`: the undirected union, an edge
   * {i, j} when j is among i's k nearest or i among j's. @default false
   */
  symmetric: boolean;
  /** Node keys, one per vector, used by {@link knnGraphToGraphology}. @default `'0'`, `'1'`, ... */
  ids?: string[];
  /**
   * Vectors per cache block of the brute-force scan. @default chosen so that a block of vectors
   * takes about 128 KiB (at least 8 vectors).
   */
  blockSize?: number;
}

/** Defaults of {@link buildKnnGraph}. */
export const KNN_DEFAULTS: Pick<KnnOptions, 'metric' | 'symmetric'> = { metric: 'cosine', symmetric: false };

/**
 * A k-nearest-neighbour graph over vectors `0 .. n - 1`.
 * `neighbors[i]` lists the nodes adjacent to `i` (its k nearest when not symmetric; its neighbours in
 * the symmetrized graph when symmetric), best first: higher score, then lower index.
 */
export interface KnnGraph {
  /** Node keys, one per vector. */
  ids: string[];
  k: number;
  metric: Metric;
  symmetric: boolean;
  /** Adjacent node indices of each node, best first. */
  neighbors: Int32Array[];
  /** `scores[i][r]` is the similarity of `i` and `neighbors[i][r]`. */
  scores: Float64Array[];
}

/** One edge of a {@link KnnGraph}. */
export interface KnnEdge {
  source: number;
  target: number;
  score: number;
}

/**
 * Build the exact k-nearest-neighbour graph of `vectors` by brute force: every pair is scored once,
 * O(n²·d) time and O(n·k) memory, in square blocks of vectors so that both blocks stay in cache. A
 * vector is never its own neighbour; ties are broken by lower index. Scores are computed in float64.
 *
 * @throws InvalidArgumentError when `k` is not a positive integer, vectors differ in length or hold a
 * non-finite value, or `ids` does not match the vectors.
 * @example
 * const knn = buildKnnGraph(embeddings, { k: 10, metric: 'cosine' });
 * knn.neighbors[0]; // Int32Array of the 10 chunks most similar to chunk 0, best first
 */
export function buildKnnGraph(
  vectors: readonly ArrayLike<number>[],
  options: Partial<KnnOptions> & { k: number },
): KnnGraph {
  const o = { ...KNN_DEFAULTS, ...options };
  const { k, metric, symmetric } = o;
  if (!Number.isInteger(k) || k < 1) {
    throw new InvalidArgumentError('options.k', `buildKnnGraph: k must be a positive integer, got ${k}.`);
  }
  if (metric !== 'cosine' && metric !== 'ip' && metric !== 'l2') {
    throw new InvalidArgumentError(
      'options.metric',
      `buildKnnGraph: metric must be 'cosine', 'ip' or 'l2', got ${String(metric)}.`,
    );
  }
  const n = vectors.length;
  const ids = o.ids ? o.ids.slice() : Array.from({ length: n }, (_, i) => String(i));
  if (ids.length !== n || new Set(ids).size !== n) {
    throw new InvalidArgumentError(
      'options.ids',
      `buildKnnGraph: ids must hold ${n} distinct keys (one per vector), ` +
        `got ${ids.length} (${new Set(ids).size} distinct).`,
    );
  }
  const d = n > 0 ? vectors[0]!.length : 0;
  // One contiguous float64 copy: sequential memory for the inner loops; unit length for cosine.
  const data = new Float64Array(n * d);
  for (let i = 0; i < n; i++) {
    const v = vectors[i]!;
    if (v.length !== d) {
      throw new InvalidArgumentError(
        'vectors',
        `buildKnnGraph: vector ${i} has ${v.length} dimensions, vector 0 has ${d}; all must match.`,
      );
    }
    let norm = 0;
    for (let c = 0; c < d; c++) {
      const x = v[c]!;
      if (!Number.isFinite(x)) {
        throw new InvalidArgumentError(
          'vectors',
          `buildKnnGraph: vector ${i} holds ${x} at ${c}; values must be finite.`,
        );
      }
      data[i * d + c] = x;
      norm += x * x;
    }
    if (metric === 'cosine' && norm > 0) {
      const inv = 1 / Math.sqrt(norm);
      for (let c = 0; c < d; c++) data[i * d + c]! *= inv;
    }
  }

  const kk = Math.min(k, Math.max(0, n - 1));
  const heaps = new TopK(n, kk);
  const block = o.blockSize ?? Math.max(8, Math.floor(16384 / Math.max(1, d)));
  if (!Number.isInteger(block) || block < 1) {
    throw new InvalidArgumentError(
      'options.blockSize',
      `buildKnnGraph: blockSize must be a positive integer, got ${block}.`,
    );
  }
  const l2 = metric === 'l2';
  for (let bi = 0; bi < n; bi += block) {
    const iEnd = Math.min(n, bi + block);
    for (let bj = bi; bj < n; bj += block) {
      const jEnd = Math.min(n, bj + block);
      for (let i = bi; i < iEnd; i++) {
        const a = i * d;
        for (let j = bj === bi ? i + 1 : bj; j < jEnd; j++) {
          const b = j * d;
          const s = l2 ? -squaredDistance(data, a, b, d) : dot(data, a, b, d);
          heaps.offer(i, j, s);
          heaps.offer(j, i, s);
        }
      }
    }
  }

  const neighbors: Int32Array[] = new Array(n);
  const scores: Float64Array[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const [idx, sc] = heaps.sorted(i);
    neighbors[i] = idx;
    scores[i] = sc;
  }
  const knn: KnnGraph = { ids, k, metric, symmetric: false, neighbors, scores };
  return symmetric ? symmetrize(knn) : knn;
}

/**
 * The edges of a {@link KnnGraph}: `i → j` for every neighbour of a directed graph; each
 * undirected pair once, with `source < target`, for a symmetric one. Ordered by source, then best
 * first.
 */
export function knnEdges(knn: KnnGraph): KnnEdge[] {
  const edges: KnnEdge[] = [];
  for (let i = 0; i < knn.neighbors.length; i++) {
    const nb = knn.neighbors[i]!;
    const sc = knn.scores[i]!;
    for (let r = 0; r < nb.length; r++) {
      const j = nb[r]!;
      if (knn.symmetric && j < i) continue;
      edges.push({ source: i, target: j, score: sc[r]! });
    }
  }
  return edges;
}

/** Options of {@link knnGraphToGraphology}. */
export interface KnnToGraphOptions {
  /** Edge attribute that receives the similarity score. @default 'weight' */
  scoreAttribute: string;
}

/** Defaults of {@link knnGraphToGraphology}. */
export const KNN_TO_GRAPH_DEFAULTS: KnnToGraphOptions = { scoreAttribute: 'weight' };

/**
 * A graphology graph of a {@link KnnGraph}: nodes keyed by `knn.ids`, a `DirectedGraph` (or an
 * `UndirectedGraph` when symmetric) with the score on each edge under `scoreAttribute`.
 * Cosine and inner-product scores can be negative and l2 scores always are: weighted PageRank
 * rejects negative weights, so run it with `{ weighted: false }` (KET-RAG's P = A/deg) or map scores first.
 */
export function knnGraphToGraphology(knn: KnnGraph, options: Partial<KnnToGraphOptions> = {}): AbstractGraph {
  const { scoreAttribute } = { ...KNN_TO_GRAPH_DEFAULTS, ...options };
  const graph: AbstractGraph = knn.symmetric ? new UndirectedGraph() : new DirectedGraph();
  for (const id of knn.ids) graph.addNode(id);
  for (const { source, target, score } of knnEdges(knn)) {
    graph.addEdge(knn.ids[source]!, knn.ids[target]!, { [scoreAttribute]: score });
  }
  return graph;
}

/** Inner product of the rows starting at `a` and `b`, four lanes at a time. */
function dot(data: Float64Array, a: number, b: number, d: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let c = 0;
  for (; c + 3 < d; c += 4) {
    s0 += data[a + c]! * data[b + c]!;
    s1 += data[a + c + 1]! * data[b + c + 1]!;
    s2 += data[a + c + 2]! * data[b + c + 2]!;
    s3 += data[a + c + 3]! * data[b + c + 3]!;
  }
  for (; c < d; c++) s0 += data[a + c]! * data[b + c]!;
  return s0 + s1 + (s2 + s3);
}

/** Squared Euclidean distance of the rows starting at `a` and `b`, four lanes at a time. */
function squaredDistance(data: Float64Array, a: number, b: number, d: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let c = 0;
  for (; c + 3 < d; c += 4) {
    const x0 = data[a + c]! - data[b + c]!;
    const x1 = data[a + c + 1]! - data[b + c + 1]!;
    const x2 = data[a + c + 2]! - data[b + c + 2]!;
    const x3 = data[a + c + 3]! - data[b + c + 3]!;
    s0 += x0 * x0;
    s1 += x1 * x1;
    s2 += x2 * x2;
    s3 += x3 * x3;
  }
  for (; c < d; c++) {
    const x = data[a + c]! - data[b + c]!;
    s0 += x * x;
  }
  return s0 + s1 + (s2 + s3);
}

/** Symmetrized union: j adjacent to i when j ∈ kNN(i) or i ∈ kNN(j); rows re-sorted best first. */
function symmetrize(knn: KnnGraph): KnnGraph {
  const n = knn.neighbors.length;
  const rows: Map<number, number>[] = Array.from({ length: n }, () => new Map());
  for (let i = 0; i < n; i++) {
    const nb = knn.neighbors[i]!;
    const sc = knn.scores[i]!;
    for (let r = 0; r < nb.length; r++) {
      rows[i]!.set(nb[r]!, sc[r]!);
      rows[nb[r]!]!.set(i, sc[r]!);
    }
  }
  const neighbors: Int32Array[] = new Array(n);
  const scores: Float64Array[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const entries = [...rows[i]!.entries()].sort((x, y) => y[1] - x[1] || x[0] - y[0]);
    neighbors[i] = Int32Array.from(entries, (e) => e[0]);
    scores[i] = Float64Array.from(entries, (e) => e[1]);
  }
  return { ...knn, symmetric: true, neighbors, scores };
}
