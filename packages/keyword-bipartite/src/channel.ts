/**
 * The keyword channel of KET-RAG's retrieval (Algorithm 4, lines 2-4): seed keywords by similarity
 * to the query, expanded until their neighbouring text units hold enough tokens, then those candidate
 * units ranked by similarity to the query.
 */
import { InvalidArgumentError, type VectorIndex } from '@grag/core';
import { cosineSimilarity } from '@grag/core/kit';
import type { KeywordBipartite } from './bipartite.js';
import { type KeywordOptions, keywordTokens } from './keywords.js';

/** Options of {@link keywordChannel}. */
export interface KeywordChannelOptions {
  /** The channel's token budget (the context it will fill). Required. */
  budgetTokens: number;
  /**
   * Candidates are collected until they would hold more than `collectFactor × budgetTokens` tokens.
   * @default 2 (official KET-RAG code; the paper's Algorithm 4 stops at the budget itself, i.e. 1)
   */
  collectFactor: number;
  /** Most seed keywords examined. @default 1000 (official KET-RAG code, a top-1000 keyword search) */
  maxSeedKeywords: number;
  /**
   * Seed keywords to walk, best first (positions in `graph.keywords`), instead of the keywords most
   * similar to the query vector (e.g. from a lexical or hybrid search); at most `maxSeedKeywords` are
   * read. @default undefined (by similarity to the query vector)
   */
  seeds?: readonly number[];
  /**
   * Score of a unit for the query, higher is better, instead of its cosine similarity to the query
   * vector (e.g. a fused dense + BM25 score); orders each seed's units and the final candidates.
   * @default undefined (cosine similarity)
   */
  unitScore?: (unit: number) => number;
}

/** Defaults of {@link keywordChannel}. */
export const KEYWORD_CHANNEL_DEFAULTS = { collectFactor: 2, maxSeedKeywords: 1000 } as const;

/** What {@link keywordChannel} searches. */
export interface KeywordChannelIndex {
  graph: KeywordBipartite;
  /** Keyword embeddings: one per keyword, or a vector index whose ids are keyword positions. */
  keywordVectors: readonly ArrayLike<number>[] | VectorIndex;
  /** Unit embeddings, aligned with `graph.units`. */
  unitVectors: readonly ArrayLike<number>[];
  /** Token count of each unit, aligned with `graph.units`. */
  unitTokens: ArrayLike<number>;
}

/** A candidate text unit of the keyword channel. */
export interface KeywordCandidate {
  /** Position in `graph.units`. */
  unit: number;
  /** Cosine similarity to the query (or `unitScore`). */
  score: number;
  /** Position (in `keywords`) of the seed keyword it was collected through. */
  seed: number;
}

/** The result of {@link keywordChannel}. */
export interface KeywordChannelResult {
  /** Candidate units, by similarity to the query, best first (equal scores: collection order). */
  candidates: KeywordCandidate[];
  /** Seed keywords used (positions in `graph.keywords`), in order of similarity. */
  seeds: number[];
  /** Tokens of the collected candidates. */
  collectedTokens: number;
  /** Whether collection stopped because the next unit would pass `collectFactor × budgetTokens`. */
  full: boolean;
}

/**
 * The keywords most similar to the query, best first: from a vector index over keyword positions, or
 * by cosine similarity over all keyword vectors (equal scores: lower position first).
 */
export function rankKeywords(
  queryVector: ArrayLike<number>,
  keywordVectors: readonly ArrayLike<number>[] | VectorIndex,
  k: number,
): { keyword: number; score: number }[] {
  if (!Array.isArray(keywordVectors) && typeof (keywordVectors as VectorIndex).search === 'function') {
    const index = keywordVectors as VectorIndex;
    return index.search(queryVector, Math.min(k, index.size)).map((h) => ({ keyword: h.id, score: h.score }));
  }
  const vectors = keywordVectors as readonly ArrayLike<number>[];
  return vectors
    .map((v, keyword) => ({ keyword, score: cosineSimilarity(queryVector, v) }))
    .sort((a, b) => b.score - a.score || a.keyword - b.keyword)
    .slice(0, k);
}

/**
 * KET-RAG's keyword channel: walk the keywords in order of similarity to the query; for each, take its
 * neighbouring units (the bipartite edges) in order of similarity to the query, skipping units already
 * taken, until the next unit would bring the collected tokens past `collectFactor × budgetTokens`;
 * then rank all collected units by similarity to the query. Pack the candidates into the budget
 * afterwards (e.g. with `packContext`).
 *
 * @throws InvalidArgumentError for a negative budget, a `collectFactor` below 1, or vectors that do
 * not match the units.
 */
