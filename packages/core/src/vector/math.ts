/**
 * Small dense-vector helpers shared by the vector indexes and the algorithms that score embeddings.
 * All functions read the first `a.length` components; pass vectors of equal length.
 */

/** Inner product `Σ a[i]·b[i]`. */
export function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let sum = 0;
  const n = a.length;
  for (let i = 0; i < n; i++) sum += (a[i] as number) * (b[i] as number);
  return sum;
}

/** Euclidean (L2) norm `√Σ a[i]²`. */
export function norm(a: ArrayLike<number>): number {
  return Math.sqrt(dot(a, a));
}

/**
 * A new `Float32Array` with the direction of `a` and unit length. A zero vector stays zero (no NaN).
 */
export function normalize(a: ArrayLike<number>): Float32Array {
  const out = new Float32Array(a.length);
  const length = norm(a);
  if (length === 0 || !Number.isFinite(length)) {
    if (length !== 0) for (let i = 0; i < a.length; i++) out[i] = a[i] as number;
    return out;
  }
  const inv = 1 / length;
  for (let i = 0; i < a.length; i++) out[i] = (a[i] as number) * inv;
  return out;
}

/** Cosine similarity `a·b / (‖a‖‖b‖)` in [-1, 1]; 0 when either vector is zero. */
export function cosineSimilarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let ab = 0;
  let aa = 0;
  let bb = 0;
  const n = a.length;
  for (let i = 0; i < n; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    ab += x * y;
    aa += x * x;
    bb += y * y;
  }
  if (aa === 0 || bb === 0) return 0;
  return ab / Math.sqrt(aa * bb);
}

/** Squared Euclidean distance `Σ (a[i] − b[i])²`. */
export function squaredL2(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let sum = 0;
  const n = a.length;
  for (let i = 0; i < n; i++) {
    const d = (a[i] as number) - (b[i] as number);
    sum += d * d;
  }
  return sum;
}
