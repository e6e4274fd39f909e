/**
 * A stack of unsigned 32-bit integers on a typed array that grows by doubling and is emptied without
 * freeing its storage (internal: not exported from the package). Peeling empties its scratch lists
 * once per removal step; resetting a plain array's length to 0 frees its storage, and the next pushes
 * allocate it again.
 */
export class IntStack {
  data: Uint32Array;
  length = 0;

  constructor(capacity = 64) {
    this.data = new Uint32Array(Math.max(1, capacity));
  }

  push(x: number): void {
    if (this.length === this.data.length) {
      const grown = new Uint32Array(2 * this.data.length);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = x;
  }

  /** The last entry, removed (the stack must not be empty). */
  pop(): number {
    return this.data[--this.length]!;
  }

  clear(): void {
    this.length = 0;
  }
}
