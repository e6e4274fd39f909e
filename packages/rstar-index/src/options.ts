/** Options, defaults and the small public types of {@link RStarTree}. */

/** A typed-array constructor the tree stores coordinates in. */
export type CoordinateArrayType = Float64ArrayConstructor | Float32ArrayConstructor;

/** How `finish()` packs the staged entries: Sort-Tile-Recursive or VAMSplit. */
export type BulkLoad = 'str' | 'vamsplit';

/** Which key space the tree's clustering heuristics (choose-subtree, split, bulk loading) look at. */
export type ClusterOn = 'both' | 'box' | 'label';

/** Options of {@link RStarTree}. Every option but `dimensions` has a default in {@link RSTAR_DEFAULTS}. */
export interface RStarTreeOptions {
  /** Dimensions of the main key space (the boxes and points queries run on). Required. */
  dimensions: number;
  /**
   * Dimensions of the second key space: the label box each entry carries beside its box (SG-RAG's
   * MBR_0 beside the dominance MBR, §4.2). `0` means entries carry no label.
   * @default 0
   */
  labelDimensions: number;
  /**
   * Maximum number of children per node (M).
   * @default 16 (flatbush's default; the fastest or within noise of 8/32/64 for dominance queries in
   * the benchmark's capacity sweep, 2-D and 8-D)
   */
  nodeCapacity: number;
  /**
   * Minimum fill of a non-root node as a share of `nodeCapacity` (m = ceil(minFill·M), at least 2,
   * at most M/2).
   * @default 0.4 (Beckmann et al. 1990 §4.3: m = 40% of M performed best)
   */
  minFill: number;
  /**
   * Share of an overflowing node's children removed and reinserted (forced reinsertion, once per
   * level per insertion) before the node is split.
   * @default 0.3 (Beckmann et al. 1990 §4.3: p = 30% of M)
   */
  reinsertFraction: number;
  /**
   * Coordinates the clustering heuristics use: `'both'` the box and label dimensions together,
   * `'box'` or `'label'` only one key space. Queries constrain both spaces whatever this is; it
   * only decides which space nodes are tight in.
   * @default 'both'
   */
  clusterOn: ClusterOn;
  /**
   * Packing of the bulk load in `finish()`: `'str'`, Sort-Tile-Recursive (Leutenegger, Lopez &
   * Edgington 1997), tiles each axis into P^(1/d) slabs; `'vamsplit'` (White & Jain 1996) halves the
   * axis of largest variance at a page boundary, recursively, which keeps pages near-cubic when
   * P^(1/d) is small (several dimensions, few pages per axis).
   * @default 'vamsplit' (in the benchmark, dominance queries 1.3–2.7× faster than after STR in 8-D, as
   * fast in 2-D)
   */
  bulkLoad: BulkLoad;
  /**
   * Storage of coordinates. `Float32Array` halves memory; coordinates are then rounded to float32
   * when added and every query runs on the rounded values.
   * @default Float64Array
   */
  ArrayType: CoordinateArrayType;
}

/** Defaults of {@link RStarTreeOptions} (every option but the required `dimensions`). */
export const RSTAR_DEFAULTS = {
  labelDimensions: 0,
  nodeCapacity: 16,
  minFill: 0.4,
  reinsertFraction: 0.3,
  clusterOn: 'both' as ClusterOn,
  bulkLoad: 'vamsplit' as BulkLoad,
  ArrayType: Float64Array as CoordinateArrayType,
} satisfies Omit<RStarTreeOptions, 'dimensions'>;

/** An axis-aligned box given by its lower and upper corners. */
export interface BoxLike {
  readonly min: ArrayLike<number>;
  readonly max: ArrayLike<number>;
}

/**
 * A label constraint: a point (the entry's label box must contain it; for point labels, equality) or
 * a box (the entry's label box must intersect it). `NaN` in a coordinate, or in either bound of a
 * box, is a wildcard: that label dimension is not constrained (an unknown label, SG-RAG App. E).
 */
export type LabelQuery = ArrayLike<number> | BoxLike;

/** Options shared by {@link RStarTree.search} and {@link RStarTree.dominating}. */
export interface QueryOptions {
  /** Constrain the entry's label box too (needs `labelDimensions > 0`). */
  label?: LabelQuery;
  /** Keep only the entries this returns `true` for (called once per candidate that passed the geometry). */
  filter?: (id: number) => boolean;
}

/** Options of {@link RStarTree.neighbors}. */
export interface NeighborOptions extends QueryOptions {
  /** Only entries within this Euclidean distance of the point. @default Infinity */
  maxDistance?: number;
}

/**
 * A node MBR or an entry box as the traversal callbacks see it. The arrays are reused between calls:
 * copy them to keep them.
 */
export interface BoxView {
  /** Lower corner in the main key space (`dimensions` long). */
  readonly min: Float64Array;
  /** Upper corner in the main key space. */
  readonly max: Float64Array;
  /** Lower corner of the label box (`labelDimensions` long; empty without labels). */
  readonly labelMin: Float64Array;
  /** Upper corner of the label box. */
  readonly labelMax: Float64Array;
}

/** Callbacks of {@link RStarTree.traverse}. */
export interface TraverseOptions {
  /**
   * Priority of a node MBR or an entry box: smaller comes first. Entries come out in non-decreasing
   * key order when the key is a lower bound over containment, i.e. `key(parent MBR) <= key(child box)`
   * whenever the child lies inside the parent (MINDIST to a point, minus the L1 norm of the upper
   * corner, ...).
   */
  key(box: BoxView): number;
  /** Whether to descend into a node with this MBR (prune with `false`). @default always */
  acceptNode?(box: BoxView): boolean;
  /** Whether an entry is reported. @default always */
  acceptEntry?(id: number, box: BoxView): boolean;
}

/** One entry reported by {@link RStarTree.traverse}. */
export interface TraversalHit {
  /** The entry's id. */
  id: number;
  /** Its key. */
  key: number;
}

/** A plain snapshot of one node, from {@link RStarTree.toJSON}. */
export interface RStarNodeSnapshot {
  /** 0 for leaves (children are entry ids), height - 1 for the root. */
  level: number;
  /** MBR of the subtree in the main key space. */
  min: number[];
  max: number[];
  /** MBR_0 of the subtree in the label space (empty without labels). */
  labelMin: number[];
  labelMax: number[];
  /** Child nodes, or entry ids at a leaf. */
  children: RStarNodeSnapshot[] | number[];
}

/**
 * The parameters of an R*-tree as its options resolved them: what an {@link RStarTree} shows, and
 * what its store works with. m and p are derived: m = ceil(minFill·M), at least 2 and at most M/2;
 * p = round(reinsertFraction·M), at most M + 1 − m.
 */
export class RStarTreeParameters {
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

  /** @param o validated options (see `resolveTreeOptions`). */
  constructor(o: RStarTreeOptions) {
    this.dimensions = o.dimensions;
    this.labelDimensions = o.labelDimensions;
    this.nodeCapacity = o.nodeCapacity;
    const M = o.nodeCapacity;
    this.minEntries = Math.min(Math.floor(M / 2), Math.max(2, Math.ceil(o.minFill * M)));
    this.reinsertCount = Math.min(Math.round(o.reinsertFraction * M), M + 1 - this.minEntries);
    this.clusterOn = o.clusterOn;
    this.bulkLoad = o.bulkLoad;
    this.ArrayType = o.ArrayType;
  }
}
