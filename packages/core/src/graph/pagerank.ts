import type { AbstractGraph } from 'graphology-types';
import { ConvergenceError, InvalidArgumentError } from '../contracts/errors.js';
import { type Csr, toCsr } from './csr.js';
import { type PprTransition, powerIterate, pprTransition } from './power-iteration.js';

/**
 * Options of {@link pageRank}: classic PageRank with a uniform teleport, run to convergence.
 *
 * Naming: `damping` is the probability of following an edge; the walker teleports (to a uniform
 * random node) with probability `1 - damping`.
 */
export interface PageRankOptions {
  /**
   * Damping factor d: probability of following an edge at each step; the teleport probability is
   * `1 - damping`. @default 0.85 (Page et al. 1999; KET-RAG §4 uses teleport 0.15)
   */
  damping: number;
  /** Upper bound on power iterations. @default 100 */
  maxIterations: number;
  /**
   * Stop once the L1 norm of the change between two iterates is at most this. `0` runs exactly
   * `maxIterations` iterations. (networkx compares with `n * tol`; this is not scaled by `n`.)
   * @default 1e-6
   */
  tolerance: number;
  /**
   * Use edge weights for transitions (row-normalized by `outWeight`); `false` uses 1/out-degree.
   * @default true
   */
  weighted: boolean;
  /** Edge attribute read as the weight when a graph (not a {@link Csr}) is given. @default 'weight' */
  weightAttribute: string | null;
}

/** Defaults of {@link pageRank}. */
export const PAGERANK_DEFAULTS: PageRankOptions = {
  damping: 0.85,
  maxIterations: 100,
  tolerance: 1e-6,
  weighted: true,
  weightAttribute: 'weight',
};

/**
 * How one personalized PageRank step updates the score vector π (p is the personalization vector,
 * P the row-normalized transition matrix, α = `teleport`):
 * - `'paper'`: π(t) = α·p + (1 − α)·Pᵀ·π(t−1), π(0) = p (NodeRAG §2.5).
 * - `'lazy'`: π(t) = α·π(t−1) + (1 − α)·Pᵀ·π(t−1), π(0) = p: a lazy random walk without restart, the
 *   update of NodeRAG's released code (`sparse_PPR.PPR` in `NodeRAG/utils/PPR.py`, which writes it as
 *   `a·Pᵀπ + (1 − a)·π` with `a = ppr_alpha = 1 − α`; identical at the default 0.5). A variant, not
 *   the paper's formula. Two details differ from that code: it rewires a dangling node to every
 *   other node, while here dangling mass returns to p (as in `'paper'`); and its early stop compares
 *   the L2 change with 1e-5, while `tolerance` here bounds the L1 change.
 *
 * Both conserve total mass, so scores sum to 1.
 */
export type PprUpdate = 'paper' | 'lazy';

/**
 * Options of {@link personalizedPageRank}.
 *
 * Naming: `teleport` is the probability α of jumping back to the personalization vector at each
 * step (NodeRAG's α); the damping factor of classic PageRank is `1 - teleport`.
 */
export interface PprOptions {
  /**
   * Teleport probability α (restart at the seeds); an edge is followed with probability `1 - teleport`.
   * @default 0.5 (NodeRAG §2.5)
   */
  teleport: number;
  /**
   * Number of iterations t (shallow PPR): at most this many updates from π(0) = p.
   * NodeRAG's released code defaults to up to 8 (`ppr_max_iter`). @default 2 (NodeRAG §2.5)
   */
  iterations: number;
  /**
   * Stop early once the L1 change of an iteration is at most this; `0` always runs `iterations`.
   * @default 0
   */
  tolerance: number;
  /**
   * Use edge weights for transitions (row-normalized by `outWeight`); `false` uses 1/out-degree.
   * @default true
   */
  weighted: boolean;
  /** Edge attribute read as the weight when a graph (not a {@link Csr}) is given. @default 'weight' */
  weightAttribute: string | null;
  /** Update rule; see {@link PprUpdate}. @default 'paper' (NodeRAG §2.5) */
  update: PprUpdate;
  /**
   * Push mass only from the nodes that may hold it (the seeds and the nodes their walks reached):
   * an iteration costs the out-edges of those nodes instead of a pass over every node and edge.
   * Same arithmetic in the same order, so the scores are equal bit for bit; for shallow PPR from a
   * few seeds on a large graph. @default false
   */
  activeSet: boolean;
}

/** Defaults of {@link personalizedPageRank}. */
export const PPR_DEFAULTS: PprOptions = {
  teleport: 0.5,
  iterations: 2,
  tolerance: 0,
  weighted: true,
  weightAttribute: 'weight',
  update: 'paper',
  activeSet: false,
};

