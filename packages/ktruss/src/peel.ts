/**
 * The peeling engine behind `peelTruss` and `TrussIndex.qPeel` (internal: not exported from the
 * package). See `peelPrepared`.
 */
import { edgeTriangles } from './decomposition.js';
import type { Community, PreparedTruss, QPeelResult } from './qpeel.js';

/** What a failed removal test of a node found, so that a later sweep can skip the test while it holds. */
const NO_WITNESS = 0;
/** A triangle edge at its minimum support: fails while the triangle's three edges are alive. */
const SUPPORT_WITNESS = 1;
/** Neighbours not connected without the node: fails while no neighbour has gone. */
const CONNECTIVITY_WITNESS = 2;
/** Fewer than k nodes would remain: fails from then on. */
const SIZE_WITNESS = 3;

/**
 * The peeling phase of `qPeel` on a prepared maximal k-truss (`peelTruss`; `TrussIndex.qPeel` with a
 * memo). Supports are copied; only a missing `prepared.triangles` is filled in.
 *
 * The triangles at a node and on an edge are read from the prepared per-edge triangle lists (sorted by
 * third node, so the triangles {v, a, x} with x > a are a suffix of edge {v, a}'s list: each is read
 * once), and a node's live degree is counted, so a removal test costs the triangles at the node and a
 * cascade the triangles on the edges it deletes. A test that fails records why (a triangle edge at
 * minimum support, neighbours not connected, too few nodes left); later sweeps skip the test while
 * that reason still holds (supports only fall and nodes only go during the QRScore phase, so it would
 * fail again), and count it as a check as before. With `memo`, the QRScore phase of a component starts
 * from a saved one when that gives the same decisions (see {@link PeelMemo}).
 */
