/**
 * Q-Peel's removal test (DA-RAG §5.2, condition 2; internal: not exported from the package): whether
 * a connected k-truss remains without a node. A test that fails records why (its witness), so that a
 * later sweep skips the test while that reason still holds: supports only fall and nodes only go
 * during the QRScore phase, so it would fail again.
 *
 * It runs in the QRScore phase only, where an edge of the truss goes only with one of its nodes (a
 * removal that passes leaves a k-truss: nothing cascades), so an edge is alive exactly when both its
 * nodes are, and a triangle at a live node v on a live edge {v, a} is alive exactly when its third
 * node is: the test reads that node's flag, not the two other edges' flags.
 */
import type { PeelState } from './peel-state.js';

/** No failure recorded. */
const NO_WITNESS = 0;
/** A triangle edge at its minimum support: fails while the triangle's three edges are alive. */
const SUPPORT_WITNESS = 1;
/** Neighbours not connected without the node: fails while no neighbour has gone. */
const CONNECTIVITY_WITNESS = 2;
/** Fewer than k nodes would remain: fails from then on. */
const SIZE_WITNESS = 3;

/** Root of x in a union-find with path halving. */
function findRoot(parent: Int32Array, x: number): number {
  while (parent[x] !== x) {
    parent[x] = parent[parent[x]!]!;
    x = parent[x]!;
  }
  return x;
}

export class RemovalTest {
  readonly #state: PeelState;
  // Why the last removal test of each node failed (see the constants above).
  readonly #witness: Uint8Array;
  readonly #witnessEdges: Uint32Array;
  readonly #witnessDegree: Uint32Array;
  // Scratch of one test: v's live neighbours and their positions, a union-find on them, and the
  // search of the rest of the community (queue, group label, nodes pending per group).
  readonly #around: Uint32Array;
  #aroundCount = 0;
  readonly #local: Int32Array;
  readonly #parent: Int32Array;
  readonly #queue: Uint32Array;
  readonly #label: Uint32Array;
  readonly #pending: Int32Array;

  constructor(state: PeelState) {
    const n = state.nodeAlive.length;
    this.#state = state;
    this.#witness = new Uint8Array(n);
    this.#witnessEdges = new Uint32Array(3 * n);
    this.#witnessDegree = new Uint32Array(n);
    this.#local = new Int32Array(n);
    this.#parent = new Int32Array(n);
    this.#queue = new Uint32Array(n);
    this.#label = new Uint32Array(n);
    this.#around = new Uint32Array(n);
    this.#pending = new Int32Array(n);
  }

  /** Forget every recorded failure (for a search of a state {@link PeelState.reset} anew). */
  reset(): void {
    this.#witness.fill(0);
  }

