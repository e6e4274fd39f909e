/**
 * Core-chunk selection (KET-RAG Algorithm 3, line 8): the top β fraction of chunks by PageRank on the
 * KNN chunk graph (KET-RAG-P), or a seeded uniform sample (KET-RAG-U).
 */
import { InvalidArgumentError } from '@grag/core';
import { pageRank } from '@grag/core/graph';
import { mulberry32, shuffleInPlace } from '@grag/core/kit';
import { type ChunkKnnGraph, chunkKnnCsr } from './knn.js';

/** How core chunks are chosen. */
export type CoreSelection = 'pagerank' | 'uniform';

/** Options of {@link selectCoreChunks}. */
export interface CoreChunkOptions {
  /** Fraction β of the chunks kept; `floor(n·β)` chunks. @default 0.8 (KET-RAG §6.1) */
  beta: number;
  /** `'pagerank'` (KET-RAG-P) or `'uniform'` random (KET-RAG-U). @default 'pagerank' */
  method: CoreSelection;
  /** PageRank damping; the teleport probability is `1 - damping`. @default 0.85 (KET-RAG §5.1: teleport 0.15) */
  damping: number;
  /** Seed of the uniform sample. @default 42 (official KET-RAG code, `random.seed(42)`) */
  seed: number;
}

/** Defaults of {@link selectCoreChunks}. */
export const CORE_CHUNK_DEFAULTS: CoreChunkOptions = {
  beta: 0.8,
  method: 'pagerank',
  damping: 0.85,
  seed: 42,
};

/** The chosen core chunks. */
export interface CoreChunks {
  /** Ids of the core chunks, best first (PageRank order; sample order for `'uniform'`). */
  ids: string[];
  /** Positions (in `graph.ids`) of the core chunks, same order as `ids`. */
  positions: number[];
  /** PageRank score of every chunk, by position (`'pagerank'` only). */
  scores?: Float64Array;
}

/**
 * Select KET-RAG's core chunks: `floor(n·β)` chunks, either those with the highest PageRank on the
 * KNN chunk graph — unweighted, P = A/deg, teleport `1 - damping` to a uniform node (§5.1, Eq. 1;
 * equal scores keep graph order) — or a uniform random sample drawn with `seed`.
 *
 * @throws InvalidArgumentError when `beta` is outside [0, 1] or `method` is unknown.
 * @example
 * const core = selectCoreChunks(buildChunkKnnGraph(chunks), { beta: 0.8 }); // KET-RAG-P
 */
export function selectCoreChunks(graph: ChunkKnnGraph, options: Partial<CoreChunkOptions> = {}): CoreChunks {
  const o = { ...CORE_CHUNK_DEFAULTS, ...options };
  if (!(o.beta >= 0 && o.beta <= 1)) {
    throw new InvalidArgumentError('beta', `selectCoreChunks: beta must be in [0, 1], got ${o.beta}.`);
  }
  const n = graph.ids.length;
  const count = Math.floor(n * o.beta + 1e-9);
  let positions: number[];
  let scores: Float64Array | undefined;
  if (o.method === 'pagerank') {
    const ranks = pageRank(chunkKnnCsr(graph), { damping: o.damping, weighted: false });
    scores = Float64Array.from(graph.ids, (id) => ranks.get(id)!);
    const s = scores;
    positions = Array.from({ length: n }, (_, i) => i)
      .sort((a, b) => s[b]! - s[a]! || a - b)
      .slice(0, count);
  } else if (o.method === 'uniform') {
    positions = seededShuffle(n, o.seed).slice(0, count);
  } else {
    throw new InvalidArgumentError(
      'method',
      `selectCoreChunks: method must be 'pagerank' or 'uniform', got ${String(o.method)}.`,
    );
  }
  const result: CoreChunks = { ids: positions.map((i) => graph.ids[i]!), positions };
  if (scores) result.scores = scores;
  return result;
}

/** A random permutation of `0 .. n-1` (Fisher–Yates with `mulberry32(seed)` from `@grag/core`). */
export function seededShuffle(n: number, seed: number): number[] {
  return shuffleInPlace(
    Array.from({ length: n }, (_, i) => i),
    mulberry32(seed),
  );
}
