/**
 * Seeded pseudo-random numbers: grag's one generator, so sampled training pairs, shuffles, k-means++
 * seeding and generated benchmark data are identical across runs and machines. Not for anything
 * that needs real randomness (use `crypto.getRandomValues`).
 *
 * {@link mulberry32} is the generator to use. {@link weylFmix32} is a second recurrence kept only so
 * that `@grag/heterograph` (Leiden, betweenness sampling, k-means++) draws the streams its recorded
 * results were made with; new code should not pick it.
 *
 * @module
 */

/** A function returning uniform floats in [0, 1), deterministic for the seed it was made with. */
export type Random = () => number;

/**
 * mulberry32 (Tommy Ettinger, 2017): a 32-bit state advanced by the Weyl increment `0x6D2B79F5`
 * and mixed with two multiply-xorshift rounds. Fast, period 2³², good enough for shuffles,
 * sampling and test data. Every call of the returned function gives the next float in [0, 1)
 * (a 32-bit integer divided by 2³²).
 *
 * @param seed - Any number; only its low 32 bits count (`-1` and `0xFFFFFFFF` give the same stream).
 * @returns the generator, at the start of the seed's stream.
 *
 * @example
 * ```ts
 * const rand = mulberry32(42);
 * rand(); // 0.6011037519201636, on every run and machine
 * ```
 */
export function mulberry32(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A Weyl sequence (increment `0x9E3779B9`, the golden ratio) passed through MurmurHash3's 32-bit
 * finalizer (`fmix32`). Same speed and quality class as {@link mulberry32}, different streams.
 * Kept for `@grag/heterograph`, whose seeded algorithms (and so NodeRAG's graphs) were recorded with
 * it; use {@link mulberry32} elsewhere.
 *
 * @param seed - Any number; only its low 32 bits count.
 * @returns the generator, at the start of the seed's stream.
 */
export function weylFmix32(seed: number): Random {
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

/**
 * An integer in [0, n) drawn from `rand` (one call).
 *
 * @example
 * ```ts
 * randomInt(mulberry32(7), 10); // 0..9
 * ```
 */
export function randomInt(rand: Random, n: number): number {
  return Math.min(n - 1, Math.floor(rand() * n));
}

/**
 * Shuffle `values` in place (Fisher–Yates, from the last position down, one {@link randomInt} per
 * position) with `rand`; works on arrays and typed arrays.
 *
 * @returns `values`, shuffled.
 */
export function shuffleInPlace<T extends { length: number; [i: number]: unknown }>(
  values: T,
  rand: Random,
): T {
  for (let i = values.length - 1; i > 0; i--) {
    const j = randomInt(rand, i + 1);
    const tmp = values[i];
    values[i] = values[j];
    values[j] = tmp;
  }
  return values;
}
