/**
 * Local size-bounded community search (grag's, not in DA-RAG): the community a size-bounded peel
 * of a query vertex's k-truss component ends at, found from the query vertex outwards, at a cost
 * that does not grow with the component. See {@link localSearch}.
 */
import type { TrussGraph } from './graph.js';
import { LocalTruss } from './local-truss.js';
import type { Community } from './qpeel.js';

/** What {@link localSearch} found, and what it cost. */
export interface LocalSearchResult {
  /** The community (`null` when the query vertex is in no k-truss). */
  community: Community | null;
  /** Nodes of the query vertex's k-truss component. */
  componentNodes: number;
  /** Subgraphs whose k-truss was computed, plus removal steps tried. */
  checks: number;
}

/**
 * Local size-bounded search: the community Q-Peel's size bound (`maxNodes`) ends at on the query
 * vertex's k-truss component C, without Q-Peel's QRScore phase before it, with relevance ties broken
 * by closeness to the query vertex. The nodes of C are removed one at a time in *peel order* —
 * ascending relevance; among equal relevance the farther from the query vertex first (hop distance
 * over the edges of trussness ≥ k), then the one with fewer neighbours at most as far from the query
 * vertex as itself, then the lower index — each removal followed by the deletion, in cascade, of the
 * edges left in fewer than k − 2 triangles, a removal that would take the query vertex out of every
 * k-truss undone; until at most `maxNodes` nodes of C are left with an edge (in every part, as
 * Q-Peel's bound counts them) or the order is done. The community is the query vertex's part.
 *
 * Q-Peel (DA-RAG Algorithm 1) first sweeps the whole component — with relevance from ranked lists,
 * thousands of removal tests of nodes of relevance 0 — and takes those ties by index, so its
 * community depends on nodes anywhere in the component. When its sweeps remove no node of positive
 * relevance and the component's k-truss of those nodes holds the query vertex with more than
 * `maxNodes` nodes, its bound's pass over the nodes of relevance 0 ends at that k-truss whichever of
 * them the sweeps left, and this search gives Q-Peel's community (up to ties among equal positive
 * relevance); otherwise it can keep other nodes of relevance 0 (the closest ones).
 *
 * It is found from the end of the peel order: after the first `j` removals, as long as none was
 * undone, the state is the k-truss of the nodes after them in the order (removals only shrink a
 * k-truss), so the search looks for the shortest tail of the order whose k-truss still holds the
 * query vertex (doubling, then halving), and peels on from there inside that tail only. The tail holds
 * the relevant nodes and the query vertex's closest neighbours; each step builds the subgraph it
 * induces, not the component (only the walk that orders the component reads all of it).
 *
 * @param trussness Trussness of every edge of `g` (its truss decomposition).
 * @param rel Relevance of every node of `g`.
 * @param query The query vertex.
 * @param maxNodes The size bound: a positive integer (Infinity: the component, nothing peeled).
 */
