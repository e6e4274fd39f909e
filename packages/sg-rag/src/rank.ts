import { type Embedder, embedAll } from '@grag/core';
import { cosineSimilarity } from '@grag/core/kit';
import type { Adjacency, SgGraph } from './kg.js';
import type { Embedding, NormalizedQueryGraph } from './query-graph.js';

/** Input of {@link rankMatches}. */
export interface RankMatchesInput {
  query: NormalizedQueryGraph;
  /** The question text: what an edge without relation text is compared with. */
  question: string;
  matches: readonly Embedding[];
  graph: SgGraph;
  adjacency: Adjacency;
  embedder: Embedder;
  signal?: AbortSignal;
  /** Embeddings of texts already embedded with `embedder` (filled in; keep one per index). */
  cache?: Map<string, Float32Array>;
}

/** One ranked match. */
export interface RankedMatch {
  /** Position of the match in the input. */
  match: number;
  /** Mean over the query edges of the best relation similarity (see {@link rankMatches}). */
  score: number;
}

/**
 * Ranks matched subgraphs by how well their relations read like the query graph's (our addition:
 * SG-RAG leaves the choice among matches to the answer model). For each query edge, the text is
 * its relation, or the question when the edge has none; its similarity to the matched data edge
 * is the best cosine, with `embedder`, between that text and the relation text of one of the data
 * edge's facts. A match scores the mean over its query edges. Best first; ties keep the input
 * order (node order of the label combinations).
 */
export async function rankMatches(input: RankMatchesInput): Promise<RankedMatch[]> {
  const { query: q, matches, graph, adjacency } = input;
  if (matches.length === 0 || q.edges.length === 0) return matches.map((_, match) => ({ match, score: 0 }));
  const cache = input.cache ?? new Map<string, Float32Array>();
  const edgeText = (i: number) => q.edges[i]!.relation.trim() || input.question;
  const dataEdges = matches.map((m) =>
    q.edges.map((e) => adjacency.edgeOf[m[e.source]!]!.get(m[e.target]!)!),
  );
  const texts = new Set<string>(q.edges.map((_, i) => edgeText(i)));
  for (const ids of dataEdges)
    for (const id of ids) for (const f of graph.edges[id]!.facts) texts.add(f.relation);
  const missing = [...texts].filter((t) => !cache.has(t));
  if (missing.length > 0) {
    const vectors = await embedAll(input.embedder, missing, { abortSignal: input.signal });
    missing.forEach((t, i) => {
      cache.set(t, vectors[i]!);
    });
  }
  const scoreOf = new Map<string, number>();
  const similarity = (a: string, b: string): number => {
    const key = `${a}\u0000${b}`;
    let s = scoreOf.get(key);
    if (s === undefined) {
      s = cosineSimilarity(cache.get(a)!, cache.get(b)!);
      scoreOf.set(key, s);
    }
    return s;
  };
  return dataEdges
    .map((ids, match) => {
      let total = 0;
      ids.forEach((id, i) => {
        let best = Number.NEGATIVE_INFINITY;
        for (const f of graph.edges[id]!.facts) best = Math.max(best, similarity(edgeText(i), f.relation));
        total += Number.isFinite(best) ? best : 0;
      });
      return { match, score: total / ids.length };
    })
    .sort((a, b) => b.score - a.score || a.match - b.match);
}
