import { InvalidArgumentError } from '@grag/core';
import { mulberry32 } from '@grag/core/kit';
import {
  assertInteger,
  type CorrectionReport,
  type DominanceEmbedder,
  type StarEmbeddings,
} from './embedder.js';
import {
  randomSubStar,
  type StarGraph,
  starOf,
  subMultisetCount,
  subMultisets,
  toMultiset,
} from './graph.js';
import { graphEmbeddings } from './graph-embeddings.js';

/** Options of {@link verifyDominance}. */
export interface VerifyOptions {
  /**
   * A star with at most this many distinct sub-stars is checked against all of them; above it,
   * `samples` random sub-stars are checked (and the report says so).
   * @default 1024 (2^10: every sub-star of a degree-10 star with distinct labels)
   */
  exhaustiveLimit: number;
  /** Random sub-stars checked per star above `exhaustiveLimit`. @default 256 */
  samples: number;
  /** Seed of the sampling. @default 2022 */
  seed: number;
  /** Violations kept as examples (the worst first). @default 5 */
  maxExamples: number;
  /** Data-side vectors to check (default: `embedder.embedGraph(graph, { correction })`). */
  embeddings?: StarEmbeddings;
  /** Correction asked of `embedGraph` when `embeddings` is not given. @default 'closure' */
  correction: 'closure' | 'none';
  /** Check only these node indices (default: every node). */
  nodes?: Iterable<number>;
}

/** Defaults of {@link verifyDominance}. */
export const VERIFY_DEFAULTS: Omit<VerifyOptions, 'embeddings' | 'nodes'> = {
  exhaustiveLimit: 1024,
  samples: 256,
  seed: 2022,
  maxExamples: 5,
  correction: 'closure',
};

/** One (star, sub-star) pair where the sub-star's embedding exceeds the star's. */
export interface DominanceViolation {
  /** Node key of the star's centre. */
  node: string;
  centre: string;
  /** Neighbour labels of the offending sub-star. */
  neighbours: string[];
  /** Dimension of the largest excess. */
  dimension: number;
  /** o(sub-star)[dimension] − o(star)[dimension] (> 0). */
  margin: number;
}

/** What {@link verifyDominance} found. */
export interface DominanceReport {
  /** Stars checked. */
  stars: number;
  /** Stars checked against every one of their sub-stars. */
  exhaustiveStars: number;
  /** Stars checked against `samples` random sub-stars only (more sub-stars than `exhaustiveLimit`). */
  sampledStars: number;
  /** Whether every star was checked exhaustively (no sampling anywhere). */
  exhaustive: boolean;
  /** (star, sub-star) pairs checked. */
  pairs: number;
  /** Pairs with o(sub-star) > o(star) in some dimension. */
  violations: number;
  /** Stars with at least one violation. */
  violatingStars: number;
  /** Largest excess over all pairs (0 when there is no violation). */
  worstMargin: number;
  /** The worst violations. */
  examples: DominanceViolation[];
  /** What the data-side correction did. */
  correction: CorrectionReport;
}

/**
 * Check the dominance property o(sub-star) ≤ o(star) (SG-RAG Eq. 14) over the (star, sub-star)
 * pairs of a graph: the data-side vector of every node against the query-side embedding
 * (`embedder.embed`) of its sub-stars — every sub-star when a star has at most `exhaustiveLimit`
 * of them, `samples` random ones above (`exhaustive: false` then). Sub-stars are enumerated as
 * distinct neighbour-label multisets, which is exhaustive because embeddings depend on the
 * multiset only.
 */
export function verifyDominance(
  embedder: DominanceEmbedder,
  graph: StarGraph,
  options: Partial<VerifyOptions> = {},
): DominanceReport {
  const o = { ...VERIFY_DEFAULTS, ...options };
  assertInteger('exhaustiveLimit', o.exhaustiveLimit, 1, 'verifyDominance');
  assertInteger('samples', o.samples, 1, 'verifyDominance');
  assertInteger('maxExamples', o.maxExamples, 0, 'verifyDominance');
  const data = graphEmbeddings('verifyDominance', embedder, graph, o);
  const rand = mulberry32(o.seed ^ 0x0e21);
  const report: DominanceReport = {
    stars: 0,
    exhaustiveStars: 0,
    sampledStars: 0,
    exhaustive: true,
    pairs: 0,
    violations: 0,
    violatingStars: 0,
    worstMargin: 0,
    examples: [],
    correction: data.correction,
  };
  const nodes = o.nodes ?? graph.ids.keys();
  for (const i of nodes) {
    if (!Number.isInteger(i) || i < 0 || i >= graph.ids.length) {
      throw new InvalidArgumentError('nodes', `verifyDominance: ${i} is not a node index of the graph.`);
    }
    report.stars++;
    const star = starOf(graph, i);
    const set = toMultiset(star.neighbours);
    let subs: Iterable<string[]>;
    if (subMultisetCount(set) <= o.exhaustiveLimit) {
      report.exhaustiveStars++;
      subs = subMultisets(set);
    } else {
      report.sampledStars++;
      report.exhaustive = false;
      subs = Array.from({ length: o.samples }, () => randomSubStar(star.neighbours, rand));
    }
    const top = data.get(i);
    let violating = false;
    for (const sub of subs) {
      report.pairs++;
      const low = embedder.embed(star.centre, sub);
      let margin = 0;
      let dimension = -1;
      for (let k = 0; k < top.length; k++) {
        const excess = low[k]! - top[k]!;
        if (excess > margin) {
          margin = excess;
          dimension = k;
        }
      }
      if (dimension < 0) continue;
      report.violations++;
      violating = true;
      report.worstMargin = Math.max(report.worstMargin, margin);
      if (o.maxExamples > 0) {
        report.examples.push({
          node: graph.ids[i]!,
          centre: star.centre,
          neighbours: sub,
          dimension,
          margin,
        });
        report.examples.sort((a, b) => b.margin - a.margin);
        if (report.examples.length > o.maxExamples) report.examples.pop();
      }
    }
    if (violating) report.violatingStars++;
  }
  return report;
}
