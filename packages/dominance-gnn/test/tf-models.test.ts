import { mulberry32 } from '@grag/core/kit';
import { describe, expect, test } from 'vitest';
import { createGatEmbedder, createMonotoneEmbedder, type Star } from '../src/index.js';
import { hashedLabelFeatures } from '../src/random.js';
import { loadTf, type Tf } from '../src/tf.js';
import {
  buildBatch,
  type GatParams,
  gatForward,
  type MonotoneParams,
  monotoneForward,
  type StarBatch,
} from '../src/tf-models.js';

const stars: Star[] = [
  { centre: 'film', neighbours: ['person', 'person', 'award'] },
  { centre: 'person', neighbours: ['film'] },
  { centre: 'award', neighbours: [] },
  { centre: 'film', neighbours: ['award', 'country', 'person', 'person', 'genre'] },
];

/**
 * The rows a tfjs model gives for `stars`: its parameters are `weights` in the given `shapes`
 * (disposed after), the labels' features those the JavaScript embedder hashes with `seed`.
 */
function modelRows<P extends object>(
  tf: Tf,
  weights: Record<string, ArrayLike<number>>,
  shapes: { [K in keyof P]: number[] },
  seed: number,
  forward: (p: P, batch: StarBatch) => ReturnType<Tf['tensor']>,
): number[][] {
  const batch = buildBatch(stars, 16, (l) => hashedLabelFeatures(l, 16, seed));
  return tf.tidy(() => {
    const variables = Object.entries<number[]>(shapes).map(([name, shape]) =>
      tf.variable(tf.tensor(Float32Array.from(weights[name]!), shape)),
    );
    const p = Object.fromEntries(Object.keys(shapes).map((name, i) => [name, variables[i]])) as P;
    const o = forward(p, batch);
    for (const x of variables) x.dispose();
    return o.arraySync() as number[][];
  });
}

/** Each star's row of `rows` is, in its first `dimensions`, what `embedder` gives (to 4 decimals). */
function expectEmbedderRows(
  rows: number[][],
  embedder: { embed(centre: string, neighbours: readonly string[]): Float32Array },
  dimensions: number,
): void {
  stars.forEach((star, i) => {
    const js = embedder.embed(star.centre, star.neighbours);
    for (let k = 0; k < dimensions; k++) expect(rows[i]![k]).toBeCloseTo(js[k]!, 4);
  });
}

describe('the tfjs models compute what the JavaScript inference computes', () => {
  test('GAT with running batch-norm statistics matches GatEmbedder.embed', async () => {
    const { tf } = await loadTf();
    // Non-trivial batch norm, so every term of the model is exercised.
    const base = createGatEmbedder({ seed: 5 }).weights();
    const weights: Record<string, Float64Array> = {
      ...base,
      gamma: base.gamma!.map((_, k) => 0.5 + (k % 7) / 7),
      beta: base.beta!.map((_, k) => ((k % 5) - 2) / 10),
      runningMean: base.runningMean!.map((_, k) => (k % 3) / 10),
      runningVar: base.runningVar!.map((_, k) => 0.5 + (k % 4) / 4),
      bias: base.bias!.map((_, k) => ((k % 9) - 4) / 20),
    };
    const { GatEmbedder } = await import('../src/gat.js');
    const embedder = new GatEmbedder({ seed: 5 }, weights);
    const rows = modelRows<GatParams>(
      tf,
      weights,
      {
        w: [16, 96],
        attSrc: [96],
        attDst: [96],
        bias: [96],
        gamma: [96],
        beta: [96],
        out: [96, 2],
        outBias: [2],
      },
      5,
      (p, batch) =>
        gatForward(
          tf,
          p,
          batch,
          { heads: 3, hidden: 32, featureDimensions: 16, leakySlope: 0.2, bnEpsilon: 1e-5 },
          {
            mean: weights.runningMean!,
            variance: weights.runningVar!,
          },
        ).o,
    );
    expectEmbedderRows(rows, embedder, 2);
  });

  test('monotone model matches MonotoneEmbedder.embed', async () => {
    const { tf } = await loadTf();
    const embedder = createMonotoneEmbedder({ seed: 9, dimensions: 3 });
    const weights = embedder.weights();
    const rows = modelRows<MonotoneParams>(
      tf,
      weights,
      { w: [16, 96], attSrc: [96], attDst: [96], attBias: [3], out: [96, 3], outBias: [3] },
      9,
      (p, batch) => monotoneForward(tf, p, batch, { heads: 3, hidden: 32, featureDimensions: 16 }),
    );
    expectEmbedderRows(rows, embedder, 3);
  });
});

