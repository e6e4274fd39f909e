/**
 * The R* split (Beckmann et al. 1990 §4.2) of an overflowing node: ChooseSplitAxis (the axis of
 * least total margin over every distribution of both sorts), then ChooseSplitIndex (the
 * distribution of least overlap, ties least total area). It chooses; `insert.ts` moves the children.
 */
import type { TreeStore } from './store.js';

/** How to split a node: its children in the chosen order, the first `k` of them staying. */
export interface SplitChoice {
  sorted: Int32Array;
  k: number;
}

/** Copy the children's boxes, on the heuristic dims, into `splitBoxes`: child c at [c·2H, c·2H + 2H). */
function loadSplitBoxes(t: TreeStore, items: Int32Array, level: number): void {
  const D = t.D;
  const s = t.stride;
  const src = level === 0 ? t.entryBoxes : t.nodeBoxes;
  const h0 = t.h0;
  const H = t.h1 - h0;
  const H2 = 2 * H;
  const boxes = t.splitBoxes;
  for (let c = 0; c < items.length; c++) {
    const o = items[c]! * s + h0;
    const bo = c * H2;
    for (let i = 0; i < H; i++) {
      boxes[bo + i] = src[o + i]!;
      boxes[bo + H + i] = src[o + D + i]!;
    }
  }
}

/** Choose how to split node `n` (which holds M + 1 children). */
export function chooseSplit(t: TreeStore, n: number): SplitChoice {
  const level = t.nodeLevel[n]!;
  const m = t.minEntries;
  const base = n * t.slots;
  const count = t.nodeSize[n]!;
  const items = Int32Array.from(t.nodeChildren.subarray(base, base + count));
  loadSplitBoxes(t, items, level);
  const H = t.h1 - t.h0;

  // ChooseSplitAxis: least sum of margins over every distribution of both sorts.
  let bestAxis = 0;
  let bestMarginSum = Number.POSITIVE_INFINITY;
  for (let axis = 0; axis < H; axis++) {
    const sum = marginSum(t, count, m, axis, false) + marginSum(t, count, m, axis, true);
    if (sum < bestMarginSum) {
      bestMarginSum = sum;
      bestAxis = axis;
    }
  }
  // ChooseSplitIndex: least overlap, ties least total area.
  let bestUpper = false;
  let bestK = m;
  let bestOverlap = Number.POSITIVE_INFINITY;
  let bestArea = Number.POSITIVE_INFINITY;
  for (const upper of [false, true]) {
    sortChildren(t, count, bestAxis, upper);
    groupBoxes(t, count);
    const pre = t.prefixBoxes;
    const suf = t.suffixBoxes;
    const H2 = 2 * H;
    for (let k = m; k <= count - m; k++) {
      const a = (k - 1) * H2;
      const b = k * H2;
      let ov = 1;
      let areaA = 1;
      let areaB = 1;
      for (let i = 0; i < H; i++) {
        const w = Math.min(pre[a + H + i]!, suf[b + H + i]!) - Math.max(pre[a + i]!, suf[b + i]!);
        ov = w > 0 ? ov * w : 0;
        areaA *= pre[a + H + i]! - pre[a + i]!;
        areaB *= suf[b + H + i]! - suf[b + i]!;
      }
      const ar = areaA + areaB;
      if (
        bestOverlap === Number.POSITIVE_INFINITY ||
        ov < bestOverlap ||
        (!(ov > bestOverlap) && ar < bestArea)
      ) {
        bestOverlap = ov;
        bestArea = ar;
        bestUpper = upper;
        bestK = k;
      }
    }
  }
  sortChildren(t, count, bestAxis, bestUpper);
  const sorted = Int32Array.from(t.orderScratch.subarray(0, count), (c) => items[c]!);
  return { sorted, k: bestK };
}

/**
 * For the children in `orderScratch` order: `prefixBoxes[k]` = MBR of the first k + 1 of them,
 * `suffixBoxes[k]` = MBR of those from k on.
 */
