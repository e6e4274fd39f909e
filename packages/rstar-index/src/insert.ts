/**
 * Changes to a finished `RStarTree`: R* insertion (Beckmann, Kriegel, Schneider & Seeger 1990:
 * ChooseSubtree §4.1, OverflowTreatment with forced reinsertion §4.3, the split §4.2 chosen by
 * `split.ts`) and deletion with CondenseTree (Guttman 1984).
 */
import { chooseSplit } from './split.js';
import type { Coords, TreeStore } from './store.js';

/** Children examined by the overlap criterion of ChooseSubtree (Beckmann et al. 1990 §4.1: p = 32). */
const OVERLAP_CANDIDATES = 32;

/**
 * Insert an item: an entry (`itemLevel` -1) into a leaf, or a node of level `itemLevel` as a child
 * of a node of level `itemLevel + 1`.
 */
export function insertItem(t: TreeStore, item: number, itemLevel: number): void {
  const src = itemLevel < 0 ? t.entryBoxes : t.nodeBoxes;
  const so = item * t.stride;
  const target = chooseSubtree(t, src, so, itemLevel + 1);
  t.attachChild(target, item);
  t.extendUp(target, itemLevel < 0 ? t.entryBoxes : t.nodeBoxes, so);
  if (t.nodeSize[target]! > t.nodeCapacity) overflow(t, target);
}

/** Beckmann et al. 1990 §4.1 ChooseSubtree, descending from the root to a node of `targetLevel`. */
function chooseSubtree(t: TreeStore, src: Coords, so: number, targetLevel: number): number {
  let n = t.root;
  if (t.nodeLevel[n]! < targetLevel)
    throw new Error(`RStarTree: internal error, no node at level ${targetLevel}`);
  while (t.nodeLevel[n]! > targetLevel) {
    const level = t.nodeLevel[n]!;
    n = level === 1 && targetLevel === 0 ? chooseByOverlap(t, n, src, so) : chooseByArea(t, n, src, so);
  }
  return n;
}

/** The child needing least area enlargement; ties: smallest area, then smallest margin. */
function chooseByArea(t: TreeStore, n: number, src: Coords, so: number): number {
  const D = t.D;
  const s = t.stride;
  const nb = t.nodeBoxes;
  const base = n * t.slots;
  const count = t.nodeSize[n]!;
  let best = -1;
  let bestEnl = 0;
  let bestArea = 0;
  let bestMargin = 0;
  for (let c = 0; c < count; c++) {
    const child = t.nodeChildren[base + c]!;
    const o = child * s;
    let area = 1;
    let enlarged = 1;
    let margin = 0;
    for (let i = t.h0; i < t.h1; i++) {
      const a = nb[o + i]!;
      const b = nb[o + D + i]!;
      const ea = Math.min(a, src[so + i]!);
      const eb = Math.max(b, src[so + D + i]!);
      area *= b - a;
      enlarged *= eb - ea;
      margin += b - a;
    }
    const enl = enlarged - area;
    // NaN (overflowing volumes) compares as a tie and falls through to the next criterion.
    if (
      best < 0 ||
      enl < bestEnl ||
      (!(enl > bestEnl) && (area < bestArea || (!(area > bestArea) && margin < bestMargin)))
    ) {
      best = child;
      bestEnl = enl;
      bestArea = area;
      bestMargin = margin;
    }
  }
  return best;
}

/**
 * The child (a leaf) whose enlargement adds the least overlap with its siblings; ties: least area
 * enlargement, then smallest area. Above 32 children only the 32 with least area enlargement are
 * examined (Beckmann et al. 1990 §4.1, "nearly minimum overlap cost"). Candidates are examined in
 * order of area enlargement and a candidate's overlap sum stops as soon as it exceeds the best so
 * far (every term is >= 0), which returns the same child as the full computation.
 */
