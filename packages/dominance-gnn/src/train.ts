import { InvalidArgumentError, mulberry32, randomInt, shuffleInPlace, throwIfAborted } from '@grag/core';
import type * as TfCore from '@tensorflow/tfjs-core';
import { assertInteger } from './embedder.js';
import { GAT_MODEL_DEFAULTS, GatEmbedder, type GatModelOptions, initialGatWeights } from './gat.js';
import {
  degree,
  isSubMultiset,
  neighbourLabelCounts,
  randomSubStar,
  type Star,
  type StarGraph,
  starOf,
  subMultisetCount,
  subMultisets,
  toMultiset,
} from './graph.js';
import { defaultLabelFeatures, type LabelFeatures, type Weights } from './layers.js';
import {
  initialMonotoneWeights,
  MONOTONE_MODEL_DEFAULTS,
  MonotoneEmbedder,
  type MonotoneModelOptions,
} from './monotone.js';
import { loadTf, type Tf } from './tf.js';
import {
  buildBatch,
  differenceMatrix,
  type GatParams,
  gatForward,
  type MonotoneParams,
  monotoneForward,
} from './tf-models.js';

/** Options shared by both training loops. */
export interface TrainLoopOptions {
  /** Passes over the training pairs. @default 20 for the GAT, 10 for the monotone model */
  epochs: number;
  /** Pairs per gradient step. @default 32 (GNN-PE code) */
  batchSize: number;
  /** Adam learning rate. @default 1e-3 for the GAT (GNN-PE code), 1e-2 for the monotone model */
  learningRate: number;
  /**
   * Vertices of higher degree are not used for training (their stars are still embedded).
   * @default 10 (GNN-PE code)
   */
  maxTrainDegree: number;
  /**
   * At most this many training vertices (of degree 1..`maxTrainDegree`) are used, drawn with the
   * seed; the rest are skipped (counted in `vertices.notSampled`). Bounds training time on large
   * graphs (tfjs pure JS). @default Infinity (every such vertex, as in the GNN-PE code)
   */
  maxTrainVertices: number;
  /** Called after every epoch. */
  onEpoch?: (info: EpochInfo) => void;
  /** Stops training between two steps with an `AbortError`. */
  signal?: AbortSignal;
}

/** Progress after one epoch. */
export interface EpochInfo {
  epoch: number;
  /** Mean loss per training pair, evaluated after the epoch with the inference model. */
  loss: number;
  /** GAT: training pairs that violate dominance; monotone: training negatives not pruned. */
  failures: number;
}

/** What a training run did. */
export interface TrainingReport {
  /** tfjs backend: `'cpu'` (pure JS) or `'tensorflow'` (tfjs-node). */
  backend: string;
  /** Epochs run. */
  epochs: number;
  /** Whether training stopped before `epochs` because the loss reached 0 (Algorithm 2, line 16). */
  stoppedEarly: boolean;
  /** Training pairs: (star, sub-star) for the GAT, (query, non-containing data star) for the monotone model. */
  pairs: number;
  /** Vertices whose stars gave pairs, and vertices skipped (degree 0, or above `maxTrainDegree`). */
  vertices: TrainingVertices;
  /** `EpochInfo.loss` of every epoch. */
  losses: number[];
  /** `EpochInfo.failures` of every epoch. */
  failures: number[];
  /** Wall time of training, data preparation included. */
  seconds: number;
}

/** Options of {@link trainGatEmbedder}. */
export interface GatTrainOptions extends GatModelOptions, TrainLoopOptions {
  /** Sub-stars per training vertex; a vertex with fewer distinct proper sub-stars uses all. @default 16 */
  subStarsPerVertex: number;
  /** Batch-norm running-statistics momentum. @default 0.1 (PyTorch's BatchNorm) */
  bnMomentum: number;
}

