import { mulberry32, randomInt } from '@grag/core/kit';
import { assertInteger, type DominanceEmbedder, dominatedBy, type StarEmbeddings } from './embedder.js';
import { degree, isSubMultiset, neighbourLabelCounts, type StarGraph } from './graph.js';
import { graphEmbeddings } from './graph-embeddings.js';

/** Options of {@link pruningPower}. */
export interface PruningOptions {
  /** Query stars drawn. @default 200 */
  queries: number;
  /** Query paths (one edge, SG-RAG's default path length l = 1) drawn. @default 200 */
  pathQueries: number;
  /** Largest number of neighbours of a query star. @default 3 */
  maxQueryDegree: number;
  /** Seed of the draws. @default 2022 */
  seed: number;
  /** Data-side vectors (default: `embedder.embedGraph(graph, { correction })`). */
  embeddings?: StarEmbeddings;
  /** Correction asked of `embedGraph` when `embeddings` is not given. @default 'closure' */
  correction: 'closure' | 'none';
}

/** Defaults of {@link pruningPower}. */
export const PRUNING_DEFAULTS: Omit<PruningOptions, 'embeddings'> = {
  queries: 200,
  pathQueries: 200,
  maxQueryDegree: 3,
  seed: 2022,
  correction: 'closure',
};

/** Counts of one pruning measurement. */
export interface PruningCounts {
  /** (query, data) pairs compared. */
  candidates: number;
  /** Pairs where the data star (path) contains the query. */
  matching: number;
  nonMatching: number;
  /** Non-matching pairs rejected by the dominance test. */
  pruned: number;
  /** `pruned / nonMatching` (the pruning power; `NaN` without non-matching pairs). */
  power: number;
  /** Matching pairs rejected by the dominance test (must be 0 for a dominance embedding). */
  falseNegatives: number;
}

/** What {@link pruningPower} measured. */
export interface PruningReport {
  /**
   * Query stars against every data star. `sameLabel` restricts to data stars with the query's
   * centre label: the candidates that a label filter (SG-RAG's o0 match) leaves to the dominance
   * test.
   */
  stars: PruningCounts & { queries: number; sameLabel: PruningCounts };
  /** Query paths of one edge against every data edge with the same label pair (both directions). */
  paths: PruningCounts & { queries: number };
}

function emptyCounts(): PruningCounts {
  return { candidates: 0, matching: 0, nonMatching: 0, pruned: 0, power: Number.NaN, falseNegatives: 0 };
}

function count(c: PruningCounts, matching: boolean, pruned: boolean): void {
  c.candidates++;
  if (matching) {
    c.matching++;
    if (pruned) c.falseNegatives++;
  } else {
    c.nonMatching++;
    if (pruned) c.pruned++;
  }
}

function finish(c: PruningCounts): void {
  c.power = c.nonMatching > 0 ? c.pruned / c.nonMatching : Number.NaN;
}

/**
 * A query sub-star of node `i`: 1..`maxDegree` of its neighbours, drawn at random, always keeping
 * the neighbour at position `keep` of its row when given. Returns neighbour labels.
 */
function drawQuery(
  graph: StarGraph,
  i: number,
  maxDegree: number,
  rand: () => number,
  keep?: number,
): string[] {
  const start = graph.offsets[i]!;
  const d = degree(graph, i);
  const pool = Array.from({ length: d }, (_, k) => start + k);
  const size = 1 + randomInt(rand, Math.min(d, maxDegree));
  let first = 0;
  if (keep !== undefined) {
    const at = keep - start;
    [pool[0], pool[at]] = [pool[at]!, pool[0]!];
    first = 1;
  }
  for (let k = first; k < size; k++) {
    const j = k + randomInt(rand, d - k);
    [pool[k], pool[j]] = [pool[j]!, pool[k]!];
  }
  return pool.slice(0, size).map((e) => graph.labels[graph.neighbours[e]!]!);
}

