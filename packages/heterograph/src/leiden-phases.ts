/**
 * The phases of Leiden (Traag, Waltman & van Eck 2019) on a level graph in typed arrays: fast local
 * moving with a queue, refinement into well-connected sub-communities, aggregation of the refined
 * partition, and one iteration through the levels; plus the split of disconnected communities.
 */
import { shuffleInPlace } from '@grag/core/kit';
import type { LeidenOptions } from './leiden.js';

/** A graph as one level of the algorithm sees it. */
export interface Level {
  n: number;
  offsets: Uint32Array;
  targets: Uint32Array;
  weights: Float64Array;
  /** Node weight: strength (modularity) or size (CPM). */
  nodeWeight: Float64Array;
}

/** Scratch space shared by the phases of one level: a sparse accumulator over community ids. */
class Accumulator {
  readonly weight: Float64Array;
  readonly seen: Uint8Array;
  readonly touched: Int32Array;
  size = 0;
  constructor(n: number) {
    this.weight = new Float64Array(n);
    this.seen = new Uint8Array(n);
    this.touched = new Int32Array(n);
  }
  add(c: number, w: number): void {
    if (this.seen[c] === 0) {
      this.seen[c] = 1;
      this.touched[this.size++] = c;
    }
    this.weight[c]! += w;
  }
  clear(): void {
    for (let i = 0; i < this.size; i++) {
      const c = this.touched[i]!;
      this.seen[c] = 0;
      this.weight[c] = 0;
    }
    this.size = 0;
  }
}

/**
 * Local moving with a queue (Leiden's MoveNodesFast): visit nodes in random order; move each to the
 * neighbouring (or an empty) community of largest gain; when a node moves, queue its neighbours
 * outside its new community. `comm` holds ids in [0, n) and is updated in place.
 *
 * Gain of v into C (C without v): w(v, C) − f·a_v·A_C, with a the node weight, A its community sum
 * and f = γ/2m (modularity) or γ (CPM).
 */
function moveNodes(
  g: Level,
  comm: Int32Array,
  factor: number,
  rand: () => number,
  acc: Accumulator,
  frontier?: Uint8Array,
): boolean {
  const { n, offsets, targets, weights, nodeWeight } = g;
  const total = new Float64Array(n);
  const members = new Int32Array(n);
  for (let v = 0; v < n; v++) {
    total[comm[v]!]! += nodeWeight[v]!;
    members[comm[v]!]!++;
  }
  const empty: number[] = [];
  for (let c = n - 1; c >= 0; c--) if (members[c] === 0) empty.push(c);
  const queue = new Int32Array(n);
  let length = 0;
  for (let v = 0; v < n; v++) if (frontier === undefined || frontier[v] === 1) queue[length++] = v;
  shuffleInPlace(queue.subarray(0, length), rand);
  const queued = frontier === undefined ? new Uint8Array(n).fill(1) : Uint8Array.from(frontier);
  let head = 0;
  let changed = false;
  while (length > 0) {
    const v = queue[head]!;
    head = head + 1 === n ? 0 : head + 1;
    length--;
    queued[v] = 0;
    const old = comm[v]!;
    const av = nodeWeight[v]!;
    for (let e = offsets[v]!; e < offsets[v + 1]!; e++) acc.add(comm[targets[e]!]!, weights[e]!);
    total[old]! -= av;
    members[old]!--;
    let best = old;
    let bestGain = acc.weight[old]! - factor * av * total[old]!;
    for (let i = 0; i < acc.size; i++) {
      const c = acc.touched[i]!;
      if (c === old) continue;
      const gain = acc.weight[c]! - factor * av * total[c]!;
      if (gain > bestGain) {
        best = c;
        bestGain = gain;
      }
    }
    acc.clear();
    if (bestGain < 0) {
      // An empty community (gain 0) beats every neighbouring one.
      best = members[old] === 0 ? old : (empty.pop() as number);
    }
    comm[v] = best;
    total[best]! += av;
    members[best]!++;
    if (best !== old) {
      changed = true;
      if (members[old] === 0) empty.push(old);
      for (let e = offsets[v]!; e < offsets[v + 1]!; e++) {
        const u = targets[e]!;
        if (queued[u] === 0 && comm[u] !== best) {
          queued[u] = 1;
          if (frontier !== undefined) frontier[u] = 1;
          queue[(head + length) % n] = u;
          length++;
        }
      }
    }
  }
  return changed;
}

