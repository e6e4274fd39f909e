import { InvalidArgumentError } from '@grag/core';
import type { AbstractGraph } from 'graphology-types';
import { asTrussGraph, type TrussGraph } from './graph.js';
import { qrScore, type Relevance, resolveRelevance } from './qpeel.js';

/**
 * Density of a subgraph (DA-RAG appendix B.3): its edges over the `|V|(|V| − 1)/2` possible ones.
 * 0 for fewer than two nodes.
 */
export function density(nodeCount: number, edgeCount: number): number {
  if (!(Number.isInteger(nodeCount) && nodeCount >= 0 && Number.isInteger(edgeCount) && edgeCount >= 0)) {
    throw new InvalidArgumentError(
      'nodeCount',
      `density: counts must be non-negative integers, got ${nodeCount} nodes and ${edgeCount} edges.`,
    );
  }
  return nodeCount < 2 ? 0 : (2 * edgeCount) / (nodeCount * (nodeCount - 1));
}

/** Number of edges of `graph` between nodes of `nodes` (the induced subgraph's size). */
export function inducedEdgeCount(input: TrussGraph | AbstractGraph, nodes: Iterable<number>): number {
  const g = asTrussGraph(input);
  const inside = new Uint8Array(g.n);
  const list = [...nodes];
  for (const v of list) inside[v] = 1;
  let count = 0;
  for (const v of list) {
    for (let p = g.offsets[v]!; p < g.offsets[v + 1]!; p++) {
      const w = g.neighbors[p]!;
      if (w > v && inside[w] === 1) count++;
    }
  }
  return count;
}

/** Sources searched together by {@link subgraphDiameter}: 8 words of 32 bits per node. */
const DIAMETER_BATCH_WORDS = 8;

/**
 * Diameter of a node set measured in the global graph (DA-RAG appendix B.3): the largest
 * shortest-path distance in `graph` between two of the nodes that reach each other. 0 for fewer than
 * two nodes or when no two are connected. Exact: a breadth-first search from every node of the set,
 * run bit-parallel (32 sources per machine word, up to 256 at a time), so each level of the search
 * costs O((n + m) · ⌈s/32⌉) for a batch of s sources. O(|S|/32 · (n + m) · e) time overall (e the
 * largest eccentricity), O(8n) words of memory.
 */
export function subgraphDiameter(input: TrussGraph | AbstractGraph, nodes: Iterable<number>): number {
  const g = asTrussGraph(input);
  const set = [...new Set(nodes)];
  for (const v of set) assertNode(g, v, 'subgraphDiameter');
  if (set.length < 2) return 0;
  const { n, offsets, neighbors } = g;
  const inside = new Uint8Array(n);
  for (const v of set) inside[v] = 1;
  let diameter = 0;
  for (let first = 0; first < set.length; first += 32 * DIAMETER_BATCH_WORDS) {
    const batch = set.slice(first, first + 32 * DIAMETER_BATCH_WORDS);
    const words = Math.ceil(batch.length / 32);
    // visited / frontier / next: one bit per (node, source of the batch)
    const visited = new Uint32Array(n * words);
    let frontier = new Uint32Array(n * words);
    let next = new Uint32Array(n * words);
    batch.forEach((v, s) => {
      const bit = 1 << (s & 31);
      visited[v * words + (s >> 5)]! |= bit;
      frontier[v * words + (s >> 5)]! |= bit;
    });
    for (let level = 1; ; level++) {
      next.fill(0);
      for (let v = 0; v < n; v++) {
        const base = v * words;
        for (let p = offsets[v]!; p < offsets[v + 1]!; p++) {
          const from = neighbors[p]! * words;
          for (let w = 0; w < words; w++) next[base + w]! |= frontier[from + w]!;
        }
      }
      let any = false;
      for (let v = 0; v < n; v++) {
        const base = v * words;
        for (let w = 0; w < words; w++) {
          const fresh = next[base + w]! & ~visited[base + w]!;
          next[base + w] = fresh;
          if (fresh !== 0) {
            any = true;
            visited[base + w]! |= fresh;
            // A source of the batch reaches a node of the set for the first time, at distance `level`.
            if (inside[v] === 1 && level > diameter) diameter = level;
          }
        }
      }
      if (!any) break;
      const t = frontier;
      frontier = next;
      next = t;
    }
  }
  return diameter;
}