/**
 * Pruning power of a dominance embedding on a graph: the share of non-matching candidates that
 * the dominance test o(query) ≤ o(data) rejects, for query stars and for one-edge query paths
 * (Eq. 16: concatenated star embeddings). Queries are drawn from the graph itself: a random node's
 * centre label with 1..`maxQueryDegree` of its neighbours (so every query has a match). A data star
 * matches a query star when it has the query's centre label and its neighbour labels contain the
 * query's as a multiset; a data path matches when both of its stars match. `falseNegatives`
 * counts matches the test wrongly rejects — 0 for a correct dominance embedding.
 */
export function pruningPower(
  embedder: DominanceEmbedder,
  graph: StarGraph,
  options: Partial<PruningOptions> = {},
): PruningReport {
  const o = { ...PRUNING_DEFAULTS, ...options };
  assertInteger('queries', o.queries, 0, 'pruningPower');
  assertInteger('pathQueries', o.pathQueries, 0, 'pruningPower');
  assertInteger('maxQueryDegree', o.maxQueryDegree, 1, 'pruningPower');
  const data = graphEmbeddings('pruningPower', embedder, graph, o);
  const n = graph.ids.length;
  const withEdges: number[] = [];
  for (let i = 0; i < n; i++) if (degree(graph, i) > 0) withEdges.push(i);
  const report: PruningReport = {
    stars: { ...emptyCounts(), queries: 0, sameLabel: emptyCounts() },
    paths: { ...emptyCounts(), queries: 0 },
  };
  if (withEdges.length === 0) return report;
  const rand = mulberry32(o.seed ^ 0x9121);
  const countsCache = new Map<number, Map<string, number>>();
  const countsOf = (i: number) => {
    let c = countsCache.get(i);
    if (c === undefined) {
      c = neighbourLabelCounts(graph, i);
      countsCache.set(i, c);
    }
    return c;
  };

  for (let q = 0; q < o.queries; q++) {
    const v = withEdges[randomInt(rand, withEdges.length)]!;
    const centre = graph.labels[v]!;
    const neighbours = drawQuery(graph, v, o.maxQueryDegree, rand);
    const oq = embedder.embed(centre, neighbours);
    report.stars.queries++;
    for (let u = 0; u < n; u++) {
      const sameLabel = graph.labels[u] === centre;
      const matching = sameLabel && isSubMultiset(neighbours, countsOf(u));
      const pruned = !dominatedBy(oq, data.get(u));
      count(report.stars, matching, pruned);
      if (sameLabel) count(report.stars.sameLabel, matching, pruned);
    }
  }

  if (o.pathQueries > 0) {
    // Ordered data edges grouped by their label pair.
    const byLabels = new Map<string, number[]>();
    for (let a = 0; a < n; a++) {
      for (let e = graph.offsets[a]!; e < graph.offsets[a + 1]!; e++) {
        const b = graph.neighbours[e]!;
        const key = `${graph.labels[a]}\u0000${graph.labels[b]}`;
        const list = byLabels.get(key);
        if (list) list.push(a, b);
        else byLabels.set(key, [a, b]);
      }
    }
    for (let q = 0; q < o.pathQueries; q++) {
      const u = withEdges[randomInt(rand, withEdges.length)]!;
      const e = graph.offsets[u]! + randomInt(rand, degree(graph, u));
      const v = graph.neighbours[e]!;
      let back = graph.offsets[v]!;
      while (graph.neighbours[back] !== u) back++;
      const q1 = drawQuery(graph, u, o.maxQueryDegree, rand, e);
      const q2 = drawQuery(graph, v, o.maxQueryDegree, rand, back);
      const o1 = embedder.embed(graph.labels[u]!, q1);
      const o2 = embedder.embed(graph.labels[v]!, q2);
      report.paths.queries++;
      const candidates = byLabels.get(`${graph.labels[u]}\u0000${graph.labels[v]}`)!;
      for (let k = 0; k < candidates.length; k += 2) {
        const a = candidates[k]!;
        const b = candidates[k + 1]!;
        const matching = isSubMultiset(q1, countsOf(a)) && isSubMultiset(q2, countsOf(b));
        const pruned = !(dominatedBy(o1, data.get(a)) && dominatedBy(o2, data.get(b)));
        count(report.paths, matching, pruned);
      }
    }
  }
  finish(report.stars);
  finish(report.stars.sameLabel);
  finish(report.paths);
  return report;
}
