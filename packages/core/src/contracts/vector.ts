/** Distance used by a vector index. */
export type Metric = 'cosine' | 'ip' | 'l2';

/** One search hit. `score` is higher-is-better: cosine similarity, inner product, or minus squared L2 distance. */
export interface VectorHit {
  id: number;
  score: number;
}

/** Options of {@link VectorIndex.search}. */
export interface VectorSearchOptions {
  /** Keep only ids for which this returns true. */
  filter?: (id: number) => boolean;
  /** HNSW search breadth (ignored by exact indexes). */
  ef?: number;
}

/**
 * A vector index over integer ids (as flatbush/rbush return ids, not objects).
 * Implementations: `FlatIndex` in core (exact; the fallback and the test oracle), `HnswIndex` in `@grag/hnsw`.
 */
export interface VectorIndex {
  /** Implementation name, recorded in manifests: `'flat'`, `'hnsw'`. */
  readonly kind: string;
  readonly dimensions: number;
  readonly metric: Metric;
  /** Number of vectors stored. */
  readonly size: number;
  /** Add (or replace) the vector of `id`. Ids are non-negative integers. */
  add(id: number, vector: ArrayLike<number>): void;
  /** Whether `id` has a vector. */
  has(id: number): boolean;
  /** The `k` nearest ids to `query`, best first. Fewer when the index holds fewer. */
  search(query: ArrayLike<number>, k: number, options?: VectorSearchOptions): VectorHit[];
  /** Write the index to one file. */
  save(path: string): Promise<void>;
}

/**
 * A vector collection searched where it is stored (pgvector, through `@grag/postgres`), so the
 * process that queries it never holds its vectors: core's {@link VectorIndex} search, asynchronous.
 * An index keeps one when its store offers collections (see `IndexWriter.vectorCollection`); ids
 * are positions, 0 … size − 1.
 */
export interface StoredVectors {
  /** Where the vectors live, e.g. `'pgvector'`. */
  readonly kind: string;
  readonly dimensions: number;
  readonly metric: Metric;
  /** Number of vectors. */
  readonly size: number;
  /** Whether a search is exact (a scan, as `FlatIndex`) rather than approximate (an HNSW index). */
  readonly exact: boolean;
  /** Where the collection lives, for messages. */
  readonly location: string;
  /**
   * The `k` nearest ids to `query`, best first; scores as {@link VectorHit}. `options` restricts
   * the ids searched (as {@link VectorSearchOptions.filter} does in process).
   */
  search(query: ArrayLike<number>, k: number, options?: StoredVectorSearchOptions): Promise<VectorHit[]>;
  /** Every vector, by id (for an update, which rebuilds from the kept vectors). */
  all(): Promise<Float32Array[]>;
  /**
   * The vectors of `ids`, in that order (for scoring a known set of ids without a search).
   * Optional: {@link storedVectorRows} falls back to {@link all} when absent.
   */
  get?(ids: readonly number[]): Promise<Float32Array[]>;
}

/**
 * Options of {@link StoredVectors.search}: the ids a search may return, given as the ids allowed
 * (`ids`) or the ids left out (`exclude`), whichever is shorter to send; both may be given.
 */
export interface StoredVectorSearchOptions {
  /** Return only these ids. */
  ids?: readonly number[];
  /** Never return these ids. */
  exclude?: readonly number[];
  /**
   * Search breadth of an approximate collection (HNSW's `ef`; at least `k` is used, so that the
   * search can return `k` hits); an exact one ignores it. @default the collection's own
   */
  ef?: number;
}

/**
 * {@link StoredVectorSearchOptions} equivalent to an in-process `filter` over ids 0 … size − 1: the
 * allowed ids or the left-out ones, whichever list is shorter.
 */
export function storedSearchFilter(size: number, filter: (id: number) => boolean): StoredVectorSearchOptions {
  const ids: number[] = [];
  const exclude: number[] = [];
  for (let id = 0; id < size; id++) (filter(id) ? ids : exclude).push(id);
  return ids.length <= exclude.length ? { ids } : { exclude };
}

