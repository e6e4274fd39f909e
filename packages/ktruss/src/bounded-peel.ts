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
  // One step: the edges to delete, the edges deleted and the supports lowered (to undo it), the
  // nodes gone.
  readonly #stack = new IntStack();
  readonly #undoEdges = new IntStack();
  readonly #decremented = new IntStack();
  readonly #gone = new IntStack();

  constructor(state: PeelState) {
    this.#state = state;
  }

  /** Delete the edges on the stack and, in cascade, every edge left in fewer than k − 2 triangles. */
  #deleteEdges(): void {
    const { minSupport, sources, targets, triOffsets, tri, edgeAlive, support, liveDegree } = this.#state;
    const stack = this.#stack;
    const undoEdges = this.#undoEdges;
    const decremented = this.#decremented;
    while (stack.length > 0) {
      const e = stack.pop();
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
        decremented.push(f);
        decremented.push(h);
        if (--support[f]! < minSupport) stack.push(f);
        if (--support[h]! < minSupport) stack.push(h);
      }
    }
  }

  /**
   * Remove the nodes of `order` in turn (query nodes kept) until at most `bound` of the `aliveCount`
   * live nodes remain. Returns the live nodes left and the removal steps tried.
   */
  peel(order: readonly number[], aliveCount: number, bound: number): { alive: number; checks: number } {
    const { offsets, sources, targets, edgeAlive, support, nodeAlive, liveDegree, isQuery } = this.#state;
    const { rowEdges, rowEnd } = this.#state;
    const stack = this.#stack;
    const undoEdges = this.#undoEdges;
    const decremented = this.#decremented;
    const gone = this.#gone;
    let count = aliveCount;
    let checks = 0;
    for (const v of order) {
      if (count <= bound) break;
      if (nodeAlive[v] !== 1 || isQuery[v] === 1) continue;
      checks++;
      undoEdges.clear();
      decremented.clear();
      gone.clear();
      for (let p = offsets[v]!; p < rowEnd[v]!; p++)
        if (edgeAlive[rowEdges[p]!] === 1) stack.push(rowEdges[p]!);
      this.#deleteEdges();
      let lostQuery = false;
      for (let i = 0; i < undoEdges.length; i++) {
        const e = undoEdges.data[i]!;
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
        for (let i = 0; i < undoEdges.length; i++) {
          const e = undoEdges.data[i]!;
          edgeAlive[e] = 1;
          liveDegree[sources[e]!]!++;
          liveDegree[targets[e]!]!++;
        }
        for (let i = 0; i < gone.length; i++) nodeAlive[gone.data[i]!] = 1;
        for (let i = 0; i < decremented.length; i++) support[decremented.data[i]!]!++;
        if (lostQuery) continue;
        break;
      }
      count -= gone.length;
    }
    return { alive: count, checks };
  }
}