export function localSearch(
  g: TrussGraph,
  trussness: ArrayLike<number>,
  k: number,
  rel: Float64Array,
  query: number,
  maxNodes: number,
): LocalSearchResult {
  const walk = walkFrom(g, trussness, k, query);
  if (walk.nodes.length === 0) return { community: null, componentNodes: 0, checks: 0 };
  const tail = tailOrder(walk, rel);
  const scratch = new Int32Array(g.n).fill(-1);
  let checks = 0;
  const at = (size: number): LocalTruss => {
    checks++;
    const local = new LocalTruss(g, trussness, k, tail, size, scratch);
    local.peelAll();
    return local;
  };
  // The shortest tail whose k-truss holds the query vertex (the whole component does).
  const total = tail.length;
  let good = Math.min(total, 32);
  let bad = 0;
  let best = at(good);
  while (!best.holdsQuery()) {
    bad = good;
    good = Math.min(total, good * 2);
    best = at(good);
  }
  while (good - bad > 1) {
    const mid = (good + bad) >> 1;
    const local = at(mid);
    if (local.holdsQuery()) {
      good = mid;
      best = local;
    } else bad = mid;
  }
  if (best.size <= maxNodes) {
    // The peel stops before it reaches this tail: at the longest tail whose k-truss is within the
    // bound (it only grows with the tail).
    let fits = good;
    let over = total + 1;
    for (let step = 1; fits + step <= total; step *= 2) {
      const local = at(fits + step);
      if (local.size > maxNodes) {
        over = fits + step;
        break;
      }
      fits += step;
      best = local;
    }
    while (over - fits > 1) {
      const mid = (fits + over) >> 1;
      const local = at(mid);
      if (local.size <= maxNodes) {
        fits = mid;
        best = local;
      } else over = mid;
    }
  } else {
    // Peel on inside the tail, in peel order (its first node is needed: the tail one shorter lost
    // the query vertex).
    for (let i = good - 1; i >= 1 && best.size > maxNodes; i--) {
      checks++;
      best.tryRemove(i);
    }
  }
  best.keepQueryPart();
  const n = walk.nodes.length;
  let sum = 0;
  for (const v of walk.nodes) sum += rel[v]!;
  return { community: best.community(rel, sum / n, n, g), componentNodes: n, checks };
}

/** The query vertex's k-truss component, walked breadth first from it. */
interface Walk {
  /** The component's nodes in walk order (the query vertex first); empty when it has no such edge. */
  nodes: number[];
  /** Hop distance from the query vertex (only for the walk's nodes). */
  dist: Int32Array;
  /** Neighbours at most as far as the node (only for the walk's nodes). */
  close: Uint32Array;
}

/**
 * Nodes of `node`'s k-truss component, counted up to `limit` (a larger component gives `limit + 1`):
 * the walk of {@link localSearch}, stopped there.
 */
export function componentSize(
  g: TrussGraph,
  trussness: ArrayLike<number>,
  k: number,
  node: number,
  limit: number,
): number {
  return Math.min(walkFrom(g, trussness, k, node, limit).nodes.length, limit + 1);
}

/**
 * The walk from `query`; with `limit`, it stops once more than that many nodes are reached (the
 * `close` counts are then not all made).
 */
function walkFrom(
  g: TrussGraph,
  trussness: ArrayLike<number>,
  k: number,
  query: number,
  limit = Number.POSITIVE_INFINITY,
): Walk {
  const dist = new Int32Array(g.n).fill(-1);
  const close = new Uint32Array(g.n);
  const nodes: number[] = [];
  const { offsets, neighbors, edgeIds } = g;
  let hasEdge = false;
  for (let p = offsets[query]!; p < offsets[query + 1]!; p++) {
    if (trussness[edgeIds[p]!]! >= k) hasEdge = true;
  }
  if (hasEdge) {
    dist[query] = 0;
    nodes.push(query);
    // Scanning a node of distance d, every node of distance ≤ d is already reached.
    for (let i = 0; i < nodes.length && nodes.length <= limit; i++) {
      const v = nodes[i]!;
      const d = dist[v]!;
      let c = 0;
      for (let p = offsets[v]!; p < offsets[v + 1]!; p++) {
        if (trussness[edgeIds[p]!]! < k) continue;
        const w = neighbors[p]!;
        const dw = dist[w]!;
        if (dw < 0) {
          dist[w] = d + 1;
          nodes.push(w);
        } else if (dw <= d) c++;
      }
      close[v] = c;
    }
  }
  return { nodes, dist, close };
}

/**
 * The component's nodes in reverse peel order, the query vertex first (it is never peeled): the
 * first `size` of them are the tail of the peel order of that length, with the query vertex.
 */
function tailOrder(walk: Walk, rel: Float64Array): Uint32Array {
  const { dist, close, nodes } = walk;
  const rest = Uint32Array.from(nodes.slice(1)).sort(
    (a, b) => rel[b]! - rel[a]! || dist[a]! - dist[b]! || close[b]! - close[a]! || b - a,
  );
  const tail = new Uint32Array(nodes.length);
  tail[0] = nodes[0]!;
  tail.set(rest, 1);
  return tail;
}
