/**
 * Query relevance of a layer's nodes (the attribute Q-Peel peels by, DA-RAG Eq. 1): cosine of unit
 * embeddings, BM25, or the two fused by reciprocal rank.
 */
import { type Bm25Index, type EntryPointMode, reciprocalRankFusion } from '@grag/core';
import { RRF_K } from '@grag/core/internal';
import { identity } from './util.js';

/** Hits of each list fused by `'hybrid'` relevance. */
export const RELEVANCE_DEPTH = 100;

/** Cosine of the unit query with the unit vectors of `nodes` (a dot product: index vectors are unit length). */
export function cosines(
  query: Float32Array,
  vectors: readonly Float32Array[],
  nodes: ArrayLike<number>,
): Float64Array {
  const out = new Float64Array(nodes.length);
  const d = query.length;
  for (let i = 0; i < nodes.length; i++) {
    const v = vectors[nodes[i]!]!;
    let s = 0;
    for (let c = 0; c < d; c++) s += query[c]! * v[c]!;
    out[i] = s;
  }
  return out;
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
}

/**
 * Relevance of every node to the query: cosine (`'dense'`), BM25 scaled to the best hit
 * (`'lexical'`), or reciprocal-rank fusion of both over the top {@link RELEVANCE_DEPTH} of each,
 * scaled so that first place in both lists is 1 (`'hybrid'`). Nodes outside the lexical (or fused)
 * lists get 0.
 */
export function nodeRelevance(input: NodeRelevanceInput): Float64Array {
  const { mode, query, queryUnit, vectors } = input;
  const n = vectors.length;
  if (mode === 'dense') return cosines(queryUnit!, vectors, identity(n));
  const bm25 = input.lexical().search(query, mode === 'lexical' ? n : RELEVANCE_DEPTH);
  const out = new Float64Array(n);
  if (mode === 'lexical') {
    const top = bm25[0]?.score ?? 0;
    if (top > 0) for (const hit of bm25) out[hit.id] = hit.score / top;
    return out;
  }
  const dense = cosines(queryUnit!, vectors, identity(n));
  const denseTop = Array.from(dense.keys())
    .sort((a, b) => dense[b]! - dense[a]! || a - b)
    .slice(0, RELEVANCE_DEPTH)
    .map((id) => ({ id, score: dense[id]! }));
  const scale = 2 / (RRF_K + 1);
  for (const hit of reciprocalRankFusion([denseTop, bm25])) out[hit.id] = hit.score / scale;
  return out;
}
