/**
 * Query relevance of a layer's nodes (the attribute Q-Peel peels by, DA-RAG Eq. 1): cosine of unit
 * embeddings, BM25, or the two fused by reciprocal rank.
 */
import { type Bm25Index, type EntryPointMode, RRF_K, reciprocalRankFusion } from '@grag/core/kit';
import { identity } from './util.js';

/** Hits of each list fused by `'hybrid'` relevance. */
export const RELEVANCE_DEPTH = 100;

/**
 * Cosine of the unit query with the unit vectors of `nodes` (a dot product: index vectors are unit
 * length). Only the query's non-zero coordinates are read, in ascending order: a zero coordinate adds
 * a zero product, which leaves the sum as it is, so every value equals the full dot product's bit for
 * bit (a short query has a few hundred of the embedder's coordinates).
 */
export function cosines(
  query: Float32Array,
  vectors: readonly Float32Array[],
  nodes: ArrayLike<number>,
): Float64Array {
  const out = new Float64Array(nodes.length);
  const dims: number[] = [];
  const weights: number[] = [];
  for (let c = 0; c < query.length; c++) {
    if (query[c] !== 0) {
      dims.push(c);
      weights.push(query[c]!);
    }
  }
  const nnz = dims.length;
  for (let i = 0; i < nodes.length; i++) {
    const v = vectors[nodes[i]!]!;
    let s = 0;
    for (let j = 0; j < nnz; j++) s += weights[j]! * v[dims[j]!]!;
    out[i] = s;
  }
  return out;
}

/**
 * The non-zero coordinates of sparse unit vectors by dimension (an inverted index): for dimension
 * `c`, the vectors with a non-zero `c`-th coordinate, ascending (`ids[offsets[c] .. offsets[c + 1] − 1]`),
 * and those coordinates (`values`, as stored). Made once per index and kept in its cache.
 */
export interface VectorPostings {
  dimensions: number;
  count: number;
  offsets: Uint32Array;
  ids: Uint32Array;
  values: Float32Array;
}

/**
 * Relevance computations on a vector set read row by row before its postings are made: the first.
 * Making the postings costs about as much as 30–40 row-by-row reads (160 ms against 5 ms at 9,871
 * chunk vectors of 1,024 dimensions, 2.5 s against 70 ms at 97,208), and a query then reads them in
 * a quarter to a third of the time: a process that answers one query (`grag query`) never makes
 * them, one that answers more makes them on its second.
 */
export const POSTINGS_AFTER_ROW_READS = 1;

/** Vectors with more non-zero coordinates than this share of all get no postings (dense embedders). */
const POSTINGS_MAX_DENSITY = 0.5;

/**
 * The {@link VectorPostings} of `vectors`, or `null` when they are not sparse enough for the
 * postings to pay (more than a quarter of their coordinates non-zero: a dense embedder's).
 */
export function vectorPostings(vectors: readonly Float32Array[]): VectorPostings | null {
  const dimensions = vectors[0]?.length ?? 0;
  const offsets = new Uint32Array(dimensions + 1);
  let nnz = 0;
  for (const v of vectors) {
    if (v.length !== dimensions) return null;
    for (let c = 0; c < dimensions; c++) {
      if (v[c] !== 0) {
        offsets[c + 1]!++;
        nnz++;
      }
    }
  }
  if (nnz > POSTINGS_MAX_DENSITY * vectors.length * dimensions) return null;
  for (let c = 0; c < dimensions; c++) offsets[c + 1]! += offsets[c]!;
  const ids = new Uint32Array(nnz);
  const values = new Float32Array(nnz);
  const cursor = offsets.slice(0, dimensions);
  for (let i = 0; i < vectors.length; i++) {
    const v = vectors[i]!;
    for (let c = 0; c < dimensions; c++) {
      if (v[c] === 0) continue;
      const at = cursor[c]!++;
      ids[at] = i;
      values[at] = v[c]!;
    }
  }
  return { dimensions, count: vectors.length, offsets, ids, values };
}

/**
 * {@link cosines} of the unit query with every vector of `postings`, read by dimension: for each
 * non-zero coordinate of the query, ascending, the vectors non-zero there. Each vector's sum gets
 * the same non-zero products in the same order as {@link cosines} (the others are zero, which leave
 * a sum as it is; a sum starts at +0 and never becomes −0), so every value is equal bit for bit;
 * it reads the vectors' non-zero coordinates on the query's dimensions only.
 */
