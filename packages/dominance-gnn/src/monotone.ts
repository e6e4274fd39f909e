import { mulberry32 } from '@grag/core/kit';
import {
  type DominanceEmbedder,
  type EmbedGraphOptions,
  embedStarGraph,
  type SerializedDominanceEmbedder,
  type StarEmbeddings,
} from './embedder.js';
import type { StarGraph } from './graph.js';
import {
  type AttentionModel,
  attentionModel,
  attentionWeightSizes,
  copyWeights,
  initialAttentionWeights,
  type LabelFeatures,
  type LabelProjector,
  serializeAttentionModel,
  sigmoid,
  sigmoidReadout,
  softplus,
  type Weights,
} from './layers.js';
import { glorotUniform } from './random.js';

/** Architecture of the monotone attention model. */
export interface MonotoneModelOptions {
  /** Output dimensions d. @default 2 (as GNN-PE) */
  dimensions: number;
  /** Attention heads. @default 3 (as the GNN-PE GAT) */
  heads: number;
  /** Hidden units per head. @default 32 (as the GNN-PE GAT) */
  hidden: number;
  /** Length of the label input features F. @default 16 */
  featureDimensions: number;
  /** Label → input features (default: seeded hashed vectors). Not serialized: pass it again on load. */
  labelFeatures?: LabelFeatures;
  /** Seed of the initial weights and of the default label features. @default 2022 */
  seed: number;
}

/** Defaults of {@link MonotoneModelOptions}. */
export const MONOTONE_MODEL_DEFAULTS: Omit<MonotoneModelOptions, 'labelFeatures'> = {
  dimensions: 2,
  heads: 3,
  hidden: 32,
  featureDimensions: 16,
  seed: 2022,
};

/** Weight names and sizes of the monotone model. */
export function monotoneWeightSizes(o: {
  featureDimensions: number;
  heads: number;
  hidden: number;
  dimensions: number;
}) {
  const hc = o.heads * o.hidden;
  return {
    ...attentionWeightSizes(o),
    attBias: o.heads,
    out: hc * o.dimensions,
    outBias: o.dimensions,
  };
}

/** Seeded initial weights of the monotone model. */
export function initialMonotoneWeights(o: Omit<MonotoneModelOptions, 'labelFeatures'>): Weights {
  const rand = mulberry32(o.seed ^ 0x3a7e);
  const hc = o.heads * o.hidden;
  return {
    ...initialAttentionWeights(o, rand),
    attBias: new Float64Array(o.heads),
    // softplus(-3) ≈ 0.05: small positive output weights to start with.
    out: Float64Array.from(glorotUniform(hc, o.dimensions, rand), (v) => v - 3),
    outBias: new Float64Array(o.dimensions),
  };
}

/**
 * A learned dominance model that is monotone by construction (a deviation from the paper that the
 * issue asks for): the same attention over a star as the GAT, but every step after the label
 * projection is monotone in the set of neighbours.
 *
 * - message of neighbour u to centre v: g(v,u) · softplus(W·x_u), with the unnormalised attention
 *   gate g(v,u) = sigmoid(a_dst·W·x_v + a_src·W·x_u + b) ∈ (0, 1): every message is ≥ 0;
 * - sum pooling: y = softplus(W·x_v) + Σ_u messages, so removing neighbours can only lower y;
 * - o = sigmoid(softplus(V)·log1p(y) + c): non-negative weights and increasing activations.
 *
 * So o(sub-star) ≤ o(star) for every star and every sub-star, trained or not. Messages are summed
 * in float64 in sorted label order (a sub-star's terms are a subsequence of the star's), and every
 * later step rounds monotonically, so the inequality also holds in floating point. Training
 * (`trainMonotoneEmbedder`) only sharpens pruning.
 */
export class MonotoneEmbedder implements DominanceEmbedder {
  readonly kind = 'monotone-gat' as const;
  readonly monotone = true;
  readonly upperBound = 1;
  readonly dimensions: number;
  readonly options: Readonly<Omit<MonotoneModelOptions, 'labelFeatures'>>;
  readonly hashedFeatures: boolean;
  readonly #model: AttentionModel<Omit<MonotoneModelOptions, 'labelFeatures'>>;
  readonly #weights: Weights;
  readonly #projector: LabelProjector;
  /** softplus of the raw output weights: the non-negative matrix actually applied. */
  readonly #outPositive: Float64Array;
  readonly #messages = new Map<string, Float64Array>();

  constructor(options: Partial<MonotoneModelOptions>, weights: Record<string, ArrayLike<number>>) {
    this.#model = attentionModel(
      MONOTONE_MODEL_DEFAULTS,
      options,
      weights,
      monotoneWeightSizes,
      'MonotoneEmbedder',
    );
    this.options = this.#model.options;
    this.dimensions = this.options.dimensions;
    this.hashedFeatures = this.#model.hashedFeatures;
    this.#weights = this.#model.weights;
    this.#projector = this.#model.projector;
    const w = this.#weights;
    this.#outPositive = Float64Array.from(w.out!, softplus);
  }

  /** A copy of the weights (`out` holds the raw values; the model applies softplus to them). */
  weights(): Weights {
    return copyWeights(this.#weights);
  }

  /** softplus(W·x(label)), cached: the non-negative message body of a label. */
  #message(label: string): Float64Array {
    let m = this.#messages.get(label);
    if (m === undefined) {
      m = Float64Array.from(this.#projector.project(label).h, softplus);
      this.#messages.set(label, m);
    }
    return m;
  }

  embed(centre: string, neighbours: readonly string[]): Float32Array {
    const { heads, hidden, dimensions } = this.options;
    const pc = this.#projector.project(centre);
    const attBias = this.#weights.attBias!;
    const y = Float64Array.from(this.#message(centre));
    for (const label of [...neighbours].sort()) {
      const p = this.#projector.project(label);
      const m = this.#message(label);
      for (let head = 0; head < heads; head++) {
        const gate = sigmoid(pc.dst[head]! + p.src[head]! + attBias[head]!);
        for (let c = 0; c < hidden; c++) {
          const k = head * hidden + c;
          y[k]! += gate * m[k]!;
        }
      }
    }
    return sigmoidReadout(
      Float64Array.from(y, Math.log1p),
      this.#outPositive,
      this.#weights.outBias!,
      dimensions,
    );
  }

  embedGraph(graph: StarGraph, options?: Partial<EmbedGraphOptions>): StarEmbeddings {
    return embedStarGraph(this, graph, options);
  }

  toJSON(): SerializedDominanceEmbedder {
    return serializeAttentionModel(this, this.#model);
  }
}

/** The monotone model with seeded initial (untrained) weights; dominance already holds. */
export function createMonotoneEmbedder(options: Partial<MonotoneModelOptions> = {}): MonotoneEmbedder {
  return new MonotoneEmbedder(options, initialMonotoneWeights({ ...MONOTONE_MODEL_DEFAULTS, ...options }));
}