export function peelPrepared(
  prepared: PreparedTruss,
  rel: Float64Array,
  top: number,
  maxSweeps: number,
  maxNodes: number = Number.POSITIVE_INFINITY,
  keep: readonly number[] = [],
  memo?: PeelMemo,
): QPeelResult {
  const { truss, offsets, neighbors, edgeIds } = prepared;
  const { graph: g, k } = truss;
  const result: QPeelResult = { k, communities: [], components: truss.components.length, checks: 0 };
  if (truss.edges.length === 0) return result;
  prepared.triangles ??= edgeTriangles(g, maskOf(g.m, truss.edges), prepared.support);
  const { offsets: triOffsets, entries: tri } = prepared.triangles;

  const { n, m, sources, targets } = g;
  const edgeAlive = new Uint8Array(m);
  for (const e of truss.edges) edgeAlive[e] = 1;
  const support = prepared.support.slice();
  const nodeAlive = new Uint8Array(n);
  for (const v of truss.nodes) nodeAlive[v] = 1;
  /** Live truss edges at each node. */
  const liveDegree = new Uint32Array(n);
  for (let v = 0; v < n; v++) liveDegree[v] = offsets[v + 1]! - offsets[v]!;
  const isQuery = new Uint8Array(n);
  for (const v of keep) if (v >= 0 && v < n) isQuery[v] = 1;
  const local = new Int32Array(n);
  const minSupport = k - 2;

  // Why the last removal test of each node failed (see the constants above).
  const witness = new Uint8Array(n);
  const witnessEdges = new Uint32Array(3 * n);
  const witnessDegree = new Uint32Array(n);

  // Scratch of one check: v's live neighbours, the triangle edges around v, a union-find on neighbours.
  const around: number[] = [];
  const triangleEdges: number[] = [];
  const parent = new Int32Array(n);
  const seen = new Uint32Array(n);
  const queue = new Uint32Array(n);
  const label = new Uint32Array(n);
  const pending: number[] = [];
  let seenStamp = 0;
  // Rows of live edges: during the QRScore phase, where edges only go, a row is compacted (its dead
  // entries dropped) when it is read; the bounded phase, which undoes deletions, reads up to the
  // ends the first phase left. Row order does not matter to any result.
  const rowNeighbors = neighbors.slice();
  const rowEdges = edgeIds.slice();
  const rowEnd = offsets.slice(1);
  const compactRow = (u: number): number => {
    let end = rowEnd[u]!;
    for (let p = offsets[u]!; p < end; ) {
      if (edgeAlive[rowEdges[p]!] === 1) {
        p++;
        continue;
      }
      end--;
      rowNeighbors[p] = rowNeighbors[end]!;
      rowEdges[p] = rowEdges[end]!;
    }
    rowEnd[u] = end;
    return end;
  };
  const findRoot = (x: number): number => {
    while (parent[x] !== x) {
      parent[x] = parent[parent[x]!]!;
      x = parent[x]!;
    }
    return x;
  };

  /** Whether a recorded failure of v's removal test still holds (so the test would fail again). */
  const stillFails = (v: number): boolean => {
    switch (witness[v]) {
      case SUPPORT_WITNESS:
        return (
          edgeAlive[witnessEdges[3 * v]!] === 1 &&
          edgeAlive[witnessEdges[3 * v + 1]!] === 1 &&
          edgeAlive[witnessEdges[3 * v + 2]!] === 1
        );
      case CONNECTIVITY_WITNESS:
        return liveDegree[v] === witnessDegree[v];
      case SIZE_WITNESS:
        return true;
      default:
        return false;
    }
  };

  /** Whether removing v leaves a connected k-truss; fills `triangleEdges` when it does. */
  const removable = (v: number, alive: number): boolean => {
    if (witness[v] !== NO_WITNESS && stillFails(v)) return false;
    witness[v] = NO_WITNESS;
    // A connected k-truss with an edge has at least k nodes.
    if (alive - 1 < k) {
      witness[v] = SIZE_WITNESS;
      return false;
    }
    around.length = 0;
    triangleEdges.length = 0;
    const vEnd = compactRow(v);
    for (let p = offsets[v]!; p < vEnd; p++) {
      const a = rowNeighbors[p]!;
      local[a] = around.length;
      around.push(a);
    }
    for (let i = 0; i < around.length; i++) parent[i] = i;
    let groups = around.length;
    // Each triangle {v, a, x} (a < x) with its three edges alive, read on edge {v, a}: the edge's
    // triangles are sorted by third node, so those with x > a are a suffix.
    for (let p = offsets[v]!; p < vEnd; p++) {
      const va = rowEdges[p]!;
      const a = rowNeighbors[p]!;
      const vIsSource = sources[va] === v;
      const start = triOffsets[va]!;
      for (let q = triOffsets[va + 1]! - 1; q >= start; q--) {
        const x = tri[3 * q]!;
        if (x < a) break;
        const first = tri[3 * q + 1]!;
        const second = tri[3 * q + 2]!;
        const vx = vIsSource ? first : second;
        const ax = vIsSource ? second : first;
        if (edgeAlive[vx] !== 1 || edgeAlive[ax] !== 1) continue;
        if (support[ax]! - 1 < minSupport) {
          witness[v] = SUPPORT_WITNESS;
          witnessEdges[3 * v] = va;
          witnessEdges[3 * v + 1] = vx;
          witnessEdges[3 * v + 2] = ax;
          return false;
        }
        triangleEdges.push(ax);
        const ra = findRoot(local[a]!);
        const rx = findRoot(local[x]!);
        if (ra !== rx) {
          parent[ra] = rx;
          groups--;
        }
      }
    }
    if (groups <= 1) return true;
    // The neighbours are not connected among themselves: a search of the rest of the community from
    // all of them at once, each search labelled by its group, groups merged where two searches meet.
    // Connected as soon as one group is left; not connected when a group's search runs out of nodes
    // (nothing of it leads to another group).
    seenStamp++;
    seen[v] = seenStamp;
    pending.length = around.length;
    pending.fill(0);
    let head = 0;
    let tail = 0;
    for (let i = 0; i < around.length; i++) {
      const a = around[i]!;
      seen[a] = seenStamp;
      label[a] = i;
      queue[tail++] = a;
      pending[findRoot(i)]!++;
    }
    while (head < tail) {
      const u = queue[head++]!;
      let r = findRoot(label[u]!);
      pending[r]!--;
      const end = compactRow(u);
      for (let p = offsets[u]!; p < end; p++) {
        const w = rowNeighbors[p]!;
        if (w === v) continue;
        if (seen[w] === seenStamp) {
          const rw = findRoot(label[w]!);
          if (rw !== r) {
            parent[rw] = r;
            pending[r]! += pending[rw]!;
            if (--groups === 1) return true;
          }
          continue;
        }
        seen[w] = seenStamp;
        label[w] = r;
        pending[r]!++;
        queue[tail++] = w;
      }
      r = findRoot(r);
      if (pending[r] === 0) break;
    }
    witness[v] = CONNECTIVITY_WITNESS;
    witnessDegree[v] = liveDegree[v]!;
    return false;
  };

  const remove = (v: number) => {
    for (const e of triangleEdges) support[e]!--;
    for (let p = offsets[v]!; p < rowEnd[v]!; p++) {
      const e = rowEdges[p]!;
      if (edgeAlive[e] !== 1) continue;
      edgeAlive[e] = 0;
      liveDegree[rowNeighbors[p]!]!--;
    }
    liveDegree[v] = 0;
    nodeAlive[v] = 0;
  };

  // Bounded peeling (maxNodes): removal with cascade, and the split of what remains into components.
  const stack: number[] = [];
  const undoEdges: number[] = [];
  const decremented: number[] = [];
  const gone: number[] = [];
  /** Delete the edges on `stack` and, in cascade, every edge left in fewer than k − 2 triangles. */
  const deleteEdges = (): void => {
    while (stack.length > 0) {
      const e = stack.pop()!;
      if (edgeAlive[e] !== 1) continue;
      edgeAlive[e] = 0;
      liveDegree[sources[e]!]!--;
      liveDegree[targets[e]!]!--;
      undoEdges.push(e);
      const end = triOffsets[e + 1]!;
      for (let q = triOffsets[e]!; q < end; q++) {
        const f = tri[3 * q + 1]!;
        const h = tri[3 * q + 2]!;
        if (edgeAlive[f] !== 1 || edgeAlive[h] !== 1) continue;
        decremented.push(f, h);
        if (--support[f]! < minSupport) stack.push(f);
        if (--support[h]! < minSupport) stack.push(h);
      }
    }
  };
  const boundedPeel = (order: readonly number[], aliveCount: number, bound: number): number => {
    let count = aliveCount;
    for (const v of order) {
      if (count <= bound) break;
      if (nodeAlive[v] !== 1 || isQuery[v] === 1) continue;
      result.checks++;
      undoEdges.length = 0;
      decremented.length = 0;
      gone.length = 0;
      for (let p = offsets[v]!; p < rowEnd[v]!; p++)
        if (edgeAlive[rowEdges[p]!] === 1) stack.push(rowEdges[p]!);
      deleteEdges();
      let lostQuery = false;
      for (const e of undoEdges) {
        const s = sources[e]!;
        const t = targets[e]!;
        if (nodeAlive[s] === 1 && liveDegree[s] === 0) {
          nodeAlive[s] = 0;
          gone.push(s);
          if (isQuery[s] === 1) lostQuery = true;
        }
        if (nodeAlive[t] === 1 && liveDegree[t] === 0) {
          nodeAlive[t] = 0;
          gone.push(t);
          if (isQuery[t] === 1) lostQuery = true;
        }
      }
      if (nodeAlive[v] === 1) {
        nodeAlive[v] = 0;
        gone.push(v);
      }
      if (gone.length >= count || lostQuery) {
        // Nothing would remain, or a query node would go: undo this step.
        for (const e of undoEdges) {
          edgeAlive[e] = 1;
          liveDegree[sources[e]!]!++;
          liveDegree[targets[e]!]!++;
        }
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
        for (let p = offsets[u]!; p < rowEnd[u]!; p++) {
          const w = rowNeighbors[p]!;
          if (seen[w] === seenStamp || edgeAlive[rowEdges[p]!] !== 1 || nodeAlive[w] !== 1) continue;
          seen[w] = seenStamp;
          part.push(w);
        }
      }
      parts.push(part);
    }
    return parts;
  };

  const communities: Community[] = [];
  const inPart = new Uint8Array(n);
  for (let c = 0; c < truss.components.length; c++) {
    const component = truss.components[c]!;
    if (keep.length > 0 && !component.nodes.some((v) => isQuery[v] === 1)) continue;
    let order: number[];
    let alive: number;
    let sum: number;
    let initialQrScore: number;
    const saved = memo?.phaseOne(c, component.nodes, rel, maxSweeps, keep);
    if (saved) {
      // The QRScore phase of this component with the same relevance, where no query node was met:
      // start from what it left.
      ({ order, alive, sum, initialQrScore } = saved);
      result.checks += saved.checks;
      for (const v of saved.removed) {
        nodeAlive[v] = 0;
        liveDegree[v] = 0;
      }
      const edges = component.edges;
      for (let i = 0; i < edges.length; i++) {
        const e = edges[i]!;
        support[e] = saved.support[i]!;
        const s = sources[e]!;
        const t = targets[e]!;
        if (nodeAlive[s] === 1 && nodeAlive[t] === 1) continue;
        edgeAlive[e] = 0;
        if (nodeAlive[s] === 1) liveDegree[s]!--;
        if (nodeAlive[t] === 1) liveDegree[t]!--;
      }
    } else {
      order = Array.from(component.nodes).sort((a, b) => rel[a]! - rel[b]! || a - b);
      alive = order.length;
      sum = 0;
      for (const v of order) sum += rel[v]!;
      initialQrScore = sum / alive;
      const checksBefore = result.checks;
      const reached = memo ? new Uint8Array(n) : undefined;
      const removed: number[] = [];
      let metQuery = false;
      for (let sweep = 0; sweep < maxSweeps; sweep++) {
        let changed = false;
        for (const v of order) {
          if (nodeAlive[v] !== 1) continue;
          // Ascending order: once a node does not raise the mean, no later one does.
          if (!(rel[v]! < sum / alive)) break;
          if (reached) reached[v] = 1;
          if (isQuery[v] === 1) {
            metQuery = true;
            continue;
          }
          result.checks++;
          if (!removable(v, alive)) continue;
          remove(v);
          removed.push(v);
          alive--;
          sum -= rel[v]!;
          changed = true;
        }
        if (!changed) break;
      }
      if (memo && reached && !metQuery) {
        memo.save(c, {
          rel: Float64Array.from(component.nodes, (v) => rel[v]!),
          maxSweeps,
          reached,
          order,
          removed: Uint32Array.from(removed),
          support: component.edges.map((e) => support[e]!),
          alive,
          sum,
          initialQrScore,
          checks: result.checks - checksBefore,
        });
      }
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
      for (const v of nodes) inPart[v] = 1;
      const edges = component.edges.filter((e) => edgeAlive[e] === 1 && inPart[sources[e]!] === 1);
      for (const v of nodes) inPart[v] = 0;
      communities.push({
        k,
        nodes,
        keys: Array.from(nodes, (v) => g.nodeIds[v]!),
        edges,
        qrScore: meanOver(nodes, rel),
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

function maskOf(m: number, edges: ArrayLike<number>): Uint8Array {
  const mask = new Uint8Array(m);
  for (let i = 0; i < edges.length; i++) mask[edges[i]!] = 1;
  return mask;
}

/** What the QRScore phase of one component left (see {@link PeelMemo}). */
interface PhaseOne {
  /** Relevance of the component's nodes, in their order. */
  rel: Float64Array;
  maxSweeps: number;
  /** Nodes the phase tested or skipped as query nodes (past the QRScore test), flagged by index. */
  reached: Uint8Array;
  /** The component's nodes by ascending relevance. */
  order: number[];
  /** Nodes the phase removed. */
  removed: Uint32Array;
  /** Supports of the component's edges after the phase, in their order. */
  support: Uint32Array;
  alive: number;
  sum: number;
  initialQrScore: number;
  /** Removal tests the phase counted. */
  checks: number;
}

/**
 * The QRScore phase of each component of one prepared truss, kept from the last call that ran it (no
 * query node among the nodes it reached). A later call with the same relevance and `maxSweeps`
 * whose query nodes are none of the nodes that phase reached would make every decision it made, so
 * it starts from what the phase left: DA-RAG searches one query's chunk layer around two query
 * vertices. One entry per component, replaced by the next run.
 */
export class PeelMemo {
  readonly #phases = new Map<number, PhaseOne>();

  /** The saved phase of component `c`, when it applies to this call. */
  phaseOne(
    c: number,
    nodes: Uint32Array,
    rel: Float64Array,
    maxSweeps: number,
    keep: readonly number[],
  ): PhaseOne | undefined {
    const saved = this.#phases.get(c);
    if (saved === undefined || saved.maxSweeps !== maxSweeps || saved.rel.length !== nodes.length)
      return undefined;
    for (const v of keep) if (v >= 0 && v < saved.reached.length && saved.reached[v] === 1) return undefined;
    for (let i = 0; i < nodes.length; i++) if (saved.rel[i] !== rel[nodes[i]!]) return undefined;
    return saved;
  }

  save(c: number, phase: PhaseOne): void {
    this.#phases.set(c, phase);
  }

  clear(): void {
    this.#phases.clear();
  }
}

/** Mean of `rel` over `nodes`, summed in their order (as `qrScore`). */
function meanOver(nodes: Uint32Array, rel: Float64Array): number {
  let sum = 0;
  for (const v of nodes) sum += rel[v]!;
  return nodes.length === 0 ? Number.NaN : sum / nodes.length;
}
