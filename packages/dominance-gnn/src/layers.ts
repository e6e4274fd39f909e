import { InvalidArgumentError } from '@grag/core';
import {
  assertInteger,
  type DominanceEmbedder,
  type SerializedDominanceEmbedder,
  serializeEmbedder,
} from './embedder.js';
import { glorotUniform, hashedLabelFeatures } from './random.js';

/** Input features of a label (e.g. an LLM embedding of it, SG-RAG §4.2: o0(v) = LLM(ℓ(v))). */
export type LabelFeatures = (label: string) => ArrayLike<number>;

/** Named weight arrays of a model, row-major. */
export type Weights = Record<string, Float64Array>;

/** The logistic function 1 / (1 + e^-x). */
export function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

/** log(1 + e^x), stable for large |x|. */
export function softplus(x: number): number {
  return Math.max(x, 0) + Math.log1p(Math.exp(-Math.abs(x)));
}

/** x for x > 0, `slope`·x otherwise. */
export function leakyRelu(x: number, slope: number): number {
  return x > 0 ? x : slope * x;
}

/** What the attention layer precomputes for one label: W·x and the two attention scores per head. */
export interface Projection {
  /** W·x(label), `heads × hidden` values. */
  h: Float64Array;
  /** a_src · (W·x)_head, one per head. */
  src: Float64Array;
  /** a_dst · (W·x)_head, one per head. */
  dst: Float64Array;
}

/**
 * The shared first stage of both attention models: the label features x, the linear map W and the
 * attention vectors, cached per label (the result depends on the label only; the cache grows with
 * the number of distinct labels embedded).
 */
export class LabelProjector {
  readonly features: number;
  readonly heads: number;
  readonly hidden: number;
  readonly #w: Float64Array;
  readonly #attSrc: Float64Array;
  readonly #attDst: Float64Array;
  readonly #labelFeatures: LabelFeatures;
  readonly #cache = new Map<string, Projection>();

  constructor(
    dims: { features: number; heads: number; hidden: number },
    weights: { w: Float64Array; attSrc: Float64Array; attDst: Float64Array },
    labelFeatures: LabelFeatures,
  ) {
    this.features = dims.features;
    this.heads = dims.heads;
    this.hidden = dims.hidden;
    this.#w = weights.w;
    this.#attSrc = weights.attSrc;
    this.#attDst = weights.attDst;
    this.#labelFeatures = labelFeatures;
  }

  /** The input features of `label`, checked for length and finiteness. */
  featuresOf(label: string): ArrayLike<number> {
    const x = this.#labelFeatures(label);
    if (x.length !== this.features) {
      throw new InvalidArgumentError(
        'labelFeatures',
        `dominance-gnn: labelFeatures("${label}") has ${x.length} values, the model expects featureDimensions = ${this.features}.`,
      );
    }
    for (let i = 0; i < x.length; i++) {
      if (!Number.isFinite(x[i]!)) {
        throw new InvalidArgumentError(
          'labelFeatures',
          `dominance-gnn: labelFeatures("${label}") is not finite.`,
        );
      }
    }
    return x;
  }

  /** W·x(label) and its attention scores (cached). */
  project(label: string): Projection {
    let p = this.#cache.get(label);
    if (p !== undefined) return p;
    const x = this.featuresOf(label);
    const hc = this.heads * this.hidden;
    const h = new Float64Array(hc);
    for (let f = 0; f < this.features; f++) {
      const xf = x[f]!;
      if (xf === 0) continue;
      for (let k = 0; k < hc; k++) h[k]! += xf * this.#w[f * hc + k]!;
    }
    const src = new Float64Array(this.heads);
    const dst = new Float64Array(this.heads);
    for (let head = 0; head < this.heads; head++) {
      for (let c = 0; c < this.hidden; c++) {
        const k = head * this.hidden + c;
        src[head]! += h[k]! * this.#attSrc[k]!;
        dst[head]! += h[k]! * this.#attDst[k]!;
      }
    }
    p = { h, src, dst };
    this.#cache.set(label, p);
    return p;
  }
}

/** The default label features: seeded hashed vectors (see `hashedLabelFeatures`). */
export function defaultLabelFeatures(dimensions: number, seed: number): LabelFeatures {
  return (label) => hashedLabelFeatures(label, dimensions, seed);
}

/** Check that `weights` has every named array with its expected length. */
export function checkWeights(
  weights: Record<string, ArrayLike<number>>,
  sizes: Record<string, number>,
  where: string,
): Weights {
  const out: Weights = {};
  for (const [name, size] of Object.entries(sizes)) {
    const w = weights[name];
    if (w === undefined || w.length !== size) {
      throw new InvalidArgumentError(
        'weights',
        `${where}: weight "${name}" must have ${size} values (got ${w === undefined ? 'none' : w.length}).`,
      );
    }
    const arr = Float64Array.from(w);
    if (arr.some((v) => !Number.isFinite(v))) {
      throw new InvalidArgumentError('weights', `${where}: weight "${name}" has a value that is not finite.`);
    }
    out[name] = arr;
  }
  return out;
}

/**
 * The projection head of both attention models (Eq. 13): `sigmoid(outBias + y · out)` per output
 * dimension, with `out` a row-major `y.length × dimensions` matrix.
 */
