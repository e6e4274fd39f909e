/**
 * Shallow personalized PageRank that touches only the nodes the walk reaches: the same arithmetic
 * as `personalizedPageRankCsr` of `@grag/core/graph` (tolerance 0, weighted), in the same order, so
 * its scores are equal bit for bit, but each iteration costs the edges of the nodes holding mass
 * instead of a pass over every node and edge of the graph.
 */
import { InvalidArgumentError } from '@grag/core';
import type { Csr } from '@grag/core/graph';

/** What {@link SparsePpr.run} reuses for every query on one CSR. */
export class SparsePpr {
  readonly #csr: Csr;
  /** 1 / out-weight of each node (0 for a node with no out-weight: its mass dangles). */
  readonly #invOut: Float64Array;

  /** @throws InvalidArgumentError when an edge weight is negative (as core's PageRank). */
  constructor(csr: Csr) {
    const { weights, outWeight } = csr;
    for (let e = 0; e < weights.length; e++) {
      if (!(weights[e]! >= 0)) {
        throw new InvalidArgumentError(
          'graph',
          `pageRank: an edge has weight ${weights[e]}; weighted PageRank needs non-negative weights ` +
            '(pass { weighted: false } to ignore them).',
        );
      }
    }
    const n = csr.nodeIds.length;
    const invOut = new Float64Array(n);
    for (let u = 0; u < n; u++) invOut[u] = outWeight[u]! > 0 ? 1 / outWeight[u]! : 0;
    this.#csr = csr;
    this.#invOut = invOut;
  }

  /**
   * The scores of every node (by CSR index) after `iterations` steps from the personalization
   * `weights` of the nodes `seeds` (distinct CSR indices; normalized to sum 1 in index order, as
   * core does): π ← α·p + (1 − α)·(Pᵀπ + dangling·p), or with `lazy`,
   * π ← α·π + (1 − α)·(Pᵀπ + dangling·p).
   */
  run(
    seeds: readonly number[],
    weights: readonly number[],
    options: { teleport: number; iterations: number; lazy: boolean },
  ): Float64Array {
    const { offsets, targets, weights: w } = this.#csr;
    const invOut = this.#invOut;
    const n = invOut.length;
    const { teleport, lazy } = options;
    const walk = 1 - teleport;
    // Seeds in index order: core sums the personalization over indices in order.
    const order = seeds.map((_, k) => k).sort((a, b) => seeds[a]! - seeds[b]!);
    let total = 0;
    for (const k of order) total += weights[k]!;
    const p = new Float64Array(n);
    const seedList: number[] = [];
    for (const k of order) {
      p[seeds[k]!] = weights[k]! / total;
      seedList.push(seeds[k]!);
    }
    let cur = Float64Array.from(p);
    let next = new Float64Array(n);
    // The nodes that may hold mass (a superset of those that do), and a mark of membership.
    let active = seedList;
    const mark = new Uint8Array(n);
    for (const i of active) mark[i] = 1;
    for (let it = 0; it < options.iterations; it++) {
      let dangling = 0;
      const reached: number[] = [];
      for (const u of active) {
        const mass = cur[u]!;
        if (mass === 0) continue;
        const inv = invOut[u]!;
        if (inv === 0) {
          dangling += mass;
          continue;
        }
        const share = mass * inv;
        const end = offsets[u + 1]!;
        for (let e = offsets[u]!; e < end; e++) {
          const t = targets[e]!;
          next[t]! += share * w[e]!;
          if (mark[t] === 0) {
            mark[t] = 1;
            reached.push(t);
          }
        }
      }
      // Every node outside `active ∪ reached` has cur = next = p = 0 and stays 0.
      const touched =
        reached.length > 0
          ? mergeSorted(
              active,
              reached.sort((a, b) => a - b),
            )
          : active;
      if (lazy) {
        for (const i of touched) next[i] = teleport * cur[i]! + walk * (next[i]! + dangling * p[i]!);
      } else {
        const restart = teleport + walk * dangling;
        for (const i of touched) next[i] = walk * next[i]! + restart * p[i]!;
      }
      for (const i of active) cur[i] = 0;
      const swap = cur;
      cur = next;
      next = swap;
      active = touched;
    }
    return cur;
  }
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
