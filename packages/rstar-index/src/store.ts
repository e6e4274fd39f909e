/**
 * The state of an `RStarTree`: entry boxes and nodes in growable typed arrays, the scratch
 * buffers of the heuristics, and the small operations every other module shares (allocate a node,
 * attach and detach a child, recompute or extend an MBR). Not exported from the package.
 *
 * Layout: a box is `2·D` numbers (lower corner, then upper corner), `D = dimensions +
 * labelDimensions`; node `n` holds its children (entry ids at a leaf, node ids above) at
 * `nodeChildren[n·slots ..]`, `slots = M + 1` so a node can hold one overflowing child.
 */
import { type RStarTreeOptions, RStarTreeParameters } from './options.js';

/** Coordinate storage. */
export type Coords = Float64Array | Float32Array;

/** `entryLeaf` value of an entry added with `add()` and not yet bulk-loaded by `finish()`. */
export const STAGED = -2;
/** `entryLeaf` value of a removed entry. */
export const REMOVED = -1;

/** Everything an `RStarTree` holds; the tree's modules read and change it directly. */
export class TreeStore extends RStarTreeParameters {
  readonly minFill: number;
  readonly reinsertFraction: number;

  /** Total coordinates per corner: dimensions + labelDimensions. */
  readonly D: number;
  /** Numbers per stored box: 2·D (lower corner, then upper corner). */
  readonly stride: number;
  /** Child slots per node: M + 1 (one extra to hold an overflow). */
  readonly slots: number;
  /** Heuristic coordinate range [h0, h1). */
  readonly h0: number;
  readonly h1: number;

  entryBoxes: Coords;
  /** Leaf of each entry, or {@link STAGED} / {@link REMOVED}. */
  entryLeaf: Int32Array;
  entryCount = 0;
  alive = 0;

  nodeBoxes: Coords;
  nodeChildren: Int32Array;
  nodeSize: Int32Array;
  nodeLevel: Int32Array;
  nodeParent: Int32Array;
  nodeTop = 0;
  freeNodes: number[] = [];

  root = -1;
  finished = false;
  /** Bumped by every change, so a running traversal notices it. */
  version = 0;
  /** Levels that already had a forced reinsertion during the current insertion. */
  readonly reinserted = new Uint8Array(64);
  readonly scratch: Float64Array;
  readonly areaScratch: Float64Array;
  readonly enlargementScratch: Float64Array;
  readonly orderScratch: Int32Array;
  readonly keyScratch: Float64Array;
  readonly splitBoxes: Float64Array;
  readonly runMin: Float64Array;
  readonly runMax: Float64Array;
  readonly prefixBoxes: Float64Array;
  readonly suffixBoxes: Float64Array;

  /** @param o validated options (see `resolveTreeOptions`). */
  constructor(o: RStarTreeOptions) {
    super(o);
    this.minFill = o.minFill;
    this.reinsertFraction = o.reinsertFraction;
    const M = o.nodeCapacity;
    this.D = o.dimensions + o.labelDimensions;
    this.stride = 2 * this.D;
    this.slots = M + 1;
    this.h0 = o.clusterOn === 'label' ? o.dimensions : 0;
    this.h1 = o.clusterOn === 'box' ? o.dimensions : this.D;

    this.entryBoxes = new o.ArrayType(16 * this.stride);
    this.entryLeaf = new Int32Array(16);
    this.nodeBoxes = new o.ArrayType(16 * this.stride);
    this.nodeChildren = new Int32Array(16 * this.slots);
    this.nodeSize = new Int32Array(16);
    this.nodeLevel = new Int32Array(16);
    this.nodeParent = new Int32Array(16);
    this.scratch = new Float64Array(this.stride);
    this.areaScratch = new Float64Array(this.slots);
    this.enlargementScratch = new Float64Array(this.slots);
    this.orderScratch = new Int32Array(this.slots);
    this.keyScratch = new Float64Array(this.slots);
    const H = this.h1 - this.h0;
    this.prefixBoxes = new Float64Array(this.slots * 2 * H);
    this.suffixBoxes = new Float64Array(this.slots * 2 * H);
    this.splitBoxes = new Float64Array(this.slots * 2 * H);
    this.runMin = new Float64Array(H);
    this.runMax = new Float64Array(H);
  }

  /** Levels of the tree: 1 for a single leaf; 0 before `finish()`. */
  get height(): number {
    return this.finished ? this.nodeLevel[this.root]! + 1 : 0;
  }

