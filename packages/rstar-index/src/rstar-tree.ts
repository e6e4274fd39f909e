import { IndexFormatError, InvalidArgumentError, StateError } from '@grag/core';
import { MinHeap } from './heap.js';
import {
  type BoxLike,
  type BoxView,
  type BulkLoad,
  type ClusterOn,
  type CoordinateArrayType,
  type LabelQuery,
  type NeighborOptions,
  type QueryOptions,
  RSTAR_DEFAULTS,
  type RStarNodeSnapshot,
  type RStarTreeOptions,
  type TraversalHit,
  type TraverseOptions,
} from './options.js';
import { multiSelect } from './select.js';

type Coords = Float64Array | Float32Array;

/** `entryLeaf` value of an entry added with `add()` and not yet bulk-loaded by `finish()`. */
const STAGED = -2;
/** `entryLeaf` value of a removed entry. */
const REMOVED = -1;
/** Children examined by the overlap criterion of ChooseSubtree (Beckmann et al. 1990 §4.1: p = 32). */
const OVERLAP_CANDIDATES = 32;

const FORMAT_MAGIC = 0x2a545352; // 'RST*' little-endian
const FORMAT_VERSION = 1;
const HEADER_BYTES = 64;
const CLUSTER_CODES: readonly ClusterOn[] = ['both', 'box', 'label'];
const BULK_CODES: readonly BulkLoad[] = ['str', 'vamsplit'];

function isBoxLike(value: LabelQuery): value is BoxLike {
  return typeof value === 'object' && value !== null && 'min' in value && 'max' in value;
}

function align8(n: number): number {
  return (n + 7) & ~7;
}

/**
 * An N-dimensional R*-tree (Beckmann, Kriegel, Schneider & Seeger 1990) over points and boxes,
 * stored in typed arrays, with an optional second key space per entry (a label box).
 *
 * Lifecycle: `add()` entries, `finish()` bulk-loads them (VAMSplit or STR), then query; a finished
 * tree also takes `insert()` and `remove()` (R* insertion with forced reinsertion, deletion with
 * condense-and-reinsert). Entries are integer ids in insertion order (0, 1, 2, ...); a removed id is
 * never reused.
 *
 * @example
 * ```ts
 * const tree = new RStarTree({ dimensions: 2 });
 * tree.add([0.2, 0.9]); // id 0
 * tree.add([0.7, 0.6]); // id 1
 * tree.finish();
 * tree.dominating([0.5, 0.5]); // [1]: every coordinate >= the query's
 * ```
 */
export class RStarTree {
  /** Dimensions of the main key space. */
  readonly dimensions: number;
  /** Dimensions of the label key space (0 without labels). */
  readonly labelDimensions: number;
  /** Maximum children per node (M). */
  readonly nodeCapacity: number;
  /** Minimum children per non-root node (m). */
  readonly minEntries: number;
  /** Children removed by one forced reinsertion (p). */
  readonly reinsertCount: number;
  /** Key space the clustering heuristics use. */
  readonly clusterOn: ClusterOn;
  /** Packing used by `finish()`. */
  readonly bulkLoad: BulkLoad;
  /** Coordinate storage. */
  readonly ArrayType: CoordinateArrayType;
  private readonly minFill: number;
  private readonly reinsertFraction: number;

  /** Total coordinates per corner: dimensions + labelDimensions. */
  private readonly D: number;
  /** Numbers per stored box: 2·D (lower corner, then upper corner). */
  private readonly stride: number;
  /** Child slots per node: M + 1 (one extra to hold an overflow). */
  private readonly slots: number;
  /** Heuristic coordinate range [h0, h1). */
  private readonly h0: number;
  private readonly h1: number;

  private entryBoxes: Coords;
  private entryLeaf: Int32Array;
  private entryCount = 0;
  private alive = 0;

  private nodeBoxes: Coords;
  private nodeChildren: Int32Array;
  private nodeSize: Int32Array;
  private nodeLevel: Int32Array;
  private nodeParent: Int32Array;
  private nodeTop = 0;
  private freeNodes: number[] = [];

  private root = -1;
  private finished = false;
  /** Bumped by every change, so a running traversal notices it. */
  private version = 0;
  /** Levels that already had a forced reinsertion during the current insertion. */
  private readonly reinserted = new Uint8Array(64);
  private readonly scratch: Float64Array;
  private readonly areaScratch: Float64Array;
  private readonly enlargementScratch: Float64Array;
  private readonly orderScratch: Int32Array;
  private readonly keyScratch: Float64Array;
  private readonly splitBoxes: Float64Array;
  private readonly runMin: Float64Array;
  private readonly runMax: Float64Array;
  private readonly prefixBoxes: Float64Array;
  private readonly suffixBoxes: Float64Array;

