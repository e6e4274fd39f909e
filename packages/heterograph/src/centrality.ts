import { InvalidArgumentError } from '@grag/core';
import { type Csr, toCsr } from '@grag/core/graph';
import { shuffleInPlace, weylFmix32 } from '@grag/core/kit';
import type { AbstractGraph } from 'graphology-types';

/** The undirected, unweighted adjacency of a graph, as {@link coreNumbers} and betweenness read it. */
function adjacency(graph: AbstractGraph | Csr): Csr {
  if ((graph as Csr).offsets instanceof Uint32Array && (graph as Csr).index instanceof Map)
    return graph as Csr;
  return toCsr(graph as AbstractGraph, { directed: false, weightAttribute: null });
}

/**
 * Core numbers by the O(m) bucket algorithm of Batagelj & Zaversnik ("An O(m) algorithm for cores
 * decomposition of networks", 2003) on a CSR. The core number of v is the largest k such that v
 * belongs to the k-core, the maximal subgraph whose nodes all have degree at least k in it.
 * Self-loops are ignored; edge directions and weights are ignored; parallel edges count once each.
 *
 * @returns the core number of every node, by CSR index.
 */
export function coreNumbersCsr(csr: Csr): Uint32Array {
  const { offsets, targets } = csr;
  const n = csr.nodeIds.length;
  const degree = new Uint32Array(n);
  let maxDegree = 0;
  for (let v = 0; v < n; v++) {
    let d = 0;
    for (let e = offsets[v]!; e < offsets[v + 1]!; e++) if (targets[e] !== v) d++;
    degree[v] = d;
    if (d > maxDegree) maxDegree = d;
  }
  // bin[d]: first position of degree d in `order` (nodes sorted by current degree).
  const bin = new Uint32Array(maxDegree + 2);
  for (let v = 0; v < n; v++) bin[degree[v]!]!++;
  let start = 0;
  for (let d = 0; d <= maxDegree; d++) {
    const count = bin[d]!;
    bin[d] = start;
    start += count;
  }
  const order = new Uint32Array(n);
  const position = new Uint32Array(n);
  for (let v = 0; v < n; v++) {
    position[v] = bin[degree[v]!]!;
    order[position[v]!] = v;
    bin[degree[v]!]!++;
  }
  for (let d = maxDegree; d > 0; d--) bin[d] = bin[d - 1]!;
  bin[0] = 0;
  for (let i = 0; i < n; i++) {
    const v = order[i]!;
    for (let e = offsets[v]!; e < offsets[v + 1]!; e++) {
      const u = targets[e]!;
      if (u === v || degree[u]! <= degree[v]!) continue;
      // Move u one bucket down: swap it with the first node of its bucket.
      const du = degree[u]!;
      const pu = position[u]!;
      const pw = bin[du]!;
      const w = order[pw]!;
      if (u !== w) {
        position[u] = pw;
        order[pu] = w;
        position[w] = pu;
        order[pw] = u;
      }
      bin[du]!++;
      degree[u] = du - 1;
    }
  }
  return degree;
}

/**
 * Core numbers of every node of `graph` (see {@link coreNumbersCsr}).
 *
 * @example
 * const cores = coreNumbers(graph); // Map node → core number
 * const kCore = [...cores].filter(([, c]) => c >= k).map(([v]) => v);
 */
export function coreNumbers(graph: AbstractGraph | Csr): Map<string, number> {
  const csr = adjacency(graph);
  const cores = coreNumbersCsr(csr);
  const out = new Map<string, number>();
  csr.nodeIds.forEach((id, i) => {
    out.set(id, cores[i]!);
  });
  return out;
}

/** Options of {@link betweenness}. */
export interface BetweennessOptions {
  /**
   * Number of BFS sources sampled (Brandes' pivot sampling, as networkx's `betweenness_centrality(G,
   * k)`); `undefined`, or a number at least the node count, uses every node (exact betweenness).
   * @default 10 (NodeRAG Algorithm 1)
   */
  samples: number | undefined;
  /** Seed of the source sampling. @default 42 */
  seed: number;
  /**
   * Divide by the number of ordered pairs not involving v, (n − 1)(n − 2), and multiply by 2 for an
   * undirected graph: the normalization networkx uses by default. @default false
   */
  normalized: boolean;
}

/** Defaults of {@link betweenness}. */
export const BETWEENNESS_DEFAULTS: BetweennessOptions = { samples: 10, seed: 42, normalized: false };

