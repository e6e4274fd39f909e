import { InvalidArgumentError } from '@grag/core';
import { type Csr, toCsr } from '@grag/core/graph';
import { weylFmix32 } from '@grag/core/kit';
import type { AbstractGraph } from 'graphology-types';
import { iterate, type Level, renumber, samePartition, splitDisconnected } from './leiden-phases.js';

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
  return finalPartition(csr, base, membership, o, { levels, iterations });
}

/**
 * The result of a run that ended with `membership`: communities split into connected components
 * where needed, renumbered, and the partition's quality.
 */
function finalPartition(
  csr: Csr,
  base: Level,
  membership: Int32Array,
  o: LeidenOptions,
  run: { levels: number; iterations: number },
): LeidenCsrResult {
  const splits = splitDisconnected(base, membership);
  const count = renumber(membership);
  return {
    membership,
    count,
    quality: partitionQualityCsr(csr, membership, { resolution: o.resolution, quality: o.quality }),
    levels: run.levels,
    iterations: run.iterations,
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
  return finalPartition(csr, base, membership, o, { levels: run.levels, iterations: 1 });
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