  /**
   * @param options `dimensions` is required; the rest default to {@link RSTAR_DEFAULTS}.
   * @throws InvalidArgumentError when an option is out of range.
   */
  constructor(options: Partial<RStarTreeOptions> & { dimensions: number }) {
    const o = { ...RSTAR_DEFAULTS, ...options };
    const where = 'new RStarTree';
    if (!Number.isInteger(o.dimensions) || o.dimensions < 1)
      throw new InvalidArgumentError(
        'dimensions',
        `${where}: dimensions must be a positive integer, got ${String(o.dimensions)}.`,
      );
    if (!Number.isInteger(o.labelDimensions) || o.labelDimensions < 0)
      throw new InvalidArgumentError(
        'labelDimensions',
        `${where}: labelDimensions must be a non-negative integer (0 for no labels), got ${String(o.labelDimensions)}.`,
      );
    if (!Number.isInteger(o.nodeCapacity) || o.nodeCapacity < 4 || o.nodeCapacity > 65535)
      throw new InvalidArgumentError(
        'nodeCapacity',
        `${where}: nodeCapacity must be an integer in [4, 65535], got ${String(o.nodeCapacity)}.`,
      );
    if (!(o.minFill > 0 && o.minFill <= 0.5))
      throw new InvalidArgumentError(
        'minFill',
        `${where}: minFill must be in (0, 0.5], got ${String(o.minFill)}.`,
      );
    if (!(o.reinsertFraction >= 0 && o.reinsertFraction < 1))
      throw new InvalidArgumentError(
        'reinsertFraction',
        `${where}: reinsertFraction must be in [0, 1) (0 disables forced reinsertion), got ${String(o.reinsertFraction)}.`,
      );
    if (!CLUSTER_CODES.includes(o.clusterOn))
      throw new InvalidArgumentError(
        'clusterOn',
        `${where}: clusterOn must be 'both', 'box' or 'label', got ${String(o.clusterOn)}.`,
      );
    if (o.clusterOn === 'label' && o.labelDimensions === 0)
      throw new InvalidArgumentError(
        'clusterOn',
        `${where}: clusterOn 'label' needs labelDimensions > 0; use 'box' or give labelDimensions.`,
      );
    if (!BULK_CODES.includes(o.bulkLoad))
      throw new InvalidArgumentError(
        'bulkLoad',
        `${where}: bulkLoad must be 'str' or 'vamsplit', got ${String(o.bulkLoad)}.`,
      );
    if (o.ArrayType !== Float64Array && o.ArrayType !== Float32Array)
      throw new InvalidArgumentError(
        'ArrayType',
        `${where}: ArrayType must be Float64Array or Float32Array.`,
      );

    this.dimensions = o.dimensions;
    this.labelDimensions = o.labelDimensions;
    this.nodeCapacity = o.nodeCapacity;
    this.minFill = o.minFill;
    this.reinsertFraction = o.reinsertFraction;
    this.clusterOn = o.clusterOn;
    this.bulkLoad = o.bulkLoad;
    this.ArrayType = o.ArrayType;
    const M = o.nodeCapacity;
    this.minEntries = Math.min(Math.floor(M / 2), Math.max(2, Math.ceil(o.minFill * M)));
    this.reinsertCount = Math.min(Math.round(o.reinsertFraction * M), M + 1 - this.minEntries);
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

  /** Number of entries held (added or inserted, and not removed). */
  get size(): number {
    return this.alive;
  }

  /** Levels of the tree: 1 for a single leaf; 0 before `finish()`. */
  get height(): number {
    return this.finished ? this.nodeLevel[this.root]! + 1 : 0;
  }

  /** Whether `finish()` has run (queries, `insert`, `remove` and `save` need it). */
  get isFinished(): boolean {
    return this.finished;
  }

  // ---------------------------------------------------------------- building

  /**
   * Stage an entry for bulk loading by {@link finish}. A point is `add(p)`; a box is `add(min, max)`.
   *
   * @param min lower corner (or the point), `dimensions` finite numbers
   * @param max upper corner, `>= min` in every dimension @default min
   * @param label the entry's label (a point or a box of `labelDimensions` numbers); required when
   *   the tree has `labelDimensions > 0`, not allowed otherwise
   * @returns the entry's id (0, 1, 2, ... in the order of `add` and `insert` calls)
   * @throws StateError after `finish()` (use `insert()` then)
   */
  add(min: ArrayLike<number>, max: ArrayLike<number> = min, label?: LabelQuery): number {
    if (this.finished)
      throw new StateError(
        'RStarTree.add: the index is finished — use `insert()` to add entries to a finished index (`add()` stages entries for the bulk load in `finish()`).',
      );
    const id = this.writeEntry('add', min, max, label);
    this.entryLeaf[id] = STAGED;
    this.alive++;
    return id;
  }

  /**
   * Bulk-load every staged entry (VAMSplit or STR packing, see `bulkLoad`) and make
   * the index queryable. An index with no entries may be finished too (then grow it with `insert`).
   *
   * @returns this index
   * @throws StateError when called twice
   */
  finish(): this {
    if (this.finished)
      throw new StateError(
        'RStarTree.finish: the index is already finished — add more entries with `insert()`.',
      );
    const n = this.entryCount;
    if (n === 0) {
      this.root = this.allocNode(0);
    } else {
      let items: Int32Array = new Int32Array(n);
      for (let i = 0; i < n; i++) items[i] = i;
      let level = 0;
      items = this.packLevel(items, level);
      while (items.length > 1) {
        level++;
        items = this.packLevel(items, level);
      }
      this.root = items[0]!;
      this.nodeParent[this.root] = -1;
    }
    this.finished = true;
    this.version++;
    return this;
  }

  /**
   * Insert an entry into a finished index (R* insertion: ChooseSubtree by overlap enlargement at the
   * leaf level and area enlargement above, forced reinsertion once per level, then the R* split).
   *
   * @param min lower corner (or the point)
   * @param max upper corner @default min
   * @param label the entry's label, as for {@link add}
   * @returns the new entry's id
   * @throws StateError before `finish()`
   */
  insert(min: ArrayLike<number>, max: ArrayLike<number> = min, label?: LabelQuery): number {
    this.requireFinished('insert', ' (stage entries with `add()` before it, or finish an empty index)');
    const id = this.writeEntry('insert', min, max, label);
    this.reinserted.fill(0);
    this.insertItem(id, -1);
    this.alive++;
    this.version++;
    return id;
  }

  /**
   * Remove an entry (R-tree deletion: under-full nodes on the path are dissolved and their children
   * reinserted at their level; the root is shortened while it has a single child).
   *
   * @returns `true` when the entry was there, `false` for an unknown or already removed id
   * @throws StateError before `finish()`
   */
  remove(id: number): boolean {
    this.requireFinished('remove');
    if (!Number.isInteger(id) || id < 0 || id >= this.entryCount) return false;
    const leaf = this.entryLeaf[id]!;
    if (leaf < 0) return false;
    this.detachChild(leaf, id);
    this.entryLeaf[id] = REMOVED;
    this.alive--;
    this.condense(leaf);
    this.version++;
    return true;
  }

  /** Whether `id` is a live entry (added or inserted, and not removed). */
  has(id: number): boolean {
    return Number.isInteger(id) && id >= 0 && id < this.entryCount && this.entryLeaf[id] !== REMOVED;
  }

  /**
   * A copy of an entry's box and label box.
   * @throws InvalidArgumentError for an unknown or removed id
   */
  box(id: number): BoxView {
    if (!this.has(id))
      throw new InvalidArgumentError(
        'id',
        `RStarTree.box: no entry ${String(id)} — ids come from add()/insert() and removed ids are gone.`,
      );
    const view = this.newView();
    this.fillView(view, this.entryBoxes, id * this.stride);
    return view;
  }

  // ---------------------------------------------------------------- queries

  /**
   * Entries whose box intersects the query box (bounds inclusive). `NaN` in a bound leaves that side
   * unbounded; `null` for a corner leaves every dimension unbounded on that side (a label-only query
   * is `search(null, null, { label })`).
   *
   * @returns entry ids, in no particular order
   */
  search(min: ArrayLike<number> | null, max: ArrayLike<number> | null, options: QueryOptions = {}): number[] {
    this.requireFinished('search');
    const { lo, hi } = this.queryBounds();
    if (min !== null) this.readQuery('search', 'min', min, this.dimensions, lo, 0);
    if (max !== null) this.readQuery('search', 'max', max, this.dimensions, hi, 0);
    for (let i = 0; i < this.dimensions; i++) {
      if (lo[i]! > hi[i]!)
        throw new InvalidArgumentError(
          'min',
          `RStarTree.search: min[${i}] = ${lo[i]} is greater than max[${i}] = ${hi[i]}; pass a box with min <= max.`,
        );
    }
    this.readLabel('search', options.label, lo, hi);
    return this.collect(lo, hi, options.filter);
  }

  /**
   * The dominance query of SG-RAG (Eq. 5): entries whose box meets the dominance region
   * DR(q) = { z : z[i] >= q[i] for every i }, i.e. whose upper corner is >= q in every dimension.
   * For point entries this is exactly "the point dominates q" (q ⪯ p); for a box entry it means
   * "the box contains some point dominating q". Nodes are pruned with the same test on their MBR,
   * which is exact: an MBR meets DR(q) if and only if some entry below it can. `NaN` in `q` is a
   * wildcard (that dimension is not constrained).
   *
   * @returns entry ids, in no particular order
   */
  dominating(q: ArrayLike<number>, options: QueryOptions = {}): number[] {
    this.requireFinished('dominating');
    const { lo, hi } = this.queryBounds();
    this.readQuery('dominating', 'q', q, this.dimensions, lo, 0);
    this.readLabel('dominating', options.label, lo, hi);
    return this.collect(lo, hi, options.filter);
  }

  /**
   * The `k` entries nearest to `point` (Euclidean distance to the entry's box, 0 inside it), nearest
   * first, by best-first search on MINDIST (Hjaltason & Samet 1999). `NaN` coordinates of the point are
   * ignored by the distance.
   *
   * @param k how many @default Infinity (all, ordered; use with `maxDistance`)
   * @returns entry ids, nearest first (ties in no particular order)
   */
  neighbors(point: ArrayLike<number>, k = Number.POSITIVE_INFINITY, options: NeighborOptions = {}): number[] {
    this.requireFinished('neighbors');
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
    const d = this.dimensions;
    const p = new Float64Array(d);
    this.checkLength('neighbors', 'point', point, d);
    const dims: number[] = [];
    for (let i = 0; i < d; i++) {
      const v = point[i]!;
      if (typeof v !== 'number')
        throw new InvalidArgumentError('point', `RStarTree.neighbors: point[${i}] is not a number.`);
      p[i] = v;
      if (!Number.isNaN(v)) dims.push(i);
    }
    const { lo, hi } = this.queryBounds();
    this.readLabel('neighbors', options.label, lo, hi);
    const labelDims = this.activeDims(lo, hi, d, this.D);
    const filter = options.filter;
    const maxSq = maxDistance * maxDistance;
    const out: number[] = [];
    if (k === 0 || this.alive === 0) return out;
    const D = this.D;
    const s = this.stride;
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
    heap.push(mindist(this.nodeBoxes, this.root * s), ~this.root);
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
      const base = n * this.slots;
      const count = this.nodeSize[n]!;
      if (this.nodeLevel[n] === 0) {
        const eb = this.entryBoxes;
        for (let c = 0; c < count; c++) {
          const id = this.nodeChildren[base + c]!;
          const off = id * s;
          if (!this.meets(eb, off, labelDims, lo, hi)) continue;
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
        const nb = this.nodeBoxes;
        for (let c = 0; c < count; c++) {
          const child = this.nodeChildren[base + c]!;
          const off = child * s;
          if (!this.meets(nb, off, labelDims, lo, hi)) continue;
          const dist = mindist(nb, off);
          if (dist <= bound) heap.push(dist, ~child);
        }
      }
    }
    return out;
  }

  /**
   * Best-first traversal driven by the caller (the heap-based search of SG-RAG Algorithms 5 and 7):
   * nodes and entries are visited in order of `key`; a node is entered only when `acceptNode` says so,
   * an entry reported only when `acceptEntry` says so. Stop early by leaving the loop.
   * The tree must not change while a traversal runs (the next step throws a StateError if it did).
   *
   * @example Entries dominating q, largest L1 norm of the upper corner first:
   * ```ts
   * const l1 = (b: BoxView) => -b.max.reduce((a, x) => a + x, 0);
   * for (const { id } of tree.traverse({
   *   key: l1,
   *   acceptNode: (b) => b.max.every((x, i) => x >= q[i]),
   *   acceptEntry: (_id, b) => b.max.every((x, i) => x >= q[i]),
   * })) console.log(id);
   * ```
   */
  traverse(options: TraverseOptions): Generator<TraversalHit, void, undefined> {
    this.requireFinished('traverse');
    if (typeof options?.key !== 'function')
      throw new InvalidArgumentError('key', 'RStarTree.traverse: pass `key(box) => number` in the options.');
    return this.traverseFrom(options);
  }

  /**
   * A plain nested snapshot of the tree (levels, MBRs, children; entry ids at the leaves), for
   * inspection, pictures and tests. Allocates the whole tree: not for large indexes in a hot path.
   */
  toJSON(): RStarNodeSnapshot {
    this.requireFinished('toJSON');
    const d = this.dimensions;
    const D = this.D;
    const walk = (n: number): RStarNodeSnapshot => {
      const off = n * this.stride;
      const box = Array.from(this.nodeBoxes.subarray(off, off + this.stride));
      const level = this.nodeLevel[n]!;
      const kids = Array.from(this.nodeChildren.subarray(n * this.slots, n * this.slots + this.nodeSize[n]!));
      return {
        level,
        min: box.slice(0, d),
        max: box.slice(D, D + d),
        labelMin: box.slice(d, D),
        labelMax: box.slice(D + d, 2 * D),
        children: level === 0 ? kids : kids.map(walk),
      };
    };
    return walk(this.root);
  }

  // ---------------------------------------------------------------- persistence

  /**
   * Serialize the index into one buffer: a 64-byte header, then the typed arrays (entry boxes, a
   * liveness byte per id, node MBRs, levels, fills and children), nodes renumbered breadth-first.
   * Platform byte order (little-endian on every current JavaScript engine).
   *
   * @throws StateError before `finish()`
   */
  save(): Uint8Array {
    this.requireFinished('save');
    // Breadth-first renumbering of the live nodes (the root becomes 0).
    const order: number[] = [this.root];
    const newId = new Int32Array(this.nodeTop).fill(-1);
    newId[this.root] = 0;
    for (let i = 0; i < order.length; i++) {
      const n = order[i]!;
      if (this.nodeLevel[n] === 0) continue;
      const base = n * this.slots;
      for (let c = 0; c < this.nodeSize[n]!; c++) {
        const child = this.nodeChildren[base + c]!;
        newId[child] = order.length;
        order.push(child);
      }
    }
    const nodes = order.length;
    const entries = this.entryCount;
    const bpe = this.ArrayType.BYTES_PER_ELEMENT;
    const s = this.stride;
    const layout = RStarTree.layout(entries, nodes, s, this.slots, bpe);
    const bytes = new Uint8Array(layout.total);
    const view = new DataView(bytes.buffer);
    view.setUint32(0, FORMAT_MAGIC, true);
    view.setUint8(4, FORMAT_VERSION);
    view.setUint8(5, bpe);
    view.setUint8(6, CLUSTER_CODES.indexOf(this.clusterOn));
    view.setUint8(7, BULK_CODES.indexOf(this.bulkLoad));
    view.setUint32(8, this.dimensions, true);
    view.setUint32(12, this.labelDimensions, true);
    view.setUint32(16, this.nodeCapacity, true);
    view.setUint32(20, entries, true);
    view.setUint32(24, nodes, true);
    view.setUint32(28, this.alive, true);
    view.setFloat64(32, this.minFill, true);
    view.setFloat64(40, this.reinsertFraction, true);
    view.setUint32(48, this.height, true);

    new this.ArrayType(bytes.buffer, layout.entryBoxes, entries * s).set(
      this.entryBoxes.subarray(0, entries * s),
    );
    const aliveBytes = new Uint8Array(bytes.buffer, layout.entryAlive, entries);
    for (let i = 0; i < entries; i++) aliveBytes[i] = this.entryLeaf[i] === REMOVED ? 0 : 1;
    const nodeBoxes = new this.ArrayType(bytes.buffer, layout.nodeBoxes, nodes * s);
    const levels = new Int32Array(bytes.buffer, layout.nodeLevel, nodes);
    const sizes = new Int32Array(bytes.buffer, layout.nodeSize, nodes);
    const children = new Int32Array(bytes.buffer, layout.nodeChildren, nodes * this.slots);
    for (let i = 0; i < nodes; i++) {
      const n = order[i]!;
      nodeBoxes.set(this.nodeBoxes.subarray(n * s, n * s + s), i * s);
      levels[i] = this.nodeLevel[n]!;
      const count = this.nodeSize[n]!;
      sizes[i] = count;
      const base = n * this.slots;
      for (let c = 0; c < count; c++) {
        const child = this.nodeChildren[base + c]!;
        children[i * this.slots + c] = levels[i] === 0 ? child : newId[child]!;
      }
    }
    return bytes;
  }

  /**
   * Rebuild an index from {@link save}'s buffer (the data are copied, so the buffer may be reused).
   *
   * @param source Names the buffer's file in errors (which then end with "rebuild the index.").
   * @throws IndexFormatError when the buffer is not an R*-tree of this format version, or is damaged
   */
  static load(data: ArrayBuffer | ArrayBufferView, source?: string): RStarTree {
    const bytes =
      data instanceof ArrayBuffer
        ? new Uint8Array(data)
        : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    const fail = (message: string, version?: number): never => {
      throw new IndexFormatError(
        source ?? '(buffer)',
        version,
        source === undefined
          ? `RStarTree.load: ${message}`
          : `${source}: ${message.replace(/\.$/, '')}; rebuild the index.`,
      );
    };
    if (bytes.byteLength < HEADER_BYTES)
      fail(`the buffer has ${bytes.byteLength} bytes, fewer than a header; pass the bytes of save().`);
    // Copy to an aligned buffer once; typed views below need 8-byte alignment.
    const copy = bytes.slice();
    const view = new DataView(copy.buffer);
    if (view.getUint32(0, true) !== FORMAT_MAGIC) fail('not an RStarTree buffer (bad magic bytes).');
    const version = view.getUint8(4);
    if (version !== FORMAT_VERSION)
      fail(`format version ${version} is not supported (this build reads ${FORMAT_VERSION}).`, version);
    const bpe = view.getUint8(5);
    if (bpe !== 8 && bpe !== 4) fail(`unknown coordinate type code ${bpe}.`, version);
    const cluster = CLUSTER_CODES[view.getUint8(6)];
    if (cluster === undefined) fail(`unknown clusterOn code ${view.getUint8(6)}.`, version);
    const bulkLoad = BULK_CODES[view.getUint8(7)];
    if (bulkLoad === undefined) fail(`unknown bulkLoad code ${view.getUint8(7)}.`, version);
    let tree: RStarTree;
    try {
      tree = new RStarTree({
        dimensions: view.getUint32(8, true),
        labelDimensions: view.getUint32(12, true),
        nodeCapacity: view.getUint32(16, true),
        minFill: view.getFloat64(32, true),
        reinsertFraction: view.getFloat64(40, true),
        clusterOn: cluster!,
        bulkLoad: bulkLoad!,
        ArrayType: bpe === 8 ? Float64Array : Float32Array,
      });
    } catch (error) {
      return fail(`the header holds invalid options (${(error as Error).message}).`, version);
    }
    const entries = view.getUint32(20, true);
    const nodes = view.getUint32(24, true);
    const alive = view.getUint32(28, true);
    const s = tree.stride;
    const slots = tree.slots;
    const layout = RStarTree.layout(entries, nodes, s, slots, bpe);
    if (copy.byteLength !== layout.total)
      fail(`the buffer has ${copy.byteLength} bytes, the header announces ${layout.total}.`, version);
    if (nodes < 1) fail('the buffer holds no root node.', version);

    tree.ensureEntryCapacity(entries);
    tree.entryBoxes.set(new tree.ArrayType(copy.buffer, layout.entryBoxes, entries * s));
    tree.entryCount = entries;
    tree.entryLeaf.fill(REMOVED, 0, entries);
    const aliveBytes = new Uint8Array(copy.buffer, layout.entryAlive, entries);
    for (let i = 0; i < nodes; i++) tree.allocNode(0);
    tree.nodeBoxes.set(new tree.ArrayType(copy.buffer, layout.nodeBoxes, nodes * s));
    tree.nodeLevel.set(new Int32Array(copy.buffer, layout.nodeLevel, nodes));
    tree.nodeSize.set(new Int32Array(copy.buffer, layout.nodeSize, nodes));
    tree.nodeChildren.set(new Int32Array(copy.buffer, layout.nodeChildren, nodes * slots));
    tree.nodeParent.fill(-1, 0, nodes);
    let seen = 0;
    for (let n = 0; n < nodes; n++) {
      const count = tree.nodeSize[n]!;
      const level = tree.nodeLevel[n]!;
      if (count < 0 || count > tree.nodeCapacity || level < 0 || level >= 64)
        fail(`node ${n} is damaged (fill ${count}, level ${level}).`, version);
      const base = n * slots;
      for (let c = 0; c < count; c++) {
        const child = tree.nodeChildren[base + c]!;
        if (level === 0) {
          if (child < 0 || child >= entries || aliveBytes[child] !== 1 || tree.entryLeaf[child] !== REMOVED)
            fail(`leaf ${n} points at a missing or repeated entry ${child}.`, version);
          tree.entryLeaf[child] = n;
          seen++;
        } else {
          if (
            child <= n ||
            child >= nodes ||
            tree.nodeLevel[child] !== level - 1 ||
            tree.nodeParent[child] !== -1
          )
            fail(`node ${n} points at an invalid child node ${child}.`, version);
          tree.nodeParent[child] = n;
        }
      }
    }
    if (seen !== alive) fail(`the leaves hold ${seen} entries, the header announces ${alive}.`, version);
    tree.alive = alive;
    tree.root = 0;
    tree.finished = true;
    return tree;
  }

  private static layout(
    entries: number,
    nodes: number,
    stride: number,
    slots: number,
    bpe: number,
  ): {
    entryBoxes: number;
    entryAlive: number;
    nodeBoxes: number;
    nodeLevel: number;
    nodeSize: number;
    nodeChildren: number;
    total: number;
  } {
    const entryBoxes = HEADER_BYTES;
    const entryAlive = align8(entryBoxes + entries * stride * bpe);
    const nodeBoxes = align8(entryAlive + entries);
    const nodeLevel = align8(nodeBoxes + nodes * stride * bpe);
    const nodeSize = align8(nodeLevel + nodes * 4);
    const nodeChildren = align8(nodeSize + nodes * 4);
    const total = align8(nodeChildren + nodes * slots * 4);
    return { entryBoxes, entryAlive, nodeBoxes, nodeLevel, nodeSize, nodeChildren, total };
  }

  // ---------------------------------------------------------------- internals: validation

  private requireFinished(method: string, hint = ''): void {
    if (!this.finished)
      throw new StateError(`Index not finished — call \`index.finish()\` before \`${method}()\`${hint}.`);
  }

  private checkLength(method: string, argument: string, value: ArrayLike<number>, length: number): void {
    if (value === null || typeof value !== 'object' || typeof value.length !== 'number')
      throw new InvalidArgumentError(
        argument,
        `RStarTree.${method}: ${argument} must be an array of ${length} numbers.`,
      );
    if (value.length !== length)
      throw new InvalidArgumentError(
        argument,
        `RStarTree.${method}: ${argument} has ${value.length} coordinates, the index has ${length} ${argument.startsWith('label') ? 'labelDimensions' : 'dimensions'}; pass ${length}.`,
      );
  }

  /** Validate one entry and store it at the next id. */
  private writeEntry(
    method: string,
    min: ArrayLike<number>,
    max: ArrayLike<number>,
    label: LabelQuery | undefined,
  ): number {
    const d = this.dimensions;
    const D = this.D;
    this.checkLength(method, 'min', min, d);
    if (max !== min) this.checkLength(method, 'max', max, d);
    const s = this.scratch;
    for (let i = 0; i < d; i++) {
      const a = min[i]!;
      const b = max[i]!;
      if (!Number.isFinite(a) || !Number.isFinite(b))
        throw new InvalidArgumentError(
          'min',
          `RStarTree.${method}: coordinate ${i} is ${String(Number.isFinite(a) ? b : a)}; entries need finite numbers (NaN wildcards are for queries).`,
        );
      if (a > b)
        throw new InvalidArgumentError(
          'max',
          `RStarTree.${method}: min[${i}] = ${a} is greater than max[${i}] = ${b}; pass the lower corner first.`,
        );
      s[i] = a;
      s[D + i] = b;
    }
    if (this.labelDimensions === 0) {
      if (label !== undefined)
        throw new InvalidArgumentError(
          'label',
          `RStarTree.${method}: this index has no label space; create it with \`labelDimensions\` to store labels.`,
        );
    } else {
      if (label === undefined)
        throw new InvalidArgumentError(
          'label',
          `RStarTree.${method}: this index has labelDimensions ${this.labelDimensions}; pass each entry's label (a point or { min, max }).`,
        );
      const lmin = isBoxLike(label) ? label.min : label;
      const lmax = isBoxLike(label) ? label.max : label;
      const L = this.labelDimensions;
      this.checkLength(method, 'label', lmin, L);
      if (lmax !== lmin) this.checkLength(method, 'label', lmax, L);
      for (let i = 0; i < L; i++) {
        const a = lmin[i]!;
        const b = lmax[i]!;
        if (!Number.isFinite(a) || !Number.isFinite(b))
          throw new InvalidArgumentError(
            'label',
            `RStarTree.${method}: label coordinate ${i} is ${String(Number.isFinite(a) ? b : a)}; stored labels need finite numbers (NaN wildcards are for queries).`,
          );
        if (a > b)
          throw new InvalidArgumentError(
            'label',
            `RStarTree.${method}: label min[${i}] = ${a} is greater than label max[${i}] = ${b}.`,
          );
        s[d + i] = a;
        s[D + d + i] = b;
      }
    }
    const id = this.entryCount;
    this.ensureEntryCapacity(id + 1);
    this.entryBoxes.set(s, id * this.stride);
    this.entryCount = id + 1;
    return id;
  }

  private queryBounds(): { lo: Float64Array; hi: Float64Array } {
    return {
      lo: new Float64Array(this.D).fill(Number.NEGATIVE_INFINITY),
      hi: new Float64Array(this.D).fill(Number.POSITIVE_INFINITY),
    };
  }

  /** Copy query coordinates into `out[offset..]`; NaN stays unconstrained. */
  private readQuery(
    method: string,
    argument: string,
    value: ArrayLike<number>,
    length: number,
    out: Float64Array,
    offset: number,
  ): void {
    this.checkLength(method, argument, value, length);
    for (let i = 0; i < length; i++) {
      const v = value[i]!;
      if (typeof v !== 'number')
        throw new InvalidArgumentError(argument, `RStarTree.${method}: ${argument}[${i}] is not a number.`);
      if (!Number.isNaN(v)) out[offset + i] = v;
    }
  }

  private readLabel(method: string, label: LabelQuery | undefined, lo: Float64Array, hi: Float64Array): void {
    if (label === undefined) return;
    const L = this.labelDimensions;
    if (L === 0)
      throw new InvalidArgumentError(
        'label',
        `RStarTree.${method}: this index has no label space; drop the label constraint or create the index with \`labelDimensions\`.`,
      );
    const d = this.dimensions;
    const lmin = isBoxLike(label) ? label.min : label;
    const lmax = isBoxLike(label) ? label.max : label;
    this.checkLength(method, 'label', lmin, L);
    this.checkLength(method, 'label', lmax, L);
    for (let i = 0; i < L; i++) {
      const a = lmin[i]!;
      const b = lmax[i]!;
      if (typeof a !== 'number' || typeof b !== 'number')
        throw new InvalidArgumentError('label', `RStarTree.${method}: label[${i}] is not a number.`);
      // A NaN in either bound makes the whole dimension a wildcard.
      if (Number.isNaN(a) || Number.isNaN(b)) continue;
      if (a > b)
        throw new InvalidArgumentError(
          'label',
          `RStarTree.${method}: label min[${i}] = ${a} is greater than label max[${i}] = ${b}.`,
        );
      lo[d + i] = a;
      hi[d + i] = b;
    }
  }

  /** Coordinates in [from, to) that the query bounds constrain. */
  private activeDims(lo: Float64Array, hi: Float64Array, from: number, to: number): Int32Array {
    const dims: number[] = [];
    for (let i = from; i < to; i++) {
      if (lo[i]! > Number.NEGATIVE_INFINITY || hi[i]! < Number.POSITIVE_INFINITY) dims.push(i);
    }
    return Int32Array.from(dims);
  }

  // ---------------------------------------------------------------- internals: query kernels

  /** Whether the stored box at `off` meets [lo, hi] on `dims`. */
  private meets(arr: Coords, off: number, dims: Int32Array, lo: Float64Array, hi: Float64Array): boolean {
    const D = this.D;
    for (let j = 0; j < dims.length; j++) {
      const i = dims[j]!;
      if (arr[off + i]! > hi[i]! || arr[off + D + i]! < lo[i]!) return false;
    }
    return true;
  }

  /** Whether the stored box at `off` lies inside [lo, hi] on `dims`. */
  private inside(arr: Coords, off: number, dims: Int32Array, lo: Float64Array, hi: Float64Array): boolean {
    const D = this.D;
    for (let j = 0; j < dims.length; j++) {
      const i = dims[j]!;
      if (arr[off + i]! < lo[i]! || arr[off + D + i]! > hi[i]!) return false;
    }
    return true;
  }

  /** Every entry whose stored box meets [lo, hi] (all D coordinates). */
  private collect(
    lo: Float64Array,
    hi: Float64Array,
    filter: ((id: number) => boolean) | undefined,
  ): number[] {
    const out: number[] = [];
    if (this.alive === 0) return out;
    const dims = this.activeDims(lo, hi, 0, this.D);
    const s = this.stride;
    const slots = this.slots;
    const children = this.nodeChildren;
    const sizes = this.nodeSize;
    const levels = this.nodeLevel;
    const nb = this.nodeBoxes;
    const eb = this.entryBoxes;
    if (!this.meets(nb, this.root * s, dims, lo, hi)) return out;
    const stack: number[] = [this.root];
    while (stack.length > 0) {
      const n = stack.pop()!;
      const base = n * slots;
      const count = sizes[n]!;
      if (levels[n] === 0) {
        for (let c = 0; c < count; c++) {
          const id = children[base + c]!;
          if (this.meets(eb, id * s, dims, lo, hi) && (filter === undefined || filter(id))) out.push(id);
        }
        continue;
      }
      for (let c = 0; c < count; c++) {
        const child = children[base + c]!;
        const off = child * s;
        if (!this.meets(nb, off, dims, lo, hi)) continue;
        // A node inside the query box: every entry below it qualifies.
        if (this.inside(nb, off, dims, lo, hi)) this.collectAll(child, out, filter);
        else stack.push(child);
      }
    }
    return out;
  }

  private collectAll(node: number, out: number[], filter: ((id: number) => boolean) | undefined): void {
    const stack: number[] = [node];
    while (stack.length > 0) {
      const n = stack.pop()!;
      const base = n * this.slots;
      const count = this.nodeSize[n]!;
      const leaf = this.nodeLevel[n] === 0;
      for (let c = 0; c < count; c++) {
        const child = this.nodeChildren[base + c]!;
        if (!leaf) stack.push(child);
        else if (filter === undefined || filter(child)) out.push(child);
      }
    }
  }

  private newView(): BoxView {
    return {
      min: new Float64Array(this.dimensions),
      max: new Float64Array(this.dimensions),
      labelMin: new Float64Array(this.labelDimensions),
      labelMax: new Float64Array(this.labelDimensions),
    };
  }

  private fillView(view: BoxView, arr: Coords, off: number): void {
    const d = this.dimensions;
    const D = this.D;
    const { min, max, labelMin, labelMax } = view;
    for (let i = 0; i < d; i++) {
      min[i] = arr[off + i]!;
      max[i] = arr[off + D + i]!;
    }
    for (let i = 0; i < this.labelDimensions; i++) {
      labelMin[i] = arr[off + d + i]!;
      labelMax[i] = arr[off + D + d + i]!;
    }
  }

  private *traverseFrom(options: TraverseOptions): Generator<TraversalHit, void, undefined> {
    const { key, acceptNode, acceptEntry } = options;
    const version = this.version;
    const view = this.newView();
    const s = this.stride;
    const heap = new MinHeap();
    if (this.alive === 0) return;
    this.fillView(view, this.nodeBoxes, this.root * s);
    if (acceptNode && !acceptNode(view)) return;
    heap.push(key(view), ~this.root);
    while (heap.length > 0) {
      const k = heap.peekKey();
      const v = heap.peekValue();
      heap.pop();
      if (v >= 0) {
        yield { id: v, key: k };
        if (this.version !== version)
          throw new StateError(
            'RStarTree.traverse: the index changed during the traversal — collect the ids first, then insert or remove.',
          );
        continue;
      }
      const n = ~v;
      const base = n * this.slots;
      const count = this.nodeSize[n]!;
      if (this.nodeLevel[n] === 0) {
        for (let c = 0; c < count; c++) {
          const id = this.nodeChildren[base + c]!;
          this.fillView(view, this.entryBoxes, id * s);
          if (acceptEntry && !acceptEntry(id, view)) continue;
          heap.push(key(view), id);
        }
      } else {
        for (let c = 0; c < count; c++) {
          const child = this.nodeChildren[base + c]!;
          this.fillView(view, this.nodeBoxes, child * s);
          if (acceptNode && !acceptNode(view)) continue;
          heap.push(key(view), ~child);
        }
      }
    }
  }

  // ---------------------------------------------------------------- internals: storage

  private ensureEntryCapacity(needed: number): void {
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

  private allocNode(level: number): number {
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

  private freeNode(n: number): void {
    this.nodeSize[n] = 0;
    this.nodeParent[n] = -1;
    this.freeNodes.push(n);
  }

  /** Append a child (entry id at a leaf, node otherwise) and point it back at `n`. */
  private attachChild(n: number, child: number): void {
    this.nodeChildren[n * this.slots + this.nodeSize[n]!] = child;
    this.nodeSize[n]!++;
    if (this.nodeLevel[n] === 0) this.entryLeaf[child] = n;
    else this.nodeParent[child] = n;
  }

  /** Remove a child from `n` (the last child takes its slot). */
  private detachChild(n: number, child: number): void {
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

  private recomputeBox(n: number): void {
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
  private extendUp(n: number, src: Coords, so: number): void {
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
  private tightenUp(n: number): void {
    while (n !== -1) {
      this.recomputeBox(n);
      n = this.nodeParent[n]!;
    }
  }

  // ---------------------------------------------------------------- internals: R* insertion

  /**
   * Insert an item: an entry (`itemLevel` -1) into a leaf, or a node of level `itemLevel` as a child
   * of a node of level `itemLevel + 1`.
   */
  private insertItem(item: number, itemLevel: number): void {
    const src = itemLevel < 0 ? this.entryBoxes : this.nodeBoxes;
    const so = item * this.stride;
    const target = this.chooseSubtree(src, so, itemLevel + 1);
    this.attachChild(target, item);
    this.extendUp(target, itemLevel < 0 ? this.entryBoxes : this.nodeBoxes, so);
    if (this.nodeSize[target]! > this.nodeCapacity) this.overflow(target);
  }

  /** Beckmann et al. 1990 §4.1 ChooseSubtree, descending from the root to a node of `targetLevel`. */
  private chooseSubtree(src: Coords, so: number, targetLevel: number): number {
    let n = this.root;
    if (this.nodeLevel[n]! < targetLevel)
      throw new Error(`RStarTree: internal error, no node at level ${targetLevel}`);
    while (this.nodeLevel[n]! > targetLevel) {
      const level = this.nodeLevel[n]!;
      n = level === 1 && targetLevel === 0 ? this.chooseByOverlap(n, src, so) : this.chooseByArea(n, src, so);
    }
    return n;
  }

  /** The child needing least area enlargement; ties: smallest area, then smallest margin. */
  private chooseByArea(n: number, src: Coords, so: number): number {
    const D = this.D;
    const s = this.stride;
    const nb = this.nodeBoxes;
    const base = n * this.slots;
    const count = this.nodeSize[n]!;
    let best = -1;
    let bestEnl = 0;
    let bestArea = 0;
    let bestMargin = 0;
    for (let c = 0; c < count; c++) {
      const child = this.nodeChildren[base + c]!;
      const o = child * s;
      let area = 1;
      let enlarged = 1;
      let margin = 0;
      for (let i = this.h0; i < this.h1; i++) {
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
  private chooseByOverlap(n: number, src: Coords, so: number): number {
    const D = this.D;
    const s = this.stride;
    const nb = this.nodeBoxes;
    const base = n * this.slots;
    const count = this.nodeSize[n]!;
    const h0 = this.h0;
    const H = this.h1 - h0;
    const H2 = 2 * H;
    const boxes = this.prefixBoxes; // child c's box on the heuristic dims at [c·2H, c·2H + 2H)
    const e = this.scratch;
    const areas = this.areaScratch;
    const enls = this.enlargementScratch;
    const order = this.orderScratch;
    let containing = -1;
    for (let c = 0; c < count; c++) {
      const o = this.nodeChildren[base + c]! * s;
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
    if (containing >= 0) return this.nodeChildren[base + containing]!;
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
    return this.nodeChildren[base + best]!;
  }

  /** OverflowTreatment: forced reinsertion the first time a level overflows in an insertion, else split. */
  private overflow(n: number): void {
    const level = this.nodeLevel[n]!;
    if (n !== this.root && this.reinsertCount > 0 && this.reinserted[level] === 0) {
      this.reinserted[level] = 1;
      this.reinsertFarthest(n);
    } else {
      this.split(n);
    }
  }

  /**
   * Remove the p children whose centres lie farthest from the node's centre and reinsert them,
   * nearest of them first ("close reinsert", Beckmann et al. 1990 §4.3).
   */
  private reinsertFarthest(n: number): void {
    const D = this.D;
    const s = this.stride;
    const level = this.nodeLevel[n]!;
    const src = level === 0 ? this.entryBoxes : this.nodeBoxes;
    const nb = this.nodeBoxes;
    const o = n * s;
    const base = n * this.slots;
    const count = this.nodeSize[n]!;
    const kids = Array.from(this.nodeChildren.subarray(base, base + count));
    const dist = new Float64Array(count);
    for (let c = 0; c < count; c++) {
      const co = kids[c]! * s;
      let sum = 0;
      for (let i = this.h0; i < this.h1; i++) {
        const delta = src[co + i]! + src[co + D + i]! - nb[o + i]! - nb[o + D + i]!;
        sum += delta * delta;
      }
      dist[c] = sum;
    }
    const order = Array.from({ length: count }, (_, c) => c).sort((a, b) => dist[b]! - dist[a]!);
    const p = this.reinsertCount;
    const removed = order.slice(0, p).map((c) => kids[c]!);
    const kept = order.slice(p).map((c) => kids[c]!);
    this.nodeSize[n] = 0;
    for (const child of kept) this.attachChild(n, child);
    this.tightenUp(n);
    for (let r = removed.length - 1; r >= 0; r--) this.insertItem(removed[r]!, level - 1);
  }

  /** Beckmann et al. 1990 §4.2 split: the axis of least total margin, then the distribution of least overlap. */
  private split(n: number): void {
    const level = this.nodeLevel[n]!;
    const D = this.D;
    const s = this.stride;
    const m = this.minEntries;
    const base = n * this.slots;
    const count = this.nodeSize[n]!;
    const src = level === 0 ? this.entryBoxes : this.nodeBoxes;
    const items = Int32Array.from(this.nodeChildren.subarray(base, base + count));
    const h0 = this.h0;
    const H = this.h1 - h0;
    const H2 = 2 * H;
    // Children's boxes on the heuristic dims, contiguous: child c at [c·2H, c·2H + 2H).
    const boxes = this.splitBoxes;
    for (let c = 0; c < count; c++) {
      const o = items[c]! * s + h0;
      const bo = c * H2;
      for (let i = 0; i < H; i++) {
        boxes[bo + i] = src[o + i]!;
        boxes[bo + H + i] = src[o + D + i]!;
      }
    }
    const order = this.orderScratch;

    // ChooseSplitAxis: least sum of margins over every distribution of both sorts.
    let bestAxis = 0;
    let bestMarginSum = Number.POSITIVE_INFINITY;
    for (let axis = 0; axis < H; axis++) {
      const sum = this.marginSum(count, m, axis, false) + this.marginSum(count, m, axis, true);
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
    const pre = this.prefixBoxes;
    const suf = this.suffixBoxes;
    for (const upper of [false, true]) {
      this.sortChildren(count, bestAxis, upper);
      // prefix[k] = MBR of the first k + 1 sorted children, suffix[k] = MBR of those from k on.
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
    this.sortChildren(count, bestAxis, bestUpper);
    const sorted = Int32Array.from(order.subarray(0, count), (c) => items[c]!);

    const sibling = this.allocNode(level);
    this.nodeSize[n] = 0;
    for (let c = 0; c < bestK; c++) this.attachChild(n, sorted[c]!);
    for (let c = bestK; c < count; c++) this.attachChild(sibling, sorted[c]!);
    this.recomputeBox(n);
    this.recomputeBox(sibling);
    if (n === this.root) {
      const root = this.allocNode(level + 1);
      this.attachChild(root, n);
      this.attachChild(root, sibling);
      this.recomputeBox(root);
      this.root = root;
      return;
    }
    const parent = this.nodeParent[n]!;
    this.attachChild(parent, sibling);
    if (this.nodeSize[parent]! > this.nodeCapacity) this.overflow(parent);
  }

  /** Sort `orderScratch[0..count)` (indices into `splitBoxes`) by the lower or upper bound on `axis`. */
  private sortChildren(count: number, axis: number, upper: boolean): void {
    const boxes = this.splitBoxes;
    const order = this.orderScratch;
    const keys = this.keyScratch;
    const H2 = 2 * (this.h1 - this.h0);
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

  /** Sum of the margins of both groups over every split distribution of one sort (ChooseSplitAxis). */
  private marginSum(count: number, m: number, axis: number, upper: boolean): number {
    this.sortChildren(count, axis, upper);
    const boxes = this.splitBoxes;
    const order = this.orderScratch;
    const H = this.h1 - this.h0;
    const H2 = 2 * H;
    const lo = this.runMin;
    const hi = this.runMax;
    let sum = 0;
    // Groups made of the first k children, k = m .. count - m.
    lo.fill(Number.POSITIVE_INFINITY);
    hi.fill(Number.NEGATIVE_INFINITY);
    for (let k = 0; k < count - m; k++) {
      const bo = order[k]! * H2;
      let margin = 0;
      for (let i = 0; i < H; i++) {
        const a = boxes[bo + i]!;
        const b = boxes[bo + H + i]!;
        if (a < lo[i]!) lo[i] = a;
        if (b > hi[i]!) hi[i] = b;
        margin += hi[i]! - lo[i]!;
      }
      if (k >= m - 1) sum += margin;
    }
    // Groups made of the last count - k children.
    lo.fill(Number.POSITIVE_INFINITY);
    hi.fill(Number.NEGATIVE_INFINITY);
    for (let k = count - 1; k >= m; k--) {
      const bo = order[k]! * H2;
      let margin = 0;
      for (let i = 0; i < H; i++) {
        const a = boxes[bo + i]!;
        const b = boxes[bo + H + i]!;
        if (a < lo[i]!) lo[i] = a;
        if (b > hi[i]!) hi[i] = b;
        margin += hi[i]! - lo[i]!;
      }
      if (k <= count - m) sum += margin;
    }
    return sum;
  }

  // ---------------------------------------------------------------- internals: deletion

  /**
   * CondenseTree (Guttman 1984): walk up from the leaf that lost an entry, dissolve under-full nodes,
   * tighten the others, reinsert the orphans at their levels, then shorten the root.
   */
  private condense(leaf: number): void {
    const orphans: number[] = [];
    let n = leaf;
    while (n !== this.root) {
      const parent = this.nodeParent[n]!;
      if (this.nodeSize[n]! < this.minEntries) {
        this.detachChild(parent, n);
        this.nodeParent[n] = -1;
        orphans.push(n);
      } else {
        this.recomputeBox(n);
      }
      n = parent;
    }
    this.recomputeBox(this.root);
    // Higher subtrees first, so lower orphans find the structure they belong in.
    orphans.sort((a, b) => this.nodeLevel[b]! - this.nodeLevel[a]!);
    for (const orphan of orphans) {
      const level = this.nodeLevel[orphan]!;
      const base = orphan * this.slots;
      const kids = Array.from(this.nodeChildren.subarray(base, base + this.nodeSize[orphan]!));
      this.freeNode(orphan);
      for (const child of kids) {
        this.reinserted.fill(0);
        this.insertItem(child, level - 1);
      }
    }
    while (this.nodeLevel[this.root]! > 0 && this.nodeSize[this.root]! === 1) {
      const old = this.root;
      this.root = this.nodeChildren[old * this.slots]!;
      this.nodeParent[this.root] = -1;
      this.freeNode(old);
    }
    if (this.nodeSize[this.root] === 0) {
      this.nodeLevel[this.root] = 0;
      this.recomputeBox(this.root);
    }
  }

  // ---------------------------------------------------------------- internals: bulk loading

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
  private packLevel(items: Int32Array, level: number): Int32Array {
    const n = items.length;
    const M = this.nodeCapacity;
    const pages = Math.ceil(n / M);
    const out: number[] = [];
    const keys = new Float64Array(n);
    const used = new Uint8Array(this.D);
    const H = this.h1 - this.h0;
    const D = this.D;
    const s = this.stride;
    const str = this.bulkLoad === 'str';

    const makeNode = (lo: number, hi: number): void => {
      const node = this.allocNode(level);
      for (let i = lo; i < hi; i++) this.attachChild(node, items[i]!);
      this.recomputeBox(node);
      out.push(node);
    };

    const partition = (lo: number, hi: number, p: number, depth: number): void => {
      if (p === 1) {
        makeNode(lo, hi);
        return;
      }
      const src = level === 0 ? this.entryBoxes : this.nodeBoxes;
      // STR: the widest spread of centres among the axes not cut yet; VAMSplit: the largest variance.
      // Both are estimated on at most ~2048 evenly spaced items of the range.
      let axis = -1;
      let widest = -1;
      const step = Math.max(1, Math.floor((hi - lo) / 2048));
      for (let i = this.h0; i < this.h1; i++) {
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
}
