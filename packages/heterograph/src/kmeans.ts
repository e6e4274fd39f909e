import { InvalidArgumentError } from '@grag/core';
import { weylFmix32 } from '@grag/core/kit';
import {
  centroidOf,
  distance2,
  type FlatPoints,
  flatPoints,
  GROUP_SIZE,
  norm2,
  type Point,
  pointsOf,
  type Seeding,
  seedCentres,
} from './kmeans-seed.js';

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
  const input = kMeansInput(points, k, options);
  if (!input) return { labels: new Int32Array(0), centroids: [], iterations: 0, inertia: 0 };
  return clusterPoints(input.flat, k, input.o);
}

/**
 * The checked input of {@link kMeans}: the points made flat and the options with their defaults;
 * `undefined` without points. @throws InvalidArgumentError as {@link kMeans} does.
 */
export function kMeansInput(
  points: readonly ArrayLike<number>[],
  k: number,
  options: Partial<KMeansOptions>,
): { flat: FlatPoints; o: KMeansOptions } | undefined {
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
  if (n === 0) return undefined;
  const d = points[0]!.length;
  points.forEach((p, i) => {
    if (p.length !== d) {
      throw new InvalidArgumentError(
        'points',
        `kMeans: point ${i} has ${p.length} dimensions, point 0 has ${d}; all must be equal.`,
      );
    }
  });
  return { flat: flatPoints(points, d), o };
}

/** {@link kMeans} of points already checked and made flat (`k` in range; what a worker runs). */
export function clusterPoints(flat: FlatPoints, k: number, o: KMeansOptions): KMeansResult {
  const data = pointsOf(flat);
  const n = data.length;
  const seeding = seedCentres(data, k, flat.d, weylFmix32(o.seed));
  const { centroids, norms } = seeding;
  const { labels, iterations } = lloyd(data, seeding, o.maxIterations);
  const best = new Float64Array(n);
  for (let i = 0; i < n; i++) best[i] = distance2(data[i]!, centroids[labels[i]!]!, norms[labels[i]!]!);
  let inertia = 0;
  for (let i = 0; i < n; i++) inertia += best[i]!;
  return { labels, centroids, iterations, inertia };
}

/** A refine scans all centres instead when its bounds leave more than this share of them open. */
const SCAN_SHARE = 0.25;

/**
 * `dots[c]` = p·c for every centre c of `transposed` (`transposed[j * k + c]`), each summed over the
 * point's non-zeros in order, as {@link distance2} sums it; eight centres at a time, kept in
 * registers rather than in `dots` (the same sums: each still adds one product at a time).
 */
function dotsWithCentres(p: Point, transposed: Float64Array, dots: Float64Array): void {
  const k = dots.length;
  const { index, value } = p;
  const m = index.length;
  let c = 0;
  for (; c + 8 <= k; c += 8) {
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let s4 = 0;
    let s5 = 0;
    let s6 = 0;
    let s7 = 0;
    for (let t = 0; t < m; t++) {
      const at = index[t]! * k + c;
      const x = value[t]!;
      s0 += x * transposed[at]!;
      s1 += x * transposed[at + 1]!;
      s2 += x * transposed[at + 2]!;
      s3 += x * transposed[at + 3]!;
      s4 += x * transposed[at + 4]!;
      s5 += x * transposed[at + 5]!;
      s6 += x * transposed[at + 6]!;
      s7 += x * transposed[at + 7]!;
    }
    dots[c] = s0;
    dots[c + 1] = s1;
    dots[c + 2] = s2;
    dots[c + 3] = s3;
    dots[c + 4] = s4;
    dots[c + 5] = s5;
    dots[c + 6] = s6;
    dots[c + 7] = s7;
  }
  for (; c < k; c++) {
    let s = 0;
    for (let t = 0; t < m; t++) s += value[t]! * transposed[index[t]! * k + c]!;
    dots[c] = s;
  }
}

