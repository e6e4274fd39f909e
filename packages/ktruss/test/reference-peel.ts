/**
 * The row-scanning Q-Peel that `peelTruss` replaced (triangles found by searching neighbour rows,
 * every test run in full at every sweep), kept as an oracle: the tests check that the current one
 * gives exactly its results.
 */
import {
  type Community,
  edgeSupport,
  type KTruss,
  type PreparedTruss,
  type QPeelResult,
  qrScore,
} from '../src/index.js';
import { trussRows } from '../src/prepared.js';

/** A maximal k-truss prepared for peeling: supports inside it and adjacency rows of its edges only. */
type ReferencePrepared = Pick<PreparedTruss, 'truss' | 'support' | 'offsets' | 'neighbors' | 'edgeIds'>;

/** Supports and truss-only adjacency rows ({@link trussRows}) of a maximal k-truss. O(m^1.5). */
export function referencePrepare(truss: KTruss): ReferencePrepared {
  const g = truss.graph;
  const mask = new Uint8Array(g.m);
  for (const e of truss.edges) mask[e] = 1;
  return { truss, support: edgeSupport(g, mask), ...trussRows(truss) };
}

/**
 * The peeling phase of {@link qPeel} on a maximal k-truss already prepared by {@link prepareTruss}
 * (not modified: supports are copied).
 */
