/**
 * Brute-force oracles straight from the definitions, for the tests: adjacency sets, triangle counts
 * by checking every third node, the maximal k-truss by repeated removal of edges in fewer than
 * k − 2 triangles, connectivity by search.
 */

export type Pair = readonly [number, number];

export const pairKey = (a: number, b: number): string => (a < b ? `${a},${b}` : `${b},${a}`);

/** A random simple graph's edges: each pair a < b of nodes 0 .. n-1 in turn, kept when `next() < p`. */
export function randomPairs(n: number, p: number, next: () => number): Pair[] {
  const edges: Pair[] = [];
  for (let a = 0; a < n; a++) for (let b = a + 1; b < n; b++) if (next() < p) edges.push([a, b]);
  return edges;
}

/** Adjacency sets of an edge set over nodes 0 .. n-1. */
export function adjacency(n: number, edges: Iterable<Pair>): Set<number>[] {
  const adj = Array.from({ length: n }, () => new Set<number>());
  for (const [a, b] of edges) {
    adj[a]!.add(b);
    adj[b]!.add(a);
  }
  return adj;
}

/** Triangles containing edge {a, b} inside the edge set given by `adj`. */
export function trianglesOn(adj: Set<number>[], a: number, b: number): number {
  let count = 0;
  for (const w of adj[a]!) if (w !== b && adj[b]!.has(w)) count++;
  return count;
}

/** The maximal k-truss of the edge set, by repeated removal (the definition). */
export function bruteKTruss(n: number, edges: readonly Pair[], k: number): Set<string> {
  let current = edges.slice();
  for (;;) {
    const adj = adjacency(n, current);
    const kept = current.filter(([a, b]) => trianglesOn(adj, a, b) >= k - 2);
    if (kept.length === current.length) return new Set(kept.map(([a, b]) => pairKey(a, b)));
    current = kept;
  }
}

/** Trussness of every edge from the brute-force k-trusses, keyed by pair. */
export function bruteTrussness(n: number, edges: readonly Pair[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const [a, b] of edges) out.set(pairKey(a, b), 2);
  for (let k = 3; ; k++) {
    const truss = bruteKTruss(n, edges, k);
    if (truss.size === 0) return out;
    for (const key of truss) out.set(key, k);
  }
}

/** Whether the node set with the given edges (all inside it) is connected. */
export function isConnected(nodes: readonly number[], edges: readonly Pair[]): boolean {
  if (nodes.length === 0) return false;
  const adj = new Map<number, number[]>(nodes.map((v) => [v, []]));
  for (const [a, b] of edges) {
    adj.get(a)?.push(b);
    adj.get(b)?.push(a);
  }
  const seen = new Set([nodes[0]!]);
  const stack = [nodes[0]!];
  while (stack.length > 0) {
    for (const w of adj.get(stack.pop()!) ?? []) {
      if (!seen.has(w)) {
        seen.add(w);
        stack.push(w);
      }
    }
  }
  return seen.size === nodes.length;
}

/**
 * Whether `nodes` with the edges of the maximal k-truss among them form a connected k-truss:
 * every such edge is in at least k − 2 triangles made of such edges, and the whole is connected.
 */
export function isConnectedKTruss(nodes: readonly number[], trussEdges: readonly Pair[], k: number): boolean {
  const inside = new Set(nodes);
  const edges = trussEdges.filter(([a, b]) => inside.has(a) && inside.has(b));
  if (edges.length === 0) return false;
  const adj = adjacency(Math.max(...nodes) + 1, edges);
  if (!edges.every(([a, b]) => trianglesOn(adj, a, b) >= k - 2)) return false;
  if (!nodes.every((v) => adj[v]!.size > 0)) return false;
  return isConnected(nodes, edges);
}

/** Edges of the complete graph on the given nodes. */
export function clique(nodes: readonly number[]): Pair[] {
  const out: Pair[] = [];
  for (let i = 0; i < nodes.length; i++)
    for (let j = i + 1; j < nodes.length; j++) out.push([nodes[i]!, nodes[j]!]);
  return out;
}
