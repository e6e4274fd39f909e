/**
 * A small seeded pseudo-random generator: a Weyl sequence passed through the MurmurHash3 32-bit
 * finalizer. Deterministic for a seed, fast, and good enough for shuffles and sampling; not for
 * anything that needs real randomness.
 *
 * @returns a function giving floats in [0, 1).
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    z ^= z >>> 16;
    return (z >>> 0) / 4294967296;
  };
}

/** An integer in [0, n) drawn from `rand`. */
export function randomInt(rand: () => number, n: number): number {
  return Math.min(n - 1, Math.floor(rand() * n));
}

/** Shuffle `values` in place (Fisher–Yates) with `rand`; returns `values`. */
export function shuffleInPlace<T extends { length: number; [i: number]: unknown }>(
  values: T,
  rand: () => number,
): T {
  for (let i = values.length - 1; i > 0; i--) {
    const j = randomInt(rand, i + 1);
    const tmp = values[i];
    values[i] = values[j];
    values[j] = tmp;
  }
  return values;
}
