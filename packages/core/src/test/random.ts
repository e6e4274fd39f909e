/**
 * Seeded pseudo-random test data: identical inputs across runs make results comparable. The
 * generator itself is `mulberry32` from `@grag/core`, re-exported here for tests and benchmarks.
 */
import { mulberry32 } from '../random.js';

export { mulberry32 };

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
