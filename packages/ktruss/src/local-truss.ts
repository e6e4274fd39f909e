/**
 * The subgraph of the local size-bounded search (internal: not exported from the package), see
 * `localSearch`.
 */
import type { TrussGraph } from './graph.js';
import type { Community } from './qpeel.js';

/**
 * The subgraph induced by the first `size` nodes of a tail order (local node i is `tail[i]`, the
 * query vertex is 0) on the edges of trussness ≥ k, with the supports of its edges in it, peeled in
 * place.
 */
export class LocalTruss {
  readonly #tail: Uint32Array;
  readonly #minSupport: number;
  readonly #offsets: Int32Array;
  readonly #adj: Int32Array;
  readonly #adjEdge: Int32Array;
  readonly #src: Int32Array;
  readonly #dst: Int32Array;
  readonly #globalEdge: Int32Array;
  readonly #support: Int32Array;
  readonly #alive: Uint8Array;
  readonly #degree: Int32Array;
  readonly #mark: Int32Array;
  readonly #stack: number[] = [];
  // Undo log of one removal step: the edges deleted and the edges whose support was lowered.
  readonly #deleted: number[] = [];
  readonly #lowered: number[] = [];
  /** Nodes with an edge, in every part (after {@link keepQueryPart}: in the query vertex's part). */
  size = 0;

  /** @param local All -1 (left so): node index to local index, while building. */
  constructor(
    g: TrussGraph,
    trussness: ArrayLike<number>,
    k: number,
    tail: Uint32Array,
    size: number,
    local: Int32Array,
  ) {
    this.#tail = tail;
    this.#minSupport = k - 2;
    for (let i = 0; i < size; i++) local[tail[i]!] = i;
    const { offsets, neighbors, edgeIds } = g;
    const src: number[] = [];
    const dst: number[] = [];
    const globalEdge: number[] = [];
    const degree = new Int32Array(size);
    for (let i = 0; i < size; i++) {
      const v = tail[i]!;
      for (let p = offsets[v]!; p < offsets[v + 1]!; p++) {
        const j = local[neighbors[p]!]!;
        if (j <= i || trussness[edgeIds[p]!]! < k) continue;
        src.push(i);
        dst.push(j);
        globalEdge.push(edgeIds[p]!);
        degree[i]!++;
        degree[j]!++;
      }
    }
    for (let i = 0; i < size; i++) local[tail[i]!] = -1;
    const m = src.length;
    this.#src = Int32Array.from(src);
    this.#dst = Int32Array.from(dst);
    this.#globalEdge = Int32Array.from(globalEdge);
    const rowStart = new Int32Array(size + 1);
    for (let i = 0; i < size; i++) rowStart[i + 1] = rowStart[i]! + degree[i]!;
    const fill = rowStart.slice(0, size);
    const adj = new Int32Array(2 * m);
    const adjEdge = new Int32Array(2 * m);
    for (let e = 0; e < m; e++) {
      const a = src[e]!;
      const b = dst[e]!;
      adj[fill[a]!] = b;
      adjEdge[fill[a]!++] = e;
      adj[fill[b]!] = a;
      adjEdge[fill[b]!++] = e;
    }
    this.#offsets = rowStart;
    this.#adj = adj;
    this.#adjEdge = adjEdge;
    this.#degree = degree;
    this.#alive = new Uint8Array(m).fill(1);
    const mark = new Int32Array(size).fill(-1);
    this.#mark = mark;
    // Supports: the common neighbours of each edge's ends.
    const support = new Int32Array(m);
    for (let a = 0; a < size; a++) {
      for (let p = rowStart[a]!; p < rowStart[a + 1]!; p++) mark[adj[p]!] = 1;
      for (let p = rowStart[a]!; p < rowStart[a + 1]!; p++) {
        const b = adj[p]!;
        if (b < a) continue;
        let s = 0;
        for (let r = rowStart[b]!; r < rowStart[b + 1]!; r++) if (mark[adj[r]!] === 1) s++;
        support[adjEdge[p]!] = s;
      }
      for (let p = rowStart[a]!; p < rowStart[a + 1]!; p++) mark[adj[p]!] = -1;
    }
    this.#support = support;
  }

