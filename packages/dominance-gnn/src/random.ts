/**
 * Seeded pseudo-random numbers and label hashing: every embedder is a deterministic function of
 * its seed, so identical inputs give identical embeddings across runs and machines.
 */

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
 * A seeded generator of floats in [0, 1) (the mulberry32 recurrence). Not for anything that needs
 * real randomness.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seeded integer in [0, n). */
export function randomInt(rand: () => number, n: number): number {
  return Math.min(n - 1, Math.floor(rand() * n));
}

/** Shuffle `items` in place (Fisher–Yates) with `rand`. */
export function shuffleInPlace<T>(items: T[], rand: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = randomInt(rand, i + 1);
    const t = items[i]!;
    items[i] = items[j]!;
    items[j] = t;
  }
  return items;
}

/**
 * The default input features of a label: `dimensions` values uniform in [-1, 1), drawn from a
 * generator seeded by the label's hash and `seed`. Any string gets a vector, so labels unseen in
 * training (query labels) need no vocabulary.
 */
export function hashedLabelFeatures(label: string, dimensions: number, seed: number): Float32Array {
  const rand = seededRandom(hashString(label, seed));
  const v = new Float32Array(dimensions);
  for (let i = 0; i < dimensions; i++) v[i] = rand() * 2 - 1;
  return v;
}

/** Glorot-uniform initial weights of a `fanIn × fanOut` matrix (row-major). */
export function glorotUniform(
  fanIn: number,
  fanOut: number,
  rand: () => number,
  size = fanIn * fanOut,
): number[] {
  const limit = Math.sqrt(6 / (fanIn + fanOut));
  const out: number[] = new Array(size);
  for (let i = 0; i < size; i++) out[i] = (rand() * 2 - 1) * limit;
  return out;
}
