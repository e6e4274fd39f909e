import { mulberry32 } from '@grag/core/kit';
import type * as TfCore from '@tensorflow/tfjs-core';
import { assertInteger } from './embedder.js';
import { GAT_MODEL_DEFAULTS, GatEmbedder, type GatModelOptions, initialGatWeights } from './gat.js';
import {
  randomSubStar,
  type Star,
  type StarGraph,
  starOf,
  subMultisetCount,
  subMultisets,
  toMultiset,
} from './graph.js';
import { attentionWeightShapes, type Weights } from './layers.js';
import { type GatParams, gatForward, pairDifferences } from './tf-models.js';
import {
  beginTraining,
  flatParameters,
  runTrainingLoop,
  sampleBounds,
  type TrainingReport,
  type TrainingVertices,
  type TrainLoopOptions,
  trainingVertices,
} from './training-loop.js';

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
  const o = { ...GAT_TRAIN_DEFAULTS, ...options };
  const { started, setup } = await beginTraining('trainGatEmbedder', o, () =>
    assertInteger('subStarsPerVertex', o.subStarsPerVertex, 1, 'trainGatEmbedder'),
  );
  const { tf } = setup;
  const sample = sampleSubStarPairs(graph, { ...sampleBounds(o), perVertex: o.subStarsPerVertex });
  const initial = initialGatWeights(o);
  const hc = o.heads * o.hidden;
  const shapes = attentionWeightShapes(o, { bias: [hc], gamma: [hc], beta: [hc] });
  const flat = flatParameters(tf, initial, shapes, 'gat');
  const running = { mean: new Float64Array(hc), variance: new Float64Array(hc).fill(1) };
  let mean: Float32Array | undefined;
  let variance: Float32Array | undefined;
  return runTrainingLoop({ ...setup, started, rand: mulberry32(o.seed ^ 0x7a11) }, o, sample, {
    flat,
    stars: (pair) => [pair.star, pair.sub],
    loss(batch, b) {
      const { o: out, stats } = gatForward(tf, flat.views() as unknown as GatParams, batch, o);
      mean = stats!.mean.dataSync() as Float32Array;
      variance = stats!.variance.dataSync() as Float32Array;
      const diff = pairDifferences(tf, out, b, 'second-first');
      // Σ‖max(0, o(sub-star) − o(star))‖², averaged over the batch.
      return tf.mul(tf.sum(tf.square(tf.relu(diff))), 1 / b) as TfCore.Scalar;
    },
    afterStep(batch) {
      // Running statistics as PyTorch keeps them (unbiased variance).
      const count = batch.valid.reduce((x, y) => x + y, 0);
      const unbias = count > 1 ? count / (count - 1) : 1;
      for (let k = 0; k < hc; k++) {
        running.mean[k] = (1 - o.bnMomentum) * running.mean[k]! + o.bnMomentum * mean![k]!;
        running.variance[k] =
          (1 - o.bnMomentum) * running.variance[k]! + o.bnMomentum * variance![k]! * unbias;
      }
    },
    // labelFeatures stays undefined for the default, so the model serializes as "hashed".
    embedder: () => new GatEmbedder(o, gatWeightsFrom(flat.read(), running)),
    evaluate(embedder, { star, sub }, addLoss) {
      const big = embedder.embed(star.centre, star.neighbours);
      const small = embedder.embed(sub.centre, sub.neighbours);
      let violated = false;
      for (let k = 0; k < o.dimensions; k++) {
        const excess = small[k]! - big[k]!;
        if (excess > 0) {
          addLoss(excess * excess);
          violated = true;
        }
      }
      return violated;
    },
    stopWhenNoFailure: true,
  });
}
