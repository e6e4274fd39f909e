/**
 * The points of {@link kMeans} (`kmeans.ts`) and its k-means++ seeding. Points keep their non-zero
 * coordinates only, stored in one flat array, and the seeding reads them by dimension (posting
 * lists): every seeded centre is one of the points, so its distance to every point costs the
 * postings of its non-zeros rather than a pass over all points. The seeding also keeps, per point,
 * the nearest and second-nearest seeded centre of each group of centres, which are the labels and
 * Yinyang bounds Lloyd's first assignment would compute again by scanning every centre.
 */
import { InvalidArgumentError } from '@grag/core';
import { type Random, randomInt } from '@grag/core/kit';

/** A point with its non-zero coordinates listed, so distances to dense centres cost O(nnz). */
export interface Point {
  /** Dimensions of the non-zero coordinates, ascending. */
  index: Uint32Array;
  value: Float64Array;
  norm2: number;
}

/** Centres per group of the Yinyang bounds (Ding et al. 2015 take about k/10 groups). */
export const GROUP_SIZE = 10;

/**
 * The non-zero coordinates of points, flat: point i has dimensions `indexes[ends[i - 1] … ends[i]]`
 * (ascending; `ends[-1]` is 0) with `values` alike, and squared norm `norms[i]`. What a worker is given.
 */
export interface FlatPoints {
  d: number;
  indexes: Uint32Array;
  values: Float64Array;
  ends: Uint32Array;
  norms: Float64Array;
}

/**
 * The non-zero coordinates of `vectors` (all of `d` dimensions).
 * @throws InvalidArgumentError for a non-finite coordinate.
 */
export function flatPoints(vectors: readonly ArrayLike<number>[], d: number): FlatPoints {
  let total = 0;
  for (const vector of vectors) for (let j = 0; j < d; j++) if (vector[j] !== 0) total++;
  const indexes = new Uint32Array(total);
  const values = new Float64Array(total);
  const ends = new Uint32Array(vectors.length);
  const norms = new Float64Array(vectors.length);
  let at = 0;
  vectors.forEach((vector, i) => {
    let norm2 = 0;
    for (let j = 0; j < d; j++) {
      const x = vector[j]!;
      if (x !== 0) {
        if (!Number.isFinite(x)) {
          throw new InvalidArgumentError('points', `kMeans: a point has the non-finite coordinate ${x}.`);
        }
        indexes[at] = j;
        values[at] = x;
        norm2 += x * x;
        at++;
      }
    }
    ends[i] = at;
    norms[i] = norm2;
  });
  return { d, indexes, values, ends, norms };
}

/** The points of `flat`, their `index` and `value` views of its arrays. */
export function pointsOf(flat: FlatPoints): Point[] {
  const points: Point[] = [];
  let start = 0;
  for (let i = 0; i < flat.ends.length; i++) {
    const end = flat.ends[i]!;
    points.push({
      index: flat.indexes.subarray(start, end),
      value: flat.values.subarray(start, end),
      norm2: flat.norms[i]!,
    });
    start = end;
  }
  return points;
}

/** ‖p − c‖² = ‖p‖² + ‖c‖² − 2·p·c, clamped at 0 against rounding. */
export function distance2(p: Point, c: Float64Array, cNorm2: number): number {
  let dot = 0;
  for (let i = 0; i < p.index.length; i++) dot += p.value[i]! * c[p.index[i]!]!;
  const d = p.norm2 + cNorm2 - 2 * dot;
  return Math.max(d, 0);
}

export function norm2(c: Float64Array): number {
  let s = 0;
  for (let j = 0; j < c.length; j++) s += c[j]! * c[j]!;
  return s;
}

export function centroidOf(p: Point, d: number): Float64Array {
  const c = new Float64Array(d);
  for (let i = 0; i < p.index.length; i++) c[p.index[i]!] = p.value[i]!;
  return c;
}

/** The points' non-zeros by dimension: `points[at]`, `values[at]` for `at` in `offsets[j]`..`offsets[j + 1]`, by ascending point. */
interface Postings {
  offsets: Uint32Array;
  points: Uint32Array;
  values: Float64Array;
}

function postingsOf(data: readonly Point[], d: number): Postings {
  const offsets = new Uint32Array(d + 1);
  for (const p of data) for (const j of p.index) offsets[j + 1]!++;
  for (let j = 0; j < d; j++) offsets[j + 1]! += offsets[j]!;
  const next = offsets.slice(0, d);
  const points = new Uint32Array(offsets[d]!);
  const values = new Float64Array(offsets[d]!);
  data.forEach((p, i) => {
    for (let t = 0; t < p.index.length; t++) {
      const at = next[p.index[t]!]!++;
      points[at] = i;
      values[at] = p.value[t]!;
    }
  });
  return { offsets, points, values };
}

