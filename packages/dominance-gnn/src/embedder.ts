import { InvalidArgumentError } from '@grag/core';
import { degree, type StarGraph, starOf, subMultisetCount, subMultisets, toMultiset } from './graph.js';

/** Which of the three embedders produced an embedding. */
export type DominanceEmbedderKind = 'training-free' | 'gat' | 'monotone-gat';

/**
 * A dominance embedding of star subgraphs (SG-RAG §4.2, Eq. 14; GNN-PE): a map o from a star —
 * a centre label and a multiset of neighbour labels — to a vector such that every sub-star s of a
 * star g has o(s) ≤ o(g) in every dimension. A query path whose stars are contained in a data
 * path's stars is then never pruned by the test o(query) ≤ o(data).
 *
 * `embed` is the query side (the raw model). `embedGraph` is the data side: for an embedder that
 * is not `monotone` by construction it can correct the stored vectors so dominance holds (see
 * {@link EmbedGraphOptions.correction}).
 */
export interface DominanceEmbedder {
  readonly kind: DominanceEmbedderKind;
  /** Length of every embedding. */
  readonly dimensions: number;
  /** Whether o(sub-star) ≤ o(star) holds for every star by construction (no correction needed). */
  readonly monotone: boolean;
  /** Largest value any component can take (1 for a sigmoid output, `Infinity` if unbounded). */
  readonly upperBound: number;
  /**
   * Embed the star with label `centre` and neighbour labels `neighbours` (any order; the result
   * depends only on the multiset).
   */
  embed(centre: string, neighbours: readonly string[]): Float32Array;
  /** Embed the star of every node of `graph` (data side). */
  embedGraph(graph: StarGraph, options?: Partial<EmbedGraphOptions>): StarEmbeddings;
  /** Everything needed to rebuild the embedder with `loadDominanceEmbedder`. */
  toJSON(): SerializedDominanceEmbedder;
}

/** The serialized form of an embedder (JSON-safe). */
export interface SerializedDominanceEmbedder {
  format: 'grag-dominance-embedder';
  version: 1;
  kind: DominanceEmbedderKind;
  dimensions: number;
  seed: number;
  /** Model hyper-parameters (kind-specific). */
  config: Record<string, number | string | boolean>;
  /** Named weight arrays (kind-specific); empty for the training-free embedder. */
  weights: Record<string, number[]>;
}

/**
 * The serialized form of an embedder (what each kind's `toJSON` returns): its kind, dimensions and
 * seed, its kind's `config` and named `weights` (none for the training-free embedder).
 */
export function serializeEmbedder(
  embedder: Pick<DominanceEmbedder, 'kind' | 'dimensions'>,
  seed: number,
  config: SerializedDominanceEmbedder['config'] = {},
  weights: SerializedDominanceEmbedder['weights'] = {},
): SerializedDominanceEmbedder {
  return {
    format: 'grag-dominance-embedder',
    version: 1,
    kind: embedder.kind,
    dimensions: embedder.dimensions,
    seed,
    config,
    weights,
  };
}

/** Options of {@link DominanceEmbedder.embedGraph}. */
export interface EmbedGraphOptions {
  /**
   * How the data-side vectors of an embedder that is not monotone by construction are made to
   * dominate their sub-stars:
   * - `'closure'`: each node's vector becomes the component-wise maximum of o over its star and
   *   every one of its sub-stars (enumerated exhaustively), so dominance holds for every sub-star
   *   the model can be asked about; a node with more than `closureLimit` distinct sub-stars gets
   *   `upperBound` in every component (never pruned).
   * - `'none'`: the raw model output (what the paper does; violations are possible).
   * Monotone embedders ignore it.
   * @default 'closure'
   */
  correction: 'closure' | 'none';
  /**
   * Largest number of distinct sub-stars enumerated per node by the closure.
   * @default 1024 (2^10: every sub-star of a degree-10 star, GNN-PE's training degree cap)
   */
  closureLimit: number;
}

/** Defaults of {@link EmbedGraphOptions}. */
export const EMBED_GRAPH_DEFAULTS: EmbedGraphOptions = { correction: 'closure', closureLimit: 1024 };

/** What the data-side correction did. */
export interface CorrectionReport {
  method: 'none' | 'closure';
  /** Nodes whose vector the closure raised above the raw model output. */
  lifted: number;
  /** Nodes set to `upperBound` because they have more than `closureLimit` sub-stars. */
  saturated: number;
  /** Largest amount any component was raised by (saturation excluded). */
  maxLift: number;
}

/** The data-side embeddings of every node of a graph, row-major in one typed array. */
export class StarEmbeddings {
  /** Node keys, aligned with the rows. */
  readonly ids: readonly string[];
  readonly dimensions: number;
  /** `ids.length × dimensions` values, row by row. */
  readonly data: Float32Array;
  /** What the correction did (`method: 'none'` when none ran). */
  readonly correction: CorrectionReport;
  readonly #index: ReadonlyMap<string, number>;

