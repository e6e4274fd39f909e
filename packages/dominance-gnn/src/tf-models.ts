/**
 * The two attention models as tfjs computations on padded batches of stars (training only; the
 * embedder classes run the same models in plain JavaScript for inference).
 *
 * The pure-JS CPU backend is fast for matrix products and for element-wise ops between tensors of
 * one shape (or with a trailing-suffix / scalar operand), and slow (index arithmetic per element)
 * for any other broadcast or for reductions over a non-last axis. So every per-star sum and every
 * "copy the centre's value to each row" is written as a (batched) product with a constant 0/1
 * matrix, and every element-wise op pairs tensors of the same shape.
 */
import type * as TfCore from '@tensorflow/tfjs-core';
import type { Star } from './graph.js';
import type { Tf } from './tf.js';

type Tensor = TfCore.Tensor;

/** A padded batch of stars as flat arrays: `size` stars of `width` rows (centre first). */
export interface StarBatch {
  size: number;
  width: number;
  /** `size × width × features` input features, zero on padding rows. */
  x: Float32Array;
  /** `size × width`: 1 on real rows. */
  valid: Float32Array;
}

/** Lay out `stars` as a {@link StarBatch}, padded to the widest star. */
export function buildBatch(
  stars: readonly Star[],
  features: number,
  featuresOf: (label: string) => ArrayLike<number>,
): StarBatch {
  const width = 1 + Math.max(0, ...stars.map((s) => s.neighbours.length));
  const x = new Float32Array(stars.length * width * features);
  const valid = new Float32Array(stars.length * width);
  stars.forEach((star, n) => {
    const labels = [star.centre, ...star.neighbours];
    labels.forEach((label, r) => {
      x.set(featuresOf(label), (n * width + r) * features);
      valid[n * width + r] = 1;
    });
  });
  return { size: stars.length, width, x, valid };
}

/** Constant tensors describing a batch's layout (no gradient flows into them). */
function layout(tf: Tf, batch: StarBatch, heads: number, hidden: number) {
  const { size: n, width: s } = batch;
  const hc = heads * hidden;
  const rows = n * s;
  // [n, s, s]: row r copies row 0 of its star (centre broadcast).
  const fromCentre = new Float32Array(n * s * s);
  // [n, s, s]: every row gets the sum over its star's rows.
  const starSum = new Float32Array(n * s * s);
  // [n, 1, s]: picks the centre row / sums the valid rows / sums the valid leaf rows.
  const pickCentre = new Float32Array(n * s);
  const sumValid = new Float32Array(n * s);
  const sumLeaves = new Float32Array(n * s);
  // [rows, hc]: 1 on centre rows / on valid leaf rows.
  const centreRows = new Float32Array(rows * hc);
  const leafRows = new Float32Array(rows * hc);
  // [rows, heads]: 1 on valid rows; 0 or -1e9 (padding) for the softmax logits.
  const validH = new Float32Array(rows * heads);
  const padding = new Float32Array(rows * heads);
  for (let b = 0; b < n; b++) {
    for (let r = 0; r < s; r++) {
      const row = b * s + r;
      const ok = batch.valid[row] === 1;
      fromCentre[(b * s + r) * s] = 1;
      if (ok) for (let q = 0; q < s; q++) starSum[(b * s + q) * s + r] = 1;
      if (r === 0) pickCentre[b * s] = 1;
      if (ok) sumValid[row] = 1;
      if (ok && r > 0) sumLeaves[row] = 1;
      if (r === 0) centreRows.fill(1, row * hc, (row + 1) * hc);
      else if (ok) leafRows.fill(1, row * hc, (row + 1) * hc);
      validH.fill(ok ? 1 : 0, row * heads, (row + 1) * heads);
      padding.fill(ok ? 0 : -1e9, row * heads, (row + 1) * heads);
    }
  }
  // [heads, hc]: 1 where column k belongs to head h (expands per-head values to channels).
  const expand = new Float32Array(heads * hc);
  for (let h = 0; h < heads; h++) expand.fill(1, h * hc + h * hidden, h * hc + (h + 1) * hidden);
  // [hc, heads]: the transpose, used to build the block-diagonal attention matrices.
  const headOf = new Float32Array(hc * heads);
  for (let k = 0; k < hc; k++) headOf[k * heads + Math.floor(k / hidden)] = 1;
  return {
    fromCentre: tf.tensor3d(fromCentre, [n, s, s]),
    starSum: tf.tensor3d(starSum, [n, s, s]),
    pickCentre: tf.tensor3d(pickCentre, [n, 1, s]),
    sumValid: tf.tensor3d(sumValid, [n, 1, s]),
    sumLeaves: tf.tensor3d(sumLeaves, [n, 1, s]),
    validRow: tf.tensor2d(batch.valid, [1, rows]),
    centreRows: tf.tensor2d(centreRows, [rows, hc]),
    leafRows: tf.tensor2d(leafRows, [rows, hc]),
    validH: tf.tensor2d(validH, [rows, heads]),
    padding: tf.tensor2d(padding, [rows, heads]),
    expand: tf.tensor2d(expand, [heads, hc]),
    headOf: tf.tensor2d(headOf, [hc, heads]),
    count: batch.valid.reduce((a, b) => a + b, 0),
  };
}