/** Renumber community ids to 0 .. k − 1 in order of first node; returns k. */
export function renumber(comm: Int32Array): number {
  const map = new Map<number, number>();
  for (let v = 0; v < comm.length; v++) {
    let id = map.get(comm[v]!);
    if (id === undefined) {
      id = map.size;
      map.set(comm[v]!, id);
    }
    comm[v] = id;
  }
  return map.size;
}

/**
 * Refinement (Leiden's RefinePartition / MergeNodesSubset): inside each community S of `comm`, start
 * from singletons and merge each well-connected singleton v (w(v, S − v) ≥ f·a_v·(A_S − a_v)) into a
 * well-connected sub-community C it is linked to, drawn with probability ∝ exp(ΔH/θ) among those with
 * ΔH ≥ 0 (staying alone has ΔH = 0). Every merge joins a node to a sub-community it has an edge to,
 * so sub-communities are connected. Returns the refined ids, renumbered, and their count.
 */
function refine(
  g: Level,
  comm: Int32Array,
  factor: number,
  theta: number,
  rand: () => number,
  acc: Accumulator,
): { refined: Int32Array; count: number } {
  const { n, offsets, targets, weights, nodeWeight } = g;
  const refined = new Int32Array(n);
  const refTotal = new Float64Array(n);
  const refSize = new Int32Array(n);
  const external = new Float64Array(n); // weight from a sub-community to the rest of its community
  const commTotal = new Float64Array(n);
  for (let v = 0; v < n; v++) {
    refined[v] = v;
    refTotal[v] = nodeWeight[v]!;
    refSize[v] = 1;
    commTotal[comm[v]!]! += nodeWeight[v]!;
    for (let e = offsets[v]!; e < offsets[v + 1]!; e++) {
      if (comm[targets[e]!] === comm[v]) external[v]! += weights[e]!;
    }
  }
  // Nodes grouped by community, each group in random order.
  const order = new Int32Array(n);
  for (let v = 0; v < n; v++) order[v] = v;
  shuffleInPlace(order, rand);
  const start = new Int32Array(n + 1);
  for (let v = 0; v < n; v++) start[comm[v]! + 1]!++;
  for (let c = 0; c < n; c++) start[c + 1]! += start[c]!;
  const cursor = start.slice(0, n);
  const grouped = new Int32Array(n);
  for (const v of order) grouped[cursor[comm[v]!]!++] = v;

  const candidates: number[] = [];
  const gains: number[] = [];
  for (let i = 0; i < n; i++) {
    const v = grouped[i]!;
    if (refSize[refined[v]!] !== 1) continue; // only singletons move
    const c = comm[v]!;
    const av = nodeWeight[v]!;
    const cTotal = commTotal[c]!;
    if (external[v]! < factor * av * (cTotal - av)) continue; // v is not well connected to its community
    for (let e = offsets[v]!; e < offsets[v + 1]!; e++) {
      const u = targets[e]!;
      if (comm[u] === c) acc.add(refined[u]!, weights[e]!);
    }
    candidates.length = 0;
    gains.length = 0;
    candidates.push(v); // staying alone: ΔH = 0
    gains.push(0);
    let maxGain = 0;
    for (let j = 0; j < acc.size; j++) {
      const r = acc.touched[j]!;
      if (r === v) continue;
      const rTotal = refTotal[r]!;
      if (external[r]! < factor * rTotal * (cTotal - rTotal)) continue; // r is not well connected
      const gain = acc.weight[r]! - factor * av * rTotal;
      if (gain < 0) continue;
      candidates.push(r);
      gains.push(gain);
      if (gain > maxGain) maxGain = gain;
    }
    let chosen = v;
    if (candidates.length > 1) {
      let sum = 0;
      for (let j = 0; j < gains.length; j++) {
        gains[j] = Math.exp((gains[j]! - maxGain) / theta);
        sum += gains[j]!;
      }
      let pick = rand() * sum;
      chosen = candidates[candidates.length - 1]!;
      for (let j = 0; j < candidates.length; j++) {
        pick -= gains[j]!;
        if (pick < 0) {
          chosen = candidates[j]!;
          break;
        }
      }
    }
    if (chosen !== v) {
      const wvr = acc.weight[chosen]!;
      external[chosen] = external[chosen]! + external[v]! - 2 * wvr;
      refTotal[chosen]! += av;
      refSize[chosen]!++;
      refSize[v] = 0;
      refined[v] = chosen;
    }
    acc.clear();
  }
  const count = renumber(refined);
  return { refined, count };
}

