/**
 * Cosines with sparse vectors, equal to core's `cosineSimilarity` on the dense ones: the offline
 * assessment keeps the vectors of the sentences it embedded this way (a few hundred bytes each
 * instead of the embedder's dimensions in float32).
 */

/** A vector's components that are not zero, in index order. */
export interface SparseVector {
  at: Uint32Array;
  values: Float64Array;
}

/** `vector`'s components that are not zero (`-0` is zero), in index order. */
export function sparseOf(vector: ArrayLike<number>): SparseVector {
  const at: number[] = [];
  for (let i = 0; i < vector.length; i++) if (vector[i] !== 0) at.push(i);
  return { at: Uint32Array.from(at), values: Float64Array.from(at, (i) => vector[i]!) };
}

/** The sum of `q`'s squares in index order (`cosineSimilarity`'s). */
export function sumOfSquares(q: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < q.length; i++) sum += q[i]! * q[i]!;
  return sum;
}

/**
 * `cosineSimilarity(q, v)` for `v` given sparse and `qq` the sum of `q`'s squares in index order:
 * the same sums in the same order (the zero components of finite vectors add only zeros), so the
 * same value.
 */
export function sparseCosine(q: ArrayLike<number>, qq: number, v: SparseVector): number {
  let ab = 0;
  let bb = 0;
  for (let k = 0; k < v.at.length; k++) {
    const y = v.values[k]!;
    ab += q[v.at[k]!]! * y;
    bb += y * y;
  }
  if (qq === 0 || bb === 0) return 0;
  return ab / Math.sqrt(qq * bb);
}
