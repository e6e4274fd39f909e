/**
 * The queries of an `RStarTree`: box search and the dominance query (a stack walk that reports
 * whole subtrees inside the query box without testing them), k nearest neighbours (best first on
 * MINDIST), the caller-driven best-first traversal, and the plain snapshot `toJSON()` returns.
 */
import { InvalidArgumentError, StateError } from '@grag/core';
import { MinHeap } from './heap.js';
import type {
  BoxView,
  NeighborOptions,
  QueryOptions,
  RStarNodeSnapshot,
  TraversalHit,
  TraverseOptions,
} from './options.js';
import type { Coords, TreeStore } from './store.js';
import { checkLength, queryBounds, readLabel, readQuery, requireFinished } from './validate.js';

/** Coordinates in [from, to) that the query bounds constrain. */
function activeDims(lo: Float64Array, hi: Float64Array, from: number, to: number): Int32Array {
  const dims: number[] = [];
  for (let i = from; i < to; i++) {
    if (lo[i]! > Number.NEGATIVE_INFINITY || hi[i]! < Number.POSITIVE_INFINITY) dims.push(i);
  }
  return Int32Array.from(dims);
}

/** Whether the stored box at `off` meets [lo, hi] on `dims`. */
function meets(
  t: TreeStore,
  arr: Coords,
  off: number,
  dims: Int32Array,
  lo: Float64Array,
  hi: Float64Array,
): boolean {
  const D = t.D;
  for (let j = 0; j < dims.length; j++) {
    const i = dims[j]!;
    if (arr[off + i]! > hi[i]! || arr[off + D + i]! < lo[i]!) return false;
  }
  return true;
}

/** Whether the stored box at `off` lies inside [lo, hi] on `dims`. */
function inside(
  t: TreeStore,
  arr: Coords,
  off: number,
  dims: Int32Array,
  lo: Float64Array,
  hi: Float64Array,
): boolean {
  const D = t.D;
  for (let j = 0; j < dims.length; j++) {
    const i = dims[j]!;
    if (arr[off + i]! < lo[i]! || arr[off + D + i]! > hi[i]!) return false;
  }
  return true;
}

/** Every entry whose stored box meets [lo, hi] (all D coordinates). */
function collect(
  t: TreeStore,
  lo: Float64Array,
  hi: Float64Array,
  filter: ((id: number) => boolean) | undefined,
): number[] {
  const out: number[] = [];
  if (t.alive === 0) return out;
  const dims = activeDims(lo, hi, 0, t.D);
  const s = t.stride;
  const slots = t.slots;
  const children = t.nodeChildren;
  const sizes = t.nodeSize;
  const levels = t.nodeLevel;
  const nb = t.nodeBoxes;
  const eb = t.entryBoxes;
  if (!meets(t, nb, t.root * s, dims, lo, hi)) return out;
  const stack: number[] = [t.root];
  while (stack.length > 0) {
    const n = stack.pop()!;
    const base = n * slots;
    const count = sizes[n]!;
    if (levels[n] === 0) {
      for (let c = 0; c < count; c++) {
        const id = children[base + c]!;
        if (meets(t, eb, id * s, dims, lo, hi) && (filter === undefined || filter(id))) out.push(id);
      }
      continue;
    }
    for (let c = 0; c < count; c++) {
      const child = children[base + c]!;
      const off = child * s;
      if (!meets(t, nb, off, dims, lo, hi)) continue;
      // A node inside the query box: every entry below it qualifies.
      if (inside(t, nb, off, dims, lo, hi)) collectAll(t, child, out, filter);
      else stack.push(child);
    }
  }
  return out;
}

function collectAll(
  t: TreeStore,
  node: number,
  out: number[],
  filter: ((id: number) => boolean) | undefined,
): void {
  const stack: number[] = [node];
  while (stack.length > 0) {
    const n = stack.pop()!;
    const base = n * t.slots;
    const count = t.nodeSize[n]!;
    const leaf = t.nodeLevel[n] === 0;
    for (let c = 0; c < count; c++) {
      const child = t.nodeChildren[base + c]!;
      if (!leaf) stack.push(child);
      else if (filter === undefined || filter(child)) out.push(child);
    }
  }
}

