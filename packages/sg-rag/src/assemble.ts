import type { Embedding, NormalizedQueryGraph, PathCandidate, QueryPath } from './query-graph.js';

/** Input of {@link assembleSubgraphs}. */
export interface AssemblyInput {
  query: NormalizedQueryGraph;
  /** The query paths, in plan order. */
  paths: readonly QueryPath[];
  /** The data paths matched to each query path (same order). */
  candidateLists: readonly (readonly PathCandidate[])[];
  /** Whether data nodes `a`, `b` satisfy query edge `queryEdge` (its source bound to `a`). @default always */
  edgeOk?: (queryEdge: number, a: number, b: number) => boolean;
  /** Stop after this many matches. */
  maxMatches: number;
}

/** Result of {@link assembleSubgraphs}. */
export interface Assembly {
  matches: Embedding[];
  /** Candidate combinations dropped because two paths bind one query node differently. */
  conflicts: number;
  /** Candidate combinations dropped because two query nodes would share one data node. */
  injectivityConflicts: number;
}

/**
 * Subgraph assembly (SG-RAG Algorithm 8): every combination of one candidate per query path whose
 * node mappings agree, and which maps distinct query nodes to distinct data nodes, is a match.
 * `edgeOk` checks each query edge against the data (e.g. single-edge paths outside the index, or
 * relation labels).
 */
export function assembleSubgraphs(input: AssemblyInput): Assembly {
  const { query: q, paths, candidateLists, edgeOk = () => true, maxMatches } = input;
  const matches: Embedding[] = [];
  const seen = new Set<string>();
  let conflicts = 0;
  let injectivityConflicts = 0;
  const map = new Map<number, number>();
  const rec = (i: number): void => {
    if (matches.length >= maxMatches) return;
    if (i === paths.length) {
      // Query nodes on no edge (isolated) stay unbound (-1); every other node must be bound.
      if (!q.edges.every((e) => map.has(e.source) && map.has(e.target))) return;
      const emb = q.nodes.map((_, n) => map.get(n) ?? -1);
      if (!q.edges.every((e, ei) => edgeOk(ei, emb[e.source]!, emb[e.target]!))) return;
      const key = emb.join(',');
      if (!seen.has(key)) {
        seen.add(key);
        matches.push(emb);
      }
      return;
    }
    const path = paths[i]!;
    for (const cand of candidateLists[i]!) {
      const added: number[] = [];
      let ok = true;
      for (let pos = 0; pos < path.length; pos++) {
        const qn = path[pos]!;
        const dn = cand.nodes[pos]!;
        const prev = map.get(qn);
        if (prev !== undefined) {
          if (prev !== dn) {
            ok = false;
            conflicts++;
            break;
          }
          continue;
        }
        if ([...map.values()].includes(dn)) {
          ok = false;
          injectivityConflicts++;
          break;
        }
        map.set(qn, dn);
        added.push(qn);
      }
      if (ok) rec(i + 1);
      for (const qn of added) map.delete(qn);
    }
  };
  rec(0);
  return { matches, conflicts, injectivityConflicts };
}