export function referencePeel(
  prepared: ReferencePrepared,
  rel: Float64Array,
  top: number,
  maxSweeps: number,
  maxNodes: number = Number.POSITIVE_INFINITY,
  keep: readonly number[] = [],
): QPeelResult {
  const { truss, offsets, neighbors, edgeIds } = prepared;
  const { graph: g, k } = truss;
  const result: QPeelResult = { k, communities: [], components: truss.components.length, checks: 0 };
  if (truss.edges.length === 0) return result;

  const { n, m } = g;
  const edgeAlive = new Uint8Array(m);
  for (const e of truss.edges) edgeAlive[e] = 1;
  const support = prepared.support.slice();
  const nodeAlive = new Uint8Array(n);
  for (const v of truss.nodes) nodeAlive[v] = 1;
  const isQuery = new Uint8Array(n);
  for (const v of keep) if (v >= 0 && v < n) isQuery[v] = 1;
  const mark = new Uint32Array(n);
  const local = new Int32Array(n);
  let stamp = 0;
  const minSupport = k - 2;

  // Scratch of one check: v's live neighbours, the triangle edges around v, a union-find on neighbours.
  const around: number[] = [];
  const triangleEdges: number[] = [];
  const parent: number[] = [];
  const seen = new Uint32Array(n);
  const queue = new Uint32Array(n);
  const groupSeen: number[] = [];
  let seenStamp = 0;
  const findRoot = (x: number): number => {
    while (parent[x] !== x) {
      parent[x] = parent[parent[x]!]!;
      x = parent[x]!;
    }
    return x;
  };

  /** Whether removing v leaves a connected k-truss; fills `triangleEdges` when it does. */
  const removable = (v: number, alive: number): boolean => {
    stamp++;
    around.length = 0;
    triangleEdges.length = 0;
    for (let p = offsets[v]!; p < offsets[v + 1]!; p++) {
      if (edgeAlive[edgeIds[p]!] === 1) {
        const a = neighbors[p]!;
        mark[a] = stamp;
        local[a] = around.length;
        around.push(a);
      }
    }
    // A connected k-truss with an edge has at least k nodes.
    if (alive - 1 < k) return false;
    parent.length = around.length;
    groupSeen.length = around.length;
    for (let i = 0; i < around.length; i++) {
      parent[i] = i;
      groupSeen[i] = 0;
    }
    let groups = around.length;
    for (const a of around) {
      for (let p = offsets[a]!; p < offsets[a + 1]!; p++) {
        const b = neighbors[p]!;
        if (b <= a || mark[b] !== stamp) continue;
        const e = edgeIds[p]!;
        if (edgeAlive[e] !== 1) continue;
        if (support[e]! - 1 < minSupport) return false;
        triangleEdges.push(e);
        const ra = findRoot(local[a]!);
        const rb = findRoot(local[b]!);
        if (ra !== rb) {
          parent[ra] = rb;
          groups--;
        }
      }
    }
    if (groups <= 1) return true;
    // The neighbours are not connected among themselves: a breadth-first search of the rest of the
    // community from one of them, stopped as soon as it has met every group of neighbours.
    seenStamp++;
    seen[v] = seenStamp;
    seen[around[0]!] = seenStamp;
    groupSeen[findRoot(0)] = seenStamp;
    let groupsReached = 1;
    let head = 0;
    let tail = 0;
    queue[tail++] = around[0]!;
    while (head < tail) {
      const u = queue[head++]!;
      for (let p = offsets[u]!; p < offsets[u + 1]!; p++) {
        const w = neighbors[p]!;
        if (seen[w] === seenStamp || edgeAlive[edgeIds[p]!] !== 1) continue;
        seen[w] = seenStamp;
        queue[tail++] = w;
        if (mark[w] === stamp) {
          const root = findRoot(local[w]!);
          if (groupSeen[root] !== seenStamp) {
            groupSeen[root] = seenStamp;
            if (++groupsReached === groups) return true;
          }
        }
      }
    }
    return false;
  };

  const remove = (v: number) => {
    for (const e of triangleEdges) support[e]!--;
    for (let p = offsets[v]!; p < offsets[v + 1]!; p++) edgeAlive[edgeIds[p]!] = 0;
    nodeAlive[v] = 0;
  };

  // Bounded peeling (maxNodes): removal with cascade, and the split of what remains into components.
  const edgeMark = new Uint32Array(n);
  const deleteEdges = (first: number[], undo: number[], decremented: number[]): void => {
    const queue = first;
    while (queue.length > 0) {
      const e = queue.pop()!;
      if (edgeAlive[e] !== 1) continue;
      edgeAlive[e] = 0;
      undo.push(e);
      const u = g.sources[e]!;
      const w = g.targets[e]!;
      stamp++;
      for (let p = offsets[u]!; p < offsets[u + 1]!; p++) {
        if (edgeAlive[edgeIds[p]!] !== 1) continue;
        mark[neighbors[p]!] = stamp;
        edgeMark[neighbors[p]!] = edgeIds[p]!;
      }
      for (let p = offsets[w]!; p < offsets[w + 1]!; p++) {
        const x = neighbors[p]!;
        const wx = edgeIds[p]!;
        if (mark[x] !== stamp || edgeAlive[wx] !== 1) continue;
        const ux = edgeMark[x]!;
        decremented.push(ux, wx);
        if (--support[ux]! < minSupport) queue.push(ux);
        if (--support[wx]! < minSupport) queue.push(wx);
      }
    }
  };
  const hasLiveEdge = (v: number): boolean => {
    for (let p = offsets[v]!; p < offsets[v + 1]!; p++) if (edgeAlive[edgeIds[p]!] === 1) return true;
    return false;
  };
  const boundedPeel = (order: readonly number[], aliveCount: number, bound: number): number => {
    let count = aliveCount;
    for (const v of order) {
      if (count <= bound) break;
      if (nodeAlive[v] !== 1 || isQuery[v] === 1) continue;
      result.checks++;
      const undoEdges: number[] = [];
      const decremented: number[] = [];
      const first: number[] = [];
      for (let p = offsets[v]!; p < offsets[v + 1]!; p++)
        if (edgeAlive[edgeIds[p]!] === 1) first.push(edgeIds[p]!);
      deleteEdges(first, undoEdges, decremented);
      const gone: number[] = [];
      for (const e of undoEdges) {
        for (const x of [g.sources[e]!, g.targets[e]!]) {
          if (nodeAlive[x] === 1 && !hasLiveEdge(x)) {
            nodeAlive[x] = 0;
            gone.push(x);
          }
        }
      }
      if (nodeAlive[v] === 1) {
        nodeAlive[v] = 0;
        gone.push(v);
      }
      const lostQuery = gone.some((x) => isQuery[x] === 1);
      if (gone.length >= count || lostQuery) {
        // Nothing would remain, or a query node would go: undo this step.
        for (const e of undoEdges) edgeAlive[e] = 1;
        for (const x of gone) nodeAlive[x] = 1;
        for (const e of decremented) support[e]!++;
        if (lostQuery) continue;
        break;
      }
      count -= gone.length;
    }
    return count;
  };
  const splitAlive = (nodes: readonly number[]): number[][] => {
    const parts: number[][] = [];
    seenStamp++;
    for (const start of nodes) {
      if (seen[start] === seenStamp) continue;
      seen[start] = seenStamp;
      const part = [start];
      for (let head = 0; head < part.length; head++) {
        const u = part[head]!;
        for (let p = offsets[u]!; p < offsets[u + 1]!; p++) {
          const w = neighbors[p]!;
          if (seen[w] === seenStamp || edgeAlive[edgeIds[p]!] !== 1 || nodeAlive[w] !== 1) continue;
          seen[w] = seenStamp;
          part.push(w);
        }
      }
      parts.push(part);
    }
    return parts;
  };

  const communities: Community[] = [];
  for (const component of truss.components) {
    if (keep.length > 0 && !Array.from(component.nodes).some((v) => isQuery[v] === 1)) continue;
    const order = Array.from(component.nodes).sort((a, b) => rel[a]! - rel[b]! || a - b);
    let alive = order.length;
    let sum = 0;
    for (const v of order) sum += rel[v]!;
    const initialQrScore = sum / alive;
    for (let sweep = 0; sweep < maxSweeps; sweep++) {
      let changed = false;
      for (const v of order) {
        if (nodeAlive[v] !== 1) continue;
        // Ascending order: once a node does not raise the mean, no later one does.
        if (!(rel[v]! < sum / alive)) break;
        if (isQuery[v] === 1) continue;
        result.checks++;
        if (!removable(v, alive)) continue;
        remove(v);
        alive--;
        sum -= rel[v]!;
        changed = true;
      }
      if (!changed) break;
    }
    const bounded = alive > maxNodes;
    if (bounded) {
      // Size bound: peel on toward the query, least relevant node first, and restore the k-truss
      // after each removal by deleting the edges left in fewer than k − 2 triangles (and the nodes
      // left without edges), as attributed truss search does (Huang & Lakshmanan 2017). Stop when at
      // most `maxNodes` nodes remain; a step that would leave nothing is undone.
      alive = boundedPeel(order, alive, maxNodes);
    }
    const kept = order.filter((v) => nodeAlive[v] === 1);
    const parts = (bounded ? splitAlive(kept) : [kept]).filter(
      (part) => keep.length === 0 || part.some((v) => isQuery[v] === 1),
    );
    for (const part of parts) {
      const nodes = Uint32Array.from(part).sort();
      const inPart = new Uint8Array(n);
      for (const v of nodes) inPart[v] = 1;
      const edges = Uint32Array.from(
        Array.from(component.edges).filter((e) => edgeAlive[e] === 1 && inPart[g.sources[e]!] === 1),
      );
      communities.push({
        k,
        nodes,
        keys: Array.from(nodes, (v) => g.nodeIds[v]!),
        edges,
        qrScore: qrScore(nodes, rel),
        initialQrScore,
        removed: component.nodes.length - nodes.length,
      });
    }
  }
  communities.sort(
    (x, y) => y.qrScore - x.qrScore || y.nodes.length - x.nodes.length || x.nodes[0]! - y.nodes[0]!,
  );
  result.communities = communities.slice(0, top);
  return result;
}