/** Defaults of {@link trainGatEmbedder}. */
export const GAT_TRAIN_DEFAULTS: Omit<GatTrainOptions, 'labelFeatures' | 'onEpoch' | 'signal'> = {
  ...GAT_MODEL_DEFAULTS,
  epochs: 20,
  batchSize: 32,
  learningRate: 1e-3,
  maxTrainDegree: 10,
  maxTrainVertices: Number.POSITIVE_INFINITY,
  subStarsPerVertex: 16,
  bnMomentum: 0.1,
};

/** Options of {@link trainMonotoneEmbedder}. */
export interface MonotoneTrainOptions extends MonotoneModelOptions, TrainLoopOptions {
  /** Training negatives sampled per training vertex. @default 8 */
  negativesPerVertex: number;
  /** Share of negatives whose query has the data star's centre label (the hard ones). @default 0.75 */
  sameLabelShare: number;
  /** The hinge asks a negative to exceed its data star by this much in some dimension. @default 0.05 */
  margin: number;
}

/** Defaults of {@link trainMonotoneEmbedder}. */
export const MONOTONE_TRAIN_DEFAULTS: Omit<MonotoneTrainOptions, 'labelFeatures' | 'onEpoch' | 'signal'> = {
  ...MONOTONE_MODEL_DEFAULTS,
  epochs: 10,
  batchSize: 32,
  learningRate: 1e-2,
  maxTrainDegree: 10,
  maxTrainVertices: Number.POSITIVE_INFINITY,
  negativesPerVertex: 8,
  sameLabelShare: 0.75,
  margin: 0.05,
};

function checkLoop(o: TrainLoopOptions, where: string): void {
  assertInteger('epochs', o.epochs, 1, where);
  assertInteger('batchSize', o.batchSize, 1, where);
  assertInteger('maxTrainDegree', o.maxTrainDegree, 1, where);
  if (o.maxTrainVertices !== Number.POSITIVE_INFINITY) {
    assertInteger('maxTrainVertices', o.maxTrainVertices, 1, where);
  }
  if (!(o.learningRate > 0))
    throw new InvalidArgumentError('learningRate', `${where}: learningRate must be > 0.`);
}

function cachedFeatures(
  labelFeatures: LabelFeatures,
  features: number,
): (label: string) => ArrayLike<number> {
  const cache = new Map<string, ArrayLike<number>>();
  return (label) => {
    let x = cache.get(label);
    if (x === undefined) {
      x = labelFeatures(label);
      if (x.length !== features) {
        throw new InvalidArgumentError(
          'labelFeatures',
          `dominance-gnn training: labelFeatures("${label}") has ${x.length} values, expected featureDimensions = ${features}.`,
        );
      }
      cache.set(label, x);
    }
    return x;
  };
}

/** Vertices used and skipped for training. */
export interface TrainingVertices {
  /** Vertices of degree 1..`maxTrainDegree`, whose stars give training pairs. */
  used: number;
  /** Vertices of degree 0 (nothing to train on). */
  isolated: number;
  /** Vertices above `maxTrainDegree` (skipped, as in the GNN-PE code). */
  highDegree: number;
  /** Vertices of degree 1..`maxTrainDegree` left out by the `maxTrainVertices` draw. */
  notSampled: number;
}

function trainingVertices(
  graph: StarGraph,
  maxTrainDegree: number,
  maxVertices = Number.POSITIVE_INFINITY,
  seed = 0,
): { indices: number[]; counts: TrainingVertices } {
  let indices: number[] = [];
  let isolated = 0;
  let highDegree = 0;
  for (let i = 0; i < graph.ids.length; i++) {
    const d = degree(graph, i);
    if (d === 0) isolated++;
    else if (d > maxTrainDegree) highDegree++;
    else indices.push(i);
  }
  const eligible = indices.length;
  if (eligible > maxVertices) {
    // A seeded draw, kept in node order so the pairs do not depend on the draw's order.
    indices = shuffleInPlace(indices, mulberry32(seed ^ 0x5eed))
      .slice(0, maxVertices)
      .sort((a, b) => a - b);
  }
  return {
    indices,
    counts: { used: indices.length, isolated, highDegree, notSampled: eligible - indices.length },
  };
}

