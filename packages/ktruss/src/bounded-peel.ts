/**
 * Q-Peel's size bound (internal: not exported from the package): peel on toward the query, least
 * relevant node first, and restore the k-truss after each removal by deleting the edges left in
 * fewer than k − 2 triangles (and the nodes left without edges), as attributed truss search does
 * (Huang & Lakshmanan 2017). A step that would leave nothing, or lose a query node, is undone.
 */
import { IntStack } from './int-stack.js';
import type { PeelState } from './peel-state.js';

export class BoundedPeel {
  readonly #state: PeelState;
  // One step: the edges to delete, the edges deleted in deletion order (to undo it), the nodes gone.
  readonly #stack = new IntStack();
  readonly #undoEdges = new IntStack();
  readonly #gone = new IntStack();

  constructor(state: PeelState) {
    this.#state = state;
  }

  /**
   * Delete the edges on the stack and, in cascade, every edge left in fewer than k − 2 triangles.
   * Stops, and returns true, once a query node is left with fewer than k − 1 edges: too few for any
   * of them to stay in k − 2 triangles, so the cascade would take them all and the step is undone
   * (what it deleted is on the undo list; the rest of the stack is dropped).
   */
  #deleteEdges(): boolean {
    const { minSupport, sources, targets, triOffsets, tri, edgeAlive, support, liveDegree, isQuery } =
      this.#state;
    const stack = this.#stack;
    const undoEdges = this.#undoEdges;
    while (stack.length > 0) {
      const e = stack.pop();
      if (edgeAlive[e] !== 1) continue;
      edgeAlive[e] = 0;
      const s = sources[e]!;
      const t = targets[e]!;
      liveDegree[s]!--;
      liveDegree[t]!--;
      undoEdges.push(e);
      const end = triOffsets[e + 1]!;
      for (let q = triOffsets[e]!; q < end; q++) {
        const f = tri[3 * q + 1]!;
        const h = tri[3 * q + 2]!;
        if (edgeAlive[f] !== 1 || edgeAlive[h] !== 1) continue;
        if (--support[f]! < minSupport) stack.push(f);
        if (--support[h]! < minSupport) stack.push(h);
      }
      // (After e's triangles: the undo gives back what each deleted edge took.)
      if (
        (isQuery[s] === 1 && liveDegree[s]! <= minSupport) ||
        (isQuery[t] === 1 && liveDegree[t]! <= minSupport)
      ) {
        stack.clear();
        return true;
      }
    }
    return false;
  }

  /**
   * Delete v's live edges, and lower the support of the far edge {a, x} of each triangle {v, a, x}
   * whose three edges are alive (stacking it when it falls below k − 2 for {@link deleteEdges}). Each
   * triangle is read once, on edge {v, a} with a < x (the edge's triangles are sorted by third node, so
   * those are a suffix), and v's own edges, which go anyway, are not lowered: the cascade then ends
   * at the same maximal k-truss as deleting v's edges one by one, at about half the reads. v's edges
   * go on the undo list (returns how many), first; `lost` when a query neighbour is left with fewer
   * than k − 1 edges (the stack is then dropped: the step is undone).
   */
  #deleteNode(v: number): { own: number; lost: boolean } {
    const { offsets, sources, minSupport, triOffsets, tri, edgeAlive, support, liveDegree, isQuery } =
      this.#state;
    const { rowNeighbors, rowEdges, rowEnd } = this.#state;
    const stack = this.#stack;
    const undoEdges = this.#undoEdges;
    const end = rowEnd[v]!;
    for (let p = offsets[v]!; p < end; p++) {
      const va = rowEdges[p]!;
      if (edgeAlive[va] !== 1) continue;
      const a = rowNeighbors[p]!;
      const vIsSource = sources[va] === v;
      const start = triOffsets[va]!;
      for (let q = triOffsets[va + 1]! - 1; q >= start; q--) {
        if (tri[3 * q]! < a) break;
        const vx = vIsSource ? tri[3 * q + 1]! : tri[3 * q + 2]!;
        const ax = vIsSource ? tri[3 * q + 2]! : tri[3 * q + 1]!;
        if (edgeAlive[vx] !== 1 || edgeAlive[ax] !== 1) continue;
        if (--support[ax]! < minSupport) stack.push(ax);
      }
    }
    let lost = false;
    for (let p = offsets[v]!; p < end; p++) {
      const va = rowEdges[p]!;
      if (edgeAlive[va] !== 1) continue;
      edgeAlive[va] = 0;
      liveDegree[v]!--;
      const a = rowNeighbors[p]!;
      if (--liveDegree[a]! <= minSupport && isQuery[a] === 1) lost = true;
      undoEdges.push(va);
    }
    // A query neighbour left with fewer than k − 1 edges would lose them all (see deleteEdges).
    if (lost) stack.clear();
    return { own: undoEdges.length, lost };
  }

  /** Undo {@link deleteNode} of v (after {@link undoDeletions}): its `own` edges and the supports they took. */
  #undoNode(v: number, own: number): void {
    const { sources, targets, triOffsets, tri, edgeAlive, support, liveDegree } = this.#state;
    const undoEdges = this.#undoEdges;
    for (let i = 0; i < own; i++) {
      const e = undoEdges.data[i]!;
      edgeAlive[e] = 1;
      liveDegree[sources[e]!]!++;
      liveDegree[targets[e]!]!++;
    }
    // The flags are those deleteNode read: the same triangles get their support back.
    for (let i = 0; i < own; i++) {
      const va = undoEdges.data[i]!;
      const vIsSource = sources[va] === v;
      const a = vIsSource ? targets[va]! : sources[va]!;
      const start = triOffsets[va]!;
      for (let q = triOffsets[va + 1]! - 1; q >= start; q--) {
        if (tri[3 * q]! < a) break;
        const vx = vIsSource ? tri[3 * q + 1]! : tri[3 * q + 2]!;
        const ax = vIsSource ? tri[3 * q + 2]! : tri[3 * q + 1]!;
        if (edgeAlive[vx] !== 1 || edgeAlive[ax] !== 1) continue;
        support[ax]!++;
      }
    }
  }

  /**
   * Undo the cascade of one step (the undo list from `from` on), last deleted first: each edge comes
   * back, and so does the support it took from the two other edges of each of its triangles whose
   * edges were all alive when it went. Going backwards, the edges deleted after it are back and those
   * deleted before it are not, so the flags read are those its deletion read: the supports are those
   * before the cascade, without keeping a list of the decrements (steps are rarely undone; the list
   * cost a push per triangle of every step).
   */
  #undoDeletions(from: number): void {
    const { sources, targets, triOffsets, tri, edgeAlive, support, liveDegree } = this.#state;
    const undoEdges = this.#undoEdges;
    for (let i = undoEdges.length - 1; i >= from; i--) {
      const e = undoEdges.data[i]!;
      edgeAlive[e] = 1;
      liveDegree[sources[e]!]!++;
      liveDegree[targets[e]!]!++;
      const end = triOffsets[e + 1]!;
      for (let q = triOffsets[e]!; q < end; q++) {
        const f = tri[3 * q + 1]!;
        const h = tri[3 * q + 2]!;
        if (edgeAlive[f] !== 1 || edgeAlive[h] !== 1) continue;
        support[f]!++;
        support[h]!++;
      }
    }
  }

  /**
   * Remove the nodes of `order` in turn (query nodes kept) until at most `bound` of the `aliveCount`
   * live nodes remain. Returns the live nodes left and the removal steps tried.
   */
  peel(order: readonly number[], aliveCount: number, bound: number): { alive: number; checks: number } {
    const { sources, targets, nodeAlive, liveDegree, isQuery } = this.#state;
    const undoEdges = this.#undoEdges;
    const gone = this.#gone;
    let count = aliveCount;
    let checks = 0;
    for (const v of order) {
      if (count <= bound) break;
      if (nodeAlive[v] !== 1 || isQuery[v] === 1) continue;
      checks++;
      undoEdges.clear();
      gone.clear();
      const { own, lost } = this.#deleteNode(v);
      if (lost || this.#deleteEdges()) {
        // A query node would go: undo this step. (Every such step stops here: a query node left
        // with no edge had fewer than k − 1 first.)
        this.#undoDeletions(own);
        this.#undoNode(v, own);
        continue;
      }
      for (let i = 0; i < undoEdges.length; i++) {
        const e = undoEdges.data[i]!;
        const s = sources[e]!;
        const t = targets[e]!;
        if (nodeAlive[s] === 1 && liveDegree[s] === 0) {
          nodeAlive[s] = 0;
          gone.push(s);
        }
        if (nodeAlive[t] === 1 && liveDegree[t] === 0) {
          nodeAlive[t] = 0;
          gone.push(t);
        }
      }
      if (nodeAlive[v] === 1) {
        nodeAlive[v] = 0;
        gone.push(v);
      }
      if (gone.length >= count) {
        // Nothing would remain: undo this step, and stop.
        this.#undoDeletions(own);
        this.#undoNode(v, own);
        for (let i = 0; i < gone.length; i++) nodeAlive[gone.data[i]!] = 1;
        break;
      }
      count -= gone.length;
    }
    return { alive: count, checks };
  }
}