function groupBoxes(t: TreeStore, count: number): void {
  const boxes = t.splitBoxes;
  const order = t.orderScratch;
  const pre = t.prefixBoxes;
  const suf = t.suffixBoxes;
  const H = t.h1 - t.h0;
  const H2 = 2 * H;
  for (let k = 0; k < count; k++) {
    const bo = order[k]! * H2;
    const po = k * H2;
    for (let i = 0; i < H; i++) {
      const a = boxes[bo + i]!;
      const b = boxes[bo + H + i]!;
      if (k === 0) {
        pre[po + i] = a;
        pre[po + H + i] = b;
      } else {
        const pa = pre[po - H2 + i]!;
        const pb = pre[po - H2 + H + i]!;
        pre[po + i] = Math.min(a, pa);
        pre[po + H + i] = Math.max(b, pb);
      }
    }
  }
  for (let k = count - 1; k >= 0; k--) {
    const bo = order[k]! * H2;
    const po = k * H2;
    for (let i = 0; i < H; i++) {
      const a = boxes[bo + i]!;
      const b = boxes[bo + H + i]!;
      if (k === count - 1) {
        suf[po + i] = a;
        suf[po + H + i] = b;
      } else {
        const sa = suf[po + H2 + i]!;
        const sb = suf[po + H2 + H + i]!;
        suf[po + i] = Math.min(a, sa);
        suf[po + H + i] = Math.max(b, sb);
      }
    }
  }
}

/** Sort `orderScratch[0..count)` (indices into `splitBoxes`) by the lower or upper bound on `axis`. */
function sortChildren(t: TreeStore, count: number, axis: number, upper: boolean): void {
  const boxes = t.splitBoxes;
  const order = t.orderScratch;
  const keys = t.keyScratch;
  const H2 = 2 * (t.h1 - t.h0);
  const shift = (upper ? H2 / 2 : 0) + axis;
  for (let c = 0; c < count; c++) {
    order[c] = c;
    keys[c] = boxes[c * H2 + shift]!;
  }
  for (let i = 1; i < count; i++) {
    const key = keys[i]!;
    const item = order[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > key) {
      keys[j + 1] = keys[j]!;
      order[j + 1] = order[j]!;
      j--;
    }
    keys[j + 1] = key;
    order[j + 1] = item;
  }
}

/**
 * Grow the running box [`lo`, `hi`] by the box stored at `bo` of `boxes` (`H` lower coordinates,
 * then `H` upper ones); returns the margin of the grown box.
 */
function growMargin(boxes: Float64Array, bo: number, H: number, lo: Float64Array, hi: Float64Array): number {
  let margin = 0;
  for (let i = 0; i < H; i++) {
    const a = boxes[bo + i]!;
    const b = boxes[bo + H + i]!;
    if (a < lo[i]!) lo[i] = a;
    if (b > hi[i]!) hi[i] = b;
    margin += hi[i]! - lo[i]!;
  }
  return margin;
}

/** Sum of the margins of both groups over every split distribution of one sort (ChooseSplitAxis). */
function marginSum(t: TreeStore, count: number, m: number, axis: number, upper: boolean): number {
  sortChildren(t, count, axis, upper);
  const boxes = t.splitBoxes;
  const order = t.orderScratch;
  const H = t.h1 - t.h0;
  const H2 = 2 * H;
  const lo = t.runMin;
  const hi = t.runMax;
  let sum = 0;
  // Groups made of the first k children, k = m .. count - m.
  lo.fill(Number.POSITIVE_INFINITY);
  hi.fill(Number.NEGATIVE_INFINITY);
  for (let k = 0; k < count - m; k++) {
    const margin = growMargin(boxes, order[k]! * H2, H, lo, hi);
    if (k >= m - 1) sum += margin;
  }
  // Groups made of the last count - k children.
  lo.fill(Number.POSITIVE_INFINITY);
  hi.fill(Number.NEGATIVE_INFINITY);
  for (let k = count - 1; k >= m; k--) {
    const margin = growMargin(boxes, order[k]! * H2, H, lo, hi);
    if (k <= count - m) sum += margin;
  }
  return sum;
}