/**
 * The squared distance of every point to the point `centre` (norm `cNorm2`) into `out`, in the
 * arithmetic of {@link distance2}: per point, the products of the shared non-zeros summed by
 * ascending dimension (the other products are zeros, which leave a sum as it is).
 */
function distancesTo(
  data: readonly Point[],
  postings: Postings,
  centre: Point,
  cNorm2: number,
  dots: Float64Array,
  out: Float64Array,
): void {
  const { offsets, points, values } = postings;
  dots.fill(0);
  for (let t = 0; t < centre.index.length; t++) {
    const j = centre.index[t]!;
    const x = centre.value[t]!;
    for (let at = offsets[j]!; at < offsets[j + 1]!; at++) dots[points[at]!]! += values[at]! * x;
  }
  for (let i = 0; i < data.length; i++) out[i] = Math.max(data[i]!.norm2 + cNorm2 - 2 * dots[i]!, 0);
}

/** The seeded centres and, per point, what Lloyd's first full assignment would find. */
export interface Seeding {
  centroids: Float64Array[];
  norms: number[];
  /** The nearest centre of each point (the first of equals). */
  labels: Int32Array;
  /** The distance of each point to its centre. */
  upper: Float64Array;
  /** `lower[i * groups + g]`: the distance of point i to the nearest centre of group g but its own. */
  lower: Float64Array;
}

/**
 * k-means++ seeding (Arthur & Vassilvitskii 2007): the first centre uniformly, each next one with
 * probability ∝ D(x)², D(x) the distance to the nearest centre so far; `k` centres of `d` dimensions.
 */
export function seedCentres(data: readonly Point[], k: number, d: number, rand: Random): Seeding {
  const n = data.length;
  const groups = Math.ceil(k / GROUP_SIZE);
  const postings = postingsOf(data, d);
  const centroids: Float64Array[] = [];
  const norms: number[] = [];
  const nearest = new Float64Array(n).fill(Number.POSITIVE_INFINITY);
  // per point and group: the least and second-least squared distance and the centre of the least
  const best = new Float64Array(n * groups).fill(Number.POSITIVE_INFINITY);
  const second = new Float64Array(n * groups).fill(Number.POSITIVE_INFINITY);
  const bestOf = new Int32Array(n * groups);
  const dots = new Float64Array(n);
  const dist = new Float64Array(n);
  let chosen = randomInt(rand, n);
  for (;;) {
    const c = centroids.length;
    const centroid = centroidOf(data[chosen]!, d);
    const cn = norm2(centroid);
    centroids.push(centroid);
    norms.push(cn);
    distancesTo(data, postings, data[chosen]!, cn, dots, dist);
    const g = Math.floor(c / GROUP_SIZE);
    for (let i = 0; i < n; i++) {
      const x = dist[i]!;
      if (x < nearest[i]!) nearest[i] = x;
      const at = i * groups + g;
      if (x < best[at]!) {
        second[at] = best[at]!;
        best[at] = x;
        bestOf[at] = c;
      } else if (x < second[at]!) second[at] = x;
    }
    if (centroids.length === k) break;
    chosen = pickNext(nearest, rand);
  }
  return { centroids, norms, ...firstAssignment(n, groups, best, second, bestOf) };
}

/** The next centre: a point drawn with probability ∝ its `nearest` squared distance. */
function pickNext(nearest: Float64Array, rand: Random): number {
  const n = nearest.length;
  let total = 0;
  for (let i = 0; i < n; i++) total += nearest[i]!;
  if (total <= 0) return randomInt(rand, n); // every point sits on a centre: duplicates
  let pick = rand() * total;
  for (let i = 0; i < n; i++) {
    pick -= nearest[i]!;
    if (pick < 0) return i;
  }
  return n - 1;
}

/** Labels and bounds from the per-group least distances (as a scan of every centre finds them). */
function firstAssignment(
  n: number,
  groups: number,
  best: Float64Array,
  second: Float64Array,
  bestOf: Int32Array,
): Pick<Seeding, 'labels' | 'upper' | 'lower'> {
  const labels = new Int32Array(n);
  const upper = new Float64Array(n);
  const lower = new Float64Array(n * groups);
  for (let i = 0; i < n; i++) {
    const at = i * groups;
    let first = Number.POSITIVE_INFINITY;
    let own = 0;
    for (let g = 0; g < groups; g++) {
      if (best[at + g]! < first) {
        first = best[at + g]!;
        own = g;
      }
    }
    labels[i] = bestOf[at + own]!;
    upper[i] = Math.sqrt(first);
    for (let g = 0; g < groups; g++) lower[at + g] = Math.sqrt(g === own ? second[at + g]! : best[at + g]!);
  }
  return { labels, upper, lower };
}