export function postingCosines(query: Float32Array, postings: VectorPostings): Float64Array {
  const { offsets, ids, values } = postings;
  const out = new Float64Array(postings.count);
  for (let c = 0; c < query.length; c++) {
    const w = query[c]!;
    if (w === 0) continue;
    const end = offsets[c + 1]!;
    for (let p = offsets[c]!; p < end; p++) out[ids[p]!]! += w * values[p]!;
  }
  return out;
}

/**
 * The `count` indices of highest score, by descending score then ascending index: the first `count`
 * of `scores`' indices sorted that way, found with a bounded heap in O(n log count).
 */
export function topByScore(scores: ArrayLike<number>, count: number): number[] {
  const n = scores.length;
  const size = Math.min(count, n);
  if (size <= 0) return [];
  // Min-heap of the best `size` seen: the root is the worst of them (lowest score, then highest index).
  const heap = new Int32Array(size);
  let filled = 0;
  const worse = (a: number, b: number) => scores[a]! < scores[b]! || (scores[a] === scores[b] && a > b);
  const siftDown = (at: number) => {
    for (;;) {
      const left = 2 * at + 1;
      if (left >= filled) return;
      const right = left + 1;
      const child = right < filled && worse(heap[right]!, heap[left]!) ? right : left;
      if (!worse(heap[child]!, heap[at]!)) return;
      const t = heap[at]!;
      heap[at] = heap[child]!;
      heap[child] = t;
      at = child;
    }
  };
  for (let i = 0; i < n; i++) {
    if (filled < size) {
      let at = filled++;
      heap[at] = i;
      while (at > 0) {
        const up = (at - 1) >> 1;
        if (!worse(heap[at]!, heap[up]!)) break;
        const t = heap[at]!;
        heap[at] = heap[up]!;
        heap[up] = t;
        at = up;
      }
    } else if (worse(heap[0]!, i)) {
      heap[0] = i;
      siftDown(0);
    }
  }
  return Array.from(heap).sort((a, b) => scores[b]! - scores[a]! || a - b);
}

/** Input of {@link nodeRelevance}. */
export interface NodeRelevanceInput {
  mode: EntryPointMode;
  query: string;
  /** The query embedding at unit length (needed unless `mode` is `'lexical'`). */
  queryUnit: Float32Array | undefined;
  /** The nodes' unit embeddings; their count is the number of nodes. */
  vectors: readonly Float32Array[];
  /** BM25 over the nodes' texts (called unless `mode` is `'dense'`). */
  lexical: () => Bm25Index;
  /** The vectors' postings (kept by the caller), or `null` when they are dense; absent: no postings. */
  postings?: () => VectorPostings | null;
}

/** Cosine of the unit query with every vector: by postings when there are, else row by row. */
function allCosines(input: NodeRelevanceInput): Float64Array {
  const postings = input.postings?.();
  return postings
    ? postingCosines(input.queryUnit!, postings)
    : cosines(input.queryUnit!, input.vectors, identity(input.vectors.length));
}

/**
 * Relevance of every node to the query: cosine (`'dense'`), BM25 scaled to the best hit
 * (`'lexical'`), or reciprocal-rank fusion of both over the top {@link RELEVANCE_DEPTH} of each,
 * scaled so that first place in both lists is 1 (`'hybrid'`). Nodes outside the lexical (or fused)
 * lists get 0.
 */
export function nodeRelevance(input: NodeRelevanceInput): Float64Array {
  const { mode, query, vectors } = input;
  const n = vectors.length;
  if (mode === 'dense') return allCosines(input);
  const bm25 = input.lexical().search(query, mode === 'lexical' ? n : RELEVANCE_DEPTH);
  const out = new Float64Array(n);
  if (mode === 'lexical') {
    const top = bm25[0]?.score ?? 0;
    if (top > 0) for (const hit of bm25) out[hit.id] = hit.score / top;
    return out;
  }
  const dense = allCosines(input);
  const denseTop = topByScore(dense, RELEVANCE_DEPTH).map((id) => ({ id, score: dense[id]! }));
  const scale = 2 / (RRF_K + 1);
  for (const hit of reciprocalRankFusion([denseTop, bm25])) out[hit.id] = hit.score / scale;
  return out;
}