type Layout = ReturnType<typeof layout>;

/** X·W and the per-head attention scores a_src·(W·x), a_dst·(W·x) of every row. */
function project(
  tf: Tf,
  batch: StarBatch,
  l: Layout,
  w: Tensor,
  attSrc: Tensor,
  attDst: Tensor,
  features: number,
) {
  const rows = batch.size * batch.width;
  const h = tf.matMul(tf.tensor2d(batch.x, [rows, features]), w);
  const block = (a: Tensor) => tf.mul(tf.reshape(a, [-1, 1]), l.headOf);
  return { h, src: tf.matMul(h, block(attSrc)), dst: tf.matMul(h, block(attDst)) };
}

/** Apply a batched [n, s, s] (or [n, 1, s]) row operator to a [rows, k] tensor. */
function perStar(tf: Tf, op: Tensor, x: Tensor, batch: StarBatch): Tensor {
  const k = x.shape[1]!;
  const out = tf.matMul(op, tf.reshape(x, [batch.size, batch.width, k]));
  return tf.reshape(out, [-1, k]);
}

/** The GAT model's weights as tensors (names as in `GatEmbedder` weights). */
export interface GatParams {
  w: Tensor;
  attSrc: Tensor;
  attDst: Tensor;
  bias: Tensor;
  gamma: Tensor;
  beta: Tensor;
  out: Tensor;
  outBias: Tensor;
}

/** Architecture numbers the tfjs GAT needs. */
export interface GatDims {
  heads: number;
  hidden: number;
  featureDimensions: number;
  leakySlope: number;
  bnEpsilon: number;
}

/**
 * The GAT model of `GatEmbedder` on a batch of stars. `running` given: batch norm with running
 * statistics (inference); otherwise with the batch's statistics over its real rows, returned as
 * `stats`. Returns `[size, dimensions]` embeddings.
 */