function chooseByOverlap(t: TreeStore, n: number, src: Coords, so: number): number {
  const D = t.D;
  const s = t.stride;
  const nb = t.nodeBoxes;
  const base = n * t.slots;
  const count = t.nodeSize[n]!;
  const h0 = t.h0;
  const H = t.h1 - h0;
  const H2 = 2 * H;
  const boxes = t.prefixBoxes; // child c's box on the heuristic dims at [c·2H, c·2H + 2H)
  const e = t.scratch;
  const areas = t.areaScratch;
  const enls = t.enlargementScratch;
  const order = t.orderScratch;
  let containing = -1;
  for (let c = 0; c < count; c++) {
    const o = t.nodeChildren[base + c]! * s;
    const bo = c * H2;
    let area = 1;
    let enlarged = 1;
    let inside = true;
    for (let i = 0; i < H; i++) {
      const a = nb[o + h0 + i]!;
      const b = nb[o + D + h0 + i]!;
      boxes[bo + i] = a;
      boxes[bo + H + i] = b;
      const x = src[so + h0 + i]!;
      const y = src[so + D + h0 + i]!;
      if (x < a || y > b) inside = false;
      area *= b - a;
      enlarged *= Math.max(y, b) - Math.min(x, a);
    }
    areas[c] = area;
    enls[c] = enlarged - area;
    // A child containing the item adds no overlap and no area: the best of those is the smallest.
    if (inside && (containing < 0 || areas[c]! < areas[containing]!)) containing = c;
    order[c] = c;
  }
  if (containing >= 0) return t.nodeChildren[base + containing]!;
  // Insertion sort of the candidates by area enlargement, then area.
  for (let i = 1; i < count; i++) {
    const c = order[i]!;
    let j = i - 1;
    while (j >= 0) {
      const p = order[j]!;
      if (enls[p]! < enls[c]! || (!(enls[p]! > enls[c]!) && !(areas[p]! > areas[c]!))) break;
      order[j + 1] = p;
      j--;
    }
    order[j + 1] = c;
  }
  const examined = Math.min(count, OVERLAP_CANDIDATES);
  let best = -1;
  let bestOverlap = Number.POSITIVE_INFINITY;
  for (let k = 0; k < examined; k++) {
    const c = order[k]!;
    if (best >= 0 && bestOverlap === 0 && enls[c]! > enls[best]!) break;
    const bo = c * H2;
    for (let i = 0; i < H; i++) {
      const x = src[so + h0 + i]!;
      const y = src[so + D + h0 + i]!;
      const a = boxes[bo + i]!;
      const b = boxes[bo + H + i]!;
      e[i] = Math.min(x, a);
      e[H + i] = Math.max(y, b);
    }
    let delta = 0;
    for (let j = 0; j < count && !(delta > bestOverlap); j++) {
      if (j === c) continue;
      const po = j * H2;
      let withE = 1;
      for (let i = 0; i < H && withE > 0; i++) {
        const hi = boxes[po + H + i]!;
        const lo = boxes[po + i]!;
        const w = Math.min(hi, e[H + i]!) - Math.max(lo, e[i]!);
        withE = w > 0 ? withE * w : 0;
      }
      // The enlarged box contains the child, so no overlap with it means none without it either.
      if (withE === 0) continue;
      let without = 1;
      for (let i = 0; i < H && without > 0; i++) {
        const hi = boxes[po + H + i]!;
        const lo = boxes[po + i]!;
        const b = boxes[bo + H + i]!;
        const a = boxes[bo + i]!;
        const w = Math.min(hi, b) - Math.max(lo, a);
        without = w > 0 ? without * w : 0;
      }
      delta += withE - without;
    }
    if (
      best < 0 ||
      delta < bestOverlap ||
      (!(delta > bestOverlap) &&
        (enls[c]! < enls[best]! || (!(enls[c]! > enls[best]!) && areas[c]! < areas[best]!)))
    ) {
      best = c;
      bestOverlap = delta;
    }
  }
  return t.nodeChildren[base + best]!;
}

/** OverflowTreatment: forced reinsertion the first time a level overflows in an insertion, else split. */
function overflow(t: TreeStore, n: number): void {
  const level = t.nodeLevel[n]!;
  if (n !== t.root && t.reinsertCount > 0 && t.reinserted[level] === 0) {
    t.reinserted[level] = 1;
    reinsertFarthest(t, n);
  } else {
    splitNode(t, n);
  }
}

