/**
 * The text channels that fill the budget the knowledge-graph channel leaves (see `TextChannel`):
 * the keyword channel (Algorithm 4, lines 2-4), the entry-point search alone, and whole chunks by
 * similarity, alone (Text-RAG) or followed by their KNN neighbours (KNNG-RAG).
 */
import type { RetrievedItem } from '@grag/core';
import { chunkItem, cosineSimilarity, RRF_K, rankDepthFor, searchVectors } from '@grag/core/kit';
import {
  cosineScores,
  descendingRankOf,
  keywordChannel,
  queryKeywordSeeds,
  rankKeywords,
} from '@grag/keyword-bipartite';
import { searchSubChunks } from './entry.js';
import { followNeighbours } from './ranking.js';
import type { KetRagIndex, KetRagKeywordIndex } from './types.js';

const subChunkItem = (index: KetRagIndex, position: number, score: number): RetrievedItem =>
  chunkItem(index.subChunks[position]!, index.subChunkTexts[position]!, score);

const chunkItemAt = (index: KetRagIndex, position: number, score: number): RetrievedItem =>
  chunkItem(index.chunks[position]!, index.chunkTexts[position]!, score);

/**
 * The hybrid score of each sub-chunk: reciprocal rank fusion (`reciprocalRankFusion`, k = RRF_K) of
 * its rank by cosine similarity to the query among all sub-chunks and its rank among the BM25 `hits`
 * with a positive score, both best first with ties by position. Computed from the ranks directly:
 * the same sums, in the same order, as fusing the two full rankings.
 */
function hybridUnitScore(
  keyword: KetRagKeywordIndex,
  q: Float32Array,
  hits: readonly { id: number; score: number }[],
): (unit: number) => number {
  const cosine = keyword.subChunkColumns
    ? cosineScores(q, keyword.subChunkColumns)
    : Float64Array.from(keyword.subChunkVectors, (v) => cosineSimilarity(q, v));
  const cosineRank = descendingRankOf(cosine);
  const lexicalRank = new Int32Array(cosine.length).fill(-1);
  let rank = 0;
  for (const hit of hits) if (hit.score > 0) lexicalRank[hit.id] = rank++;
  return (unit) => {
    const fused = 0 + 1 / (RRF_K + cosineRank(unit) + 1);
    const r = lexicalRank[unit]!;
    return r < 0 ? fused : fused + 1 / (RRF_K + r + 1);
  };
}

/**
 * The keyword channel. With `entryPoints` `'lexical'`: the query's own keywords as seeds (rarest
 * first), candidates by BM25; `'hybrid'`: those keywords, then the nearest by sentence embeddings,
 * candidates by cosine and BM25 fused by reciprocal rank; `'dense'`: the paper's (seed keywords
 * and candidates by embeddings).
 */
function keywordItems({ index, query, queryVector: q, budget }: TextChannelInput): TextChannelResult {
  const o = index.options;
  const keyword = index.keyword!;
  const lexical = index.entry?.lexical;
  let seeds: number[] | undefined;
  let unitScore: ((unit: number) => number) | undefined;
  if (o.entryPoints !== 'dense' && lexical) {
    // BM25 scores every sub-chunk with a query term, best first (ties: lower position first).
    const hits = lexical.search(query, lexical.size);
    const lexicalSeeds = queryKeywordSeeds(keyword.bipartite, query);
    if (o.entryPoints === 'lexical') {
      const bm25 = new Float64Array(lexical.size);
      for (const hit of hits) bm25[hit.id] = hit.score;
      seeds = lexicalSeeds;
      unitScore = (unit) => bm25[unit]!;
    } else {
      // The query's own keywords (rarest first), then the keywords nearest the query vector.
      const taken = new Set(lexicalSeeds);
      seeds = [
        ...lexicalSeeds,
        ...rankKeywords(q, keyword.keywordVectors, o.maxSeedKeywords)
          .map((k) => k.keyword)
          .filter((k) => !taken.has(k)),
      ];
      unitScore = hybridUnitScore(keyword, q, hits);
    }
  }
  const found = keywordChannel(
    {
      graph: keyword.bipartite,
      keywordVectors: keyword.keywordVectors,
      unitVectors: keyword.subChunkVectors,
      unitTokens: keyword.subChunkTokens,
    },
    q,
    {
      budgetTokens: budget,
      collectFactor: o.collectFactor,
      maxSeedKeywords: o.maxSeedKeywords,
      ...(seeds ? { seeds } : {}),
      ...(unitScore ? { unitScore } : {}),
    },
  );
  return {
    items: found.candidates.map((c) => subChunkItem(index, c.unit, c.score)),
    trace: {
      keywordSeeds: found.seeds.slice(0, 20).map((k) => keyword.bipartite.keywords[k]),
      keywordSeedCount: found.seeds.length,
      candidates: found.candidates.length,
    },
  };
}

/** What a text channel searches: the index, the query (and its embedding) and the channel's budget. */
export interface TextChannelInput {
  index: KetRagIndex;
  query: string;
  queryVector: Float32Array;
  /** Tokens the channel may fill. */
  budget: number;
}

/** A text channel's items, best first, before packing, and what it reports in the trace. */
export interface TextChannelResult {
  items: RetrievedItem[];
  trace: Record<string, unknown>;
}

/** Items of the index's text channel, best first, before packing. */
export async function textChannelItems(input: TextChannelInput): Promise<TextChannelResult> {
  const { index, query, queryVector: q, budget } = input;
  const o = index.options;
  if (o.textChannel === 'entry') {
    const k = rankDepthFor(index.subChunks.length, budget, index.meanTokens.subChunk);
    const hits = await searchSubChunks(index, query, q, k);
    return { items: hits.map((h) => subChunkItem(index, h.id, h.score)), trace: {} };
  }
  if (o.textChannel === 'keyword') return keywordItems(input);
  // 'dense' and 'knn': chunks by similarity to the query.
  const depth = rankDepthFor(index.chunks.length, budget, index.meanTokens.chunk);
  const hits = await searchVectors(index.chunkVectors!, q, depth);
  if (o.textChannel === 'dense')
    return { items: hits.map((h) => chunkItemAt(index, h.id, h.score)), trace: {} };
  // 'knn': each seed chunk followed by its KNN-graph neighbours (KNNG-RAG).
  const followed = followNeighbours(hits, index.knnNeighbours ?? []);
  return {
    items: followed.map((h) => chunkItemAt(index, h.id, h.score)),
    trace: { seedChunks: hits.length },
  };
}