/**
 * Average pairwise node similarity (DA-RAG appendix B.3): the mean cosine similarity over all
 * unordered pairs of the vectors. `NaN` for fewer than two vectors.
 */
export function averagePairwiseSimilarity(vectors: readonly ArrayLike<number>[]): number {
  const k = vectors.length;
  if (k < 2) return Number.NaN;
  const d = vectors[0]!.length;
  // Σ_{i≠j} û_i·û_j = |Σ û_i|² − Σ |û_i|² for unit vectors û (a zero vector stays zero): O(k·d).
  const sum = new Float64Array(d);
  let self = 0;
  vectors.forEach((v, i) => {
    if (v.length !== d) {
      throw new InvalidArgumentError(
        'vectors',
        `averagePairwiseSimilarity: vector ${i} has ${v.length} dimensions, vector 0 has ${d}.`,
      );
    }
    let norm = 0;
    for (let c = 0; c < d; c++) norm += v[c]! * v[c]!;
    if (norm === 0) return;
    const inv = 1 / Math.sqrt(norm);
    for (let c = 0; c < d; c++) sum[c]! += v[c]! * inv;
    self += 1;
  });
  let total = 0;
  for (let c = 0; c < d; c++) total += sum[c]! * sum[c]!;
  return (total - self) / (k * (k - 1));
}

/** The four subgraph measures of DA-RAG appendix B.3 (its Figure 5). */
export interface SubgraphMeasures {
  nodes: number;
  edges: number;
  /** Mean relevance of the nodes to the query (Eq. 1). */
  qrScore: number;
  /** `2|E| / (|V|(|V| − 1))`. */
  density: number;
  /** Largest shortest-path distance in the global graph between two nodes that reach each other. */
  diameter: number;
  /** Mean cosine similarity over node pairs. */
  pairwiseSimilarity: number;
}

/** Options of {@link subgraphMeasures}. */
export interface SubgraphMeasuresOptions {
  /** Relevance of every node of the graph to the query (for QRScore). */
  relevance: Relevance;
  /** Embedding of a node by index (for the pairwise similarity). */
  vector: (node: number) => ArrayLike<number>;
  /**
   * Edges of the retrieved subgraph: a count, or `'induced'` for every edge of the graph between its
   * nodes. @default 'induced'
   */
  edges?: number | 'induced';
}

/**
 * QRScore, density, diameter (in the global graph) and average pairwise similarity of a retrieved
 * node set, as DA-RAG appendix B.3 defines them.
 */
export function subgraphMeasures(
  input: TrussGraph | AbstractGraph,
  nodes: Iterable<number>,
  options: SubgraphMeasuresOptions,
): SubgraphMeasures {
  const g = asTrussGraph(input);
  const set = [...new Set(nodes)];
  for (const v of set) assertNode(g, v, 'subgraphMeasures');
  const rel = resolveRelevance(g, options.relevance, 'subgraphMeasures');
  const edges =
    options.edges === undefined || options.edges === 'induced' ? inducedEdgeCount(g, set) : options.edges;
  return {
    nodes: set.length,
    edges,
    qrScore: qrScore(set, rel),
    density: density(set.length, edges),
    diameter: subgraphDiameter(g, set),
    pairwiseSimilarity: averagePairwiseSimilarity(set.map((v) => options.vector(v))),
  };
}

function assertNode(g: TrussGraph, v: number, caller: string): void {
  if (!(Number.isInteger(v) && v >= 0 && v < g.n)) {
    throw new InvalidArgumentError(
      'nodes',
      `${caller}: ${v} is not a node index of the graph (0 .. ${g.n - 1}).`,
    );
  }
}
