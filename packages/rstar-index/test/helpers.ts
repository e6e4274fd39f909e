/**
 * Test helpers: seeded data, a linear-scan oracle written from the definitions, and an invariant
 * checker that walks the tree's snapshot.
 */
import { mulberry32 } from '@grag/core/test';
import type { LabelQuery, RStarNodeSnapshot, RStarTree } from '../src/index.js';

export interface Item {
  min: number[];
  max: number[];
  label?: { min: number[]; max: number[] };
}

/** `n` seeded items in [-1, 1)^d: points, or boxes with sides up to `maxSide`. */
export function randomItems(
  n: number,
  d: number,
  seed: number,
  options: { boxes?: boolean; maxSide?: number; labels?: { dims: number; classes: number } } = {},
): Item[] {
  const rand = mulberry32(seed);
  const classes = options.labels
    ? Array.from({ length: options.labels.classes }, () =>
        Array.from({ length: options.labels!.dims }, () => Math.round(rand() * 100) / 100),
      )
    : [];
  const side = options.maxSide ?? 0.2;
  return Array.from({ length: n }, () => {
    const min = Array.from({ length: d }, () => rand() * 2 - 1);
    const max = options.boxes ? min.map((x) => x + rand() * side) : min;
    const item: Item = { min, max };
    if (options.labels) {
      const label = classes[Math.floor(rand() * classes.length)]!;
      item.label = { min: label, max: label };
    }
    return item;
  });
}

/** Stage or insert items, returning their ids. */
export function addAll(tree: RStarTree, items: Item[], how: 'add' | 'insert'): number[] {
  return items.map((it) =>
    how === 'add' ? tree.add(it.min, it.max, it.label) : tree.insert(it.min, it.max, it.label),
  );
}

const free = (x: number) => Number.isNaN(x);

/** Label match from the definition: point containment / box intersection, NaN = any. */
export function labelMatches(item: Item, label: LabelQuery | undefined): boolean {
  if (label === undefined) return true;
  const l = item.label!;
  const isBox = 'min' in label && 'max' in label;
  const lo = isBox ? (label as { min: ArrayLike<number> }).min : (label as ArrayLike<number>);
  const hi = isBox ? (label as { max: ArrayLike<number> }).max : (label as ArrayLike<number>);
  for (let i = 0; i < l.min.length; i++) {
    if (free(lo[i]!) || free(hi[i]!)) continue;
    if (l.max[i]! < lo[i]! || l.min[i]! > hi[i]!) return false;
  }
  return true;
}

/** Ids (among live ones) whose box intersects [qmin, qmax]; NaN bound = open. */
export function scanSearch(
  items: (Item | undefined)[],
  qmin: ArrayLike<number> | null,
  qmax: ArrayLike<number> | null,
  label?: LabelQuery,
): number[] {
  const out: number[] = [];
  items.forEach((it, id) => {
    if (!it || !labelMatches(it, label)) return;
    for (let i = 0; i < it.min.length; i++) {
      if (qmin && !free(qmin[i]!) && it.max[i]! < qmin[i]!) return;
      if (qmax && !free(qmax[i]!) && it.min[i]! > qmax[i]!) return;
    }
    out.push(id);
  });
  return out;
}

/** Ids whose box holds a point z >= q in every (non-NaN) dimension: max >= q. */
export function scanDominating(
  items: (Item | undefined)[],
  q: ArrayLike<number>,
  label?: LabelQuery,
): number[] {
  const out: number[] = [];
  items.forEach((it, id) => {
    if (!it || !labelMatches(it, label)) return;
    for (let i = 0; i < it.max.length; i++) if (!free(q[i]!) && it.max[i]! < q[i]!) return;
    out.push(id);
  });
  return out;
}

/** Squared Euclidean distance from p to the box (0 inside), NaN coordinates ignored. */
export function boxDistance2(it: Item, p: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < it.min.length; i++) {
    const x = p[i]!;
    if (free(x)) continue;
    const gap = x < it.min[i]! ? it.min[i]! - x : x > it.max[i]! ? x - it.max[i]! : 0;
    sum += gap * gap;
  }
  return sum;
}

export const sorted = (ids: number[]): number[] => [...ids].sort((a, b) => a - b);

/**
 * Check every structural invariant of the tree from its snapshot; returns the problems found
 * (empty when sound): levels step down by one to leaves at 0, each node's MBR (both key spaces)
 * contains each child's box and is their exact union, every non-root node holds between m and M
 * children, a non-leaf root at least 2, and every live entry sits in exactly one leaf.
 */
export function treeProblems(tree: RStarTree, liveIds: Iterable<number>): string[] {
  const problems: string[] = [];
  const M = tree.nodeCapacity;
  const m = tree.minEntries;
  const root = tree.toJSON();
  const seen = new Map<number, number>();
  if (root.level !== tree.height - 1) problems.push(`root level ${root.level} but height ${tree.height}`);
  const boxOf = (c: RStarNodeSnapshot | number) => {
    if (typeof c !== 'number') return c;
    const b = tree.box(c);
    return { min: [...b.min], max: [...b.max], labelMin: [...b.labelMin], labelMax: [...b.labelMax] };
  };
  const walk = (node: RStarNodeSnapshot, isRoot: boolean, path: string) => {
    const k = node.children.length;
    if (!isRoot && (k < m || k > M)) problems.push(`${path}: ${k} children, outside [${m}, ${M}]`);
    if (isRoot && (k > M || (node.level > 0 && k < 2)))
      problems.push(`root: ${k} children at level ${node.level}`);
    const union = {
      min: node.min.map(() => Number.POSITIVE_INFINITY),
      max: node.max.map(() => Number.NEGATIVE_INFINITY),
      labelMin: node.labelMin.map(() => Number.POSITIVE_INFINITY),
      labelMax: node.labelMax.map(() => Number.NEGATIVE_INFINITY),
    };
    node.children.forEach((child, i) => {
      if (node.level === 0) {
        if (typeof child !== 'number') problems.push(`${path}: leaf holds a node`);
        else seen.set(child, (seen.get(child) ?? 0) + 1);
      } else if (typeof child === 'number' || child.level !== node.level - 1) {
        problems.push(`${path}/${i}: level does not step down by one`);
      }
      const b = boxOf(child);
      for (const [lo, hi] of [
        ['min', 'max'],
        ['labelMin', 'labelMax'],
      ] as const) {
        b[lo].forEach((x, j) => {
          if (x < node[lo][j]! || b[hi][j]! > node[hi][j]!)
            problems.push(
              `${path}/${i}: child box leaves the node's ${lo === 'min' ? 'MBR' : 'MBR_0'} in dim ${j}`,
            );
          union[lo][j] = Math.min(union[lo][j]!, x);
          union[hi][j] = Math.max(union[hi][j]!, b[hi][j]!);
        });
      }
      if (typeof child !== 'number') walk(child, false, `${path}/${i}`);
    });
    if (k > 0) {
      for (const key of ['min', 'max', 'labelMin', 'labelMax'] as const) {
        if (union[key].some((x, j) => x !== node[key][j]))
          problems.push(`${path}: ${key} is not the union of its children`);
      }
    }
  };
  walk(root, true, 'root');
  let live = 0;
  for (const id of liveIds) {
    live++;
    if (seen.get(id) !== 1) problems.push(`entry ${id} appears ${seen.get(id) ?? 0} times`);
  }
  if (seen.size !== live) problems.push(`leaves hold ${seen.size} distinct entries, ${live} are live`);
  if (tree.size !== live) problems.push(`size ${tree.size}, ${live} live`);
  return problems;
}