/** Collapse each refined community into one node; edge weights between communities are summed. */
function aggregate(g: Level, refined: Int32Array, count: number, acc: Accumulator): Level {
  const { n, offsets, targets, weights, nodeWeight } = g;
  const start = new Int32Array(count + 1);
  for (let v = 0; v < n; v++) start[refined[v]! + 1]!++;
  for (let c = 0; c < count; c++) start[c + 1]! += start[c]!;
  const cursor = start.slice(0, count);
  const members = new Int32Array(n);
  for (let v = 0; v < n; v++) members[cursor[refined[v]!]!++] = v;
  const newWeight = new Float64Array(count);
  const rowStart = new Uint32Array(count + 1);
  const outTargets: number[] = [];
  const outWeights: number[] = [];
  for (let a = 0; a < count; a++) {
    for (let i = start[a]!; i < start[a + 1]!; i++) {
      const v = members[i]!;
      newWeight[a]! += nodeWeight[v]!;
      for (let e = offsets[v]!; e < offsets[v + 1]!; e++) {
        const b = refined[targets[e]!]!;
        if (b !== a) acc.add(b, weights[e]!);
      }
    }
    for (let j = 0; j < acc.size; j++) {
      const b = acc.touched[j]!;
      outTargets.push(b);
      outWeights.push(acc.weight[b]!);
    }
    acc.clear();
    rowStart[a + 1] = outTargets.length;
  }
  return {
    n: count,
    offsets: rowStart,
    targets: Uint32Array.from(outTargets),
    weights: Float64Array.from(outWeights),
    nodeWeight: newWeight,
  };
}

/** One iteration of Leiden from `membership` (by base node), returning the new membership. */
export function iterate(
  base: Level,
  membership: Int32Array,
  factor: number,
  o: LeidenOptions,
  rand: () => number,
  frontier?: Uint8Array,
): { membership: Int32Array; levels: number } {
  let g = base;
  const nodeOf = new Int32Array(base.n);
  for (let v = 0; v < base.n; v++) nodeOf[v] = v;
  let comm = Int32Array.from(membership);
  renumber(comm);
  let levels = 0;
  let acc = new Accumulator(g.n);
  let front = frontier;
  for (;;) {
    moveNodes(g, comm, factor, rand, acc, front);
    const communities = renumber(comm);
    levels++;
    if (communities === g.n || levels >= o.maxLevels) break;
    const { refined, count } = refine(g, comm, factor, o.randomness, rand, acc);
    if (count === g.n) break; // nothing to aggregate
    // The aggregate starts from the unrefined partition: each refined community lies in one community.
    const next = new Int32Array(count);
    for (let v = 0; v < g.n; v++) next[refined[v]!] = comm[v]!;
    for (let v = 0; v < base.n; v++) nodeOf[v] = refined[nodeOf[v]!]!;
    if (front !== undefined) {
      // An aggregate node is in the frontier when one of its nodes was ever queued.
      const reached = new Uint8Array(count);
      for (let v = 0; v < g.n; v++) if (front[v] === 1) reached[refined[v]!] = 1;
      front = reached;
    }
    g = aggregate(g, refined, count, acc);
    comm = next;
    renumber(comm);
    acc = new Accumulator(g.n);
  }
  const out = new Int32Array(base.n);
  for (let v = 0; v < base.n; v++) out[v] = comm[nodeOf[v]!]!;
  renumber(out);
  return { membership: out, levels };
}

/** Split every community into its connected components; returns how many communities were split. */
export function splitDisconnected(g: Level, membership: Int32Array): number {
  const { n, offsets, targets } = g;
  const label = new Int32Array(n).fill(-1);
  const seenCommunity = new Uint8Array(n);
  const stack: number[] = [];
  let next = 0;
  let splits = 0;
  for (let s = 0; s < n; s++) {
    if (label[s] !== -1) continue;
    const c = membership[s]!;
    if (seenCommunity[c] === 1) splits++;
    seenCommunity[c] = 1;
    label[s] = next;
    stack.push(s);
    while (stack.length > 0) {
      const v = stack.pop()!;
      for (let e = offsets[v]!; e < offsets[v + 1]!; e++) {
        const u = targets[e]!;
        if (label[u] === -1 && membership[u] === c) {
          label[u] = next;
          stack.push(u);
        }
      }
    }
    next++;
  }
  membership.set(label);
  return splits;
}

export function samePartition(a: Int32Array, b: Int32Array): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