export function sigmoidReadout(
  y: ArrayLike<number>,
  out: ArrayLike<number>,
  outBias: ArrayLike<number>,
  dimensions: number,
): Float32Array {
  const o = new Float32Array(dimensions);
  for (let d = 0; d < dimensions; d++) {
    let s = outBias[d]!;
    for (let k = 0; k < y.length; k++) s += y[k]! * out[k * dimensions + d]!;
    o[d] = sigmoid(s);
  }
  return o;
}

/** The architecture both attention models share. */
export interface AttentionShape {
  dimensions: number;
  heads: number;
  hidden: number;
  featureDimensions: number;
  seed: number;
}

/** Check the architecture of an attention model (`model` names it in the message): positive integers. */
export function checkAttentionShape(o: AttentionShape, model: string): void {
  for (const name of ['dimensions', 'heads', 'hidden', 'featureDimensions'] as const) {
    assertInteger(name, o[name], 1, model);
  }
}

/**
 * The label projector of an attention model: its `w`, `attSrc` and `attDst` weights over the label
 * features (`labelFeatures`, else the seeded hashed ones).
 */
export function attentionProjector(
  o: AttentionShape,
  w: Weights,
  labelFeatures?: LabelFeatures,
): LabelProjector {
  return new LabelProjector(
    { features: o.featureDimensions, heads: o.heads, hidden: o.hidden },
    { w: w.w!, attSrc: w.attSrc!, attDst: w.attDst! },
    labelFeatures ?? defaultLabelFeatures(o.featureDimensions, o.seed),
  );
}

/** Weights as plain number arrays, for JSON. */
export function weightsToJson(weights: Weights): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const [name, w] of Object.entries(weights)) out[name] = Array.from(w);
  return out;
}

/** Sizes of the weights both attention models share: the label map `w` and the attention vectors. */
export function attentionWeightSizes(o: Omit<AttentionShape, 'seed' | 'dimensions'>) {
  const hc = o.heads * o.hidden;
  return { w: o.featureDimensions * hc, attSrc: hc, attDst: hc };
}

/**
 * Tensor shapes of an attention model's weights, for training, in the order both models lay them
 * out: the shared label map and attention vectors (see {@link attentionWeightSizes}), the model's
 * own `middle` weights, then the shared readout `out` and `outBias`.
 */
export function attentionWeightShapes(
  o: Omit<AttentionShape, 'seed'>,
  middle: Record<string, number[]>,
): Record<string, number[]> {
  const hc = o.heads * o.hidden;
  return {
    w: [o.featureDimensions, hc],
    attSrc: [hc],
    attDst: [hc],
    ...middle,
    out: [hc, o.dimensions],
    outBias: [o.dimensions],
  };
}

/** Seeded Glorot-uniform initial values of the shared weights, drawn from `rand` in this order. */
export function initialAttentionWeights(o: AttentionShape, rand: () => number): Weights {
  const hc = o.heads * o.hidden;
  return {
    w: Float64Array.from(glorotUniform(o.featureDimensions, hc, rand)),
    attSrc: Float64Array.from(glorotUniform(o.hidden, 1, rand, hc)),
    attDst: Float64Array.from(glorotUniform(o.hidden, 1, rand, hc)),
  };
}

/** What an attention model sets up from its options and weights (see {@link attentionModel}). */
export interface AttentionModel<O extends AttentionShape> {
  /** The architecture: the keys of the defaults, without `labelFeatures`. */
  options: O;
  /** Whether the label features are the seeded default (`false`: a caller's function). */
  hashedFeatures: boolean;
  /** The checked weights. */
  weights: Weights;
  projector: LabelProjector;
}

/**
 * Merge `options` over `defaults`, check the architecture and the weights (`sizes` of it), and
 * build the label projector: the set-up both attention models' constructors do.
 */
export function attentionModel<O extends AttentionShape>(
  defaults: O,
  options: Partial<O> & { labelFeatures?: LabelFeatures },
  weights: Record<string, ArrayLike<number>>,
  sizes: (o: O) => Record<string, number>,
  model: string,
): AttentionModel<O> {
  const merged: Partial<O> & { labelFeatures?: LabelFeatures } = { ...defaults, ...options };
  const rest = {} as O;
  for (const key of Object.keys(defaults) as (keyof O)[]) rest[key] = merged[key] as O[keyof O];
  checkAttentionShape(rest, model);
  const checked = checkWeights(weights, sizes(rest), model);
  return {
    options: rest,
    hashedFeatures: merged.labelFeatures === undefined,
    weights: checked,
    projector: attentionProjector(rest, checked, merged.labelFeatures),
  };
}

/** A copy of `weights`. */
export function copyWeights(weights: Weights): Weights {
  const out: Weights = {};
  for (const [name, w] of Object.entries(weights)) out[name] = Float64Array.from(w);
  return out;
}

/** The serialized form of an attention model: its architecture, label-feature kind and weights. */
export function serializeAttentionModel(
  embedder: DominanceEmbedder,
  model: AttentionModel<AttentionShape>,
): SerializedDominanceEmbedder {
  const config = { ...model.options, labelFeatures: model.hashedFeatures ? 'hashed' : 'custom' };
  return serializeEmbedder(embedder, model.options.seed, config, weightsToJson(model.weights));
}
