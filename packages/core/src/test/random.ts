/**
 * Seeded pseudo-random test data: identical inputs across runs make results comparable. The
 * generator itself is `mulberry32` from `@grag/core`, re-exported here for tests and benchmarks.
 */
import { mulberry32, type Random } from '../random.js';

export { mulberry32, type Random };

/**
 * A 32-bit linear congruential generator (multiplier 1664525, increment 1013904223, as in
 * Numerical Recipes) giving floats in [0, 1): the state advances first, then is divided by 2³².
 * The stream the graph and vector property tests of `@grag/ktruss` and `@grag/da-rag` draw from,
 * kept so that they see the inputs they were written with; new tests should use {@link mulberry32}.
 *
 * @param seed - The starting state; only its low 32 bits count.
 */
export function lcg32(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
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
