import { InvalidArgumentError, shuffleInPlace, weylFmix32 } from '@grag/core';
import { type Csr, toCsr } from '@grag/core/internal';
import type { AbstractGraph } from 'graphology-types';

/** Options of {@link leiden}. */
export interface LeidenOptions {
  /** Resolution γ of the quality function. @default 1 */
  resolution: number;
  /**
   * Quality function: `'modularity'` (Newman–Girvan with resolution γ, as NodeRAG's official code
   * uses through `leidenalg.ModularityVertexPartition`) or `'cpm'` (Constant Potts Model, node sizes
   * as weights). @default 'modularity'
   */
  quality: 'modularity' | 'cpm';
  /**
   * Randomness θ of the refinement phase: a node joins a sub-community with probability
   * ∝ exp(ΔH/θ), ΔH in edge-weight units (as igraph). Smaller is greedier. @default 0.01 (Traag et al. 2019)
   */
  randomness: number;
  /**
   * Iterations of the whole algorithm, each starting from the previous partition; stops early once an
   * iteration changes nothing. `Infinity` iterates until stable. @default 2 (leidenalg's and igraph's default)
   */
  iterations: number;
  /** Most aggregation levels per iteration. @default Infinity */
  maxLevels: number;
  /** Seed of the node orders and of the refinement's random choices. @default 42 */
  seed: number;
  /** Edge attribute read as the weight (graphs only); `null` counts every edge as 1. @default 'weight' */
  weightAttribute: string | null;
}

/** Defaults of {@link leiden}. */
export const LEIDEN_DEFAULTS: LeidenOptions = {
  resolution: 1,
  quality: 'modularity',
  randomness: 0.01,
  iterations: 2,
  maxLevels: Number.POSITIVE_INFINITY,
  seed: 42,
  weightAttribute: 'weight',
};

/** The partition found by {@link leidenCsr}. */
export interface LeidenCsrResult {
  /** Community of every node, by CSR index; communities are numbered 0 .. count − 1 in order of first node. */
  membership: Int32Array;
  count: number;
  /** Quality of the partition (modularity, or CPM) under the options' resolution. */
  quality: number;
  /** Aggregation levels run in the last iteration. */
  levels: number;
  /** Iterations run. */
  iterations: number;
  /**
   * Communities that had to be split into connected components at the end: always 0 when the
   * algorithm ran to convergence (Leiden guarantees connected communities); can be positive when
   * `maxLevels` cut it short.
   */
  splits: number;
}

/** The partition found by {@link leiden}. */
export interface LeidenResult extends Omit<LeidenCsrResult, 'membership'> {
  /** Node → community. */
  communities: Map<string, number>;
}

/** A graph as one level of the algorithm sees it. */
interface Level {
  n: number;
  offsets: Uint32Array;
  targets: Uint32Array;
  weights: Float64Array;
  /** Node weight: strength (modularity) or size (CPM). */
  nodeWeight: Float64Array;
}

function checkOptions(o: LeidenOptions): void {
  const fail = (name: string, what: string, value: unknown): never => {
    throw new InvalidArgumentError(
      `options.${name}`,
      `leiden: ${name} must be ${what}, got ${String(value)}.`,
    );
  };
  if (!(o.resolution >= 0) || !Number.isFinite(o.resolution))
    fail('resolution', 'finite and >= 0', o.resolution);
  if (o.quality !== 'modularity' && o.quality !== 'cpm') fail('quality', "'modularity' or 'cpm'", o.quality);
  if (!(o.randomness > 0)) fail('randomness', 'positive', o.randomness);
  if (
    !(o.iterations >= 1) ||
    !(Number.isInteger(o.iterations) || o.iterations === Number.POSITIVE_INFINITY)
  ) {
    fail('iterations', 'a positive integer or Infinity', o.iterations);
  }
  if (!(o.maxLevels >= 1) || !(Number.isInteger(o.maxLevels) || o.maxLevels === Number.POSITIVE_INFINITY)) {
    fail('maxLevels', 'a positive integer or Infinity', o.maxLevels);
  }
}

