/** Retrieval metrics: Recall@k of supporting passages through chunk provenance, context tokens. */
import type { Chunk, PassageRanking, RetrievedItem } from '@grag/core';

/**
 * How {@link rankedPassages} reads passages off retrieved items: a method's
 * {@link PassageRanking} (which kinds count, context or score order), and how chunks map to passages.
 */
export interface RankedPassagesOptions extends PassageRanking {
  /**
   * Passages a chunk belongs to, when chunks are not passages (see {@link chunkPassageMap}). Without
   * it, an item's passages are its `source.docIds` (a corpus of passages indexed one document each).
   */
  passageOf?: (chunkId: string) => readonly string[] | undefined;
}

/**
 * The distinct passages of a retrieval in rank order: each item of a counted kind (in context order,
 * or by descending score with `order: 'score'`, ties in context order) contributes its passages —
 * `source.docIds`, or its chunks mapped through `passageOf` — the first time they appear.
 */
export function rankedPassages(
  items: readonly RetrievedItem[],
  options: RankedPassagesOptions = {},
): string[] {
  const kinds = options.kinds ? new Set(options.kinds) : undefined;
  const counted = items.filter((item) => !kinds || kinds.has(item.kind));
  if (options.order === 'score') counted.sort((a, b) => b.score - a.score);
  const seen = new Set<string>();
  const out: string[] = [];
  for (const item of counted) {
    const passages = options.passageOf
      ? item.source.chunkIds.flatMap((c) => options.passageOf?.(c) ?? [])
      : item.source.docIds;
    for (const p of passages) {
      if (!seen.has(p)) {
        seen.add(p);
        out.push(p);
      }
    }
  }
  return out;
}

/**
 * Recall@k: the share of `gold` ids among the first `k` distinct ids of `ranked` (duplicates in
 * `ranked` are skipped, so k counts distinct passages). No gold ids gives `NaN` (undefined).
 */
export function recallAt(ranked: readonly string[], gold: readonly string[], k: number): number {
  const wanted = new Set(gold);
  if (wanted.size === 0) return Number.NaN;
  const top = new Set<string>();
  for (const id of ranked) {
    if (top.size >= k) break;
    top.add(id);
  }
  let found = 0;
  for (const g of wanted) if (top.has(g)) found++;
  return found / wanted.size;
}

/** Where a passage lies in a document: `doc.text.slice(start, end)` is the passage. */
export interface PassageSpan {
  passageId: string;
  docId: string;
  start: number;
  end: number;
}

/**
 * Map chunk ids to the passages their character range overlaps, for corpora whose documents are
 * made of several passages (a book split into paragraphs, concatenated passages). Pass the result's
 * `get` as `passageOf` to {@link rankedPassages}.
 */
export function chunkPassageMap(
  chunks: readonly Pick<Chunk, 'id' | 'docId' | 'start' | 'end'>[],
  spans: readonly PassageSpan[],
): Map<string, string[]> {
  const byDoc = new Map<string, PassageSpan[]>();
  for (const span of spans) {
    let list = byDoc.get(span.docId);
    if (!list) {
      list = [];
      byDoc.set(span.docId, list);
    }
    list.push(span);
  }
  for (const list of byDoc.values()) list.sort((a, b) => a.start - b.start);
  const out = new Map<string, string[]>();
  for (const chunk of chunks) {
    const list = byDoc.get(chunk.docId) ?? [];
    const passages: string[] = [];
    for (const span of list) {
      if (span.start >= chunk.end) break;
      if (span.end > chunk.start && span.end > span.start) passages.push(span.passageId);
    }
    out.set(chunk.id, passages);
  }
  return out;
}