let variableCounter = 0;

/**
 * All weights of a model in one tfjs variable (one Adam update per step instead of one per
 * weight): `views()` gives each weight as a slice of it (inside a gradient scope), `read()` copies
 * the current values out.
 */
function flatParameters(tf: Tf, initial: Weights, shapes: Record<string, number[]>, name: string) {
  const layout = Object.entries(shapes).map(([key, shape]) => ({
    key,
    shape,
    size: shape.reduce((a, b) => a * b, 1),
  }));
  const total = layout.reduce((n, l) => n + l.size, 0);
  const values = new Float32Array(total);
  let at = 0;
  const offsets = layout.map((l) => {
    values.set(initial[l.key]!, at);
    at += l.size;
    return at - l.size;
  });
  const theta = tf.variable(tf.tensor1d(values), true, `dominance-gnn/${name}/${variableCounter++}`);
  return {
    theta,
    views: () => {
      const out: Record<string, TfCore.Tensor> = {};
      layout.forEach((l, i) => {
        out[l.key] = tf.reshape(tf.slice(theta, offsets[i]!, l.size), l.shape);
      });
      return out;
    },
    read: (): Weights => {
      const all = theta.dataSync();
      const out: Weights = {};
      layout.forEach((l, i) => {
        out[l.key] = Float64Array.from(all.subarray(offsets[i]!, offsets[i]! + l.size));
      });
      return out;
    },
  };
}

/**
 * The training pairs of Algorithm 2: for every vertex of degree 1..`maxTrainDegree`, its star and
 * up to `perVertex` distinct proper sub-stars (all of them when there are fewer).
 */
export function sampleSubStarPairs(
  graph: StarGraph,
  options: { maxTrainDegree: number; perVertex: number; seed: number; maxVertices?: number },
): { pairs: { star: Star; sub: Star }[]; vertices: TrainingVertices } {
  const rand = mulberry32(options.seed ^ 0x9a1f);
  const { indices, counts } = trainingVertices(
    graph,
    options.maxTrainDegree,
    options.maxVertices,
    options.seed,
  );
  const pairs: { star: Star; sub: Star }[] = [];
  for (const i of indices) {
    const star = starOf(graph, i);
    const set = toMultiset(star.neighbours);
    let subs: string[][];
    if (subMultisetCount(set) - 1 <= options.perVertex) subs = [...subMultisets(set)];
    else {
      const seen = new Map<string, string[]>();
      for (let tries = 0; seen.size < options.perVertex && tries < options.perVertex * 8; tries++) {
        const sub = randomSubStar(star.neighbours, rand);
        seen.set(sub.join('\u0000'), sub);
      }
      subs = [...seen.values()];
    }
    for (const sub of subs) pairs.push({ star, sub: { centre: star.centre, neighbours: sub } });
  }
  return { pairs, vertices: counts };
}

function gatWeightsFrom(weights: Weights, running: { mean: Float64Array; variance: Float64Array }): Weights {
  return {
    ...weights,
    runningMean: Float64Array.from(running.mean),
    runningVar: Float64Array.from(running.variance),
  };
}

/**
 * Train the paper's GAT dominance model (SG-RAG Algorithm 2; settings of the GNN-PE code) on the
 * stars of `graph`: loss L = Σ ‖max(0, o(sub-star) − o(star))‖² over sampled (star, sub-star)
 * pairs, Adam, mini-batches; each epoch ends with the loss of every pair under the inference model
 * (batch norm with running statistics), and training stops early when it is 0.
 *
 * Dominance is not guaranteed afterwards: check with `verifyDominance`, and keep the default
 * closure correction of `embedGraph` (see the README). Loads tfjs on first use.
 *
 * @throws InvalidArgumentError on bad options; AbortError when `signal` aborts.
 */