  ensureEntryCapacity(needed: number): void {
    if (needed <= this.entryLeaf.length) return;
    let cap = this.entryLeaf.length;
    while (cap < needed) cap *= 2;
    const boxes = new this.ArrayType(cap * this.stride);
    boxes.set(this.entryBoxes.subarray(0, this.entryCount * this.stride));
    this.entryBoxes = boxes;
    const leaf = new Int32Array(cap);
    leaf.set(this.entryLeaf.subarray(0, this.entryCount));
    this.entryLeaf = leaf;
  }

  allocNode(level: number): number {
    let n = this.freeNodes.pop();
    if (n === undefined) {
      n = this.nodeTop++;
      if (n >= this.nodeSize.length) {
        const cap = this.nodeSize.length * 2;
        const boxes = new this.ArrayType(cap * this.stride);
        boxes.set(this.nodeBoxes);
        this.nodeBoxes = boxes;
        const children = new Int32Array(cap * this.slots);
        children.set(this.nodeChildren);
        this.nodeChildren = children;
        for (const name of ['nodeSize', 'nodeLevel', 'nodeParent'] as const) {
          const grown = new Int32Array(cap);
          grown.set(this[name]);
          this[name] = grown;
        }
      }
    }
    this.nodeSize[n] = 0;
    this.nodeLevel[n] = level;
    this.nodeParent[n] = -1;
    // An empty box: the first child's box replaces it.
    const o = n * this.stride;
    this.nodeBoxes.fill(Number.POSITIVE_INFINITY, o, o + this.D);
    this.nodeBoxes.fill(Number.NEGATIVE_INFINITY, o + this.D, o + this.stride);
    return n;
  }

  freeNode(n: number): void {
    this.nodeSize[n] = 0;
    this.nodeParent[n] = -1;
    this.freeNodes.push(n);
  }

  /** Append a child (entry id at a leaf, node otherwise) and point it back at `n`. */
  attachChild(n: number, child: number): void {
    this.nodeChildren[n * this.slots + this.nodeSize[n]!] = child;
    this.nodeSize[n]!++;
    if (this.nodeLevel[n] === 0) this.entryLeaf[child] = n;
    else this.nodeParent[child] = n;
  }

  /** Remove a child from `n` (the last child takes its slot). */
  detachChild(n: number, child: number): void {
    const base = n * this.slots;
    const last = --this.nodeSize[n]!;
    for (let c = 0; c <= last; c++) {
      if (this.nodeChildren[base + c] === child) {
        this.nodeChildren[base + c] = this.nodeChildren[base + last]!;
        return;
      }
    }
    throw new Error(`RStarTree: internal error, child ${child} not found in node ${n}`);
  }

  recomputeBox(n: number): void {
    const D = this.D;
    const s = this.stride;
    const nb = this.nodeBoxes;
    const o = n * s;
    for (let i = 0; i < D; i++) {
      nb[o + i] = Number.POSITIVE_INFINITY;
      nb[o + D + i] = Number.NEGATIVE_INFINITY;
    }
    const src = this.nodeLevel[n] === 0 ? this.entryBoxes : nb;
    const base = n * this.slots;
    const count = this.nodeSize[n]!;
    for (let c = 0; c < count; c++) {
      const co = this.nodeChildren[base + c]! * s;
      for (let i = 0; i < D; i++) {
        const a = src[co + i]!;
        if (a < nb[o + i]!) nb[o + i] = a;
        const b = src[co + D + i]!;
        if (b > nb[o + D + i]!) nb[o + D + i] = b;
      }
    }
  }

  /** Grow `n` and its ancestors to cover the box at `src[so..]`. */
  extendUp(n: number, src: Coords, so: number): void {
    const D = this.D;
    const s = this.stride;
    const nb = this.nodeBoxes;
    while (n !== -1) {
      const o = n * s;
      let grew = false;
      for (let i = 0; i < D; i++) {
        const a = src[so + i]!;
        if (a < nb[o + i]!) {
          nb[o + i] = a;
          grew = true;
        }
        const b = src[so + D + i]!;
        if (b > nb[o + D + i]!) {
          nb[o + D + i] = b;
          grew = true;
        }
      }
      if (!grew) return;
      n = this.nodeParent[n]!;
    }
  }

  /** Recompute the MBRs of `n` and its ancestors after children left. */
  tightenUp(n: number): void {
    while (n !== -1) {
      this.recomputeBox(n);
      n = this.nodeParent[n]!;
    }
  }
}
