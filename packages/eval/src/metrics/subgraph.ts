/**
 * Properties of a retrieved subgraph (DA-RAG appendix B.3): QRScore, density, diameter measured in
 * the global graph, and average pairwise node similarity.
 */
import { cosineSimilarity } from '@grag/core/kit';

/** Edges of a graph as `[source, target]` pairs, read as undirected. */
export type EdgeList = Iterable<readonly [string, string]>;

/**
 * Density of a subgraph: distinct undirected edges between its nodes over the |V|(|V|−1)/2
 * possible (DA-RAG B.3). Self-loops, repeated edges and edges leaving the node set are ignored.
 * Fewer than two nodes gives `NaN` (no possible edge).
 */
export function subgraphDensity(nodes: Iterable<string>, edges: EdgeList): number {
  const set = new Set(nodes);
  const n = set.size;
  if (n < 2) return Number.NaN;
  const seen = new Set<string>();
  for (const [a, b] of edges) {
    if (a === b || !set.has(a) || !set.has(b)) continue;
    seen.add(a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`);
  }
  return seen.size / ((n * (n - 1)) / 2);
}

/** Neighbours of a node in the global graph (a graphology graph's `neighbors` fits after a `hasNode` check). */
export type NeighborFn = (node: string) => Iterable<string>;

/** An adjacency function over an undirected edge list, for {@link subgraphDiameter}. */
export function adjacencyOf(edges: EdgeList): NeighborFn {
  const adjacency = new Map<string, string[]>();
  const add = (a: string, b: string) => {
    let list = adjacency.get(a);
    if (!list) {
      list = [];
      adjacency.set(a, list);
    }
    list.push(b);
  };
  for (const [a, b] of edges) {
    if (a === b) continue;
    add(a, b);
    add(b, a);
  }
  return (node) => adjacency.get(node) ?? [];
}

/**
 * Diameter of a subgraph measured in the global graph (DA-RAG B.3): the largest shortest-path
 * distance, in the global graph, between two of its nodes that are reachable from each other.
 * One breadth-first search per node, each stopping once every subgraph node is reached. Fewer than
 * two nodes (or no reachable pair) gives 0.
 */
export function subgraphDiameter(nodes: Iterable<string>, neighbors: NeighborFn): number {
  const targets = new Set(nodes);
  let diameter = 0;
  for (const source of targets) {
    const dist = new Map<string, number>([[source, 0]]);
    let frontier = [source];
    let remaining = targets.size - 1;
    let depth = 0;
    while (frontier.length > 0 && remaining > 0) {
      depth++;
      const next: string[] = [];
      for (const u of frontier) {
        for (const v of neighbors(u)) {
          if (dist.has(v)) continue;
          dist.set(v, depth);
          next.push(v);
          if (targets.has(v)) {
            remaining--;
            if (depth > diameter) diameter = depth;
          }
        }
      }
      frontier = next;
    }
  }
  return diameter;
}

/**
 * QRScore (DA-RAG Eq. 1): the mean cosine similarity between the query embedding and the
 * embeddings of the subgraph's nodes. No nodes gives `NaN`.
 */
export function qrScore(query: ArrayLike<number>, nodeVectors: readonly ArrayLike<number>[]): number {
  if (nodeVectors.length === 0) return Number.NaN;
  let sum = 0;
  for (const v of nodeVectors) sum += cosineSimilarity(query, v);
  return sum / nodeVectors.length;
}

/**
 * Average pairwise node similarity (DA-RAG B.3): the mean cosine similarity over all unordered
 * pairs of node embeddings. Fewer than two nodes gives `NaN`.
 */
export function averagePairwiseSimilarity(vectors: readonly ArrayLike<number>[]): number {
  const n = vectors.length;
  if (n < 2) return Number.NaN;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++)
      sum += cosineSimilarity(vectors[i] as ArrayLike<number>, vectors[j] as ArrayLike<number>);
  }
  return sum / ((n * (n - 1)) / 2);
}
