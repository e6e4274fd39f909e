import { InvalidArgumentError } from '@grag/core';
import { randomInt, weylFmix32 } from '@grag/core/kit';

/** Options of {@link kMeans}. */
export interface KMeansOptions {
  /** Seed of the k-means++ seeding. @default 42 */
  seed: number;
  /** Most Lloyd iterations. @default 25 (faiss `Kmeans`, which NodeRAG's official code uses) */
  maxIterations: number;
}

/** Defaults of {@link kMeans}. */
export const KMEANS_DEFAULTS: KMeansOptions = { seed: 42, maxIterations: 25 };

/** What {@link kMeans} returns. */
export interface KMeansResult {
  /** Cluster of every point, in input order. */
  labels: Int32Array;
  /** Cluster centres (means of their points). */
  centroids: Float64Array[];
  /** Lloyd iterations run (stops early when no label changes). */
  iterations: number;
  /** Sum of squared Euclidean distances of the points to their centres. */
  inertia: number;
}

/** A point with its non-zero coordinates listed, so distances to dense centres cost O(nnz). */
interface Point {
  index: Uint32Array;
  value: Float64Array;
  norm2: number;
}

function toPoint(vector: ArrayLike<number>, d: number): Point {
  let nnz = 0;
  for (let j = 0; j < d; j++) if (vector[j] !== 0) nnz++;
  const index = new Uint32Array(nnz);
  const value = new Float64Array(nnz);
  let norm2 = 0;
  let at = 0;
  for (let j = 0; j < d; j++) {
    const x = vector[j]!;
    if (x !== 0) {
      if (!Number.isFinite(x)) {
        throw new InvalidArgumentError('points', `kMeans: a point has the non-finite coordinate ${x}.`);
      }
      index[at] = j;
      value[at] = x;
      norm2 += x * x;
      at++;
    }
  }
  return { index, value, norm2 };
}

/** ‖p − c‖² = ‖p‖² + ‖c‖² − 2·p·c, clamped at 0 against rounding. */
function distance2(p: Point, c: Float64Array, cNorm2: number): number {
  let dot = 0;
  for (let i = 0; i < p.index.length; i++) dot += p.value[i]! * c[p.index[i]!]!;
  const d = p.norm2 + cNorm2 - 2 * dot;
  return Math.max(d, 0);
}

function norm2(c: Float64Array): number {
  let s = 0;
  for (let j = 0; j < c.length; j++) s += c[j]! * c[j]!;
  return s;
}

function centroidOf(p: Point, d: number): Float64Array {
  const c = new Float64Array(d);
  for (let i = 0; i < p.index.length; i++) c[p.index[i]!] = p.value[i]!;
  return c;
}

/**
 * k-means (Lloyd's algorithm, MacQueen 1967) with k-means++ seeding (Arthur & Vassilvitskii 2007),
 * seeded, on squared Euclidean distance. A cluster left empty is re-seeded with the point farthest
 * from its centre. Sparse vectors (e.g. hashed TF-IDF) are cheap: distances cost O(non-zeros).
 *
 * @param points vectors of equal length.
 * @param k clusters; at most the number of points.
 * @throws InvalidArgumentError when `k` is out of range or the vectors differ in length.
 * @example
 * const { labels } = kMeans(embeddings, Math.ceil(Math.sqrt(embeddings.length)), { seed: 1 });
 */
export function kMeans(
  points: readonly ArrayLike<number>[],
  k: number,
  options: Partial<KMeansOptions> = {},
): KMeansResult {
  const o = { ...KMEANS_DEFAULTS, ...options };
  const n = points.length;
  if (!Number.isInteger(k) || k < 1 || k > Math.max(1, n)) {
    throw new InvalidArgumentError('k', `kMeans: k must be an integer in [1, ${Math.max(1, n)}], got ${k}.`);
  }
  if (!Number.isInteger(o.maxIterations) || o.maxIterations < 0) {
    throw new InvalidArgumentError(
      'options.maxIterations',
      `kMeans: maxIterations must be a non-negative integer, got ${o.maxIterations}.`,
    );
  }
  if (n === 0) return { labels: new Int32Array(0), centroids: [], iterations: 0, inertia: 0 };
  const d = points[0]!.length;
  const data = points.map((p, i) => {
    if (p.length !== d) {
      throw new InvalidArgumentError(
        'points',
        `kMeans: point ${i} has ${p.length} dimensions, point 0 has ${d}; all must be equal.`,
      );
    }
    return toPoint(p, d);
  });
  const rand = weylFmix32(o.seed);
  const { centroids, norms } = seedCentres(data, k, d, rand);
  const { labels, iterations } = lloyd(data, centroids, norms, o.maxIterations);
  const best = new Float64Array(n);
  for (let i = 0; i < n; i++) best[i] = distance2(data[i]!, centroids[labels[i]!]!, norms[labels[i]!]!);
  let inertia = 0;
  for (let i = 0; i < n; i++) inertia += best[i]!;
  return { labels, centroids, iterations, inertia };
}

