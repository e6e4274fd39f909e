/**
 * In-place selection on parallel arrays (items with their sort keys), used by the STR bulk loader to
 * cut slabs without sorting them completely.
 */

function swap(items: Int32Array, keys: Float64Array, i: number, j: number): void {
  const item = items[i]!;
  items[i] = items[j]!;
  items[j] = item;
  const key = keys[i]!;
  keys[i] = keys[j]!;
  keys[j] = key;
}

/**
 * Rearrange `items[lo..hi)` (and `keys` alongside) so that position `k` holds the element a full sort
 * would put there, every element before it has a key <= its key and every element after a key >= it
 * (Hoare's selection with a median-of-three pivot).
 */
export function select(items: Int32Array, keys: Float64Array, lo: number, hi: number, k: number): void {
  let left = lo;
  let right = hi - 1;
  while (right > left) {
    const mid = (left + right) >> 1;
    const a = keys[left]!;
    const b = keys[mid]!;
    const c = keys[right]!;
    const pivot = a < b ? (b < c ? b : Math.max(a, c)) : a < c ? a : Math.max(b, c);
    let i = left;
    let j = right;
    while (i <= j) {
      while (keys[i]! < pivot) i++;
      while (keys[j]! > pivot) j--;
      if (i <= j) {
        swap(items, keys, i, j);
        i++;
        j--;
      }
    }
    if (k <= j) right = j;
    else if (k >= i) left = i;
    else return;
  }
}

/**
 * Partition `items[lo..hi)` at every cut in `cuts` (sorted positions strictly inside the range):
 * afterwards each block between consecutive cuts holds keys no greater than the next block's.
 */
export function multiSelect(
  items: Int32Array,
  keys: Float64Array,
  lo: number,
  hi: number,
  cuts: readonly number[],
  from = 0,
  to = cuts.length,
): void {
  if (from >= to) return;
  const middle = (from + to) >> 1;
  const k = cuts[middle]!;
  select(items, keys, lo, hi, k);
  multiSelect(items, keys, lo, k, cuts, from, middle);
  multiSelect(items, keys, k, hi, cuts, middle + 1, to);
}
