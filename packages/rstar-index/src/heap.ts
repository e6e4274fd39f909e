/**
 * A binary min-heap of (key, value) pairs on growable typed arrays: the priority queue of the
 * best-first traversals. Values are int32 (entry ids, or `~node` for nodes).
 */
export class MinHeap {
  private keys: Float64Array;
  private values: Int32Array;
  /** Number of pairs held. */
  length = 0;

  constructor(capacity = 64) {
    this.keys = new Float64Array(capacity);
    this.values = new Int32Array(capacity);
  }

  push(key: number, value: number): void {
    if (this.length === this.keys.length) {
      const keys = new Float64Array(this.keys.length * 2);
      keys.set(this.keys);
      this.keys = keys;
      const values = new Int32Array(this.values.length * 2);
      values.set(this.values);
      this.values = values;
    }
    const keys = this.keys;
    const values = this.values;
    let i = this.length++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pk = keys[parent]!;
      if (pk <= key) break;
      keys[i] = pk;
      values[i] = values[parent]!;
      i = parent;
    }
    keys[i] = key;
    values[i] = value;
  }

  /** Key of the smallest pair; only valid when `length > 0`. */
  peekKey(): number {
    return this.keys[0]!;
  }

  /** Value of the smallest pair; only valid when `length > 0`. */
  peekValue(): number {
    return this.values[0]!;
  }

  /** Remove the smallest pair (read it first with `peekKey`/`peekValue`). */
  pop(): void {
    const n = --this.length;
    if (n <= 0) return;
    const keys = this.keys;
    const values = this.values;
    const key = keys[n]!;
    const value = values[n]!;
    let i = 0;
    const half = n >> 1;
    while (i < half) {
      let child = 2 * i + 1;
      const right = child + 1;
      if (right < n && keys[right]! < keys[child]!) child = right;
      if (keys[child]! >= key) break;
      keys[i] = keys[child]!;
      values[i] = values[child]!;
      i = child;
    }
    keys[i] = key;
    values[i] = value;
  }
}