/** k-means++ seeding (Arthur & Vassilvitskii 2007): the first centre uniformly, each next one with probability ∝ D(x)². */
function seedCentres(
  data: readonly Point[],
  k: number,
  d: number,
  rand: () => number,
): { centroids: Float64Array[]; norms: number[] } {
  const n = data.length;
  const centroids: Float64Array[] = [centroidOf(data[randomInt(rand, n)]!, d)];
  const norms: number[] = [norm2(centroids[0]!)];
  const nearest = new Float64Array(n);
  for (let i = 0; i < n; i++) nearest[i] = distance2(data[i]!, centroids[0]!, norms[0]!);
  while (centroids.length < k) {
    let total = 0;
    for (let i = 0; i < n; i++) total += nearest[i]!;
    let chosen = 0;
    if (total > 0) {
      let pick = rand() * total;
      chosen = n - 1;
      for (let i = 0; i < n; i++) {
        pick -= nearest[i]!;
        if (pick < 0) {
          chosen = i;
          break;
        }
      }
    } else {
      chosen = randomInt(rand, n); // every point sits on a centre: duplicates
    }
    const c = centroidOf(data[chosen]!, d);
    const cn = norm2(c);
    centroids.push(c);
    norms.push(cn);
    for (let i = 0; i < n; i++) {
      const dist = distance2(data[i]!, c, cn);
      if (dist < nearest[i]!) nearest[i] = dist;
    }
  }
  return { centroids, norms };
}

/**
 * The labels of the points and Hamerly's bounds on their distances (Hamerly 2010): `upper[i]` is at
 * least the distance of point i to its centre, `lower[i]` at most its distance to every other centre.
 */
class HamerlyBounds {
  readonly labels: Int32Array;
  readonly upper: Float64Array;
  readonly lower: Float64Array;
  /** The centres by dimension (`transposed[j * k + c]`), for one pass over a point's non-zeros. */
  readonly transposed: Float64Array;
  readonly #dots: Float64Array;
  readonly #data: readonly Point[];
  readonly #centroids: readonly Float64Array[];
  readonly #norms: readonly number[];

  constructor(data: readonly Point[], centroids: readonly Float64Array[], norms: readonly number[]) {
    const n = data.length;
    const k = centroids.length;
    this.labels = new Int32Array(n);
    this.upper = new Float64Array(n);
    this.lower = new Float64Array(n);
    this.transposed = new Float64Array(centroids[0]!.length * k);
    this.#dots = new Float64Array(k);
    this.#data = data;
    this.#centroids = centroids;
    this.#norms = norms;
  }

  /** Copy the current centres into `transposed`. */
  transpose(): void {
    const centroids = this.#centroids;
    const k = centroids.length;
    const transposed = this.transposed;
    for (let c = 0; c < k; c++) {
      const centroid = centroids[c]!;
      for (let j = 0; j < centroid.length; j++) transposed[j * k + c] = centroid[j]!;
    }
  }

  /** Full scan of point i: label, distance to its centre and to the second closest. */
  scan(i: number): void {
    const p = this.#data[i]!;
    const dots = this.#dots;
    const transposed = this.transposed;
    const norms = this.#norms;
    const k = dots.length;
    dots.fill(0);
    for (let t = 0; t < p.index.length; t++) {
      const base = p.index[t]! * k;
      const x = p.value[t]!;
      for (let c = 0; c < k; c++) dots[c]! += x * transposed[base + c]!;
    }
    let first = Number.POSITIVE_INFINITY;
    let second = Number.POSITIVE_INFINITY;
    let label = 0;
    for (let c = 0; c < k; c++) {
      const dist = Math.max(0, p.norm2 + norms[c]! - 2 * dots[c]!);
      if (dist < first) {
        second = first;
        first = dist;
        label = c;
      } else if (dist < second) second = dist;
    }
    this.labels[i] = label;
    this.upper[i] = Math.sqrt(first);
    this.lower[i] = Math.sqrt(second);
  }
}