export function gatForward(
  tf: Tf,
  p: GatParams,
  batch: StarBatch,
  dims: GatDims,
  running?: { mean: ArrayLike<number>; variance: ArrayLike<number> },
): { o: Tensor; stats?: { mean: Tensor; variance: Tensor } } {
  const { heads, hidden, featureDimensions, leakySlope, bnEpsilon } = dims;
  const hc = heads * hidden;
  const l = layout(tf, batch, heads, hidden);
  const { h, src, dst } = project(tf, batch, l, p.w, p.attSrc, p.attDst, featureDimensions);
  // Centre row: softmax over the centre and its neighbours of LeakyReLU(a_dst·Wx_c + a_src·Wx_j).
  const logits = tf.add(
    tf.leakyRelu(tf.add(perStar(tf, l.fromCentre, dst, batch), src), leakySlope),
    l.padding,
  );
  const shift = tf.scalar(tf.max(logits).dataSync()[0]!);
  const e = tf.mul(tf.exp(tf.sub(logits, shift)), l.validH);
  const alpha = tf.div(e, tf.add(perStar(tf, l.starSum, e, batch), 1e-30));
  const weighted = tf.mul(tf.matMul(alpha, l.expand), h);
  const centreRow = tf.mul(perStar(tf, l.starSum, weighted, batch), l.centreRows);
  // Leaf rows: a two-way softmax between the leaf itself and the centre.
  const self = tf.leakyRelu(tf.add(dst, src), leakySlope);
  const toCentre = tf.leakyRelu(tf.add(dst, perStar(tf, l.fromCentre, src, batch)), leakySlope);
  const a = tf.matMul(tf.sigmoid(tf.sub(self, toCentre)), l.expand);
  const leaf = tf.add(tf.mul(a, h), tf.mul(tf.sub(1, a), perStar(tf, l.fromCentre, h, batch)));
  const rows = tf.add(centreRow, tf.mul(leaf, l.leafRows));
  const r = tf.relu(tf.add(rows, p.bias));
  let normed: Tensor;
  let stats: { mean: Tensor; variance: Tensor } | undefined;
  if (running) {
    const mean = tf.tensor1d(Float32Array.from(running.mean));
    const scale = tf.mul(
      p.gamma,
      tf.rsqrt(tf.add(tf.tensor1d(Float32Array.from(running.variance)), bnEpsilon)),
    );
    normed = tf.add(tf.mul(tf.sub(r, mean), scale), p.beta);
  } else {
    const mean = tf.reshape(tf.mul(tf.matMul(l.validRow, r), 1 / l.count), [hc]);
    const centred = tf.sub(r, mean);
    const variance = tf.reshape(tf.mul(tf.matMul(l.validRow, tf.square(centred)), 1 / l.count), [hc]);
    normed = tf.add(tf.mul(tf.mul(centred, tf.rsqrt(tf.add(variance, bnEpsilon))), p.gamma), p.beta);
    stats = { mean, variance };
  }
  // Add-pool over the star's real rows, projection, sigmoid.
  const pooled = perStar(tf, l.sumValid, normed, batch);
  const o = tf.sigmoid(tf.add(tf.matMul(pooled, p.out), p.outBias));
  return stats ? { o, stats } : { o };
}

/** The monotone model's weights as tensors (names as in `MonotoneEmbedder` weights). */
export interface MonotoneParams {
  w: Tensor;
  attSrc: Tensor;
  attDst: Tensor;
  attBias: Tensor;
  out: Tensor;
  outBias: Tensor;
}

/** The model of `MonotoneEmbedder` on a batch of stars; `[size, dimensions]` embeddings. */
export function monotoneForward(
  tf: Tf,
  p: MonotoneParams,
  batch: StarBatch,
  dims: { heads: number; hidden: number; featureDimensions: number },
): Tensor {
  const { heads, hidden, featureDimensions } = dims;
  const l = layout(tf, batch, heads, hidden);
  const { h, src, dst } = project(tf, batch, l, p.w, p.attSrc, p.attDst, featureDimensions);
  const gate = tf.sigmoid(tf.add(tf.add(perStar(tf, l.fromCentre, dst, batch), src), p.attBias));
  const body = tf.softplus(h);
  const messages = tf.mul(tf.mul(tf.matMul(gate, l.expand), body), l.leafRows);
  const y = tf.add(perStar(tf, l.pickCentre, body, batch), perStar(tf, l.sumLeaves, messages, batch));
  return tf.sigmoid(tf.add(tf.matMul(tf.log1p(y), tf.softplus(p.out)), p.outBias));
}

/** `rows × cols` matrix with +1 at (b, plus[b]) and -1 at (b, minus[b]): picks differences. */
export function differenceMatrix(
  tf: Tf,
  rows: number,
  cols: number,
  plus: number[],
  minus: number[],
): Tensor {
  const m = new Float32Array(rows * cols);
  for (let b = 0; b < rows; b++) {
    m[b * cols + plus[b]!] = 1;
    m[b * cols + minus[b]!] = -1;
  }
  return tf.tensor2d(m, [rows, cols]);
}

/**
 * Per pair of a batch of `b` pairs whose outputs `out` hold every pair's first star, then every
 * second one: o(second) − o(first) (`'second-first'`) or o(first) − o(second) (`'first-second'`).
 */
export function pairDifferences(
  tf: Tf,
  out: Tensor,
  b: number,
  order: 'second-first' | 'first-second',
): Tensor {
  const firsts = Array.from({ length: b }, (_, k) => k);
  const seconds = firsts.map((k) => b + k);
  const [plus, minus] = order === 'second-first' ? [seconds, firsts] : [firsts, seconds];
  return tf.matMul(differenceMatrix(tf, b, 2 * b, plus, minus), out);
}