/** A fresh {@link BoxView} of this tree's dimensions. */
export function newView(t: TreeStore): BoxView {
  return {
    min: new Float64Array(t.dimensions),
    max: new Float64Array(t.dimensions),
    labelMin: new Float64Array(t.labelDimensions),
    labelMax: new Float64Array(t.labelDimensions),
  };
}

/** Copy the stored box at `arr[off..]` into `view`. */
export function fillView(t: TreeStore, view: BoxView, arr: Coords, off: number): void {
  const d = t.dimensions;
  const D = t.D;
  const { min, max, labelMin, labelMax } = view;
  for (let i = 0; i < d; i++) {
    min[i] = arr[off + i]!;
    max[i] = arr[off + D + i]!;
  }
  for (let i = 0; i < t.labelDimensions; i++) {
    labelMin[i] = arr[off + d + i]!;
    labelMax[i] = arr[off + D + d + i]!;
  }
}

/** `RStarTree.traverse` after its checks: best-first over the caller's keys; throws if the tree changes meanwhile. */
export function* traverseFrom(
  t: TreeStore,
  options: TraverseOptions,
): Generator<TraversalHit, void, undefined> {
  const { key, acceptNode, acceptEntry } = options;
  const version = t.version;
  const view = newView(t);
  const s = t.stride;
  const heap = new MinHeap();
  if (t.alive === 0) return;
  fillView(t, view, t.nodeBoxes, t.root * s);
  if (acceptNode && !acceptNode(view)) return;
  heap.push(key(view), ~t.root);
  while (heap.length > 0) {
    const k = heap.peekKey();
    const v = heap.peekValue();
    heap.pop();
    if (v >= 0) {
      yield { id: v, key: k };
      if (t.version !== version)
        throw new StateError(
          'RStarTree.traverse: the index changed during the traversal — collect the ids first, then insert or remove.',
        );
      continue;
    }
    const n = ~v;
    const base = n * t.slots;
    const count = t.nodeSize[n]!;
    if (t.nodeLevel[n] === 0) {
      for (let c = 0; c < count; c++) {
        const id = t.nodeChildren[base + c]!;
        fillView(t, view, t.entryBoxes, id * s);
        if (acceptEntry && !acceptEntry(id, view)) continue;
        heap.push(key(view), id);
      }
    } else {
      for (let c = 0; c < count; c++) {
        const child = t.nodeChildren[base + c]!;
        fillView(t, view, t.nodeBoxes, child * s);
        if (acceptNode && !acceptNode(view)) continue;
        heap.push(key(view), ~child);
      }
    }
  }
}

/** `RStarTree.search`: entries whose box meets the query box (see its TSDoc). */
export function search(
  t: TreeStore,
  min: ArrayLike<number> | null,
  max: ArrayLike<number> | null,
  options: QueryOptions = {},
): number[] {
  requireFinished(t, 'search');
  const { lo, hi } = queryBounds(t);
  if (min !== null) readQuery('search', 'min', min, t.dimensions, lo, 0);
  if (max !== null) readQuery('search', 'max', max, t.dimensions, hi, 0);
  for (let i = 0; i < t.dimensions; i++) {
    if (lo[i]! > hi[i]!)
      throw new InvalidArgumentError(
        'min',
        `RStarTree.search: min[${i}] = ${lo[i]} is greater than max[${i}] = ${hi[i]}; pass a box with min <= max.`,
      );
  }
  readLabel(t, 'search', options.label, lo, hi);
  return collect(t, lo, hi, options.filter);
}

/** `RStarTree.dominating`: entries whose box meets the dominance region of `q` (SG-RAG Eq. 5). */
export function dominating(t: TreeStore, q: ArrayLike<number>, options: QueryOptions = {}): number[] {
  requireFinished(t, 'dominating');
  const { lo, hi } = queryBounds(t);
  readQuery('dominating', 'q', q, t.dimensions, lo, 0);
  readLabel(t, 'dominating', options.label, lo, hi);
  return collect(t, lo, hi, options.filter);
}