/**
 * Lloyd iterations with Hamerly's bounds (Hamerly 2010): a point whose distance to its centre is at
 * most both the lower bound on its second-closest centre and half the distance from its centre to
 * the nearest other centre keeps its label without computing any distance. Same result as plain
 * Lloyd. Moves `centroids` and `norms` in place.
 */
function lloyd(
  data: readonly Point[],
  centroids: Float64Array[],
  norms: number[],
  maxIterations: number,
): { labels: Int32Array; iterations: number } {
  const n = data.length;
  const k = centroids.length;
  const bounds = new HamerlyBounds(data, centroids, norms);
  const { labels, upper, lower } = bounds;
  bounds.transpose();
  for (let i = 0; i < n; i++) bounds.scan(i);
  const old = centroids.map((c) => Float64Array.from(c));
  const moved = new Float64Array(k);
  const half = new Float64Array(k);
  let iterations = 0;
  while (iterations < maxIterations) {
    iterations++;
    const reseeded = moveCentres(data, bounds, centroids, norms, old, moved);
    let maxMove = 0;
    let maxAt = 0;
    let secondMove = 0;
    for (let c = 0; c < k; c++) {
      if (moved[c]! > maxMove) {
        secondMove = maxMove;
        maxMove = moved[c]!;
        maxAt = c;
      } else if (moved[c]! > secondMove) secondMove = moved[c]!;
    }
    if (maxMove === 0 && !reseeded) break;
    bounds.transpose();
    halfGaps(centroids, norms, bounds.transposed, half);
    let changed = false;
    if (reseeded) {
      // Bounds do not hold across a re-seeded centre: assign every point afresh.
      for (let i = 0; i < n; i++) {
        const a = labels[i]!;
        bounds.scan(i);
        if (labels[i] !== a) changed = true;
      }
      if (!changed) break;
      continue;
    }
    for (let i = 0; i < n; i++) {
      const a = labels[i]!;
      upper[i]! += moved[a]!;
      lower[i]! -= a === maxAt ? secondMove : maxMove;
      const bound = Math.max(lower[i]!, half[a]!);
      if (upper[i]! <= bound) continue;
      upper[i] = Math.sqrt(distance2(data[i]!, centroids[a]!, norms[a]!));
      if (upper[i]! <= bound) continue;
      bounds.scan(i);
      if (labels[i] !== a) changed = true;
    }
    if (!changed) break;
  }
  return { labels, iterations };
}

/**
 * Each centre moved to the mean of its points (`old` keeps where it was, `moved` how far it went);
 * an empty cluster is re-seeded with the point farthest from its centre. Returns whether one was.
 */
function moveCentres(
  data: readonly Point[],
  bounds: HamerlyBounds,
  centroids: Float64Array[],
  norms: number[],
  old: Float64Array[],
  moved: Float64Array,
): boolean {
  const n = data.length;
  const k = centroids.length;
  const d = centroids[0]!.length;
  const { labels, upper } = bounds;
  const counts = new Int32Array(k);
  let reseeded = false;
  for (let c = 0; c < k; c++) {
    old[c]!.set(centroids[c]!);
    centroids[c]!.fill(0);
  }
  for (let i = 0; i < n; i++) {
    const c = centroids[labels[i]!]!;
    const p = data[i]!;
    counts[labels[i]!]!++;
    for (let j = 0; j < p.index.length; j++) c[p.index[j]!]! += p.value[j]!;
  }
  for (let c = 0; c < k; c++) {
    const centroid = centroids[c]!;
    if (counts[c] === 0) {
      // Re-seed an empty cluster with the point farthest from its centre.
      let far = 0;
      for (let i = 1; i < n; i++) if (upper[i]! > upper[far]!) far = i;
      centroid.set(centroidOf(data[far]!, d));
      upper[far] = 0;
      reseeded = true;
    } else {
      const inv = 1 / counts[c]!;
      for (let j = 0; j < d; j++) centroid[j]! *= inv;
    }
    norms[c] = norm2(centroid);
    let m = 0;
    const before = old[c]!;
    for (let j = 0; j < d; j++) m += (centroid[j]! - before[j]!) ** 2;
    moved[c] = Math.sqrt(m);
  }
  return reseeded;
}