  constructor(
    ids: readonly string[],
    index: ReadonlyMap<string, number>,
    dimensions: number,
    data: Float32Array,
    correction: CorrectionReport,
  ) {
    if (data.length !== ids.length * dimensions) {
      throw new InvalidArgumentError(
        'data',
        'StarEmbeddings: data must hold ids.length × dimensions values.',
      );
    }
    this.ids = ids;
    this.#index = index;
    this.dimensions = dimensions;
    this.data = data;
    this.correction = correction;
  }

  /** Number of rows. */
  get size(): number {
    return this.ids.length;
  }

  /** Row `i` (a view into `data`, not a copy). */
  get(i: number): Float32Array {
    return this.data.subarray(i * this.dimensions, (i + 1) * this.dimensions);
  }

  /** The row of node `id`, or `undefined`. */
  getById(id: string): Float32Array | undefined {
    const i = this.#index.get(id);
    return i === undefined ? undefined : this.get(i);
  }
}

/**
 * Whether `query` ≤ `data` in every dimension (SG-RAG Eq. 17: the data star or path may contain
 * the query; otherwise it is pruned).
 */
export function dominatedBy(query: ArrayLike<number>, data: ArrayLike<number>): boolean {
  if (query.length !== data.length) {
    throw new InvalidArgumentError(
      'data',
      `dominatedBy: lengths differ (${query.length} vs ${data.length}).`,
    );
  }
  for (let k = 0; k < query.length; k++) if (query[k]! > data[k]!) return false;
  return true;
}

/** The path dominance embedding o(p) = [o(v1), …, o(vk)] (SG-RAG Eq. 16) of the node rows `path`. */
export function pathEmbedding(embeddings: StarEmbeddings, path: readonly number[]): Float32Array {
  const d = embeddings.dimensions;
  const out = new Float32Array(path.length * d);
  path.forEach((node, k) => {
    if (node < 0 || node >= embeddings.size) {
      throw new InvalidArgumentError(
        'path',
        `pathEmbedding: node ${node} is not a row (0..${embeddings.size - 1}).`,
      );
    }
    out.set(embeddings.get(node), k * d);
  });
  return out;
}

/** Concatenate star embeddings into a path embedding (Eq. 16), e.g. a query path's. */
export function concatEmbeddings(vectors: readonly Float32Array[]): Float32Array {
  const out = new Float32Array(vectors.reduce((n, v) => n + v.length, 0));
  let at = 0;
  for (const v of vectors) {
    out.set(v, at);
    at += v.length;
  }
  return out;
}

/**
 * Shared data-side embedding: the raw vector of every node's star, then (for an embedder that is
 * not monotone, when asked) the closure correction. Used by every embedder's `embedGraph`.
 */
export function embedStarGraph(
  embedder: DominanceEmbedder,
  graph: StarGraph,
  options: Partial<EmbedGraphOptions> = {},
): StarEmbeddings {
  const { correction, closureLimit } = { ...EMBED_GRAPH_DEFAULTS, ...options };
  if (!Number.isInteger(closureLimit) || closureLimit < 1) {
    throw new InvalidArgumentError('closureLimit', 'embedGraph: closureLimit must be a positive integer.');
  }
  const d = embedder.dimensions;
  const n = graph.ids.length;
  const data = new Float32Array(n * d);
  const closure = correction === 'closure' && !embedder.monotone;
  const report: CorrectionReport = {
    method: closure ? 'closure' : 'none',
    lifted: 0,
    saturated: 0,
    maxLift: 0,
  };
  for (let i = 0; i < n; i++) {
    const star = starOf(graph, i);
    const row = embedder.embed(star.centre, star.neighbours);
    if (closure && degree(graph, i) > 0) {
      const set = toMultiset(star.neighbours);
      if (subMultisetCount(set) > closureLimit) {
        row.fill(embedder.upperBound);
        report.saturated++;
      } else {
        const raw = Float32Array.from(row);
        for (const sub of subMultisets(set)) {
          const o = embedder.embed(star.centre, sub);
          for (let k = 0; k < d; k++) if (o[k]! > row[k]!) row[k] = o[k]!;
        }
        let lift = 0;
        for (let k = 0; k < d; k++) lift = Math.max(lift, row[k]! - raw[k]!);
        if (lift > 0) report.lifted++;
        report.maxLift = Math.max(report.maxLift, lift);
      }
    }
    data.set(row, i * d);
  }
  return new StarEmbeddings(graph.ids, graph.index, d, data, report);
}

/** Validate an integer option ≥ `min`. */
export function assertInteger(name: string, value: number, min: number, where: string): void {
  if (!Number.isInteger(value) || value < min) {
    throw new InvalidArgumentError(name, `${where}: \`${name}\` must be an integer ≥ ${min} (got ${value}).`);
  }
}