  /** Whether a recorded failure of v's removal test still holds (so the test would fail again). */
  #stillFails(v: number): boolean {
    const { edgeAlive, liveDegree } = this.#state;
    const witnessEdges = this.#witnessEdges;
    switch (this.#witness[v]) {
      case SUPPORT_WITNESS:
        return (
          edgeAlive[witnessEdges[3 * v]!] === 1 &&
          edgeAlive[witnessEdges[3 * v + 1]!] === 1 &&
          edgeAlive[witnessEdges[3 * v + 2]!] === 1
        );
      case CONNECTIVITY_WITNESS:
        return liveDegree[v] === this.#witnessDegree[v];
      case SIZE_WITNESS:
        return true;
      default:
        return false;
    }
  }

  /**
   * Whether removing v (of `alive` live nodes) leaves a connected k-truss. When it does, the supports
   * of the edges that lose a triangle with v are already lowered, and the
   * caller removes v (`PeelState.remove`); when it does not, they are as before. The triangles at v are read from the per-edge triangle lists
   * (sorted by third node, so the triangles {v, a, x} with x > a are a suffix of edge {v, a}'s list:
   * each is read once), so a test costs the triangles at the node.
   */
  removable(v: number, alive: number): boolean {
    const state = this.#state;
    const { k, minSupport, offsets, sources, triOffsets, tri, nodeAlive, support } = state;
    const { rowNeighbors, rowEdges } = state;
    const witness = this.#witness;
    const witnessEdges = this.#witnessEdges;
    const around = this.#around;
    const local = this.#local;
    const parent = this.#parent;
    if (witness[v] !== NO_WITNESS && this.#stillFails(v)) return false;
    witness[v] = NO_WITNESS;
    // A connected k-truss with an edge has at least k nodes.
    if (alive - 1 < k) {
      witness[v] = SIZE_WITNESS;
      return false;
    }
    const vEnd = state.compactRow(v);
    let aroundCount = 0;
    for (let p = offsets[v]!; p < vEnd; p++) {
      const a = rowNeighbors[p]!;
      local[a] = aroundCount;
      around[aroundCount++] = a;
    }
    this.#aroundCount = aroundCount;
    for (let i = 0; i < aroundCount; i++) parent[i] = i;
    let groups = aroundCount;
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
        // v and a are alive, so the triangle is alive when x is (see the class comment).
        if (nodeAlive[x] !== 1) continue;
        const ax = vIsSource ? tri[3 * q + 2]! : tri[3 * q + 1]!;
        if (support[ax]! - 1 < minSupport) {
          witness[v] = SUPPORT_WITNESS;
          witnessEdges[3 * v] = va;
          witnessEdges[3 * v + 1] = vIsSource ? tri[3 * q + 1]! : tri[3 * q + 2]!;
          witnessEdges[3 * v + 2] = ax;
          this.#restoreSupports(v, vEnd, p, q);
          return false;
        }
        // Lowered now, as the removal will (restored if the test fails).
        support[ax]!--;
        // Once the neighbours form one group, joining more of them changes nothing.
        if (groups === 1) continue;
        const ra = findRoot(parent, local[a]!);
        const rx = findRoot(parent, local[x]!);
        if (ra !== rx) {
          parent[ra] = rx;
          groups--;
        }
      }
    }
    if (groups <= 1) return true;
    if (this.#neighboursConnected(v, groups)) return true;
    witness[v] = CONNECTIVITY_WITNESS;
    this.#witnessDegree[v] = state.liveDegree[v]!;
    this.#restoreSupports(v, vEnd, vEnd, 0);
    return false;
  }

  /**
   * Undo the support decrements of a test of v that fails: the triangles it read before row entry
   * `pStop`'s triangle `qStop` (all of them when `pStop` is v's row end), read again in the same order
   * (v's row and the node flags are as the test left them), instead of keeping a list of them.
   */
  #restoreSupports(v: number, vEnd: number, pStop: number, qStop: number): void {
    const { offsets, sources, triOffsets, tri, nodeAlive, support, rowNeighbors, rowEdges } = this.#state;
    for (let p = offsets[v]!; p < vEnd && p <= pStop; p++) {
      const va = rowEdges[p]!;
      const a = rowNeighbors[p]!;
      const vIsSource = sources[va] === v;
      const start = triOffsets[va]!;
      for (let q = triOffsets[va + 1]! - 1; q >= start; q--) {
        if (p === pStop && q <= qStop) return;
        if (tri[3 * q]! < a) break;
        if (nodeAlive[tri[3 * q]!] !== 1) continue;
        support[vIsSource ? tri[3 * q + 2]! : tri[3 * q + 1]!]!++;
      }
    }
  }

  /**
   * Whether v's neighbours, in `groups` groups joined by triangles, are connected through the rest of
   * the community: a search from all of them at once, each search labelled by its group, groups
   * merged where two searches meet. Connected as soon as one group is left; not connected when a
   * group's search runs out of nodes (nothing of it leads to another group).
   */
  #neighboursConnected(v: number, groups: number): boolean {
    const state = this.#state;
    const { offsets, rowNeighbors, seen } = state;
    const around = this.#around;
    const parent = this.#parent;
    const queue = this.#queue;
    const label = this.#label;
    const pending = this.#pending;
    const stamp = state.nextStamp();
    seen[v] = stamp;
    const aroundCount = this.#aroundCount;
    pending.fill(0, 0, aroundCount);
    let head = 0;
    let tail = 0;
    for (let i = 0; i < aroundCount; i++) {
      const a = around[i]!;
      seen[a] = stamp;
      label[a] = i;
      queue[tail++] = a;
      pending[findRoot(parent, i)]!++;
    }
    while (head < tail) {
      const u = queue[head++]!;
      let r = findRoot(parent, label[u]!);
      pending[r]!--;
      const end = state.compactRow(u);
      for (let p = offsets[u]!; p < end; p++) {
        const w = rowNeighbors[p]!;
        if (w === v) continue;
        if (seen[w] === stamp) {
          const rw = findRoot(parent, label[w]!);
          if (rw !== r) {
            parent[rw] = r;
            pending[r]! += pending[rw]!;
            if (--groups === 1) return true;
          }
          continue;
        }
        seen[w] = stamp;
        label[w] = r;
        pending[r]!++;
        queue[tail++] = w;
      }
      r = findRoot(parent, r);
      if (pending[r] === 0) break;
    }
    return false;
  }
}