/** `half[c]`: half the distance from centre c to the nearest other centre (∞ with one centre). */
function halfGaps(
  centroids: readonly Float64Array[],
  norms: readonly number[],
  transposed: Float64Array,
  half: Float64Array,
): void {
  const k = centroids.length;
  const d = centroids[0]!.length;
  for (let c = 0; c < k; c++) {
    let min = Number.POSITIVE_INFINITY;
    const a = centroids[c]!;
    for (let e = 0; e < k; e++) {
      if (e === c) continue;
      let dot = 0;
      for (let j = 0; j < d; j++) dot += a[j]! * transposed[j * k + e]!;
      const dist = norms[c]! + norms[e]! - 2 * dot;
      if (dist < min) min = dist;
    }
    half[c] = k > 1 ? Math.sqrt(Math.max(0, min)) / 2 : Number.POSITIVE_INFINITY;
  }
}

/** A node taking part in {@link semanticMatching}. */
export interface MatchingNode {
  id: string;
  /** `'H'` for a high-level element; `'S'` or `'A'` for the nodes it may be matched with. */
  type: 'S' | 'A' | 'H';
  /** Community of the node (for an H node, the community it summarizes). */
  community: number | string;
  vector: ArrayLike<number>;
}

/** Options of {@link semanticMatching}. */
export interface SemanticMatchingOptions extends KMeansOptions {
  /** Clusters; `undefined` uses K = ⌈√n⌉ (NodeRAG appendix C.3). @default undefined */
  k: number | undefined;
}

/** Defaults of {@link semanticMatching}. */
export const SEMANTIC_MATCHING_DEFAULTS: SemanticMatchingOptions = { ...KMEANS_DEFAULTS, k: undefined };

/** What {@link semanticMatching} returns. */
export interface SemanticMatching {
  /** Semantic edges e_h as `[member (S or A), high-level element (H)]`. */
  edges: [string, string][];
  /** Cluster of every node. */
  clusters: Map<string, number>;
  /** Clusters used. */
  k: number;
}

/**
 * Semantic matching within community (NodeRAG §2.3 and appendix C.3, Algorithm 2): k-means on the
 * embeddings of the S, A and H nodes with K = ⌈√|V_{S,A,H}|⌉, then an edge between an S or A node and
 * an H node whenever both are in the same community and the same cluster.
 *
 * @example
 * const { edges } = semanticMatching(nodes, { seed: 7 });
 * for (const [member, h] of edges) hetero.connect(member, h, 'h');
 */
export function semanticMatching(
  nodes: readonly MatchingNode[],
  options: Partial<SemanticMatchingOptions> = {},
): SemanticMatching {
  const o = { ...SEMANTIC_MATCHING_DEFAULTS, ...options };
  if (nodes.length === 0) return { edges: [], clusters: new Map(), k: 0 };
  const k = o.k ?? Math.ceil(Math.sqrt(nodes.length));
  const { labels } = kMeans(
    nodes.map((node) => node.vector),
    Math.min(k, nodes.length),
    o,
  );
  const clusters = new Map<string, number>();
  // Group H nodes and members by (community, cluster).
  const groups = new Map<string, { members: string[]; high: string[] }>();
  nodes.forEach((node, i) => {
    clusters.set(node.id, labels[i]!);
    const key = `${typeof node.community}:${String(node.community)}\u0000${labels[i]}`;
    let group = groups.get(key);
    if (!group) {
      group = { members: [], high: [] };
      groups.set(key, group);
    }
    if (node.type === 'H') group.high.push(node.id);
    else if (node.type === 'S' || node.type === 'A') group.members.push(node.id);
    else {
      throw new InvalidArgumentError(
        'nodes',
        `semanticMatching: node "${node.id}" has type ${String(node.type)}; only S, A and H nodes take part.`,
      );
    }
  });
  const edges: [string, string][] = [];
  for (const { members, high } of groups.values()) {
    for (const h of high) for (const member of members) edges.push([member, h]);
  }
  return { edges, clusters, k: Math.min(k, nodes.length) };
}