describe('the registered gradients', () => {
  test('agree with central finite differences on every kernel the models use', async () => {
    const { tf } = await loadTf();
    const rand = (() => {
      const next = mulberry32(17);
      return () => next() * 2 - 1;
    })();
    const values = (n: number) => Array.from({ length: n }, rand);
    // Each case: a scalar function of x (shape [2, 3, 4]) built from one or a few kernels.
    const y = tf.tensor(values(24), [2, 3, 4]);
    const row = tf.tensor(values(4), [4]);
    const m = tf.tensor(values(2 * 4 * 3), [2, 4, 3]);
    const w = tf.tensor(values(4 * 5), [4, 5]);
    const cases: [string, (x: TfTensor) => TfTensor][] = [
      ['Add/Sub with a trailing broadcast', (x) => tf.sum(tf.square(tf.sub(tf.add(x, row), y)))],
      ['Multiply/RealDiv', (x) => tf.sum(tf.div(tf.mul(x, y), tf.add(tf.square(y), 1)))],
      ['broadcast Multiply', (x) => tf.sum(tf.mul(tf.reshape(tf.sum(x, 2), [2, 3, 1]), y))],
      ['Relu/LeakyRelu', (x) => tf.sum(tf.mul(tf.add(tf.relu(x), tf.leakyRelu(x, 0.2)), y))],
      [
        'Sigmoid/Softplus/Exp/Log1p',
        (x) => tf.sum(tf.add(tf.sigmoid(x), tf.log1p(tf.add(tf.softplus(x), tf.exp(x))))),
      ],
      ['Rsqrt/Neg', (x) => tf.sum(tf.neg(tf.rsqrt(tf.add(tf.square(x), 1))))],
      ['Max', (x) => tf.sum(tf.mul(tf.max(x, 2), tf.sum(y, 2)))],
      [
        '2-D MatMul with transposes',
        (x) => tf.sum(tf.matMul(tf.matMul(tf.reshape(x, [6, 4]), w), w, false, true)),
      ],
      ['batched MatMul', (x) => tf.sum(tf.square(tf.matMul(tf.reshape(x, [2, 3, 4]), m)))],
      ['batched MatMul transposed', (x) => tf.sum(tf.matMul(m, tf.reshape(x, [2, 3, 4]), true, true))],
    ];
    type TfTensor = ReturnType<typeof tf.tensor>;
    const x0 = values(24);
    for (const [name, f] of cases) {
      const analytic = tf.tidy(() =>
        Array.from(
          tf
            .grad((x: TfTensor) => f(x))(tf.tensor(x0, [2, 3, 4]))
            .dataSync(),
        ),
      );
      const h = 1e-2;
      for (const i of [0, 5, 13, 23]) {
        const at = (d: number) =>
          tf.tidy(
            () =>
              f(
                tf.tensor(
                  x0.map((v, j) => (j === i ? v + d : v)),
                  [2, 3, 4],
                ),
              ).dataSync()[0]!,
          );
        const numeric = (at(h) - at(-h)) / (2 * h);
        expect(analytic[i], `${name}, component ${i}`).toBeCloseTo(numeric, 1);
      }
    }
  });
});