/**
 * The level-0 graph: CSR rows without self-loops (a self-loop only adds to the strength, 2·w as in
 * igraph and networkx), every edge in both directions. Negative weights are refused.
 */
function baseLevel(csr: Csr, quality: LeidenOptions['quality']): Level {
  const n = csr.nodeIds.length;
  const counts = new Uint32Array(n + 1);
  const strength = new Float64Array(n);
  for (let v = 0; v < n; v++) {
    for (let e = csr.offsets[v]!; e < csr.offsets[v + 1]!; e++) {
      const w = csr.weights[e]!;
      if (!(w >= 0) || !Number.isFinite(w)) {
        throw new InvalidArgumentError(
          'graph',
          `leiden: an edge has weight ${w}; weights must be finite and non-negative.`,
        );
      }
      if (csr.targets[e] === v) {
        strength[v]! += 2 * w;
      } else {
        counts[v + 1]!++;
        strength[v]! += w;
      }
    }
  }
  for (let v = 0; v < n; v++) counts[v + 1]! += counts[v]!;
  const targets = new Uint32Array(counts[n]!);
  const weights = new Float64Array(counts[n]!);
  let at = 0;
  for (let v = 0; v < n; v++) {
    for (let e = csr.offsets[v]!; e < csr.offsets[v + 1]!; e++) {
      if (csr.targets[e] === v) continue;
      targets[at] = csr.targets[e]!;
      weights[at] = csr.weights[e]!;
      at++;
    }
  }
  const nodeWeight = quality === 'cpm' ? new Float64Array(n).fill(1) : strength;
  return { n, offsets: counts, targets, weights, nodeWeight };
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
function renumber(comm: Int32Array): number {
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
function iterate(
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
function splitDisconnected(g: Level, membership: Int32Array): number {
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

function samePartition(a: Int32Array, b: Int32Array): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Quality of a partition: modularity Q = Σ_c [L_c/m − γ·(K_c/2m)²] (L_c internal edge weight, K_c
 * total strength, m total edge weight), or CPM H = Σ_c [L_c − γ·n_c(n_c − 1)/2].
 *
 * @param membership community of every node, by CSR index.
 */
export function partitionQualityCsr(
  csr: Csr,
  membership: ArrayLike<number>,
  options: { resolution?: number; quality?: 'modularity' | 'cpm' } = {},
): number {
  const resolution = options.resolution ?? 1;
  const quality = options.quality ?? 'modularity';
  const n = csr.nodeIds.length;
  if (membership.length !== n) {
    throw new InvalidArgumentError(
      'membership',
      `partitionQuality: membership has ${membership.length} entries for ${n} nodes; give one per node.`,
    );
  }
  const internal = new Map<number, number>();
  const strength = new Map<number, number>();
  const size = new Map<number, number>();
  let m2 = 0;
  for (let v = 0; v < n; v++) {
    const c = membership[v]!;
    size.set(c, (size.get(c) ?? 0) + 1);
    for (let e = csr.offsets[v]!; e < csr.offsets[v + 1]!; e++) {
      const u = csr.targets[e]!;
      const w = csr.weights[e]!;
      // A self-loop appears once in a CSR row: it counts 2·w toward the strength and w inside.
      const ends = u === v ? 2 : 1;
      m2 += ends * w;
      strength.set(c, (strength.get(c) ?? 0) + ends * w);
      if (membership[u] === c) internal.set(c, (internal.get(c) ?? 0) + (ends * w) / 2);
    }
  }
  let q = 0;
  if (quality === 'cpm') {
    for (const [c, count] of size) q += (internal.get(c) ?? 0) - (resolution * count * (count - 1)) / 2;
    return q;
  }
  if (m2 === 0) return 0;
  for (const [c, k] of strength) q += (internal.get(c) ?? 0) / (m2 / 2) - resolution * (k / m2) ** 2;
  return q;
}

/**
 * Modularity (or CPM quality) of a partition of a graph.
 *
 * @param communities node → community; every node must have one.
 */
export function partitionQuality(
  graph: AbstractGraph,
  communities: ReadonlyMap<string, number> | Record<string, number>,
  options: { resolution?: number; quality?: 'modularity' | 'cpm'; weightAttribute?: string | null } = {},
): number {
  const weightAttribute = options.weightAttribute === undefined ? 'weight' : options.weightAttribute;
  const csr = toCsr(graph, { directed: false, weightAttribute });
  const get = (id: string) =>
    communities instanceof Map ? communities.get(id) : (communities as Record<string, number>)[id];
  const membership = csr.nodeIds.map((id) => {
    const c = get(id);
    if (c === undefined) {
      throw new InvalidArgumentError('communities', `partitionQuality: node "${id}" has no community.`);
    }
    return c;
  });
  return partitionQualityCsr(csr, membership, options);
}

/**
 * Leiden community detection (Traag, Waltman & van Eck, "From Louvain to Leiden: guaranteeing
 * well-connected communities", Scientific Reports 2019) on a CSR: fast local moving with a queue,
 * refinement into well-connected sub-communities, aggregation of the refined partition with the
 * unrefined one as the aggregate's starting partition, repeated until every community is a single
 * aggregate node; the whole repeated `iterations` times. Communities are connected. Seeded: the same
 * graph and options give the same partition. Edge directions are ignored (use an undirected CSR).
 *
 * @throws InvalidArgumentError on an option out of range or a negative edge weight.
 */
export function leidenCsr(csr: Csr, options: Partial<LeidenOptions> = {}): LeidenCsrResult {
  const o = { ...LEIDEN_DEFAULTS, ...options };
  checkOptions(o);
  const n = csr.nodeIds.length;
  const base = baseLevel(csr, o.quality);
  let m2 = 0;
  for (let v = 0; v < n; v++) m2 += base.nodeWeight[v]!;
  const factor = o.quality === 'cpm' ? o.resolution : m2 > 0 ? o.resolution / m2 : 0;
  const rand = weylFmix32(o.seed);
  let membership: Int32Array = new Int32Array(n);
  for (let v = 0; v < n; v++) membership[v] = v;
  let iterations = 0;
  let levels = 0;
  while (iterations < o.iterations) {
    const run = iterate(base, membership, factor, o, rand);
    iterations++;
    levels = run.levels;
    const stable = samePartition(run.membership, membership);
    membership = run.membership;
    if (stable) break;
  }
  const splits = splitDisconnected(base, membership);
  const count = renumber(membership);
  return {
    membership,
    count,
    quality: partitionQualityCsr(csr, membership, { resolution: o.resolution, quality: o.quality }),
    levels,
    iterations,
    splits,
  };
}

/**
 * Leiden communities of a graphology graph (see {@link leidenCsr}); the graph is read as undirected
 * with weights from `weightAttribute`.
 *
 * @example
 * const { communities, count, quality } = leiden(graph, { seed: 7 });
 */
export function leiden(graph: AbstractGraph, options: Partial<LeidenOptions> = {}): LeidenResult {
  const weightAttribute = options.weightAttribute === undefined ? 'weight' : options.weightAttribute;
  const csr = toCsr(graph, { directed: false, weightAttribute });
  return byNode(csr, leidenCsr(csr, options));
}

/** A CSR result with its membership as node → community. */
function byNode(csr: Csr, { membership, ...rest }: LeidenCsrResult): LeidenResult {
  const communities = new Map<string, number>();
  csr.nodeIds.forEach((id, i) => {
    communities.set(id, membership[i]!);
  });
  return { ...rest, communities };
}

/**
 * Run {@link leiden} and write each node's community into the node attribute `attribute`
 * (graphology's `.assign` convention). Returns the same result.
 */
export function leidenAssign(
  graph: AbstractGraph,
  options: Partial<LeidenOptions> & { attribute?: string } = {},
): LeidenResult {
  const { attribute = 'community', ...rest } = options;
  const result = leiden(graph, rest);
  for (const [node, community] of result.communities) graph.setNodeAttribute(node, attribute, community);
  return result;
}

/**
 * Communities of a changed graph from the communities it had before, changing only what the change
 * reaches (the dynamic-frontier approach of Sahu, "DF Louvain / DF Leiden", 2024): every node starts
 * in its previous community (`previous[v]`, any non-negative id; −1 for a new node, which starts
 * alone), and one Leiden iteration runs in which only the frontier moves: at first the new nodes and
 * the `affected` ones; a node that moves adds its neighbours outside its new community, and after
 * aggregation an aggregate node is in the frontier when one of its nodes was. Nodes the frontier
 * never reaches keep their community. Communities are then split into connected components (a
 * removal may have disconnected one). Every move has a positive gain and splitting a community into
 * unlinked parts raises its quality, so the quality is never below that of the previous communities
 * with the new nodes alone. Seeded, like {@link leidenCsr}.
 *
 * @param previous community of every CSR node before the change, −1 for a new node.
 * @param affected 1 for every node whose links changed (new nodes are always in the frontier).
 * @throws InvalidArgumentError on an option out of range, a negative edge weight, or arrays whose
 *   length is not the node count.
 */
export function leidenUpdateCsr(
  csr: Csr,
  previous: Int32Array,
  affected: Uint8Array,
  options: Partial<LeidenOptions> = {},
): LeidenCsrResult {
  const o = { ...LEIDEN_DEFAULTS, ...options };
  checkOptions(o);
  const n = csr.nodeIds.length;
  for (const [name, array] of [
    ['previous', previous],
    ['affected', affected],
  ] as const) {
    if (array.length !== n) {
      throw new InvalidArgumentError(
        name,
        `leidenUpdate: ${name} has ${array.length} entries for a graph of ${n} nodes; give one per node.`,
      );
    }
  }
  const base = baseLevel(csr, o.quality);
  let m2 = 0;
  for (let v = 0; v < n; v++) m2 += base.nodeWeight[v]!;
  const factor = o.quality === 'cpm' ? o.resolution : m2 > 0 ? o.resolution / m2 : 0;
  // Previous ids renumbered into [0, n); each new node gets an id of its own after them.
  const ids = new Map<number, number>();
  const membership = new Int32Array(n);
  const frontier = Uint8Array.from(affected, (a) => (a === 0 ? 0 : 1));
  for (let v = 0; v < n; v++) {
    if (previous[v]! < 0) continue;
    let id = ids.get(previous[v]!);
    if (id === undefined) {
      id = ids.size;
      ids.set(previous[v]!, id);
    }
    membership[v] = id;
  }
  let fresh = ids.size;
  for (let v = 0; v < n; v++) {
    if (previous[v]! >= 0) continue;
    membership[v] = fresh++;
    frontier[v] = 1;
  }
  const run = iterate(base, membership, factor, o, weylFmix32(o.seed), frontier);
  membership.set(run.membership);
  const splits = splitDisconnected(base, membership);
  const count = renumber(membership);
  return {
    membership,
    count,
    quality: partitionQualityCsr(csr, membership, { resolution: o.resolution, quality: o.quality }),
    levels: run.levels,
    iterations: 1,
    splits,
  };
}

/**
 * {@link leidenUpdateCsr} on a graphology graph: `previous` maps the nodes the graph had before to
 * their community (nodes it does not hold are new), `affected` lists the nodes whose links changed.
 *
 * @example
 * const before = leiden(graph, { seed: 7 });
 * graph.addNode('x'); graph.addEdge('x', 'a');
 * const after = leidenUpdate(graph, before.communities, ['a'], { seed: 7 });
 */
export function leidenUpdate(
  graph: AbstractGraph,
  previous: ReadonlyMap<string, number>,
  affected: Iterable<string>,
  options: Partial<LeidenOptions> = {},
): LeidenResult {
  const weightAttribute = options.weightAttribute === undefined ? 'weight' : options.weightAttribute;
  const csr = toCsr(graph, { directed: false, weightAttribute });
  const position = new Map(csr.nodeIds.map((id, i) => [id, i]));
  const before = Int32Array.from(csr.nodeIds, (id) => previous.get(id) ?? -1);
  const queued = new Uint8Array(csr.nodeIds.length);
  for (const id of affected) {
    const i = position.get(id);
    if (i !== undefined) queued[i] = 1;
  }
  return byNode(csr, leidenUpdateCsr(csr, before, queued, options));
}
