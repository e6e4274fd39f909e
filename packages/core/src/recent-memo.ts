/**
 * A bounded memo of recent results by key, in two generations: a key found in the older
 * generation moves to the newer, and when the newer holds half the capacity it becomes the older
 * and the older is dropped. Every operation is O(1); at most `capacity` entries are held, and at
 * least the `capacity / 2` most recently set or found keys are kept. (A least-recently-used order
 * kept in one `Map` by deleting and re-inserting each hit, and evicting the first key, slows down
 * as the map fills with the holes of its deletions: a build memoizing millions of new texts meets
 * that.)
 *
 * @example
 * const counts = new RecentMemo<string, number>(50_000);
 * const count = (text: string) => counts.get(text) ?? counts.set(text, encode(text).length);
 */
export class RecentMemo<K, V> {
  readonly capacity: number;
  #newer = new Map<K, V>();
  #older = new Map<K, V>();

  /** @param capacity Most entries held (at least 2). */
  constructor(capacity: number) {
    this.capacity = Math.max(2, Math.floor(capacity));
  }

  /** The value of `key`, when it is held (a hit in the older generation moves it to the newer). */
  get(key: K): V | undefined {
    const value = this.#newer.get(key);
    if (value !== undefined) return value;
    const old = this.#older.get(key);
    if (old !== undefined) this.set(key, old);
    return old;
  }

  /** Hold `value` for `key`; returns `value`. */
  set(key: K, value: V): V {
    this.#newer.set(key, value);
    if (this.#newer.size >= this.capacity / 2) {
      this.#older = this.#newer;
      this.#newer = new Map();
    }
    return value;
  }
}
