/** Small rankings the retrieval combines its channels with. */
import type { RetrievedItem } from '@grag/core';
import { RRF_K } from '@grag/core/kit';

/** Positions by descending score (ties: lower position first), those `keep` accepts, as hits. */
export function rankPositions(
  scores: ArrayLike<number>,
  keep: (i: number) => boolean = () => true,
): { id: number; score: number }[] {
  const hits: { id: number; score: number }[] = [];
  for (let i = 0; i < scores.length; i++) if (keep(i)) hits.push({ id: i, score: scores[i]! });
  return hits.sort((a, b) => b.score - a.score || a.id - b.id);
}

/**
 * The items of one channel with each `'chunk'` item scored by its reciprocal rank among the
 * channel's chunk items, 1/(RRF_K + rank); other items unchanged. Two channels scored so interleave
 * when ranked by score.
 */
export function channelRankScores(items: readonly RetrievedItem[]): RetrievedItem[] {
  let rank = 0;
  return items.map((item) => (item.kind === 'chunk' ? { ...item, score: 1 / (RRF_K + ++rank) } : item));
}

/**
 * `first` (up to `limit`), then the lists alternating — element 0 of each list in order, then
 * element 1 of each, … — skipping repeats, until `limit` ids.
 */
export function mergeAlternating<T>(
  first: readonly T[],
  lists: readonly (readonly T[])[],
  limit: number,
): T[] {
  const out = first.slice(0, limit);
  const longest = Math.max(0, ...lists.map((l) => l.length));
  for (let i = 0; i < longest && out.length < limit; i++) {
    for (const list of lists) {
      const id = list[i];
      if (id !== undefined && out.length < limit && !out.includes(id)) out.push(id);
    }
  }
  return out;
}

/** The neighbours of each of `count` nodes in an undirected edge list, in edge order. */
export function neighbourLists(
  count: number,
  edges: readonly { source: number; target: number }[],
): number[][] {
  const out = Array.from({ length: count }, (): number[] => []);
  for (const e of edges) {
    out[e.source]?.push(e.target);
    out[e.target]?.push(e.source);
  }
  return out;
}

/**
 * Each hit followed by its neighbours (KNNG-RAG), every position once, first occurrence kept: a hit
 * keeps its score, a neighbour reached through another hit scores 0.
 */
export function followNeighbours(
  hits: readonly { id: number; score: number }[],
  neighbours: readonly (readonly number[])[],
): { id: number; score: number }[] {
  const out: { id: number; score: number }[] = [];
  const taken = new Set<number>();
  for (const hit of hits) {
    for (const position of [hit.id, ...(neighbours[hit.id] ?? [])]) {
      if (taken.has(position)) continue;
      taken.add(position);
      out.push({ id: position, score: position === hit.id ? hit.score : 0 });
    }
  }
  return out;
}