/**
 * Remove the p children whose centres lie farthest from the node's centre and reinsert them,
 * nearest of them first ("close reinsert", Beckmann et al. 1990 §4.3).
 */
function reinsertFarthest(t: TreeStore, n: number): void {
  const D = t.D;
  const s = t.stride;
  const level = t.nodeLevel[n]!;
  const src = level === 0 ? t.entryBoxes : t.nodeBoxes;
  const nb = t.nodeBoxes;
  const o = n * s;
  const base = n * t.slots;
  const count = t.nodeSize[n]!;
  const kids = Array.from(t.nodeChildren.subarray(base, base + count));
  const dist = new Float64Array(count);
  for (let c = 0; c < count; c++) {
    const co = kids[c]! * s;
    let sum = 0;
    for (let i = t.h0; i < t.h1; i++) {
      const delta = src[co + i]! + src[co + D + i]! - nb[o + i]! - nb[o + D + i]!;
      sum += delta * delta;
    }
    dist[c] = sum;
  }
  const order = Array.from({ length: count }, (_, c) => c).sort((a, b) => dist[b]! - dist[a]!);
  const p = t.reinsertCount;
  const removed = order.slice(0, p).map((c) => kids[c]!);
  const kept = order.slice(p).map((c) => kids[c]!);
  t.nodeSize[n] = 0;
  for (const child of kept) t.attachChild(n, child);
  t.tightenUp(n);
  for (let r = removed.length - 1; r >= 0; r--) insertItem(t, removed[r]!, level - 1);
}

/** Split node `n` as {@link chooseSplit} says; a split root grows the tree, else the parent may overflow. */
function splitNode(t: TreeStore, n: number): void {
  const level = t.nodeLevel[n]!;
  const count = t.nodeSize[n]!;
  const { sorted, k } = chooseSplit(t, n);
  const sibling = t.allocNode(level);
  t.nodeSize[n] = 0;
  for (let c = 0; c < k; c++) t.attachChild(n, sorted[c]!);
  for (let c = k; c < count; c++) t.attachChild(sibling, sorted[c]!);
  t.recomputeBox(n);
  t.recomputeBox(sibling);
  if (n === t.root) {
    const root = t.allocNode(level + 1);
    t.attachChild(root, n);
    t.attachChild(root, sibling);
    t.recomputeBox(root);
    t.root = root;
    return;
  }
  const parent = t.nodeParent[n]!;
  t.attachChild(parent, sibling);
  if (t.nodeSize[parent]! > t.nodeCapacity) overflow(t, parent);
}

/**
 * CondenseTree (Guttman 1984): walk up from the leaf that lost an entry, dissolve under-full nodes,
 * tighten the others, reinsert the orphans at their levels, then shorten the root.
 */
export function condense(t: TreeStore, leaf: number): void {
  const orphans: number[] = [];
  let n = leaf;
  while (n !== t.root) {
    const parent = t.nodeParent[n]!;
    if (t.nodeSize[n]! < t.minEntries) {
      t.detachChild(parent, n);
      t.nodeParent[n] = -1;
      orphans.push(n);
    } else {
      t.recomputeBox(n);
    }
    n = parent;
  }
  t.recomputeBox(t.root);
  // Higher subtrees first, so lower orphans find the structure they belong in.
  orphans.sort((a, b) => t.nodeLevel[b]! - t.nodeLevel[a]!);
  for (const orphan of orphans) {
    const level = t.nodeLevel[orphan]!;
    const base = orphan * t.slots;
    const kids = Array.from(t.nodeChildren.subarray(base, base + t.nodeSize[orphan]!));
    t.freeNode(orphan);
    for (const child of kids) {
      t.reinserted.fill(0);
      insertItem(t, child, level - 1);
    }
  }
  while (t.nodeLevel[t.root]! > 0 && t.nodeSize[t.root]! === 1) {
    const old = t.root;
    t.root = t.nodeChildren[old * t.slots]!;
    t.nodeParent[t.root] = -1;
    t.freeNode(old);
  }
  if (t.nodeSize[t.root] === 0) {
    t.nodeLevel[t.root] = 0;
    t.recomputeBox(t.root);
  }
}
