/**
 * Bounded heaps of the best k candidates (internal to core: the exact k-NN graph's rows, BM25's best
 * hits).
 */

/**
 * n bounded heaps of size k on flat typed arrays; the root of each is its worst kept candidate
 * (lowest score, then highest index), so a better candidate replaces it in O(log k).
 */
export class TopK {
  private readonly idx: Int32Array;
  private readonly score: Float64Array;
  private readonly size: Int32Array;

  constructor(
    n: number,
    private readonly k: number,
  ) {
    this.idx = new Int32Array(n * k);
    this.score = new Float64Array(n * k);
    this.size = new Int32Array(n);
  }

  /** Whether (s1, i1) ranks below (s2, i2): lower score, or equal score and higher index. */
  private static worse(s1: number, i1: number, s2: number, i2: number): boolean {
    return s1 < s2 || (s1 === s2 && i1 > i2);
  }

  offer(row: number, candidate: number, s: number): void {
    const k = this.k;
    if (k === 0) return;
    const base = row * k;
    const size = this.size[row]!;
    const idx = this.idx;
    const score = this.score;
    if (size < k) {
      // sift up from the end
      let pos = size;
      while (pos > 0) {
        const parent = (pos - 1) >> 1;
        if (!TopK.worse(s, candidate, score[base + parent]!, idx[base + parent]!)) break;
        idx[base + pos] = idx[base + parent]!;
        score[base + pos] = score[base + parent]!;
        pos = parent;
      }
      idx[base + pos] = candidate;
      score[base + pos] = s;
      this.size[row] = size + 1;
      return;
    }
    if (!TopK.worse(score[base]!, idx[base]!, s, candidate)) return; // not better than the worst kept
    // replace the root and sift down
    let pos = 0;
    for (;;) {
      const left = 2 * pos + 1;
      if (left >= k) break;
      let child = left;
      const right = left + 1;
      if (
        right < k &&
        TopK.worse(score[base + right]!, idx[base + right]!, score[base + left]!, idx[base + left]!)
      ) {
        child = right;
      }
      if (!TopK.worse(score[base + child]!, idx[base + child]!, s, candidate)) break;
      idx[base + pos] = idx[base + child]!;
      score[base + pos] = score[base + child]!;
      pos = child;
    }
    idx[base + pos] = candidate;
    score[base + pos] = s;
  }

  /** The kept candidates of `row`, best first. */
  sorted(row: number): [Int32Array, Float64Array] {
    const size = this.size[row]!;
    const base = row * this.k;
    const order = Array.from({ length: size }, (_, r) => r);
    order.sort((x, y) => {
      const sx = this.score[base + x]!;
      const sy = this.score[base + y]!;
      return sy - sx || this.idx[base + x]! - this.idx[base + y]!;
    });
    return [
      Int32Array.from(order, (r) => this.idx[base + r]!),
      Float64Array.from(order, (r) => this.score[base + r]!),
    ];
  }
}