export async function trainGatEmbedder(
  graph: StarGraph,
  options: Partial<GatTrainOptions> = {},
): Promise<{ embedder: GatEmbedder; report: TrainingReport }> {
  const started = performance.now();
  const o = { ...GAT_TRAIN_DEFAULTS, ...options };
  checkLoop(o, 'trainGatEmbedder');
  assertInteger('subStarsPerVertex', o.subStarsPerVertex, 1, 'trainGatEmbedder');
  const { tf, backend } = await loadTf();
  const labelFeatures = o.labelFeatures ?? defaultLabelFeatures(o.featureDimensions, o.seed);
  const featuresOf = cachedFeatures(labelFeatures, o.featureDimensions);
  const { pairs, vertices } = sampleSubStarPairs(graph, {
    maxTrainDegree: o.maxTrainDegree,
    maxVertices: o.maxTrainVertices,
    perVertex: o.subStarsPerVertex,
    seed: o.seed,
  });
  const model = o; // labelFeatures stays undefined for the default, so the model serializes as "hashed"
  const initial = initialGatWeights(o);
  const hc = o.heads * o.hidden;
  const flat = flatParameters(
    tf,
    initial,
    {
      w: [o.featureDimensions, hc],
      attSrc: [hc],
      attDst: [hc],
      bias: [hc],
      gamma: [hc],
      beta: [hc],
      out: [hc, o.dimensions],
      outBias: [o.dimensions],
    },
    'gat',
  );
  const running = { mean: new Float64Array(hc), variance: new Float64Array(hc).fill(1) };
  const optimizer = tf.train.adam(o.learningRate);
  const rand = mulberry32(o.seed ^ 0x7a11);
  const report: TrainingReport = {
    backend,
    epochs: 0,
    stoppedEarly: false,
    pairs: pairs.length,
    vertices,
    losses: [],
    failures: [],
    seconds: 0,
  };
  let embedder = new GatEmbedder(model, gatWeightsFrom(flat.read(), running));
  try {
    for (let epoch = 1; epoch <= o.epochs && pairs.length > 0; epoch++) {
      shuffleInPlace(pairs, rand);
      for (let at = 0; at < pairs.length; at += o.batchSize) {
        throwIfAborted(o.signal);
        const chunk = pairs.slice(at, at + o.batchSize);
        const b = chunk.length;
        const batch = buildBatch(
          [...chunk.map((p) => p.star), ...chunk.map((p) => p.sub)],
          o.featureDimensions,
          featuresOf,
        );
        let mean: Float32Array | undefined;
        let variance: Float32Array | undefined;
        tf.tidy(() => {
          optimizer.minimize(
            () => {
              const { o: out, stats } = gatForward(tf, flat.views() as unknown as GatParams, batch, o);
              mean = stats!.mean.dataSync() as Float32Array;
              variance = stats!.variance.dataSync() as Float32Array;
              const diff = tf.matMul(
                differenceMatrix(
                  tf,
                  b,
                  2 * b,
                  chunk.map((_, k) => b + k),
                  chunk.map((_, k) => k),
                ),
                out,
              );
              // Σ‖max(0, o(sub-star) − o(star))‖², averaged over the batch.
              return tf.mul(tf.sum(tf.square(tf.relu(diff))), 1 / b) as TfCore.Scalar;
            },
            false,
            [flat.theta],
          );
        });
        // Running statistics as PyTorch keeps them (unbiased variance).
        const count = batch.valid.reduce((x, y) => x + y, 0);
        const unbias = count > 1 ? count / (count - 1) : 1;
        for (let k = 0; k < hc; k++) {
          running.mean[k] = (1 - o.bnMomentum) * running.mean[k]! + o.bnMomentum * mean![k]!;
          running.variance[k] =
            (1 - o.bnMomentum) * running.variance[k]! + o.bnMomentum * variance![k]! * unbias;
        }
      }
      embedder = new GatEmbedder(model, gatWeightsFrom(flat.read(), running));
      let loss = 0;
      let failures = 0;
      for (const { star, sub } of pairs) {
        const big = embedder.embed(star.centre, star.neighbours);
        const small = embedder.embed(sub.centre, sub.neighbours);
        let violated = false;
        for (let k = 0; k < o.dimensions; k++) {
          const excess = small[k]! - big[k]!;
          if (excess > 0) {
            loss += excess * excess;
            violated = true;
          }
        }
        if (violated) failures++;
      }
      loss /= pairs.length;
      report.epochs = epoch;
      report.losses.push(loss);
      report.failures.push(failures);
      o.onEpoch?.({ epoch, loss, failures });
      if (failures === 0) {
        report.stoppedEarly = epoch < o.epochs;
        break;
      }
    }
  } finally {
    flat.theta.dispose();
    optimizer.dispose();
  }
  report.seconds = (performance.now() - started) / 1000;
  return { embedder, report };
}