/**
 * The labels of the points and Yinyang bounds on their distances (Ding et al. 2015): `upper[i]` is
 * at least the distance of point i to its centre, `lower[i * groups + g]` at most its distance to
 * every other centre of group g (the centres `g * GROUP_SIZE` up to the next group's first).
 */
class YinyangBounds {
  readonly labels: Int32Array;
  readonly upper: Float64Array;
  readonly lower: Float64Array;
  readonly groups: number;
  /** The centres by dimension (`transposed[j * k + c]`), for one pass over a point's non-zeros. */
  readonly transposed: Float64Array;
  readonly #dots: Float64Array;
  /** Per group, the least bound of the centres a refine did not compute. */
  readonly #skipped: Float64Array;
  readonly #data: readonly Point[];
  readonly #centroids: readonly Float64Array[];
  readonly #norms: readonly number[];

  /** Bounds from the labels and distances of the seeding (`seeding`'s arrays, taken over). */
  constructor(data: readonly Point[], seeding: Seeding) {
    const { centroids, norms } = seeding;
    const k = centroids.length;
    this.groups = Math.ceil(k / GROUP_SIZE);
    this.#skipped = new Float64Array(this.groups);
    this.labels = seeding.labels;
    this.upper = seeding.upper;
    this.lower = seeding.lower;
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

  /** Full scan of point i: label (the nearest centre, the first of equals), its distance and the group bounds. */
  scan(i: number): void {
    const p = this.#data[i]!;
    const dots = this.#dots;
    const norms = this.#norms;
    const k = dots.length;
    dotsWithCentres(p, this.transposed, dots);
    let first = Number.POSITIVE_INFINITY;
    let label = 0;
    for (let c = 0; c < k; c++) {
      // the squared distance, kept in `dots`
      const dist = Math.max(0, p.norm2 + norms[c]! - 2 * dots[c]!);
      dots[c] = dist;
      if (dist < first) {
        first = dist;
        label = c;
      }
    }
    this.labels[i] = label;
    this.upper[i] = Math.sqrt(first);
    const lower = this.lower;
    const at = i * this.groups;
    for (let g = 0; g < this.groups; g++) {
      let min = Number.POSITIVE_INFINITY;
      const end = Math.min(k, (g + 1) * GROUP_SIZE);
      for (let c = g * GROUP_SIZE; c < end; c++) if (c !== label && dots[c]! < min) min = dots[c]!;
      lower[at + g] = Math.sqrt(min);
    }
  }

  /**
   * Point i after the centres moved (`moved[c]`: how far centre c went; `drift[g]`: the most any
   * centre of group g went), its upper bound already loosened: the group bounds loosened by the
   * drift, then the distances to the centres of every group whose bound is below the exact
   * distance to the point's centre (but those that the centre's own move bounds away), and the
   * label and bounds they give; a full scan when most groups must be looked at. Returns whether the
   * label changed.
   */
  refine(i: number, moved: Float64Array, drift: Float64Array): boolean {
    const p = this.#data[i]!;
    const centroids = this.#centroids;
    const norms = this.#norms;
    const k = centroids.length;
    const groups = this.groups;
    const lower = this.lower;
    const at = i * groups;
    const a = this.labels[i]!;
    // squared distances, in the same arithmetic as a scan
    const dots = this.#dots;
    dots[a] = distance2(p, centroids[a]!, norms[a]!);
    const root = Math.sqrt(dots[a]!);
    // centres the bounds leave open; a full scan when they are most
    let open = 0;
    for (let g = 0; g < groups; g++) {
      const before = lower[at + g]!;
      if (before - drift[g]! >= root) continue;
      const end = Math.min(k, (g + 1) * GROUP_SIZE);
      for (let c = g * GROUP_SIZE; c < end; c++) if (before - moved[c]! < root) open++;
    }
    if (open > SCAN_SHARE * k) {
      this.scan(i);
      return this.labels[i] !== a;
    }
    let best = a;
    let bestDist = dots[a]!;
    for (let g = 0; g < groups; g++) {
      // the bound before the drift: each centre's own move loosens it less than the group's most
      const before = lower[at + g]!;
      const l = before - drift[g]!;
      if (l >= root) {
        lower[at + g] = l;
        continue;
      }
      const end = Math.min(k, (g + 1) * GROUP_SIZE);
      let min = Number.POSITIVE_INFINITY;
      for (let c = g * GROUP_SIZE; c < end; c++) {
        if (c === a) continue;
        const bound = before - moved[c]!;
        if (bound >= root) {
          // not computed: this centre is farther than the point's centre
          if (bound < min) min = bound;
          dots[c] = Number.NaN;
          continue;
        }
        const dist = distance2(p, centroids[c]!, norms[c]!);
        dots[c] = dist;
        if (dist < bestDist || (dist === bestDist && c < best)) {
          best = c;
          bestDist = dist;
        }
      }
      // marked as looked at (NaN) until its bound is set below; `min` of the skipped centres kept
      lower[at + g] = Number.NaN;
      this.#skipped[g] = min;
    }
    this.labels[i] = best;
    this.upper[i] = Math.sqrt(bestDist);
    for (let g = 0; g < groups; g++) {
      if (!Number.isNaN(lower[at + g]!)) continue;
      let min = this.#skipped[g]!;
      const end = Math.min(k, (g + 1) * GROUP_SIZE);
      for (let c = g * GROUP_SIZE; c < end; c++) {
        if (c === best) continue;
        const dist = dots[c]!;
        if (Number.isNaN(dist) || c === a) continue;
        const r = Math.sqrt(dist);
        if (r < min) min = r;
      }
      lower[at + g] = min;
    }
    if (best === a) return false;
    // the old centre now bounds its group from below (its distance is exact)
    const aGroup = Math.floor(a / GROUP_SIZE);
    if (lower[at + aGroup]! > root) lower[at + aGroup] = root;
    return true;
  }
}

/**
 * Lloyd iterations with Yinyang bounds (Ding et al. 2015; group filter): after the centres move,
 * each point's upper bound grows by its centre's drift and each group bound shrinks by the largest
 * drift in the group; a point whose upper bound stays at most every group bound keeps its label
 * without computing any distance, else the distances to the centres of the groups whose bound is
 * below its exact distance are computed. Same result as plain Lloyd (the nearest centre, the first
 * of equals). Moves `centroids` and `norms` in place.
 */
function lloyd(
  data: readonly Point[],
  seeding: Seeding,
  maxIterations: number,
): { labels: Int32Array; iterations: number } {
  const n = data.length;
  const { centroids, norms } = seeding;
  const k = centroids.length;
  // the seeding assigned every point as a scan would (see kmeans-seed.ts)
  const bounds = new YinyangBounds(data, seeding);
  const { labels, upper, lower, groups } = bounds;
  const old = centroids.map((c) => Float64Array.from(c));
  const moved = new Float64Array(k);
  const drift = new Float64Array(groups);
  let iterations = 0;
  while (iterations < maxIterations) {
    iterations++;
    const reseeded = moveCentres(data, bounds, centroids, norms, old, moved);
    let maxMove = 0;
    drift.fill(0);
    for (let c = 0; c < k; c++) {
      const g = Math.floor(c / GROUP_SIZE);
      if (moved[c]! > drift[g]!) drift[g] = moved[c]!;
      if (moved[c]! > maxMove) maxMove = moved[c]!;
    }
    if (maxMove === 0 && !reseeded) break;
    bounds.transpose();
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
      const at = i * groups;
      upper[i]! += moved[labels[i]!]!;
      let bound = Number.POSITIVE_INFINITY;
      for (let g = 0; g < groups; g++) {
        const l = lower[at + g]! - drift[g]!;
        if (l < bound) bound = l;
      }
      if (upper[i]! <= bound) {
        for (let g = 0; g < groups; g++) lower[at + g]! -= drift[g]!;
        continue;
      }
      if (bounds.refine(i, moved, drift)) changed = true;
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
  bounds: YinyangBounds,
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
