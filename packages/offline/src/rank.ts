/**
 * Sparse TF-IDF sentence vectors and TextRank centrality (Mihalcea & Tarau 2004), used by the
 * extractive summary, titles and community reports.
 */

/** A sparse vector: term → weight. */
export type SparseVector = Map<string, number>;

/** Inverse document frequency `ln(1 + n / df)` of every term of `docs`. */
export function inverseDocumentFrequency(docs: readonly (readonly string[])[]): Map<string, number> {
  const df = new Map<string, number>();
  for (const doc of docs) for (const term of new Set(doc)) df.set(term, (df.get(term) ?? 0) + 1);
  const idf = new Map<string, number>();
  for (const [term, count] of df) idf.set(term, Math.log(1 + docs.length / count));
  return idf;
}

/** L2-normalized TF-IDF vectors with sublinear term frequency `1 + ln tf`. */
export function tfidfVectors(
  docs: readonly (readonly string[])[],
  idf = inverseDocumentFrequency(docs),
): SparseVector[] {
  return docs.map((doc) => {
    const tf = new Map<string, number>();
    for (const term of doc) tf.set(term, (tf.get(term) ?? 0) + 1);
    const v: SparseVector = new Map();
    let norm = 0;
    for (const [term, count] of tf) {
      const w = (1 + Math.log(count)) * (idf.get(term) ?? 0);
      if (w > 0) {
        v.set(term, w);
        norm += w * w;
      }
    }
    norm = Math.sqrt(norm);
    if (norm > 0) for (const [term, w] of v) v.set(term, w / norm);
    return v;
  });
}

/** Inner product of two sparse vectors (their cosine when both are normalized). */
export function sparseDot(a: SparseVector, b: SparseVector): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let sum = 0;
  for (const [term, w] of small) {
    const other = large.get(term);
    if (other !== undefined) sum += w * other;
  }
  return sum;
}

/** TextRank defaults. */
export const TEXTRANK_DEFAULTS = {
  /** Damping factor. @default 0.85 (Mihalcea & Tarau 2004, after PageRank) */
  damping: 0.85,
  /** Most power iterations. @default 50 */
  iterations: 50,
  /** Stop when the L1 change of the scores is below this. @default 1e-6 */
  tolerance: 1e-6,
  /** Above this many sentences, centrality is the cosine to the centroid (linear time). @default 300 */
  maxGraphSize: 300,
} as const;

/**
 * Centrality of each vector: TextRank on the cosine-similarity graph (weighted PageRank), or, for
 * more than `maxGraphSize` vectors, the cosine to the centroid. Scores sum to 1 for TextRank.
 */
export function centrality(
  vectors: readonly SparseVector[],
  options: Partial<typeof TEXTRANK_DEFAULTS> = {},
): number[] {
  const { damping, iterations, tolerance, maxGraphSize } = { ...TEXTRANK_DEFAULTS, ...options };
  const n = vectors.length;
  if (n === 0) return [];
  if (n === 1) return [1];
  if (n > maxGraphSize) {
    const centroid: SparseVector = new Map();
    for (const v of vectors) for (const [t, w] of v) centroid.set(t, (centroid.get(t) ?? 0) + w / n);
    return vectors.map((v) => sparseDot(v, centroid));
  }
  const weights: Float64Array[] = vectors.map(() => new Float64Array(n));
  const outSum = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const s = sparseDot(vectors[i]!, vectors[j]!);
      if (s > 0) {
        weights[i]![j] = s;
        weights[j]![i] = s;
        outSum[i]! += s;
        outSum[j]! += s;
      }
    }
  }
  let scores = new Float64Array(n).fill(1 / n);
  for (let it = 0; it < iterations; it++) {
    const next = new Float64Array(n).fill((1 - damping) / n);
    let dangling = 0;
    for (let j = 0; j < n; j++) if (outSum[j] === 0) dangling += scores[j]!;
    for (let i = 0; i < n; i++) {
      let sum = dangling / n;
      const row = weights[i]!;
      for (let j = 0; j < n; j++) {
        const w = row[j]!;
        if (w > 0) sum += (w / outSum[j]!) * scores[j]!;
      }
      next[i]! += damping * sum;
    }
    let change = 0;
    for (let i = 0; i < n; i++) change += Math.abs(next[i]! - scores[i]!);
    scores = next;
    if (change < tolerance) break;
  }
  return Array.from(scores);
}

/** Sentence indexes by TextRank centrality, most central first. */
export function rankSentences(lemmaLists: readonly string[][]): number[] {
  const scores = centrality(tfidfVectors(lemmaLists));
  return scores
    .map((score, i) => ({ score, i }))
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .map((x) => x.i);
}