/**
 * Training negatives of the monotone model: a query star (a random sub-star, of size ≥ 1, of a
 * training vertex) and a data star that does not contain it. `sameLabelShare` of the queries come
 * from a vertex with the data star's centre label — the candidates a label filter cannot prune.
 * A draw that finds no non-containing query in 10 tries is dropped (`pairs.length` counts the
 * pairs kept).
 */
export function sampleNegatives(
  graph: StarGraph,
  options: {
    maxTrainDegree: number;
    perVertex: number;
    sameLabelShare: number;
    seed: number;
    maxVertices?: number;
  },
): { pairs: { query: Star; data: Star }[]; vertices: TrainingVertices } {
  const rand = mulberry32(options.seed ^ 0x4e6a);
  const { indices: used, counts } = trainingVertices(
    graph,
    options.maxTrainDegree,
    options.maxVertices,
    options.seed,
  );
  const byLabel = new Map<string, number[]>();
  for (const i of used) {
    const l = graph.labels[i]!;
    const list = byLabel.get(l);
    if (list) list.push(i);
    else byLabel.set(l, [i]);
  }
  const pairs: { query: Star; data: Star }[] = [];
  for (let t = 0; t < used.length * options.perVertex; t++) {
    const g = used[randomInt(rand, used.length)]!;
    const counts = neighbourLabelCounts(graph, g);
    const same = byLabel.get(graph.labels[g]!)!;
    for (let tries = 0; tries < 10; tries++) {
      const pool = rand() < options.sameLabelShare && same.length > 1 ? same : used;
      const u = pool[randomInt(rand, pool.length)]!;
      if (u === g) continue;
      const star = starOf(graph, u);
      const all = [...star.neighbours];
      const q = randomSubStar(all, rand, 1);
      const query = { centre: star.centre, neighbours: q.length > 0 ? q : all };
      if (query.centre === graph.labels[g] && isSubMultiset(query.neighbours, counts)) continue;
      pairs.push({ query, data: starOf(graph, g) });
      break;
    }
  }
  return { pairs, vertices: counts };
}

/**
 * Train the monotone model to sharpen pruning: for sampled (query, data) pairs where the data
 * star does not contain the query, a squared hinge asks o(query) to exceed o(data) by `margin` in
 * some dimension. Dominance holds whatever the weights (see {@link MonotoneEmbedder}), so training
 * cannot introduce a violation. Loads tfjs on first use.
 *
 * @throws InvalidArgumentError on bad options; AbortError when `signal` aborts.
 */
