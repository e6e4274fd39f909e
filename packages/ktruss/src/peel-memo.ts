/**
 * What Q-Peel's QRScore phase of each component left, kept for a later search with the same
 * relevance (internal: not exported from the package). See {@link PeelMemo}.
 */

/** What the QRScore phase of one component left (see {@link PeelMemo}). */
export interface PhaseOne {
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
