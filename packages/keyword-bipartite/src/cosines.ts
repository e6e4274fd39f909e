/**
 * Cosine similarity of a query to every unit vector at once, exactly as `cosineSimilarity` computes
 * each, but in time proportional to the query's non-zero components times the units: the unit
 * vectors are kept by dimension (one column of all units per dimension) with their squared norms,
 * both computed once per index.
 */

/** Unit vectors by dimension, with each unit's squared norm (see {@link unitColumns}). */
export interface UnitColumns {
  /** Number of units. */
  size: number;
  dimensions: number;
  /** `columns[d * size + u]` is component `d` of unit `u`. */
  columns: Float32Array;
  /** `Σ v[d]²` of each unit, summed in dimension order as `cosineSimilarity` sums it. */
  squaredNorms: Float64Array;
}

/**
 * The columns of `vectors` (all of `dimensions` components) for {@link cosineScores}: O(units ×
 * dimensions) once, instead of per query.
 */
export function unitColumns(vectors: readonly ArrayLike<number>[], dimensions: number): UnitColumns {
  const size = vectors.length;
  const columns = new Float32Array(size * dimensions);
  const squaredNorms = new Float64Array(size);
  for (let u = 0; u < size; u++) {
    const v = vectors[u]!;
    let bb = 0;
    for (let d = 0; d < dimensions; d++) {
      const y = v[d] as number;
      bb += y * y;
      columns[d * size + u] = y;
    }
    squaredNorms[u] = bb;
  }
  return { size, dimensions, columns, squaredNorms };
}

/**
 * `cosineSimilarity(query, unit)` of every unit, bit for bit: the dot products add the same products
 * in the same (dimension) order, skipping only the query's zero components (whose products add
 * nothing), and the norms are those `cosineSimilarity` computes. Units or a query of norm 0 score 0.
 */
export function cosineScores(query: ArrayLike<number>, units: UnitColumns): Float64Array {
  const { size, dimensions, columns, squaredNorms } = units;
  const dots = new Float64Array(size);
  let aa = 0;
  for (let d = 0; d < query.length; d++) {
    const x = query[d] as number;
    aa += x * x;
    if (x === 0 || d >= dimensions) continue;
    const base = d * size;
    for (let u = 0; u < size; u++) dots[u]! += x * columns[base + u]!;
  }
  for (let u = 0; u < size; u++) {
    const bb = squaredNorms[u]!;
    dots[u] = aa === 0 || bb === 0 ? 0 : dots[u]! / Math.sqrt(aa * bb);
  }
  return dots;
}

/**
 * The rank (0 = best) of each position by descending score, ties by ascending position: the order
 * of `scores` sorted by `(b - a) || (i - j)`.
 */
export function descendingRanks(scores: ArrayLike<number>): Int32Array {
  const order = new Int32Array(scores.length);
  for (let i = 0; i < order.length; i++) order[i] = i;
  order.sort((i, j) => (scores[j] as number) - (scores[i] as number) || i - j);
  const ranks = new Int32Array(scores.length);
  for (let r = 0; r < order.length; r++) ranks[order[r]!] = r;
  return ranks;
}

/**
 * The rank `descendingRanks(scores)[i]` of any position, without sorting positions: the scores are
 * sorted once (natively), a position's rank is the number of greater scores (by binary search) plus
 * the number of equal scores at lower positions (counted only when its score is shared). For a
 * ranking read at a few positions of many (scores must not be NaN).
 */
export function descendingRankOf(scores: Float64Array): (position: number) => number {
  const sorted = Float64Array.from(scores).sort();
  const n = sorted.length;
  return (position) => {
    const x = scores[position]!;
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid]! <= x) lo = mid + 1;
      else hi = mid;
    }
    const end = lo;
    hi = end;
    lo = 0;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    let rank = n - end;
    if (end - lo > 1) for (let j = 0; j < position; j++) if (scores[j] === x) rank++;
    return rank;
  };
}