export async function trainMonotoneEmbedder(
  graph: StarGraph,
  options: Partial<MonotoneTrainOptions> = {},
): Promise<{ embedder: MonotoneEmbedder; report: TrainingReport }> {
  const started = performance.now();
  const o = { ...MONOTONE_TRAIN_DEFAULTS, ...options };
  checkLoop(o, 'trainMonotoneEmbedder');
  assertInteger('negativesPerVertex', o.negativesPerVertex, 1, 'trainMonotoneEmbedder');
  if (!(o.margin >= 0))
    throw new InvalidArgumentError('margin', 'trainMonotoneEmbedder: margin must be ≥ 0.');
  const { tf, backend } = await loadTf();
  const labelFeatures = o.labelFeatures ?? defaultLabelFeatures(o.featureDimensions, o.seed);
  const featuresOf = cachedFeatures(labelFeatures, o.featureDimensions);
  const { pairs, vertices } = sampleNegatives(graph, {
    maxTrainDegree: o.maxTrainDegree,
    maxVertices: o.maxTrainVertices,
    perVertex: o.negativesPerVertex,
    sameLabelShare: o.sameLabelShare,
    seed: o.seed,
  });
  const model = o; // labelFeatures stays undefined for the default, so the model serializes as "hashed"
  const initial = initialMonotoneWeights(o);
  const hc = o.heads * o.hidden;
  const flat = flatParameters(
    tf,
    initial,
    {
      w: [o.featureDimensions, hc],
      attSrc: [hc],
      attDst: [hc],
      attBias: [o.heads],
      out: [hc, o.dimensions],
      outBias: [o.dimensions],
    },
    'monotone',
  );
  const read = flat.read;
  const optimizer = tf.train.adam(o.learningRate);
  const rand = mulberry32(o.seed ^ 0x7a12);
  const report: TrainingReport = {
    backend,
    epochs: 0,
    stoppedEarly: false,
    pairs: pairs.length,
    vertices,
    losses: [],
    failures: [],
    seconds: 0,
  };
  let embedder = new MonotoneEmbedder(model, read());
  try {
    for (let epoch = 1; epoch <= o.epochs && pairs.length > 0; epoch++) {
      shuffleInPlace(pairs, rand);
      for (let at = 0; at < pairs.length; at += o.batchSize) {
        throwIfAborted(o.signal);
        const chunk = pairs.slice(at, at + o.batchSize);
        const b = chunk.length;
        const batch = buildBatch(
          [...chunk.map((p) => p.query), ...chunk.map((p) => p.data)],
          o.featureDimensions,
          featuresOf,
        );
        tf.tidy(() => {
          optimizer.minimize(
            () => {
              const out = monotoneForward(tf, flat.views() as unknown as MonotoneParams, batch, o);
              const diff = tf.matMul(
                differenceMatrix(
                  tf,
                  b,
                  2 * b,
                  chunk.map((_, k) => k),
                  chunk.map((_, k) => b + k),
                ),
                out,
              );
              const best = tf.max(diff, 1);
              return tf.mul(tf.sum(tf.square(tf.relu(tf.sub(o.margin, best)))), 1 / b) as TfCore.Scalar;
            },
            false,
            [flat.theta],
          );
        });
      }
      embedder = new MonotoneEmbedder(model, read());
      let loss = 0;
      let failures = 0;
      for (const { query, data } of pairs) {
        const q = embedder.embed(query.centre, query.neighbours);
        const g = embedder.embed(data.centre, data.neighbours);
        let best = Number.NEGATIVE_INFINITY;
        for (let k = 0; k < o.dimensions; k++) best = Math.max(best, q[k]! - g[k]!);
        loss += Math.max(0, o.margin - best) ** 2;
        if (!(best > 0)) failures++;
      }
      loss /= pairs.length;
      report.epochs = epoch;
      report.losses.push(loss);
      report.failures.push(failures);
      o.onEpoch?.({ epoch, loss, failures });
    }
  } finally {
    flat.theta.dispose();
    optimizer.dispose();
  }
  report.seconds = (performance.now() - started) / 1000;
  return { embedder, report };
}
