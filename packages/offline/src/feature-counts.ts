/**
 * `FeatureCounts`: counts of 32-bit feature hashes in first-seen order, on typed arrays — what a
 * `Map<number, number>` of counts gives (`get`, iteration in insertion order), without its
 * per-entry cost. `HashedTfidfEmbedder` counts every word, bigram and character n-gram of a text
 * with it.
 */

import { mix32 } from './hash.js';

/** Slots of the smallest table (a power of two). */
const MIN_SLOTS = 64;

/**
 * Counts of unsigned 32-bit keys, iterated in the order each key was first added (as a `Map` is).
 * An open-addressing table (linear probing) maps a key to its position in two insertion-ordered
 * arrays, the keys and their counts; {@link clear} empties it for the next text in O(1) amortized
 * (slots are marked with a generation, not wiped).
 */
export class FeatureCounts {
  /** Keys in first-seen order (the first {@link size} entries). */
  keys: Uint32Array;
  /** Count of each key of {@link keys}. */
  counts: Uint32Array;
  /** Number of distinct keys. */
  size = 0;
  // Hash table: position + 1 of the key in `keys` for slots of the current generation.
  #slotPosition: Uint32Array;
  #slotGeneration: Uint32Array;
  #generation = 1;
  #mask: number;

  constructor(capacity = MIN_SLOTS / 2) {
    let slots = MIN_SLOTS;
    while (slots < 2 * capacity) slots *= 2;
    this.#mask = slots - 1;
    this.#slotPosition = new Uint32Array(slots);
    this.#slotGeneration = new Uint32Array(slots);
    this.keys = new Uint32Array(slots / 2);
    this.counts = new Uint32Array(slots / 2);
  }

  /** Forget every key. */
  clear(): void {
    this.size = 0;
    this.#generation++;
    if (this.#generation === 0xffffffff) {
      this.#slotGeneration.fill(0);
      this.#generation = 1;
    }
  }

  /** Add 1 to the count of `key` (an unsigned 32-bit integer). */
  increment(key: number): void {
    const mask = this.#mask;
    const positions = this.#slotPosition;
    const generations = this.#slotGeneration;
    const generation = this.#generation;
    const keys = this.keys;
    let slot = mix32(key) & mask;
    for (;;) {
      if (generations[slot] !== generation) break;
      const at = positions[slot]! - 1;
      if (keys[at] === key) {
        this.counts[at]!++;
        return;
      }
      slot = (slot + 1) & mask;
    }
    if (this.size === keys.length) {
      this.#grow();
      this.increment(key);
      return;
    }
    const at = this.size++;
    keys[at] = key;
    this.counts[at] = 1;
    generations[slot] = generation;
    positions[slot] = at + 1;
  }

  /** The count of `key` (0 when absent). */
  get(key: number): number {
    const mask = this.#mask;
    let slot = mix32(key) & mask;
    while (this.#slotGeneration[slot] === this.#generation) {
      const at = this.#slotPosition[slot]! - 1;
      if (this.keys[at] === key) return this.counts[at]!;
      slot = (slot + 1) & mask;
    }
    return 0;
  }

  /** Twice the slots (at most half of them used): the keys and counts kept, the table rebuilt. */
  #grow(): void {
    const slots = 2 * (this.#mask + 1);
    const keys = new Uint32Array(slots / 2);
    keys.set(this.keys);
    const counts = new Uint32Array(slots / 2);
    counts.set(this.counts);
    this.keys = keys;
    this.counts = counts;
    this.#mask = slots - 1;
    this.#slotPosition = new Uint32Array(slots);
    this.#slotGeneration = new Uint32Array(slots);
    this.#generation = 1;
    for (let at = 0; at < this.size; at++) {
      let slot = mix32(keys[at]!) & this.#mask;
      while (this.#slotGeneration[slot] === 1) slot = (slot + 1) & this.#mask;
      this.#slotGeneration[slot] = 1;
      this.#slotPosition[slot] = at + 1;
    }
  }
}
