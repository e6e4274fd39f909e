import { InvalidArgumentError, StateError } from '@grag/core';
import { bulkLoad } from './bulk-load.js';
import { loadTree, saveTree } from './format.js';
import { condense, insertItem } from './insert.js';
import {
  type BoxView,
  type LabelQuery,
  type NeighborOptions,
  type QueryOptions,
  type RStarNodeSnapshot,
  type RStarTreeOptions,
  RStarTreeParameters,
  type TraversalHit,
  type TraverseOptions,
} from './options.js';
import { dominating, fillView, neighbors, newView, search, snapshot, traverseFrom } from './queries.js';
import { REMOVED, STAGED, TreeStore } from './store.js';
import { requireFinished, resolveTreeOptions, writeEntry } from './validate.js';

/**
 * An N-dimensional R*-tree (Beckmann, Kriegel, Schneider & Seeger 1990) over points and boxes,
 * stored in typed arrays, with an optional second key space per entry (a label box).
 *
 * Lifecycle: `add()` entries, `finish()` bulk-loads them (VAMSplit or STR), then query; a finished
 * tree also takes `insert()` and `remove()` (R* insertion with forced reinsertion, deletion with
 * condense-and-reinsert). Entries are integer ids in insertion order (0, 1, 2, ...); a removed id is
 * never reused.
 *
 * The class is the public face; the work is in modules: `store.ts` (the typed arrays),
 * `validate.ts` (argument checks), `bulk-load.ts`, `insert.ts` and `split.ts` (R* insertion and
 * deletion), `queries.ts` and `format.ts` (save and load).
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
export class RStarTree extends RStarTreeParameters {
  /** Entries, nodes and scratch buffers. */
  private readonly store: TreeStore;

  /**
   * @param options `dimensions` is required; the rest default to {@link RSTAR_DEFAULTS}.
   * @throws InvalidArgumentError when an option is out of range.
   */
  constructor(options: Partial<RStarTreeOptions> & { dimensions: number }) {
    const o = resolveTreeOptions(options);
    super(o);
    this.store = new TreeStore(o);
  }

  /** Number of entries held (added or inserted, and not removed). */
  get size(): number {
    return this.store.alive;
  }

  /** Levels of the tree: 1 for a single leaf; 0 before `finish()`. */
  get height(): number {
    return this.store.height;
  }

  /** Whether `finish()` has run (queries, `insert`, `remove` and `save` need it). */
  get isFinished(): boolean {
    return this.store.finished;
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
    const t = this.store;
    if (t.finished)
      throw new StateError(
        'RStarTree.add: the index is finished — use `insert()` to add entries to a finished index (`add()` stages entries for the bulk load in `finish()`).',
      );
    const id = writeEntry(t, 'add', min, max, label);
    t.entryLeaf[id] = STAGED;
    t.alive++;
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
    const t = this.store;
    if (t.finished)
      throw new StateError(
        'RStarTree.finish: the index is already finished — add more entries with `insert()`.',
      );
    bulkLoad(t);
    t.finished = true;
    t.version++;
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
    const t = this.store;
    requireFinished(t, 'insert', ' (stage entries with `add()` before it, or finish an empty index)');
    const id = writeEntry(t, 'insert', min, max, label);
    t.reinserted.fill(0);
    insertItem(t, id, -1);
    t.alive++;
    t.version++;
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
    const t = this.store;
    requireFinished(t, 'remove');
    if (!Number.isInteger(id) || id < 0 || id >= t.entryCount) return false;
    const leaf = t.entryLeaf[id]!;
    if (leaf < 0) return false;
    t.detachChild(leaf, id);
    t.entryLeaf[id] = REMOVED;
    t.alive--;
    condense(t, leaf);
    t.version++;
    return true;
  }

  /** Whether `id` is a live entry (added or inserted, and not removed). */
  has(id: number): boolean {
    const t = this.store;
    return Number.isInteger(id) && id >= 0 && id < t.entryCount && t.entryLeaf[id] !== REMOVED;
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
    const t = this.store;
    const view = newView(t);
    fillView(t, view, t.entryBoxes, id * t.stride);
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
    return search(this.store, min, max, options);
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
    return dominating(this.store, q, options);
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
    return neighbors(this.store, point, k, options);
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
    requireFinished(this.store, 'traverse');
    if (typeof options?.key !== 'function')
      throw new InvalidArgumentError('key', 'RStarTree.traverse: pass `key(box) => number` in the options.');
    return traverseFrom(this.store, options);
  }

  /**
   * A plain nested snapshot of the tree (levels, MBRs, children; entry ids at the leaves), for
   * inspection, pictures and tests. Allocates the whole tree: not for large indexes in a hot path.
   */
  toJSON(): RStarNodeSnapshot {
    return snapshot(this.store);
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
    requireFinished(this.store, 'save');
    return saveTree(this.store);
  }

  /**
   * Rebuild an index from {@link save}'s buffer (the data are copied, so the buffer may be reused).
   *
   * @param source Names the buffer's file in errors (which then end with "rebuild the index.").
   * @throws IndexFormatError when the buffer is not an R*-tree of this format version, or is damaged
   */
  static load(data: ArrayBuffer | ArrayBufferView, source?: string): RStarTree {
    let tree: RStarTree | undefined;
    loadTree(data, source, (options) => {
      tree = new RStarTree(options);
      return tree.store;
    });
    return tree!;
  }
}