/**
 * PageRank scores of every node, by power iteration on the transition matrix P (out-weights
 * row-normalized). A dangling node (no out-edge, or out-weight 0) passes its mass to a uniform random
 * node, as networkx does by default. Scores sum to 1. Undirected edges count in both directions.
 *
 * @returns node key → score, in graph node order.
 * @throws ConvergenceError when `tolerance > 0` and it is not reached within `maxIterations`.
 * @throws InvalidArgumentError on an option out of range or a negative edge weight (when weighted).
 * @example
 * const ranks = pageRank(knnGraph, { weighted: false }); // KET-RAG core-chunk selection
 */
export function pageRank(
  graph: AbstractGraph | Csr,
  options: Partial<PageRankOptions> = {},
): Map<string, number> {
  const o = { ...PAGERANK_DEFAULTS, ...options };
  const csr = asCsr(graph, o.weightAttribute);
  return toMap(csr, pageRankCsr(csr, o));
}

/**
 * {@link pageRank} on a {@link Csr}, returning scores indexed by CSR position (for hot paths).
 * `weightAttribute` is ignored: the CSR already carries its weights.
 */
export function pageRankCsr(csr: Csr, options: Partial<PageRankOptions> = {}): Float64Array {
  const o = { ...PAGERANK_DEFAULTS, ...options };
  checkProbability('damping', o.damping, 'pageRank');
  checkCount('maxIterations', o.maxIterations, 'pageRank');
  checkTolerance(o.tolerance, 'pageRank');
  const n = csr.nodeIds.length;
  if (n === 0) return new Float64Array(0);
  const uniform = new Float64Array(n).fill(1 / n);
  const run = powerIterate(
    pprTransition(csr, o.weighted),
    uniform,
    uniform,
    1 - o.damping,
    o.maxIterations,
    o.tolerance,
    false,
    false,
  );
  if (o.tolerance > 0 && !run.converged) {
    throw new ConvergenceError(
      run.iterations,
      run.delta,
      `pageRank: no convergence to tolerance ${o.tolerance} within ${o.maxIterations} iterations ` +
        `(last L1 change ${run.delta}); raise maxIterations or tolerance.`,
    );
  }
  return run.scores;
}

/**
 * Personalized PageRank from seed nodes, by `iterations` steps of the update chosen by `update`
 * (NodeRAG's shallow PPR by default: α = 0.5, t = 2). The personalization vector p gives every seed
 * `1/|seeds|` (NodeRAG §2.5), or, for a `Map`, weight / total weight. A dangling node (no out-edge,
 * or out-weight 0) passes its mass back to p. Scores sum to 1.
 *
 * @param seeds seed node keys (duplicates count once), or a map of seed → non-negative weight.
 * @returns node key → score, in graph node order.
 * @throws InvalidArgumentError when a seed is not a node, no seed has positive weight, an option is
 * out of range, or an edge weight is negative (when weighted).
 * @example
 * const scores = personalizedPageRank(heterograph, entryNodes); // α = 0.5, t = 2
 */
export function personalizedPageRank(
  graph: AbstractGraph | Csr,
  seeds: Iterable<string> | ReadonlyMap<string, number>,
  options: Partial<PprOptions> = {},
): Map<string, number> {
  const o = { ...PPR_DEFAULTS, ...options };
  const csr = asCsr(graph, o.weightAttribute);
  return toMap(csr, personalizedPageRankCsr(csr, personalizationVector(csr, seeds), o));
}

/**
 * {@link personalizedPageRank} on a {@link Csr} with the personalization vector given over CSR
 * indices (length n, non-negative, normalized here to sum 1). Returns scores by CSR position.
 * `transition` (from {@link pprTransition} on this CSR, with the same `weighted`) saves the pass
 * that checks the edge weights when many queries run on one CSR.
 */
export function personalizedPageRankCsr(
  csr: Csr,
  personalization: ArrayLike<number>,
  options: Partial<PprOptions> & { transition?: PprTransition } = {},
): Float64Array {
  const o = { ...PPR_DEFAULTS, ...options };
  assertPprOptions(o);
  const n = csr.nodeIds.length;
  if (personalization.length !== n) {
    throw new InvalidArgumentError(
      'personalization',
      `personalizedPageRank: personalization has length ${personalization.length}, ` +
        `the graph has ${n} nodes; ` +
        'pass one value per CSR index.',
    );
  }
  let total = 0;
  for (let i = 0; i < n; i++) {
    const v = personalization[i]!;
    if (!(v >= 0) || !Number.isFinite(v)) {
      throw new InvalidArgumentError(
        'personalization',
        `personalizedPageRank: personalization[${i}] is ${v}; weights must be finite and non-negative.`,
      );
    }
    total += v;
  }
  if (!(total > 0)) {
    throw new InvalidArgumentError(
      'personalization',
      'personalizedPageRank: no seed has a positive weight; give at least one seed.',
    );
  }
  const p = new Float64Array(n);
  for (let i = 0; i < n; i++) p[i] = personalization[i]! / total;
  const transition = o.transition ?? pprTransition(csr, o.weighted);
  if (transition.csr !== csr || transition.weighted !== o.weighted) {
    throw new InvalidArgumentError(
      'options.transition',
      'personalizedPageRank: the transition was made for another CSR or weighting; ' +
        'pass pprTransition(csr, weighted) of this CSR.',
    );
  }
  const lazy = o.update === 'lazy';
  return powerIterate(transition, p, p, o.teleport, o.iterations, o.tolerance, lazy, o.activeSet).scores;
}

