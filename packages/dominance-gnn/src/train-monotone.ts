/**
 * Training of the monotone embedder on negatives: (query star, data star the query is not contained
 * in) pairs, with a hinge that asks the query to exceed the data star in some dimension.
 */
import { InvalidArgumentError } from '@grag/core';
import { mulberry32, randomInt } from '@grag/core/kit';
import type * as TfCore from '@tensorflow/tfjs-core';
import { assertInteger } from './embedder.js';
import {
  isSubMultiset,
  neighbourLabelCounts,
  randomSubStar,
  type Star,
  type StarGraph,
  starOf,
} from './graph.js';
import { attentionWeightShapes } from './layers.js';
import {
  initialMonotoneWeights,
  MONOTONE_MODEL_DEFAULTS,
  MonotoneEmbedder,
  type MonotoneModelOptions,
} from './monotone.js';
import { type MonotoneParams, monotoneForward, pairDifferences } from './tf-models.js';
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
  const o = { ...MONOTONE_TRAIN_DEFAULTS, ...options };
  const { started, setup } = await beginTraining('trainMonotoneEmbedder', o, () => {
    assertInteger('negativesPerVertex', o.negativesPerVertex, 1, 'trainMonotoneEmbedder');
    if (!(o.margin >= 0))
      throw new InvalidArgumentError('margin', 'trainMonotoneEmbedder: margin must be ≥ 0.');
  });
  const { tf } = setup;
  const sample = sampleNegatives(graph, {
    ...sampleBounds(o),
    perVertex: o.negativesPerVertex,
    sameLabelShare: o.sameLabelShare,
  });
  const initial = initialMonotoneWeights(o);
  const flat = flatParameters(tf, initial, attentionWeightShapes(o, { attBias: [o.heads] }), 'monotone');
  return runTrainingLoop({ ...setup, started, rand: mulberry32(o.seed ^ 0x7a12) }, o, sample, {
    flat,
    stars: (pair) => [pair.query, pair.data],
    loss(batch, b) {
      const out = monotoneForward(tf, flat.views() as unknown as MonotoneParams, batch, o);
      const diff = pairDifferences(tf, out, b, 'first-second');
      const best = tf.max(diff, 1);
      return tf.mul(tf.sum(tf.square(tf.relu(tf.sub(o.margin, best)))), 1 / b) as TfCore.Scalar;
    },
    // labelFeatures stays undefined for the default, so the model serializes as "hashed".
    embedder: () => new MonotoneEmbedder(o, flat.read()),
    evaluate(embedder, { query, data }, addLoss) {
      const q = embedder.embed(query.centre, query.neighbours);
      const g = embedder.embed(data.centre, data.neighbours);
      let best = Number.NEGATIVE_INFINITY;
      for (let k = 0; k < o.dimensions; k++) best = Math.max(best, q[k]! - g[k]!);
      addLoss(Math.max(0, o.margin - best) ** 2);
      return !(best > 0);
    },
    stopWhenNoFailure: false,
  });
}