/**
 * Betweenness centrality by Brandes' algorithm (Brandes 2001) on the unweighted, undirected graph:
 * b(v) = Σ_{s≠v≠t} σ_st(v)/σ_st over unordered pairs {s, t}. With `samples` = k < n, the sum runs over
 * k sources drawn without replacement and is scaled by n/k, an unbiased estimate (Brandes & Pich
 * 2007). O(k·m) time.
 *
 * @returns scores by CSR index.
 * @throws InvalidArgumentError when `samples` is not a positive integer.
 */
export function betweennessCsr(csr: Csr, options: Partial<BetweennessOptions> = {}): Float64Array {
  const o = { ...BETWEENNESS_DEFAULTS, ...options };
  const n = csr.nodeIds.length;
  if (o.samples !== undefined && (!Number.isInteger(o.samples) || o.samples < 1)) {
    throw new InvalidArgumentError(
      'options.samples',
      `betweenness: samples must be a positive integer (or undefined for exact), got ${o.samples}.`,
    );
  }
  const scores = new Float64Array(n);
  if (n === 0) return scores;
  let sources: Uint32Array;
  if (o.samples === undefined || o.samples >= n) {
    sources = new Uint32Array(n);
    for (let i = 0; i < n; i++) sources[i] = i;
  } else {
    const all = new Uint32Array(n);
    for (let i = 0; i < n; i++) all[i] = i;
    sources = shuffleInPlace(all, weylFmix32(o.seed)).slice(0, o.samples);
  }
  const { offsets, targets } = csr;
  const sigma = new Float64Array(n);
  const dist = new Int32Array(n);
  const delta = new Float64Array(n);
  const stack = new Uint32Array(n);
  const queue = new Uint32Array(n);
  for (const s of sources) {
    dist.fill(-1);
    sigma.fill(0);
    delta.fill(0);
    sigma[s] = 1;
    dist[s] = 0;
    let head = 0;
    let tail = 0;
    let top = 0;
    queue[tail++] = s;
    while (head < tail) {
      const v = queue[head++]!;
      stack[top++] = v;
      const dv = dist[v]!;
      for (let e = offsets[v]!; e < offsets[v + 1]!; e++) {
        const w = targets[e]!;
        if (w === v) continue;
        if (dist[w]! < 0) {
          dist[w] = dv + 1;
          queue[tail++] = w;
        }
        if (dist[w] === dv + 1) sigma[w]! += sigma[v]!;
      }
    }
    // Accumulate dependencies in order of non-increasing distance.
    while (top > 0) {
      const w = stack[--top]!;
      const dw = dist[w]!;
      const coefficient = (1 + delta[w]!) / sigma[w]!;
      for (let e = offsets[w]!; e < offsets[w + 1]!; e++) {
        const v = targets[e]!;
        if (dist[v] === dw - 1) delta[v]! += sigma[v]! * coefficient;
      }
      if (w !== s) scores[w]! += delta[w]!;
    }
  }
  // Every unordered pair is seen from both ends when all sources are used: halve. Sampling scales by n/k.
  let scale = 0.5 * (n / sources.length);
  if (o.normalized) scale *= n > 2 ? 2 / ((n - 1) * (n - 2)) : 0;
  for (let i = 0; i < n; i++) scores[i]! *= scale;
  return scores;
}

/** {@link betweennessCsr} keyed by node. */
export function betweenness(
  graph: AbstractGraph | Csr,
  options: Partial<BetweennessOptions> = {},
): Map<string, number> {
  const csr = adjacency(graph);
  const scores = betweennessCsr(csr, options);
  const out = new Map<string, number>();
  csr.nodeIds.forEach((id, i) => {
    out.set(id, scores[i]!);
  });
  return out;
}

/** Options of {@link importantEntities}. */
export interface ImportantEntityOptions {
  /**
   * Which nodes may be selected. @default a node whose `type` attribute is `'N'` (entities; NodeRAG
   * selects important entities only)
   */
  isCandidate: (node: string, attributes: Record<string, unknown>) => boolean;
  /** Core threshold; `undefined` uses k_default = ⌊ln|V| · √(mean degree)⌋ (at least 1). @default undefined */
  k: number | undefined;
  /**
   * `'core'`: K(G) is the true k-core, the nodes whose core number is at least k (what the official
   * code computes, with networkx's `k_core`). `'degree'`: the rule Algorithm 1 writes, deg(v) ≥ k.
   * @default 'core'
   */
  coreRule: 'core' | 'degree';
  /** Sampled BFS sources of the betweenness estimate. @default 10 (NodeRAG Algorithm 1) */
  betweennessSamples: number | undefined;
  /**
   * Multiplier of the mean betweenness above which a node is selected; `undefined` uses
   * ⌊log10 |V|⌋ (NodeRAG Algorithm 1). @default undefined
   */
  betweennessScale: number | undefined;
  /** Seed of the betweenness sampling. @default 42 */
  seed: number;
}

