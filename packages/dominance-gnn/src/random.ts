/**
 * Label hashing and seeded initial values: every embedder is a deterministic function of its seed,
 * so identical inputs give identical embeddings across runs and machines. The generator is
 * `mulberry32` from `@grag/core`.
 */
import { mulberry32, type Random } from '@grag/core/kit';

/** 32-bit FNV-1a hash of `text`, mixed with `seed`. */
export function hashString(text: string, seed = 0): number {
  let h = (0x811c9dc5 ^ Math.imul(seed | 0, 0x9e3779b1)) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/**
 * The default input features of a label: `dimensions` values uniform in [-1, 1), drawn from a
 * generator seeded by the label's hash and `seed`. Any string gets a vector, so labels unseen in
 * training (query labels) need no vocabulary.
 */
export function hashedLabelFeatures(label: string, dimensions: number, seed: number): Float32Array {
  const rand = mulberry32(hashString(label, seed));
  const v = new Float32Array(dimensions);
  for (let i = 0; i < dimensions; i++) v[i] = rand() * 2 - 1;
  return v;
}

/** Glorot-uniform initial weights of a `fanIn × fanOut` matrix (row-major). */
export function glorotUniform(fanIn: number, fanOut: number, rand: Random, size = fanIn * fanOut): number[] {
  const limit = Math.sqrt(6 / (fanIn + fanOut));
  const out: number[] = new Array(size);
  for (let i = 0; i < size; i++) out[i] = (rand() * 2 - 1) * limit;
  return out;
}