/**
 * The checks {@link personalizedPageRankCsr} makes of its options (teleport, iterations, tolerance,
 * update), for a caller that refuses bad options before other work.
 * @throws InvalidArgumentError naming the option out of range.
 */
export function assertPprOptions(
  options: Pick<PprOptions, 'teleport' | 'iterations' | 'update'> & { tolerance?: number },
): void {
  const { teleport, iterations, tolerance = PPR_DEFAULTS.tolerance, update } = options;
  checkProbability('teleport', teleport, 'personalizedPageRank');
  checkCount('iterations', iterations, 'personalizedPageRank');
  checkTolerance(tolerance, 'personalizedPageRank');
  if (update !== 'paper' && update !== 'lazy') {
    throw new InvalidArgumentError(
      'options.update',
      `personalizedPageRank: update must be 'paper' or 'lazy', got ${String(update)}.`,
    );
  }
}

/**
 * The personalization vector over CSR indices for `seeds` (as {@link personalizedPageRank} builds
 * it): `1/|seeds|` per distinct seed, or weight / total for a `Map`.
 *
 * @throws InvalidArgumentError when a seed is not a node or a weight is negative or not finite.
 */
export function personalizationVector(
  csr: Csr,
  seeds: Iterable<string> | ReadonlyMap<string, number>,
): Float64Array {
  if (typeof seeds === 'string') {
    throw new InvalidArgumentError(
      'seeds',
      'personalizedPageRank: seeds is a string; pass an array of node keys, e.g. [seed].',
    );
  }
  const p = new Float64Array(csr.nodeIds.length);
  const entries: Iterable<readonly [string, number]> =
    seeds instanceof Map ? seeds.entries() : mapIterable(seeds as Iterable<string>, (s) => [s, 1] as const);
  let total = 0;
  for (const [seed, weight] of entries) {
    const i = csr.index.get(seed);
    if (i === undefined) {
      throw new InvalidArgumentError(
        'seeds',
        `personalizedPageRank: seed "${seed}" is not a node of the graph; pass only existing nodes.`,
      );
    }
    if (!(weight >= 0) || !Number.isFinite(weight)) {
      throw new InvalidArgumentError(
        'seeds',
        `personalizedPageRank: seed "${seed}" has weight ${weight}; weights must be finite and non-negative.`,
      );
    }
    if (seeds instanceof Map) p[i] = weight;
    else p[i] = 1; // duplicates count once
  }
  for (let i = 0; i < p.length; i++) total += p[i]!;
  if (!(total > 0)) {
    throw new InvalidArgumentError(
      'seeds',
      'personalizedPageRank: no seed has a positive weight; give at least one seed.',
    );
  }
  for (let i = 0; i < p.length; i++) p[i]! /= total;
  return p;
}

function* mapIterable<T, U>(items: Iterable<T>, f: (item: T) => U): Iterable<U> {
  for (const item of items) yield f(item);
}

function isCsr(value: AbstractGraph | Csr): value is Csr {
  return (value as Csr).offsets instanceof Uint32Array && (value as Csr).index instanceof Map;
}

function asCsr(graph: AbstractGraph | Csr, weightAttribute: string | null): Csr {
  return isCsr(graph) ? graph : toCsr(graph, { weightAttribute });
}

function toMap(csr: Csr, scores: Float64Array): Map<string, number> {
  const out = new Map<string, number>();
  for (let i = 0; i < scores.length; i++) out.set(csr.nodeIds[i]!, scores[i]!);
  return out;
}

function checkProbability(name: string, value: number, fn: string): void {
  if (!(value >= 0 && value <= 1)) {
    throw new InvalidArgumentError(`options.${name}`, `${fn}: ${name} must be in [0, 1], got ${value}.`);
  }
}

function checkCount(name: string, value: number, fn: string): void {
  if (!Number.isInteger(value) || value < 0) {
    throw new InvalidArgumentError(
      `options.${name}`,
      `${fn}: ${name} must be a non-negative integer, got ${value}.`,
    );
  }
}

function checkTolerance(value: number, fn: string): void {
  if (!(value >= 0) || !Number.isFinite(value)) {
    throw new InvalidArgumentError(
      'options.tolerance',
      `${fn}: tolerance must be finite and >= 0, got ${value}.`,
    );
  }
}