/** The vectors of `ids` of a stored collection, in that order (through `get`, else `all`). */
export async function storedVectorRows(
  vectors: StoredVectors,
  ids: readonly number[],
): Promise<Float32Array[]> {
  if (vectors.get) return vectors.get(ids);
  const all = await vectors.all();
  return ids.map((id) => all[id]!);
}

/** Vectors searched at query time: an in-process {@link VectorIndex} or a {@link StoredVectors} collection. */
export type SearchableVectors = VectorIndex | StoredVectors;

/** Whether `vectors` is a {@link StoredVectors} (searched where it is stored) rather than an in-process {@link VectorIndex}. */
export function isStoredVectors(vectors: VectorIndex | StoredVectors): vectors is StoredVectors {
  return typeof (vectors as StoredVectors).all === 'function';
}

/**
 * What a {@link VectorIndexFactory} makes an index for: its dimensions, metric and expected size,
 * and the construction settings of a graph index (HNSW), which an exact index ignores. A setting
 * given here wins over the factory's own (a method that builds with its paper's settings passes
 * them; `hnswIndexFactory`'s defaults fill the rest).
 */
export interface VectorIndexOptions {
  dimensions: number;
  /** @default 'cosine' */
  metric?: Metric;
  /** Expected number of vectors (an HNSW index grows beyond it when needed). */
  capacity?: number;
  /** Graph index: links per node and layer (level 0 keeps up to 2·M). Ignored by exact indexes. */
  M?: number;
  /** Graph index: candidate list size while inserting. Ignored by exact indexes. */
  efConstruction?: number;
  /** Graph index: candidate list size of a search that gives no `ef`. Ignored by exact indexes. */
  efSearch?: number;
  /** Graph index: seed of its level generator, so builds are reproducible. Ignored by exact indexes. */
  seed?: number;
}

/**
 * A {@link VectorIndex} that searches a proximity graph (HNSW, `@grag/hnsw`'s `HnswIndex`) and can
 * give its base layer: what NodeRAG lays as semantic edges (§2.4). A method tells one from an exact
 * index with {@link isGraphVectorIndex}, never by its `kind`.
 */
export interface GraphVectorIndex extends VectorIndex {
  /** Candidate list size used by `search` when the call gives no `ef`. May be changed at any time. */
  efSearch: number;
  /**
   * The base layer (level 0) of the graph as the index built it: for each id, its out-links (not
   * necessarily symmetric, not simply the nearest ids).
   */
  baseLayerGraph(): Promise<Map<number, number[]>>;
}

/** Whether `index` is a {@link GraphVectorIndex} (it can give its graph's base layer). */
export function isGraphVectorIndex(index: VectorIndex): index is GraphVectorIndex {
  return (
    typeof (index as Partial<GraphVectorIndex>).baseLayerGraph === 'function' &&
    typeof (index as Partial<GraphVectorIndex>).efSearch === 'number'
  );
}

/** Creates and loads indexes of one kind, so methods can take any implementation. */
export interface VectorIndexFactory {
  readonly kind: string;
  /**
   * Whether its indexes search exactly (a scan, as `FlatIndex`): such an index is nothing but its
   * vectors, built again from them as fast as it loads, so a method that keeps the vectors need not
   * save the index too (see `IndexWriter.vectorIndex`). @default false
   */
  readonly exact?: boolean;
  create(options: VectorIndexOptions): VectorIndex;
  load(path: string): Promise<VectorIndex>;
}

/**
 * A new index of `factory`'s kind holding `vectors` under ids 0..n-1 (the position of each).
 * `dimensions` defaults to the first vector's length.
 */
export function indexVectors(
  factory: VectorIndexFactory,
  vectors: readonly ArrayLike<number>[],
  options: Partial<VectorIndexOptions> = {},
): VectorIndex {
  const index = factory.create({
    dimensions: options.dimensions ?? vectors[0]?.length ?? 0,
    metric: options.metric ?? 'cosine',
    capacity: options.capacity ?? vectors.length,
  });
  vectors.forEach((vector, id) => {
    index.add(id, vector);
  });
  return index;
}