export function keywordChannel(
  index: KeywordChannelIndex,
  queryVector: ArrayLike<number>,
  options: Partial<KeywordChannelOptions> & Pick<KeywordChannelOptions, 'budgetTokens'>,
): KeywordChannelResult {
  const o = { ...KEYWORD_CHANNEL_DEFAULTS, ...options };
  if (!Number.isFinite(o.budgetTokens) || o.budgetTokens < 0) {
    throw new InvalidArgumentError(
      'budgetTokens',
      `keywordChannel: budgetTokens must be a non-negative number, got ${o.budgetTokens}.`,
    );
  }
  if (!(o.collectFactor >= 1) || !Number.isFinite(o.collectFactor)) {
    throw new InvalidArgumentError(
      'collectFactor',
      `keywordChannel: collectFactor must be a finite number >= 1, got ${o.collectFactor}.`,
    );
  }
  const { graph, unitVectors, unitTokens } = index;
  if (unitVectors.length !== graph.units.length || unitTokens.length !== graph.units.length) {
    throw new InvalidArgumentError(
      'index',
      `keywordChannel: ${graph.units.length} units but ${unitVectors.length} unit vectors and ${unitTokens.length} token counts; pass one of each per unit.`,
    );
  }
  const result: KeywordChannelResult = { candidates: [], seeds: [], collectedTokens: 0, full: false };
  if (o.budgetTokens === 0 || graph.keywords.length === 0) return result;
  const limit = o.collectFactor * o.budgetTokens;
  const scores = new Map<number, number>();
  const score = (unit: number): number => {
    let s = scores.get(unit);
    if (s === undefined) {
      s = o.unitScore ? o.unitScore(unit) : cosineSimilarity(queryVector, unitVectors[unit]!);
      scores.set(unit, s);
    }
    return s;
  };
  const taken = new Set<number>();
  const seedOrder =
    o.seeds !== undefined
      ? o.seeds.slice(0, o.maxSeedKeywords)
      : rankKeywords(queryVector, index.keywordVectors, o.maxSeedKeywords).map((k) => k.keyword);
  for (const keyword of seedOrder) {
    const neighbours = Array.from(graph.keywordUnits[keyword] ?? [], (unit) => ({ unit, s: score(unit) }));
    neighbours.sort((a, b) => b.s - a.s || a.unit - b.unit);
    result.seeds.push(keyword);
    for (const { unit, s } of neighbours) {
      if (taken.has(unit)) continue;
      const tokens = unitTokens[unit]!;
      if (result.collectedTokens + tokens > limit) {
        result.full = true;
        break;
      }
      taken.add(unit);
      result.collectedTokens += tokens;
      result.candidates.push({ unit, score: s, seed: keyword });
    }
    if (result.full) break;
  }
  // Stable sort: equal scores keep collection order.
  result.candidates.sort((a, b) => b.score - a.score);
  return result;
}

const keywordPositions = new WeakMap<KeywordBipartite, Map<string, number>>();

/**
 * The lexical seed keywords of a query: the keywords of the query text ({@link keywordTokens}) that
 * are keyword nodes of `graph`, rarest first (fewest units, i.e. highest IDF; ties: order in the
 * query). What "most similar to the query" means for a keyword node when similarity is lexical: the
 * keyword occurs in the query, and a rare keyword says more than a common one.
 * @example queryKeywordSeeds(graph, 'Who built the Aurora Tern?') // positions of 'aurora', 'tern', 'built', rarest first
 */
export function queryKeywordSeeds(
  graph: KeywordBipartite,
  query: string,
  options: Partial<KeywordOptions> = {},
): number[] {
  let positions = keywordPositions.get(graph);
  if (!positions) {
    positions = new Map(graph.keywords.map((k, i) => [k, i]));
    keywordPositions.set(graph, positions);
  }
  const found: { keyword: number; units: number; order: number }[] = [];
  const seen = new Set<number>();
  keywordTokens(query, options).forEach((word, order) => {
    const keyword = positions.get(word);
    if (keyword === undefined || seen.has(keyword)) return;
    seen.add(keyword);
    found.push({ keyword, units: graph.keywordUnits[keyword]?.length ?? 0, order });
  });
  found.sort((a, b) => a.units - b.units || a.order - b.order);
  return found.map((f) => f.keyword);
}
