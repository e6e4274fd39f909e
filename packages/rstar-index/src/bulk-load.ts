/**
 * The bulk load of `RStarTree.finish()`: the staged entries packed level by level, bottom up, by
 * VAMSplit (White & Jain 1996) or Sort-Tile-Recursive (Leutenegger, Lopez & Edgington 1997).
 */
import { multiSelect } from './select.js';
import type { TreeStore } from './store.js';

/** Pack every staged entry into a tree and set its root (an empty leaf when there are none). */
export function bulkLoad(t: TreeStore): void {
  const n = t.entryCount;
  if (n === 0) {
    t.root = t.allocNode(0);
    return;
  }
  let items: Int32Array = new Int32Array(n);
  for (let i = 0; i < n; i++) items[i] = i;
  let level = 0;
  items = packLevel(t, items, level);
  while (items.length > 1) {
    level++;
    items = packLevel(t, items, level);
  }
  t.root = items[0]!;
  t.nodeParent[t.root] = -1;
}

/**
 * The axis a range of items is cut along: STR takes the widest spread of centres among the axes not
 * cut yet on this path, VAMSplit the largest variance. Both are estimated on at most ~2048 evenly
 * spaced items of the range.
 */
function cutAxis(
  t: TreeStore,
  items: Int32Array,
  lo: number,
  hi: number,
  level: number,
  used: Uint8Array,
): number {
  const str = t.bulkLoad === 'str';
  const src = level === 0 ? t.entryBoxes : t.nodeBoxes;
  const D = t.D;
  const s = t.stride;
  let axis = -1;
  let widest = -1;
  const step = Math.max(1, Math.floor((hi - lo) / 2048));
  for (let i = t.h0; i < t.h1; i++) {
    if (str && used[i]) continue;
    let a = Number.POSITIVE_INFINITY;
    let b = Number.NEGATIVE_INFINITY;
    let sum = 0;
    let sumSq = 0;
    let seen = 0;
    for (let j = lo; j < hi; j += step) {
      seen++;
      const o = items[j]! * s;
      const c = src[o + i]! + src[o + D + i]!;
      if (str) {
        a = Math.min(a, c);
        b = Math.max(b, c);
      } else {
        sum += c;
        sumSq += c * c;
      }
    }
    const spread = str ? b - a : sumSq - (sum * sum) / seen;
    if (spread > widest) {
      widest = spread;
      axis = i;
    }
  }
  return axis;
}

/**
 * Pack `items` (entries at level 0, nodes of level - 1 above) into nodes of `level`, P = ceil(n / M)
 * pages, by recursive cuts at page boundaries (selection, not full sorts):
 * - `'str'` (Leutenegger et al. 1997): cut into S = ceil(P^(1/r)) slabs along one axis, r the axes
 *   not cut yet on this path, and recurse in each slab on the next axis; the axis order is the
 *   widest spread of centres first (the paper takes x, y, ... in order).
 * - `'vamsplit'` (White & Jain 1996): cut in two, at the page boundary nearest the median, along the
 *   axis of largest variance of the centres, and recurse.
 * Page sizes are balanced (they differ by at most one), so every page holds at least M/2 >= m items
 * when P > 1.
 */
export function packLevel(t: TreeStore, items: Int32Array, level: number): Int32Array {
  const n = items.length;
  const M = t.nodeCapacity;
  const pages = Math.ceil(n / M);
  const out: number[] = [];
  const keys = new Float64Array(n);
  const used = new Uint8Array(t.D);
  const H = t.h1 - t.h0;
  const D = t.D;
  const s = t.stride;
  const str = t.bulkLoad === 'str';

  const makeNode = (lo: number, hi: number): void => {
    const node = t.allocNode(level);
    for (let i = lo; i < hi; i++) t.attachChild(node, items[i]!);
    t.recomputeBox(node);
    out.push(node);
  };

  const partition = (lo: number, hi: number, p: number, depth: number): void => {
    if (p === 1) {
      makeNode(lo, hi);
      return;
    }
    const src = level === 0 ? t.entryBoxes : t.nodeBoxes;
    const axis = cutAxis(t, items, lo, hi, level, used);
    const slabs = str ? Math.min(p, Math.ceil(p ** (1 / (H - depth)) - 1e-9)) : 2;
    for (let j = lo; j < hi; j++) {
      const o = items[j]! * s;
      keys[j] = src[o + axis]! + src[o + D + axis]!;
    }
    // Pages of this range have floor(n/p) or ceil(n/p) items, the larger ones first.
    const count = hi - lo;
    const small = Math.floor(count / p);
    const large = count % p;
    const itemsBefore = (page: number): number => page * small + Math.min(page, large);
    const cuts: number[] = [];
    const bounds: number[] = [0];
    for (let k = 1; k < slabs; k++) {
      const page = Math.floor((k * p) / slabs);
      bounds.push(page);
      cuts.push(lo + itemsBefore(page));
    }
    bounds.push(p);
    multiSelect(items, keys, lo, hi, cuts);
    used[axis] = 1;
    for (let k = 0; k < slabs; k++) {
      const from = bounds[k]!;
      const to = bounds[k + 1]!;
      partition(lo + itemsBefore(from), lo + itemsBefore(to), to - from, depth + 1);
    }
    used[axis] = 0;
  };

  partition(0, n, pages, 0);
  return Int32Array.from(out);
}
