/**
 * Seeded pseudo-random numbers for tests and benchmarks: identical inputs across runs make results
 * comparable. Not for anything that needs real randomness.
 */

/**
 * mulberry32: a tiny 32-bit seeded generator. Returns a function giving floats in [0, 1).
 *
 * @example
 * ```ts
 * const rand = mulberry32(42);
 * rand(); // the same sequence on every run
 * ```
 */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `n` vectors of `d` components drawn uniformly from [-1, 1) by {@link mulberry32}(`seed`). */
export function randomVectors(n: number, d: number, seed: number): Float32Array[] {
  const rand = mulberry32(seed);
  const out: Float32Array[] = [];
  for (let i = 0; i < n; i++) {
    const v = new Float32Array(d);
    for (let j = 0; j < d; j++) v[j] = rand() * 2 - 1;
    out.push(v);
  }
  return out;
}