/** `RStarTree.neighbors`: the `k` nearest entries, by best-first search on MINDIST (Hjaltason & Samet 1999). */
export function neighbors(
  t: TreeStore,
  point: ArrayLike<number>,
  k = Number.POSITIVE_INFINITY,
  options: NeighborOptions = {},
): number[] {
  requireFinished(t, 'neighbors');
  if (!(k >= 0) || (k !== Number.POSITIVE_INFINITY && !Number.isInteger(k)))
    throw new InvalidArgumentError(
      'k',
      `RStarTree.neighbors: k must be a non-negative integer or Infinity, got ${String(k)}.`,
    );
  const maxDistance = options.maxDistance ?? Number.POSITIVE_INFINITY;
  if (!(maxDistance >= 0))
    throw new InvalidArgumentError(
      'maxDistance',
      `RStarTree.neighbors: maxDistance must be >= 0, got ${String(maxDistance)}.`,
    );
  const d = t.dimensions;
  const p = new Float64Array(d);
  checkLength('neighbors', 'point', point, d);
  const dims: number[] = [];
  for (let i = 0; i < d; i++) {
    const v = point[i]!;
    if (typeof v !== 'number')
      throw new InvalidArgumentError('point', `RStarTree.neighbors: point[${i}] is not a number.`);
    p[i] = v;
    if (!Number.isNaN(v)) dims.push(i);
  }
  const { lo, hi } = queryBounds(t);
  readLabel(t, 'neighbors', options.label, lo, hi);
  const labelDims = activeDims(lo, hi, d, t.D);
  const filter = options.filter;
  const maxSq = maxDistance * maxDistance;
  const out: number[] = [];
  if (k === 0 || t.alive === 0) return out;
  const D = t.D;
  const s = t.stride;
  const mindist = (arr: Coords, off: number): number => {
    let sum = 0;
    for (let j = 0; j < dims.length; j++) {
      const i = dims[j]!;
      const x = p[i]!;
      const a = arr[off + i]!;
      if (x < a) sum += (a - x) * (a - x);
      else {
        const b = arr[off + D + i]!;
        if (x > b) sum += (x - b) * (x - b);
      }
    }
    return sum;
  };
  const heap = new MinHeap();
  // The k best entry distances pushed so far (a max-heap by negated keys): nothing farther than
  // the k-th of them can be among the answers, so it is not pushed at all.
  const best = Number.isFinite(k) ? new MinHeap(Math.min(k, 1024)) : undefined;
  let bound = maxSq;
  heap.push(mindist(t.nodeBoxes, t.root * s), ~t.root);
  while (heap.length > 0) {
    const key = heap.peekKey();
    const v = heap.peekValue();
    heap.pop();
    if (key > bound) break;
    if (v >= 0) {
      out.push(v);
      if (out.length >= k) break;
      continue;
    }
    const n = ~v;
    const base = n * t.slots;
    const count = t.nodeSize[n]!;
    if (t.nodeLevel[n] === 0) {
      const eb = t.entryBoxes;
      for (let c = 0; c < count; c++) {
        const id = t.nodeChildren[base + c]!;
        const off = id * s;
        if (!meets(t, eb, off, labelDims, lo, hi)) continue;
        const dist = mindist(eb, off);
        if (dist > bound) continue;
        if (filter && !filter(id)) continue;
        heap.push(dist, id);
        if (best) {
          if (best.length >= k) best.pop();
          best.push(-dist, id);
          if (best.length >= k) bound = Math.min(bound, -best.peekKey());
        }
      }
    } else {
      const nb = t.nodeBoxes;
      for (let c = 0; c < count; c++) {
        const child = t.nodeChildren[base + c]!;
        const off = child * s;
        if (!meets(t, nb, off, labelDims, lo, hi)) continue;
        const dist = mindist(nb, off);
        if (dist <= bound) heap.push(dist, ~child);
      }
    }
  }
  return out;
}

/** `RStarTree.toJSON`: the tree as plain nested objects. */
export function snapshot(t: TreeStore): RStarNodeSnapshot {
  requireFinished(t, 'toJSON');
  const d = t.dimensions;
  const D = t.D;
  const walk = (n: number): RStarNodeSnapshot => {
    const off = n * t.stride;
    const box = Array.from(t.nodeBoxes.subarray(off, off + t.stride));
    const level = t.nodeLevel[n]!;
    const kids = Array.from(t.nodeChildren.subarray(n * t.slots, n * t.slots + t.nodeSize[n]!));
    return {
      level,
      min: box.slice(0, d),
      max: box.slice(D, D + d),
      labelMin: box.slice(d, D),
      labelMax: box.slice(D + d, 2 * D),
      children: level === 0 ? kids : kids.map(walk),
    };
  };
  return walk(t.root);
}
