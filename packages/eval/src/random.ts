/**
 * Seeded pseudo-random helpers, so generated data is identical across runs. The generator,
 * `seededRandom`, is `mulberry32` from `@grag/core`.
 */
import { type Random, shuffleInPlace } from '@grag/core/kit';

export { mulberry32 as seededRandom, type Random } from '@grag/core/kit';

/** A uniform integer in [min, max]. */
export function randomInt(random: Random, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

/** Shuffle `items` in place (Fisher-Yates) and return it. */
export function shuffle<T>(random: Random, items: T[]): T[] {
  return shuffleInPlace(items, random);
}