/** Defaults of {@link importantEntities}. */
export const IMPORTANT_ENTITY_DEFAULTS: ImportantEntityOptions = {
  isCandidate: (_node, attributes) => attributes.type === 'N',
  k: undefined,
  coreRule: 'core',
  betweennessSamples: 10,
  betweennessScale: undefined,
  seed: 42,
};

/** What {@link importantEntities} found. */
export interface ImportantEntities {
  /** N* = K(G) ∪ B(G), candidates only, in graph node order. */
  nodes: string[];
  /** Candidates selected by the core rule. */
  byCore: string[];
  /** Candidates selected by betweenness. */
  byBetweenness: string[];
  /** The core threshold used. */
  k: number;
  /** Mean betweenness over all nodes. */
  meanBetweenness: number;
  /** The betweenness threshold: mean × scale. */
  betweennessThreshold: number;
}

/**
 * Important entities (NodeRAG §2.3 and appendix C.2, Algorithm 1): N* = K(G) ∪ B(G), where K(G)
 * holds the nodes of the k-core with k = ⌊ln|V| · √(mean degree)⌋ and B(G) the nodes whose (sampled)
 * betweenness exceeds the mean times ⌊log10 |V|⌋. Both are computed on the whole graph; only
 * candidates (entities by default) are returned.
 *
 * Algorithm 1 writes K(G) = {v | deg(v) ≥ k}; the k-core (`coreRule: 'core'`, the default) is what
 * its name and the official code compute. `coreRule: 'degree'` gives the written rule.
 *
 * @example
 * const { nodes } = importantEntities(hetero.graph); // entities to summarize into attributes
 */
export function importantEntities(
  graph: AbstractGraph,
  options: Partial<ImportantEntityOptions> = {},
): ImportantEntities {
  const o = { ...IMPORTANT_ENTITY_DEFAULTS, ...options };
  const csr = adjacency(graph);
  const n = csr.nodeIds.length;
  if (n === 0) {
    return { nodes: [], byCore: [], byBetweenness: [], k: 0, meanBetweenness: 0, betweennessThreshold: 0 };
  }
  const candidate = new Uint8Array(n);
  csr.nodeIds.forEach((id, i) => {
    if (o.isCandidate(id, graph.getNodeAttributes(id))) candidate[i] = 1;
  });
  let degreeSum = 0;
  const degree = new Uint32Array(n);
  for (let v = 0; v < n; v++) {
    let d = 0;
    for (let e = csr.offsets[v]!; e < csr.offsets[v + 1]!; e++) if (csr.targets[e] !== v) d++;
    degree[v] = d;
    degreeSum += d;
  }
  const k = o.k ?? Math.max(1, Math.floor(Math.log(n) * Math.sqrt(degreeSum / n)));
  if (!Number.isFinite(k) || k < 0) {
    throw new InvalidArgumentError(
      'options.k',
      `importantEntities: k must be a non-negative number, got ${k}.`,
    );
  }
  const level = o.coreRule === 'degree' ? degree : coreNumbersCsr(csr);
  const scores = betweennessCsr(csr, { samples: o.betweennessSamples, seed: o.seed });
  let total = 0;
  for (let i = 0; i < n; i++) total += scores[i]!;
  const meanBetweenness = total / n;
  const scale = o.betweennessScale ?? Math.floor(Math.log10(n));
  const threshold = meanBetweenness * scale;
  const nodes: string[] = [];
  const byCore: string[] = [];
  const byBetweenness: string[] = [];
  for (let i = 0; i < n; i++) {
    if (candidate[i] !== 1) continue;
    const id = csr.nodeIds[i]!;
    const inCore = level[i]! >= k;
    const central = scores[i]! > threshold;
    if (inCore) byCore.push(id);
    if (central) byBetweenness.push(id);
    if (inCore || central) nodes.push(id);
  }
  return { nodes, byCore, byBetweenness, k, meanBetweenness, betweennessThreshold: threshold };
}
