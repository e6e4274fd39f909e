import { mulberry32 } from '@grag/core/kit';
import {
  ATTENTION_MODEL_DEFAULTS,
  AttentionEmbedder,
  type AttentionModelOptions,
  type AttentionSizes,
} from './attention-embedder.js';
import {
  attentionWeightSizes,
  initialAttentionWeights,
  leakyRelu,
  sigmoid,
  sigmoidReadout,
  type Weights,
} from './layers.js';
import { glorotUniform } from './random.js';

/**
 * Architecture of the paper's GAT model (SG-RAG appendix C, as configured in the GNN-PE code): the
 * attention models' options and the GAT's own.
 */
export interface GatModelOptions extends AttentionModelOptions {
  /** Negative slope of the attention LeakyReLU. @default 0.2 (GAT, Veličković et al. 2018) */
  leakySlope: number;
  /** Batch-norm epsilon. @default 1e-5 */
  bnEpsilon: number;
}

/** Defaults of {@link GatModelOptions}. */
export const GAT_MODEL_DEFAULTS: Omit<GatModelOptions, 'labelFeatures'> = {
  ...ATTENTION_MODEL_DEFAULTS,
  leakySlope: 0.2,
  bnEpsilon: 1e-5,
};

/** Weight names and sizes of the GAT model. */
export function gatWeightSizes(o: AttentionSizes) {
  const hc = o.heads * o.hidden;
  return {
    ...attentionWeightSizes(o),
    bias: hc,
    gamma: hc,
    beta: hc,
    runningMean: hc,
    runningVar: hc,
    out: hc * o.dimensions,
    outBias: o.dimensions,
  };
}

/** Seeded initial weights: Glorot-uniform matrices, zero biases, identity batch norm. */
export function initialGatWeights(o: Omit<GatModelOptions, 'labelFeatures'>): Weights {
  const rand = mulberry32(o.seed ^ 0x5eed);
  const hc = o.heads * o.hidden;
  const s = gatWeightSizes(o);
  return {
    ...initialAttentionWeights(o, rand),
    bias: new Float64Array(s.bias),
    gamma: new Float64Array(s.gamma).fill(1),
    beta: new Float64Array(s.beta),
    runningMean: new Float64Array(s.runningMean),
    runningVar: new Float64Array(s.runningVar).fill(1),
    out: Float64Array.from(glorotUniform(hc, o.dimensions, rand)),
    outBias: new Float64Array(s.outBias),
  };
}

/**
 * The paper's dominance model (SG-RAG appendix C, Eqs. 9-13): a GAT layer on the star graph
 * (centre linked to each neighbour, self-loops added; 3 heads × 32 units, concatenated), ReLU,
 * batch norm, add-pool over the star's nodes, a linear map to `dimensions` and a sigmoid.
 *
 * Dominance is only encouraged by training (`trainGatEmbedder`), not guaranteed: the softmax
 * normalisation of the centre's attention and the signed weights after it can make a sub-star
 * larger than its star. `monotone` is therefore `false`, and `embedGraph` applies the closure
 * correction by default.
 *
 * Inference runs in plain JavaScript (float64, rounded to float32): no tfjs needed once trained.
 */
export class GatEmbedder extends AttentionEmbedder<Omit<GatModelOptions, 'labelFeatures'>> {
  readonly kind = 'gat' as const;
  readonly monotone = false;
  readonly #bnScale: Float64Array;
  readonly #bnShift: Float64Array;

  constructor(options: Partial<GatModelOptions>, weights: Record<string, ArrayLike<number>>) {
    super(GAT_MODEL_DEFAULTS, options, weights, gatWeightSizes, 'GatEmbedder');
    const rest = this.options;
    const w = this.model.weights;
    // Batch norm at inference: an affine map per channel with the running statistics.
    const hc = rest.heads * rest.hidden;
    this.#bnScale = new Float64Array(hc);
    this.#bnShift = new Float64Array(hc);
    for (let k = 0; k < hc; k++) {
      const scale = w.gamma![k]! / Math.sqrt(w.runningVar![k]! + rest.bnEpsilon);
      this.#bnScale[k] = scale;
      this.#bnShift[k] = w.beta![k]! - w.runningMean![k]! * scale;
    }
  }

  /** Add ReLU → batch norm of `row` (+ bias) into `y`. */
  #accumulate(row: Float64Array, y: Float64Array): void {
    const bias = this.model.weights.bias!;
    for (let k = 0; k < row.length; k++) {
      const r = Math.max(0, row[k]! + bias[k]!);
      y[k]! += r * this.#bnScale[k]! + this.#bnShift[k]!;
    }
  }

  embed(centre: string, neighbours: readonly string[]): Float32Array {
    const { heads, hidden, dimensions, leakySlope } = this.options;
    const hc = heads * hidden;
    const pc = this.model.projector.project(centre);
    const ps = [...neighbours].sort().map((l) => this.model.projector.project(l));
    const y = new Float64Array(hc);
    const row = new Float64Array(hc);
    // Centre row: softmax attention over itself and every neighbour (Eqs. 9-11).
    const logits = new Float64Array(ps.length + 1);
    for (let head = 0; head < heads; head++) {
      logits[0] = leakyRelu(pc.dst[head]! + pc.src[head]!, leakySlope);
      let max = logits[0];
      for (let j = 0; j < ps.length; j++) {
        logits[j + 1] = leakyRelu(pc.dst[head]! + ps[j]!.src[head]!, leakySlope);
        max = Math.max(max, logits[j + 1]!);
      }
      let z = 0;
      for (let j = 0; j < logits.length; j++) {
        logits[j] = Math.exp(logits[j]! - max);
        z += logits[j]!;
      }
      for (let c = 0; c < hidden; c++) {
        const k = head * hidden + c;
        let v = logits[0]! * pc.h[k]!;
        for (let j = 0; j < ps.length; j++) v += logits[j + 1]! * ps[j]!.h[k]!;
        row[k] = v / z;
      }
    }
    this.#accumulate(row, y);
    // Leaf rows: each neighbour attends to itself and the centre (a two-way softmax).
    for (const p of ps) {
      for (let head = 0; head < heads; head++) {
        const self = leakyRelu(p.dst[head]! + p.src[head]!, leakySlope);
        const toCentre = leakyRelu(p.dst[head]! + pc.src[head]!, leakySlope);
        const a = sigmoid(self - toCentre);
        for (let c = 0; c < hidden; c++) {
          const k = head * hidden + c;
          row[k] = a * p.h[k]! + (1 - a) * pc.h[k]!;
        }
      }
      this.#accumulate(row, y);
    }
    // Readout (Eq. 12 sum) and projection head (Eq. 13).
    return sigmoidReadout(y, this.model.weights.out!, this.model.weights.outBias!, dimensions);
  }
}

/**
 * The paper's GAT model with seeded initial (untrained) weights. Train it with
 * `trainGatEmbedder`; untrained it is a random, non-monotone map.
 */
export function createGatEmbedder(options: Partial<GatModelOptions> = {}): GatEmbedder {
  const merged = { ...GAT_MODEL_DEFAULTS, ...options };
  return new GatEmbedder(options, initialGatWeights(merged));
}
