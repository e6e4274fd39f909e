import { assembleSubgraphs } from './assemble.js';
import { decomposeQuery } from './decompose.js';
import type { Adjacency, SgGraph } from './kg.js';
import { type Combinations, completeLabels, type LabelCompletion, labelCombinations } from './labels.js';
import type { PathIndexView } from './path-index.js';
import { retrievePath } from './path-search.js';
import type { Embedding, NormalizedQueryGraph, PathCandidate, QueryPath } from './query-graph.js';

/** Input of {@link matchQueryGraph}. */
export interface MatchInput {
  query: NormalizedQueryGraph;
  /** The data graph (its facts are read when `matchRelations` is set). */
  graph: SgGraph;
  adjacency: Adjacency;
  /** The path index of `graph`. */
  paths: PathIndexView;
  /** Cap on candidate labels per unknown node (Algorithm 5). */
  maxLabelCandidates: number;
  /** Cap on label combinations (Algorithm 6). */
  maxLabelCombinations: number;
  /** Cap on assembled subgraphs (Algorithm 8). */
  maxMatches: number;
  /** Also require each query edge's relation text and direction on the data edge. */
  matchRelations: boolean;
}

/** Result of {@link matchQueryGraph}. */
export interface MatchResult {
  /** The query paths of the plan (Algorithm 4). */
  decomposition: QueryPath[];
  completion: LabelCompletion;
  combinations: Combinations;
  /** Every match found (at most `maxMatches`): data node per query node, -1 for isolated ones. */
  matches: Embedding[];
  /** Index entries visited by path retrieval. */
  visited: number;
  /** Candidate combinations that bound a query node two ways. */
  conflicts: number;
  /** Candidate combinations that bound two query nodes to one data node. */
  injectivityConflicts: number;
  /** Milliseconds spent decomposing, completing labels and matching. */
  ms: { decompose: number; complete: number; match: number };
}

/**
 * Whether data nodes `a`, `b` (query edge `queryEdge`'s source bound to `a`) are joined by an edge
 * and, with `matchRelations`, by a fact of the query edge's relation (case-insensitive) that reads
 * from `a` to `b`.
 */
export function edgeCheck(
  query: NormalizedQueryGraph,
  graph: SgGraph,
  adjacency: Adjacency,
  matchRelations: boolean,
): (queryEdge: number, a: number, b: number) => boolean {
  const { edgeOf } = adjacency;
  return (queryEdge, a, b) => {
    const e = edgeOf[a]!.get(b);
    if (e === undefined) return false;
    if (!matchRelations) return true;
    const rel = query.edges[queryEdge]!.relation.trim().toLowerCase();
    const edge = graph.edges[e]!;
    // Query edge source → target must read as a fact from a to b.
    return edge.facts.some((f) => f.relation.trim().toLowerCase() === rel && f.forward === (edge.a === a));
  };
}

/**
 * Exact subgraph matching of a normalized query graph (SG-RAG §4.4): the query is decomposed into
 * paths (Algorithm 4), its unknown nodes get candidate labels (Algorithms 5–6), and for each label
 * combination every query path is retrieved from the path index (Algorithm 7) — single-edge paths
 * of a plan over a longer index are checked against the adjacency — and the candidates assembled
 * into subgraphs (Algorithm 8), until `maxMatches`. Every match maps distinct query nodes to
 * distinct data nodes joined wherever the query nodes are.
 */
export function matchQueryGraph(input: MatchInput): MatchResult {
  const { query: q, adjacency, paths: index, maxMatches } = input;
  let t0 = performance.now();
  const decomposition = decomposeQuery(q, index.pathLength);
  const ms = { decompose: performance.now() - t0, complete: 0, match: 0 };
  t0 = performance.now();
  const completion = completeLabels({
    query: q,
    paths: decomposition,
    index,
    maxCandidates: input.maxLabelCandidates,
    neighbours: adjacency.neighbours,
  });
  ms.complete = performance.now() - t0;
  const combinations = labelCombinations(q, completion.candidates, input.maxLabelCombinations);
  const k = index.pathLength + 1;
  const { edgeOf } = adjacency;
  const edgeOk = edgeCheck(q, input.graph, adjacency, input.matchRelations);
  const matches: Embedding[] = [];
  let visited = 0;
  let conflicts = 0;
  let injectivityConflicts = 0;
  t0 = performance.now();
  for (const binding of combinations.bindings) {
    if (matches.length >= maxMatches) break;
    const lists: PathCandidate[][] = [];
    for (const path of decomposition) {
      if (path.length === k) {
        const r = retrievePath(q, path, binding, index);
        visited += r.visited;
        lists.push(r.candidates);
      } else {
        const nodes = path.map((n) => q.nodes[n]!.node ?? binding.get(n)!);
        lists.push(edgeOf[nodes[0]!]!.has(nodes[1]!) ? [{ pathId: -1, nodes }] : []);
      }
      if (lists.at(-1)!.length === 0) break;
    }
    if (lists.length < decomposition.length || lists.some((l) => l.length === 0)) continue;
    const assembled = assembleSubgraphs({
      query: q,
      paths: decomposition,
      candidateLists: lists,
      edgeOk,
      maxMatches: maxMatches - matches.length,
    });
    conflicts += assembled.conflicts;
    injectivityConflicts += assembled.injectivityConflicts;
    matches.push(...assembled.matches);
  }
  ms.match = performance.now() - t0;
  return {
    decomposition,
    completion,
    combinations,
    matches,
    visited,
    conflicts,
    injectivityConflicts,
    ms,
  };
}
