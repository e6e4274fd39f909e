import { mulberry32 } from '@grag/core/kit';
import {
  assertInteger,
  type DominanceEmbedder,
  type EmbedGraphOptions,
  embedStarGraph,
  type SerializedDominanceEmbedder,
  type StarEmbeddings,
  serializeEmbedder,
} from './embedder.js';
import type { StarGraph } from './graph.js';
import { hashString } from './random.js';

/** Options of {@link createTrainingFreeEmbedder}. */
export interface TrainingFreeOptions {
  /** Embedding dimensions. @default 2 (GNN-PE's vertex embedding dimension) */
  dimensions: number;
  /** Seed of the label vectors. @default 2022 (the seed of the GNN-PE code) */
  seed: number;
}

/** Defaults of {@link createTrainingFreeEmbedder}. */
export const TRAINING_FREE_DEFAULTS: TrainingFreeOptions = { dimensions: 2, seed: 2022 };

/** Label vectors are multiples of 2^-16 in [0, 1), so every sum below is exact in float64. */
const QUANTUM = 2 ** -16;

/**
 * The training-free dominance embedding of the current GNN-PE code: each label gets a seeded
 * random non-negative vector x(label), and o(v) = x(label(v)) + Σ_{u ∈ N(v)} x(label(u)).
 * Removing a neighbour removes a non-negative term, so o(sub-star) ≤ o(star) by construction.
 *
 * The components are multiples of 2^-16, summed in float64 (exact whatever the order) and
 * rounded once to float32 (a monotone rounding), so dominance also holds bit for bit.
 */
export class TrainingFreeEmbedder implements DominanceEmbedder {
  readonly kind = 'training-free' as const;
  readonly monotone = true;
  readonly upperBound = Number.POSITIVE_INFINITY;
  readonly dimensions: number;
  readonly seed: number;
  readonly #cache = new Map<string, Float64Array>();

  constructor(options: Partial<TrainingFreeOptions> = {}) {
    const { dimensions, seed } = { ...TRAINING_FREE_DEFAULTS, ...options };
    assertInteger('dimensions', dimensions, 1, 'createTrainingFreeEmbedder');
    assertInteger('seed', seed, 0, 'createTrainingFreeEmbedder');
    this.dimensions = dimensions;
    this.seed = seed;
  }

  /** The label vector x(label): `dimensions` multiples of 2^-16 in [0, 1). */
  labelVector(label: string): Float64Array {
    let v = this.#cache.get(label);
    if (v === undefined) {
      const rand = mulberry32(hashString(label, this.seed));
      v = new Float64Array(this.dimensions);
      for (let k = 0; k < this.dimensions; k++) v[k] = Math.floor(rand() * 65536) * QUANTUM;
      this.#cache.set(label, v);
    }
    return v;
  }

  embed(centre: string, neighbours: readonly string[]): Float32Array {
    const sum = Float64Array.from(this.labelVector(centre));
    for (const label of neighbours) {
      const x = this.labelVector(label);
      for (let k = 0; k < this.dimensions; k++) sum[k]! += x[k]!;
    }
    return Float32Array.from(sum);
  }

  embedGraph(graph: StarGraph, options?: Partial<EmbedGraphOptions>): StarEmbeddings {
    return embedStarGraph(this, graph, options);
  }

  toJSON(): SerializedDominanceEmbedder {
    return serializeEmbedder(this, this.seed);
  }
}

/**
 * Create the training-free embedder (no model, no tfjs).
 *
 * @example
 * const embedder = createTrainingFreeEmbedder({ dimensions: 4 });
 * embedder.embed('film', ['person', 'person', 'award']);
 */
export function createTrainingFreeEmbedder(options: Partial<TrainingFreeOptions> = {}): TrainingFreeEmbedder {
  return new TrainingFreeEmbedder(options);
}