  /** Delete the edges below minimum support, in cascade: the maximal k-truss. */
  peelAll(): void {
    const support = this.#support;
    this.size = 0;
    for (let i = 0; i < this.#degree.length; i++) if (this.#degree[i]! > 0) this.size++;
    for (let e = 0; e < support.length; e++) if (support[e]! < this.#minSupport) this.#stack.push(e);
    this.#cascade(false);
  }

  holdsQuery(): boolean {
    return this.#degree[0]! > 0;
  }

  /**
   * Delete the stacked edges and, in cascade, every edge left below minimum support; with `log`,
   * into the undo log, and stopping once the query vertex is left with fewer than k − 1 edges (so it
   * would lose them all).
   */
  #cascade(log: boolean): void {
    const minSupport = this.#minSupport;
    const stack = this.#stack;
    const alive = this.#alive;
    const support = this.#support;
    const offsets = this.#offsets;
    const adj = this.#adj;
    const adjEdge = this.#adjEdge;
    const mark = this.#mark;
    while (stack.length > 0) {
      const e = stack.pop()!;
      if (alive[e] !== 1) continue;
      alive[e] = 0;
      const a = this.#src[e]!;
      const b = this.#dst[e]!;
      if (--this.#degree[a]! === 0) this.size--;
      if (--this.#degree[b]! === 0) this.size--;
      if (log) this.#deleted.push(e);
      if (log && a === 0 && this.#degree[0]! <= this.#minSupport) {
        // The query vertex is left with fewer than k − 1 edges, too few for any of them to be in
        // k − 2 triangles: the cascade would delete them all, so the step is undone and the rest
        // of it does not matter.
        stack.length = 0;
        return;
      }
      for (let p = offsets[a]!; p < offsets[a + 1]!; p++)
        if (alive[adjEdge[p]!] === 1) mark[adj[p]!] = adjEdge[p]!;
      for (let p = offsets[b]!; p < offsets[b + 1]!; p++) {
        const h = adjEdge[p]!;
        if (alive[h] !== 1) continue;
        const f = mark[adj[p]!]!;
        if (f < 0) continue;
        // Triangle {a, b, w} loses edge e: {a, w} and {b, w} lose one triangle.
        if (--support[f]! === minSupport - 1) stack.push(f);
        if (--support[h]! === minSupport - 1) stack.push(h);
        if (log) this.#lowered.push(f, h);
      }
      for (let p = offsets[a]!; p < offsets[a + 1]!; p++) mark[adj[p]!] = -1;
    }
  }

  /**
   * Drop what is not connected to the query vertex (the edges of another part share no triangle
   * with the query vertex's part), and count the part's nodes.
   */
  keepQueryPart(): void {
    const { seen, reached } = this.#reach();
    const alive = this.#alive;
    for (let e = 0; e < alive.length; e++) {
      if (alive[e] === 1 && seen[this.#src[e]!] !== 1) {
        alive[e] = 0;
        this.#degree[this.#src[e]!]!--;
        this.#degree[this.#dst[e]!]!--;
      }
    }
    this.size = reached;
  }

  /**
   * Remove local node `i` (not the query vertex), deleting its edges and, in cascade, those left
   * below minimum support; undo it when the query vertex loses its edges (it is left with fewer than
   * k − 1, so the cascade would take them all). Every part stays.
   */
  tryRemove(i: number): void {
    // Each part of a k-truss has at least k nodes: with k or fewer in all, the query vertex's part is
    // the only one and no removal keeps it.
    if (i === 0 || this.#degree[i]! === 0 || this.size <= this.#minSupport + 2) return;
    for (let p = this.#offsets[i]!; p < this.#offsets[i + 1]!; p++) {
      if (this.#alive[this.#adjEdge[p]!] === 1) this.#stack.push(this.#adjEdge[p]!);
    }
    this.#cascade(true);
    if (this.#degree[0]! <= this.#minSupport) this.#undo();
    this.#deleted.length = 0;
    this.#lowered.length = 0;
  }

  /** The nodes reached from the query vertex over live edges (none when it has no edge), and how many. */
  #reach(): { seen: Uint8Array; reached: number } {
    const seen = new Uint8Array(this.#degree.length);
    if (this.#degree[0]! === 0) return { seen, reached: 0 };
    const queue = [0];
    seen[0] = 1;
    for (let j = 0; j < queue.length; j++) {
      const v = queue[j]!;
      for (let p = this.#offsets[v]!; p < this.#offsets[v + 1]!; p++) {
        if (this.#alive[this.#adjEdge[p]!] !== 1) continue;
        const w = this.#adj[p]!;
        if (seen[w] === 1) continue;
        seen[w] = 1;
        queue.push(w);
      }
    }
    return { seen, reached: queue.length };
  }

  /** Undo the logged deletions and support decrements. */
  #undo(): void {
    for (const e of this.#lowered) this.#support[e]!++;
    for (const e of this.#deleted) {
      this.#alive[e] = 1;
      if (this.#degree[this.#src[e]!]!++ === 0) this.size++;
      if (this.#degree[this.#dst[e]!]!++ === 0) this.size++;
    }
  }

  /** The query vertex's part as a community (global indices). */
  community(
    rel: Float64Array,
    initialQrScore: number,
    componentNodes: number,
    g: TrussGraph,
  ): Community | null {
    if (this.size === 0) return null;
    const nodes: number[] = [];
    for (let i = 0; i < this.#degree.length; i++) if (this.#degree[i]! > 0) nodes.push(this.#tail[i]!);
    nodes.sort((a, b) => a - b);
    const edges: number[] = [];
    for (let e = 0; e < this.#alive.length; e++) if (this.#alive[e] === 1) edges.push(this.#globalEdge[e]!);
    edges.sort((a, b) => a - b);
    let sum = 0;
    for (const v of nodes) sum += rel[v]!;
    return {
      k: this.#minSupport + 2,
      nodes: Uint32Array.from(nodes),
      keys: nodes.map((v) => g.nodeIds[v]!),
      edges: Uint32Array.from(edges),
      qrScore: sum / nodes.length,
      initialQrScore,
      removed: componentNodes - nodes.length,
    };
  }
}
