/**
 * What the two training loops share: their common options and report, the choice of training
 * vertices, cached label features, a model's weights as one tfjs variable, and the loop itself
 * ({@link runTrainingLoop}: shuffled mini-batches, Adam, an evaluation of every pair after each epoch).
 */
import { InvalidArgumentError, throwIfAborted } from '@grag/core';
import { mulberry32, shuffleInPlace } from '@grag/core/kit';
import type * as TfCore from '@tensorflow/tfjs-core';
import { assertInteger } from './embedder.js';
import { degree, type Star, type StarGraph } from './graph.js';
import { defaultLabelFeatures, type LabelFeatures, type Weights } from './layers.js';
import { loadTf, type Tf } from './tf.js';
import { buildBatch, type StarBatch } from './tf-models.js';

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

export function checkLoop(o: TrainLoopOptions, where: string): void {
  assertInteger('epochs', o.epochs, 1, where);
  assertInteger('batchSize', o.batchSize, 1, where);
  assertInteger('maxTrainDegree', o.maxTrainDegree, 1, where);
  if (o.maxTrainVertices !== Number.POSITIVE_INFINITY) {
    assertInteger('maxTrainVertices', o.maxTrainVertices, 1, where);
  }
  if (!(o.learningRate > 0))
    throw new InvalidArgumentError('learningRate', `${where}: learningRate must be > 0.`);
}

export function cachedFeatures(
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

export function trainingVertices(
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
export function flatParameters(tf: Tf, initial: Weights, shapes: Record<string, number[]>, name: string) {
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

/** What a training run starts from: tfjs, its backend, and each label's cached input features. */
export interface TrainingSetup {
  tf: Tf;
  backend: string;
  featuresOf: (label: string) => ArrayLike<number>;
}

/**
 * Load tfjs and cache the label features of a run whose options are checked (the given
 * `labelFeatures`, else the default hashed ones of the seed).
 */
export async function startTraining(o: {
  labelFeatures?: LabelFeatures;
  featureDimensions: number;
  seed: number;
}): Promise<TrainingSetup> {
  const { tf, backend } = await loadTf();
  const labelFeatures = o.labelFeatures ?? defaultLabelFeatures(o.featureDimensions, o.seed);
  return { tf, backend, featuresOf: cachedFeatures(labelFeatures, o.featureDimensions) };
}

/**
 * The start of a trainer's run (`where` names it in messages): the loop's options checked, then
 * the trainer's own (`check`), then tfjs loaded ({@link startTraining}); `started` is when the run
 * began, for the report's wall time.
 */
export async function beginTraining(
  where: string,
  o: TrainLoopOptions & { labelFeatures?: LabelFeatures; featureDimensions: number; seed: number },
  check: () => void,
): Promise<{ started: number; setup: TrainingSetup }> {
  const started = performance.now();
  checkLoop(o, where);
  check();
  return { started, setup: await startTraining(o) };
}

/** What every trainer's sampler reads of the loop's options: the degree and vertex bounds, the seed. */
export function sampleBounds(o: TrainLoopOptions & { seed: number }): {
  maxTrainDegree: number;
  maxVertices: number;
  seed: number;
} {
  return { maxTrainDegree: o.maxTrainDegree, maxVertices: o.maxTrainVertices, seed: o.seed };
}

/** A model's part of {@link runTrainingLoop}. */
export interface TrainingModel<Pair, Embedder> {
  /** The model's weights as one variable ({@link flatParameters}); disposed when the loop ends. */
  flat: ReturnType<typeof flatParameters>;
  /** The two stars of a pair: a batch of b pairs holds every pair's first star, then every second one. */
  stars(pair: Pair): readonly [Star, Star];
  /** The mean loss of a batch of `size` pairs, computed inside the gradient scope. */
  loss(batch: StarBatch, size: number): TfCore.Scalar;
  /** Called after each gradient step, e.g. to update running statistics. */
  afterStep?(batch: StarBatch): void;
  /** The embedder of the current weights. */
  embedder(): Embedder;
  /**
   * Evaluate a pair under `embedder`: hand each term of its loss to `addLoss` (summed over every
   * pair in order), and say whether it fails (violated dominance, or a negative not pruned).
   */
  evaluate(embedder: Embedder, pair: Pair, addLoss: (term: number) => void): boolean;
  /** Stop after the first epoch with no failure (Algorithm 2, line 16). */
  stopWhenNoFailure: boolean;
}

/**
 * The loop both trainers run: each epoch shuffles the pairs with `rand`, takes an Adam step per
 * mini-batch, then evaluates every pair with the epoch's embedder and reports it (`onEpoch`).
 * Stops between two steps with an `AbortError` when `signal` aborts.
 */
export async function runTrainingLoop<Pair, Embedder>(
  setup: TrainingSetup & { started: number; rand: () => number },
  o: TrainLoopOptions & { featureDimensions: number },
  sample: { pairs: Pair[]; vertices: TrainingVertices },
  model: TrainingModel<Pair, Embedder>,
): Promise<{ embedder: Embedder; report: TrainingReport }> {
  const { tf, featuresOf } = setup;
  const { pairs } = sample;
  const optimizer = tf.train.adam(o.learningRate);
  const report: TrainingReport = {
    backend: setup.backend,
    epochs: 0,
    stoppedEarly: false,
    pairs: pairs.length,
    vertices: sample.vertices,
    losses: [],
    failures: [],
    seconds: 0,
  };
  let embedder = model.embedder();
  try {
    for (let epoch = 1; epoch <= o.epochs && pairs.length > 0; epoch++) {
      shuffleInPlace(pairs, setup.rand);
      for (let at = 0; at < pairs.length; at += o.batchSize) {
        throwIfAborted(o.signal);
        const chunk = pairs.slice(at, at + o.batchSize);
        const rows = chunk.map((p) => model.stars(p));
        const batch = buildBatch(
          [...rows.map((r) => r[0]), ...rows.map((r) => r[1])],
          o.featureDimensions,
          featuresOf,
        );
        tf.tidy(() => {
          optimizer.minimize(() => model.loss(batch, chunk.length), false, [model.flat.theta]);
        });
        model.afterStep?.(batch);
      }
      embedder = model.embedder();
      let loss = 0;
      let failures = 0;
      const addLoss = (term: number) => {
        loss += term;
      };
      for (const pair of pairs) if (model.evaluate(embedder, pair, addLoss)) failures++;
      loss /= pairs.length;
      report.epochs = epoch;
      report.losses.push(loss);
      report.failures.push(failures);
      o.onEpoch?.({ epoch, loss, failures });
      if (model.stopWhenNoFailure && failures === 0) {
        report.stoppedEarly = epoch < o.epochs;
        break;
      }
    }
  } finally {
    model.flat.theta.dispose();
    optimizer.dispose();
  }
  report.seconds = (performance.now() - setup.started) / 1000;
  return { embedder, report };
}
