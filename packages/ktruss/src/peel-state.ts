/**
 * The live part of a prepared maximal k-truss while Q-Peel peels it (internal: not exported from the
 * package): which edges and nodes are alive, the supports (copied: peeling lowers them), each node's
 * live degree, and rows of live edges.
 */
import type { PreparedTruss } from './prepared.js';

export class PeelState {
  readonly k: number;
  /** An edge of the truss is in at least this many triangles (k − 2). */
  readonly minSupport: number;
  /** Row starts of the prepared truss-only rows (length n + 1). */
  readonly offsets: Uint32Array;
  /** Smaller endpoint of each edge. */
  readonly sources: Uint32Array;
  /** Larger endpoint of each edge. */
  readonly targets: Uint32Array;
  /** Start of each edge's triangles in `tri` (see `EdgeTriangles`). */
  readonly triOffsets: Uint32Array;
  /** Third node and the two other edges of each triangle of each edge (see `EdgeTriangles`). */
  readonly tri: Uint32Array;
  readonly edgeAlive: Uint8Array;
  readonly support: Uint32Array;
  readonly nodeAlive: Uint8Array;
  /** Live truss edges at each node. */
  readonly liveDegree: Uint32Array;
  /** The query nodes, which peeling keeps. */
  readonly isQuery: Uint8Array;
  /**
   * Rows of live edges: during the QRScore phase, where edges only go, a row is compacted (its dead
   * entries dropped) when it is read; the bounded phase, which undoes deletions, reads up to the
   * ends the first phase left. Row order does not matter to any result.
   */
  readonly rowNeighbors: Uint32Array;
  readonly rowEdges: Uint32Array;
  readonly rowEnd: Uint32Array;
  /** Nodes reached by the current search: `seen[v] === stamp` (see {@link nextStamp}). */
  readonly seen: Uint32Array;
  #stamp = 0;
  readonly #prepared: PreparedTruss;
  // The fresh state's edge and node flags and live degrees, copied back by `reset`.
  readonly #edgeAlive0: Uint8Array;
  readonly #nodeAlive0: Uint8Array;
  readonly #liveDegree0: Uint32Array;
  #keep: readonly number[];

  /** `prepared.triangles` must be set. */
  constructor(prepared: PreparedTruss, keep: readonly number[]) {
    const { truss, offsets, neighbors, edgeIds } = prepared;
    const { graph: g, k } = truss;
    const { n, m } = g;
    this.#prepared = prepared;
    this.k = k;
    this.minSupport = k - 2;
    this.offsets = offsets;
    this.sources = g.sources;
    this.targets = g.targets;
    this.triOffsets = prepared.triangles!.offsets;
    this.tri = prepared.triangles!.entries;
    this.edgeAlive = new Uint8Array(m);
    for (const e of truss.edges) this.edgeAlive[e] = 1;
    this.support = prepared.support.slice();
    this.nodeAlive = new Uint8Array(n);
    for (const v of truss.nodes) this.nodeAlive[v] = 1;
    this.liveDegree = new Uint32Array(n);
    for (let v = 0; v < n; v++) this.liveDegree[v] = offsets[v + 1]! - offsets[v]!;
    this.isQuery = new Uint8Array(n);
    this.#keep = keep;
    for (const v of keep) if (v >= 0 && v < n) this.isQuery[v] = 1;
    this.rowNeighbors = neighbors.slice();
    this.rowEdges = edgeIds.slice();
    this.rowEnd = offsets.slice(1);
    this.seen = new Uint32Array(n);
    this.#edgeAlive0 = this.edgeAlive.slice();
    this.#nodeAlive0 = this.nodeAlive.slice();
    this.#liveDegree0 = this.liveDegree.slice();
  }

  /**
   * Back to the fresh state of the prepared truss with query nodes `keep`, as a new state would be
   * (its arrays reused, so that many searches on one truss allocate nothing per search).
   */
  reset(keep: readonly number[]): void {
    const { offsets, neighbors, edgeIds, support } = this.#prepared;
    this.edgeAlive.set(this.#edgeAlive0);
    this.nodeAlive.set(this.#nodeAlive0);
    this.liveDegree.set(this.#liveDegree0);
    this.support.set(support);
    for (const v of this.#keep) if (v >= 0 && v < this.isQuery.length) this.isQuery[v] = 0;
    this.#keep = keep;
    for (const v of keep) if (v >= 0 && v < this.isQuery.length) this.isQuery[v] = 1;
    this.rowNeighbors.set(neighbors);
    this.rowEdges.set(edgeIds);
    this.rowEnd.set(offsets.subarray(1));
    // Marks of `seen` stay below the stamp; start over long before it would wrap.
    if (this.#stamp > 2 ** 31) {
      this.seen.fill(0);
      this.#stamp = 0;
    }
  }

  /** A new mark for {@link seen}: no node is seen under it yet. */
  nextStamp(): number {
    return ++this.#stamp;
  }

  /** Drop the dead entries of u's row; returns the row's new end. */
  compactRow(u: number): number {
    const { offsets, edgeAlive, rowNeighbors, rowEdges, rowEnd } = this;
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
  }

  /**
   * Remove node v and its edges (the supports of the edges that lose a triangle with it are lowered
   * by the removal test that passed).
   */
  remove(v: number): void {
    const { offsets, edgeAlive, liveDegree, rowNeighbors, rowEdges, rowEnd } = this;
    for (let p = offsets[v]!; p < rowEnd[v]!; p++) {
      const e = rowEdges[p]!;
      if (edgeAlive[e] !== 1) continue;
      edgeAlive[e] = 0;
      liveDegree[rowNeighbors[p]!]!--;
    }
    liveDegree[v] = 0;
    this.nodeAlive[v] = 0;
  }

  /** The connected parts of the live nodes among `nodes` (over live edges), each in search order. */
  splitAlive(nodes: readonly number[]): number[][] {
    const { offsets, edgeAlive, nodeAlive, rowNeighbors, rowEdges, rowEnd, seen } = this;
    const parts: number[][] = [];
    const stamp = this.nextStamp();
    for (const start of nodes) {
      if (seen[start] === stamp) continue;
      seen[start] = stamp;
      const part = [start];
      for (let head = 0; head < part.length; head++) {
        const u = part[head]!;
        for (let p = offsets[u]!; p < rowEnd[u]!; p++) {
          const w = rowNeighbors[p]!;
          if (seen[w] === stamp || edgeAlive[rowEdges[p]!] !== 1 || nodeAlive[w] !== 1) continue;
          seen[w] = stamp;
          part.push(w);
        }
      }
      parts.push(part);
    }
    return parts;
  }
}
