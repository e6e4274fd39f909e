/**
 * The power iteration that core's PageRank and personalized PageRank share, and the transition it
 * reads of a CSR (checked once, reusable across queries).
 */
import { InvalidArgumentError } from '../contracts/errors.js';
import type { Csr } from './csr.js';

/**
 * What every power iteration on one {@link Csr} reads besides its edges: the inverse out-weight of
 * each node (0 where its mass dangles), with the edge weights checked once. Made by
 * {@link pprTransition}; pass it as `transition` to {@link personalizedPageRankCsr} to run many
 * queries on one CSR without a pass over every edge each time (the CSR must not change meanwhile).
 */
export interface PprTransition {
  /** The CSR it was made for. */
  readonly csr: Csr;
  /** Whether transitions follow edge weights (else 1/out-degree). */
  readonly weighted: boolean;
  /** 1 / out-weight (or out-degree) of each node; 0 for a node whose mass dangles. */
  readonly invOut: Float64Array;
}

/**
 * The {@link PprTransition} of `csr`: weighted by its edge weights unless `weighted` is false.
 * @throws InvalidArgumentError when weighted and an edge weight is negative.
 */
export function pprTransition(csr: Csr, weighted = true): PprTransition {
  const { offsets, weights, outWeight } = csr;
  const n = csr.nodeIds.length;
  const invOut = new Float64Array(n);
  if (weighted) {
    for (let e = 0; e < weights.length; e++) {
      if (!(weights[e]! >= 0)) {
        throw new InvalidArgumentError(
          'graph',
          `pageRank: an edge has weight ${weights[e]}; weighted PageRank needs non-negative weights ` +
            '(pass { weighted: false } to ignore them).',
        );
      }
    }
    for (let u = 0; u < n; u++) invOut[u] = outWeight[u]! > 0 ? 1 / outWeight[u]! : 0;
  } else {
    for (let u = 0; u < n; u++) {
      const degree = offsets[u + 1]! - offsets[u]!;
      invOut[u] = degree > 0 ? 1 / degree : 0;
    }
  }
  return { csr, weighted, invOut };
}

/** What one power iteration ran to. */
export interface PowerRun {
  scores: Float64Array;
  iterations: number;
  delta: number;
  converged: boolean;
}

/**
 * Shared power iteration. `p` is the teleport distribution (sums to 1) and also receives dangling
 * mass; `start` is π(0). Push-style over out-edges, so no transpose is needed and nodes without
 * mass are skipped (cheap for shallow PPR). With `activeSet` (PPR only: `start` is `p`), only the
 * nodes that may hold mass are visited, in ascending order as the full pass visits them, so the
 * sums are the same to the bit: every other node has π = Pᵀπ = p = 0 and stays 0.
 */
export function powerIterate(
  transition: PprTransition,
  p: Float64Array,
  start: Float64Array,
  teleport: number,
  maxIterations: number,
  tolerance: number,
  lazy: boolean,
  activeSet: boolean,
): PowerRun {
  const { csr, invOut, weighted } = transition;
  const { offsets, targets, weights } = csr;
  const n = csr.nodeIds.length;
  const walk = 1 - teleport;
  let cur = Float64Array.from(start);
  let next = new Float64Array(n);
  // The nodes that may hold mass, ascending, and a mark of membership (undefined: every node).
  let active: number[] | undefined;
  let mark: Uint8Array | undefined;
  if (activeSet) {
    active = [];
    mark = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      if (start[i] !== 0) {
        active.push(i);
        mark[i] = 1;
      }
    }
  }
  let delta = Number.POSITIVE_INFINITY;
  let iterations = 0;
  let converged = false;
  while (iterations < maxIterations) {
    let dangling = 0;
    const reached: number[] = [];
    // next ← Pᵀ·cur over non-dangling nodes; dangling mass is collected separately.
    const visits = active ? active.length : n;
    for (let k = 0; k < visits; k++) {
      const u = active ? active[k]! : k;
      const mass = cur[u]!;
      if (mass === 0) continue;
      const inv = invOut[u]!;
      if (inv === 0) {
        dangling += mass;
        continue;
      }
      const share = mass * inv;
      const end = offsets[u + 1]!;
      if (mark !== undefined) {
        for (let e = offsets[u]!; e < end; e++) {
          const t = targets[e]!;
          next[t]! += weighted ? share * weights[e]! : share;
          if (mark[t] === 0) {
            mark[t] = 1;
            reached.push(t);
          }
        }
      } else if (weighted) {
        for (let e = offsets[u]!; e < end; e++) next[targets[e]!]! += share * weights[e]!;
      } else {
        for (let e = offsets[u]!; e < end; e++) next[targets[e]!]! += share;
      }
    }
    const touched =
      active && reached.length > 0
        ? mergeSorted(
            active,
            reached.sort((a, b) => a - b),
          )
        : active;
    const updates = touched ? touched.length : n;
    delta = 0;
    if (lazy) {
      // π ← α·π + (1 − α)·(Pᵀπ + dangling·p)
      for (let k = 0; k < updates; k++) {
        const i = touched ? touched[k]! : k;
        const v = teleport * cur[i]! + walk * (next[i]! + dangling * p[i]!);
        delta += Math.abs(v - cur[i]!);
        next[i] = v;
      }
    } else {
      // π ← α·p + (1 − α)·(Pᵀπ + dangling·p)
      const restart = teleport + walk * dangling;
      for (let k = 0; k < updates; k++) {
        const i = touched ? touched[k]! : k;
        const v = walk * next[i]! + restart * p[i]!;
        delta += Math.abs(v - cur[i]!);
        next[i] = v;
      }
    }
    // The old iterate becomes the next buffer: clear it (only active nodes can be non-zero).
    if (active) for (const i of active) cur[i] = 0;
    else cur.fill(0);
    const swap = cur;
    cur = next;
    next = swap;
    active = touched;
    iterations++;
    if (tolerance > 0 && delta <= tolerance) {
      converged = true;
      break;
    }
  }
  return { scores: cur, iterations, delta, converged };
}

/** The union of two ascending lists of distinct indices, ascending. */
function mergeSorted(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = new Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = a[i]! < b[j]! ? a[i++]! : b[j++]!;
  while (i < a.length) out[k++] = a[i++]!;
  while (j < b.length) out[k++] = b[j++]!;
  return out;
}
