/**
 * Cross-node selection (NodeRAG §2.5): which nodes of a PPR ranking join the entry nodes in the
 * retrieval, either as the paper writes it (the top k of each node type) or as the official code does
 * it (buckets for entities, relationships, overviews and one shared bucket for the other types).
 */

/**
 * How cross nodes are chosen from the PPR ranking.
 *
 * - `'paper'` (NodeRAG §2.5): "the top-k nodes with the highest PPR scores for each type are selected
 *   as cross nodes"; the union of entry and cross nodes is then filtered to the retrievable types
 *   (T, S, A, H, R). Entry nodes compete for their type's k places like any node; N and O cross nodes
 *   are dropped by the filter and bring nothing.
 * - `'official'` (the official code, `search.py`): walking the ranking past the vector entries, the
 *   top entities (each brings its attribute nodes), relationships, overviews (each brings its
 *   high-level element) and one shared bucket of other retrievable nodes (T, S, A, H).
 */
export type CrossNodeSelection = 'paper' | 'official';

/** Limits of the cross-node selection (official code defaults). */
export interface CrossNodeLimits {
  /**
   * `'official'`: entities kept from the PPR ranking; each brings its attribute nodes. Unused by
   * `'paper'`. @default 10 (official `Enode`)
   */
  entities: number;
  /** `'official'`: relationship nodes kept. Unused by `'paper'`. @default 30 (official `Rnode`) */
  relationships: number;
  /**
   * `'official'`: high-level overviews kept; each brings its high-level element. Unused by
   * `'paper'`. @default 10 (official `Hnode`)
   */
  overviews: number;
  /**
   * `'official'`: other retrievable nodes (T, S, A, H) kept as cross nodes, all types together.
   * `'paper'`: the k of every type (the paper names one k and no value).
   * @default 10 (official `cross_node`)
   */
  cross: number;
}

/** The type-code groups a selection reads (codes are positions in `ALL_NODE_TYPES`). */
export interface TypeCodes {
  N: number;
  R: number;
  O: number;
  /** Whether each code is a retrievable type (T, S, A, H, R). */
  retrievable: Uint8Array;
}

/** What a selection picked, as CSR indices. */
export interface CrossNodePicks {
  /** Cross nodes of the retrievable types, best first (for `'official'`: T, S, A, H only). */
  cross: number[];
  /** Entities picked (`'official'`: they bring attributes; `'paper'`: filtered out). */
  entities: number[];
  /** Overviews picked (`'official'`: they bring high-level elements; `'paper'`: filtered out). */
  overviews: number[];
  /** Relationships picked by the `'official'` bucket (empty for `'paper'`: they are in `cross`). */
  relationships: number[];
}

/**
 * Pick the cross nodes of a ranking: `ppr` by CSR index, `types` the type code of each index,
 * `vector` the indices of the vector entries (skipped by `'official'` only). Only nodes with mass are
 * ranked; ties go to the lower index.
 */
export function selectCrossNodes(input: {
  selection: CrossNodeSelection;
  ppr: Float64Array;
  types: Uint8Array;
  codes: TypeCodes;
  vector: ReadonlySet<number>;
  limits: CrossNodeLimits;
}): CrossNodePicks {
  const { ppr, types, codes, limits } = input;
  const n = ppr.length;
  if (input.selection === 'paper') {
    const lists = Array.from(codes.retrievable, () => new TopList(limits.cross, ppr));
    for (let i = 0; i < n; i++) if (ppr[i]! > 0) lists[types[i]!]!.offer(i);
    const cross = lists
      .filter((_, code) => codes.retrievable[code] === 1)
      .flatMap((list) => list.items)
      .sort((a, b) => ppr[b]! - ppr[a]! || a - b);
    return { cross, entities: lists[codes.N]!.items, overviews: lists[codes.O]!.items, relationships: [] };
  }
  // Walking the ranking until every bucket is full (the official code) is the same as taking, per
  // bucket, its top nodes (score descending, CSR order on ties), skipping the vector entries: one
  // pass with small bounded lists instead of sorting every node with mass.
  const entities = new TopList(limits.entities, ppr);
  const relationships = new TopList(limits.relationships, ppr);
  const overviews = new TopList(limits.overviews, ppr);
  const cross = new TopList(limits.cross, ppr);
  for (let i = 0; i < n; i++) {
    if (!(ppr[i]! > 0) || input.vector.has(i)) continue;
    const code = types[i]!;
    if (code === codes.N) entities.offer(i);
    else if (code === codes.R) relationships.offer(i);
    else if (code === codes.O) overviews.offer(i);
    else if (codes.retrievable[code] === 1) cross.offer(i);
  }
  return {
    cross: cross.items,
    entities: entities.items,
    overviews: overviews.items,
    relationships: relationships.items,
  };
}

/** The best `limit` indices by score (descending, lower index first on ties), kept sorted. */
class TopList {
  readonly items: number[] = [];
  readonly #limit: number;
  readonly #scores: Float64Array;
  constructor(limit: number, scores: Float64Array) {
    this.#limit = limit;
    this.#scores = scores;
  }
  offer(i: number): void {
    if (this.#limit === 0) return;
    const s = this.#scores[i]!;
    const items = this.items;
    if (items.length === this.#limit && s <= this.#scores[items[items.length - 1]!]!) return;
    let at = items.length;
    while (at > 0 && this.#scores[items[at - 1]!]! < s) at--;
    items.splice(at, 0, i);
    if (items.length > this.#limit) items.pop();
  }
}
