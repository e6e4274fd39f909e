/**
 * Extractive summaries for the offline tasks, sentences ranked by TextRank centrality and
 * IDF-weighted overlap: a summary of texts within a token budget (`summarize`), a chunk's title and
 * description (`titleAndDescription`), and a community's relevance to a query and its report
 * (`assessCommunity`).
 */
import {
  type CommunityAssessment,
  type Embedder,
  embedAll,
  type TitleDescription,
  type Tokenizer,
} from '@grag/core';
import { cosineSimilarity, RecentMemo } from '@grag/core/kit';
import type { EntityAnalysis } from './entities.js';
import { GENERIC_KEYWORDS } from './lexicon.js';
import { analyze, contentLemmas, isContent } from './nlp.js';
import { inverseDocumentFrequency, rankSentences } from './rank.js';
import { type SentenceLemmas, sentenceLemmas } from './sentence-lemmas.js';
import { type SparseVector, sparseCosine, sparseOf, sumOfSquares } from './sparse-cosine.js';
import type { OfflineTasksOptions } from './tasks-options.js';
import { joinSentences, titleCase, wordCount } from './words.js';

/** Entity types that are no keyword of a title. */
const NUMERIC_TYPES = new Set(['date', 'time', 'money', 'percent', 'contact', 'url']);

/** What {@link summarizeTexts} counts with: a tokenizer's `count` and `truncate` (its name, when known). */
export type SummaryCounter = Pick<Tokenizer, 'count' | 'truncate'> &
  Partial<Pick<Tokenizer, 'name' | 'additiveAfterBlankLine'>>;

/**
 * Encodings whose pre-tokenizer always ends a piece before a space that follows a non-whitespace
 * character (cl100k's pattern: no piece runs on past a non-whitespace character into a space, and
 * a space can only start a piece), so BPE never merges across it: `count(a + ' ' + b)` is
 * `count(a) + count(' ' + b)` when neither `a` ends nor `b` starts with whitespace.
 */
const SPACE_ADDITIVE_ENCODINGS = new Set(['cl100k_base']);

/** Whitespace at either end, for tiktoken's `\s` (Unicode White_Space, NEL included). */
const EDGE_SPACE = /^[\s\u0085]|[\s\u0085]$/u;

/**
 * The token count of the texts at `ids` joined with single spaces. With a tiktoken encoding whose
 * counts add up across such a space (and texts without whitespace at their ends), from each text's
 * count alone and after a space, each counted once; else by counting the joined text.
 */
function joinedCounter(
  texts: readonly string[],
  counter: SummaryCounter,
): (ids: readonly number[]) => number {
  const additive =
    counter.additiveAfterBlankLine === true &&
    SPACE_ADDITIVE_ENCODINGS.has(counter.name ?? '') &&
    texts.every((t) => t !== '' && !EDGE_SPACE.test(t));
  if (!additive) return (ids) => counter.count(ids.map((k) => texts[k]!).join(' '));
  const alone = new Map<number, number>();
  const after = new Map<number, number>();
  const cached = (map: Map<number, number>, k: number, text: string): number => {
    let n = map.get(k);
    if (n === undefined) {
      n = counter.count(text);
      map.set(k, n);
    }
    return n;
  };
  return (ids) => {
    let total = 0;
    ids.forEach((k, at) => {
      total += at === 0 ? cached(alone, k, texts[k]!) : cached(after, k, ` ${texts[k]!}`);
    });
    return total;
  };
}

/**
 * The sentences of texts summarized recently. Description lists repeat their texts (one sentence
 * describes an entity, another entity and their relation): of the 121,485 texts KET-RAG's build of a
 * 1M-token corpus summarizes, 46,935 are distinct. Only texts of at most
 * {@link MEMO_MAX_CHARS} characters are kept: descriptions are short, while the long texts summarized
 * (E2GraphRAG's chunks and summaries, about 1,000 characters) do not repeat, and kept they took
 * about 4 KB each: some 200 MB at 50,000, through E2GraphRAG's whole build of 10M tokens.
 */
const recentSentences = new RecentMemo<string, SentenceLemmas[]>(50_000);
/** The longest text {@link recentSentences} keeps (so it holds at most 50,000 × 512 characters). */
const MEMO_MAX_CHARS = 512;

async function summarySentences(text: string): Promise<SentenceLemmas[]> {
  if (text.length > MEMO_MAX_CHARS) return sentenceLemmas(text);
  return recentSentences.get(text) ?? recentSentences.set(text, await sentenceLemmas(text));
}

/** Summarize `texts` within `maxTokens` tokens: all their sentences when they fit, else the most central that do. */
export async function summarizeTexts(
  texts: readonly string[],
  maxTokens: number,
  counter: SummaryCounter,
): Promise<string> {
  const seen = new Set<string>();
  const sentences: SentenceLemmas[] = [];
  // Each text's sentences and content lemmas as `analyze` gives them, read without wink's NER.
  for (const text of texts) {
    for (const sentence of await summarySentences(text)) {
      const norm = sentence.text.toLowerCase().replace(/\s+/g, ' ');
      if (seen.has(norm)) continue;
      seen.add(norm);
      sentences.push(sentence);
    }
  }
  if (sentences.length === 0) return '';
  // Joined with spaces only: a full stop after each heading line would change which sentences
  // fit the budget (measured: E2GraphRAG's summary tree lost 1.4 points of R@5 on 2Wiki).
  const all = sentences.map((s) => s.text).join(' ');
  if (counter.count(all) <= maxTokens) return all;
  const chosen: number[] = [];
  const countJoined = joinedCounter(
    sentences.map((s) => s.text),
    counter,
  );
  for (const i of rankSentences(sentences.map((s) => s.lemmas))) {
    const trial = [...chosen, i].sort((a, b) => a - b);
    if (countJoined(trial) <= maxTokens) chosen.splice(0, chosen.length, ...trial);
  }
  if (chosen.length === 0) {
    const best = rankSentences(sentences.map((s) => s.lemmas))[0]!;
    return counter.truncate(sentences[best]!.text, maxTokens).trim();
  }
  return chosen.map((k) => sentences[k]!.text).join(' ');
}

/** A reading's title (its most weighty named entities and nouns) and description (its most central sentences). */
export function titleAndDescriptionOf(
  ea: EntityAnalysis,
  settings: Pick<OfflineTasksOptions, 'titleKeywords' | 'titleWords' | 'descriptionWords'>,
): TitleDescription {
  const { tokens, sentences } = ea.analysis;
  // Keywords: named entities (a mention counts 1.5) and noun lemmas outside them.
  const weights = new Map<string, { label: string; weight: number; first: number }>();
  const inEntity = new Uint8Array(tokens.length);
  for (const e of ea.entities) {
    if (NUMERIC_TYPES.has(e.type)) continue;
    for (const m of e.mentions) for (let i = m.start; i <= m.end; i++) inEntity[i] = 1;
    weights.set(e.key, {
      label: e.name,
      weight: 1.5 * e.mentions.length,
      first: e.mentions[0]?.start ?? 0,
    });
  }
  for (const t of tokens) {
    if (
      inEntity[t.index] ||
      t.pos !== 'NOUN' ||
      !isContent(t) ||
      t.lemma.length < 3 ||
      GENERIC_KEYWORDS.has(t.lemma)
    )
      continue;
    if (!/^\p{L}[\p{L}-]*$/u.test(t.lemma)) continue;
    const entry = weights.get(t.lemma) ?? { label: titleCase(t.lemma), weight: 0, first: t.index };
    entry.weight += 1;
    weights.set(t.lemma, entry);
  }
  const keywords = [...weights.values()].sort((a, b) => b.weight - a.weight || a.first - b.first);
  const titleParts: string[] = [];
  let titleWordCount = 0;
  for (const k of keywords) {
    if (titleParts.length >= settings.titleKeywords) break;
    const n = wordCount(k.label);
    if (titleWordCount + n > settings.titleWords) continue;
    titleParts.push(k.label);
    titleWordCount += n;
  }
  // Description: the most central sentences, in text order, within the word budget.
  const order = rankSentences(sentences.map((s) => contentLemmas(ea.analysis, s.start, s.end)));
  const chosen: number[] = [];
  let words = 0;
  for (const i of order) {
    const n = wordCount(sentences[i]!.text);
    if (words + n > settings.descriptionWords) continue;
    chosen.push(i);
    words += n;
  }
  let description = joinSentences(chosen.sort((a, b) => a - b).map((i) => sentences[i]!.text));
  if (!description && order.length) {
    const first = sentences[order[0]!]!.text.split(/\s+/);
    description = `${first.slice(0, settings.descriptionWords).join(' ')}…`;
  }
  return { title: titleParts.join(', '), description, issues: [] };
}

/**
 * How relevant `community` is to `query` (0 to 10: embedding cosine with an `embedder`, else the
 * share of the query's lemmas it holds) and its report: the sentences most relevant to the query.
 */
export async function assessCommunityOf(
  query: string,
  community: string,
  embedder: Embedder | undefined,
  settings: Pick<OfflineTasksOptions, 'reportSentences'>,
  signal?: AbortSignal,
): Promise<CommunityAssessment> {
  // The query's analysis is memoized (one query, several communities); a community is read once.
  const [qa, sentences] = await Promise.all([analyze(query), sentenceLemmas(community)]);
  const queryLemmas = new Set(contentLemmas(qa, 0, qa.tokens.length - 1));
  const lemmasOf = sentences.map((s) => s.lemmas);
  const communityLemmas = new Set(lemmasOf.flat());
  let score: number;
  const cosines = await embedCosines(
    embedder,
    query,
    community,
    sentences.map((s) => s.text),
    signal,
  );
  if (cosines) {
    score = 10 * Math.sqrt(Math.max(0, cosines[0] ?? 0));
  } else {
    let hits = 0;
    for (const l of queryLemmas) if (communityLemmas.has(l)) hits++;
    score = queryLemmas.size ? (10 * hits) / queryLemmas.size : 0;
  }
  score = Math.round(Math.min(10, score) * 10) / 10;
  // Report: the sentences most relevant to the query (central ones when none is).
  const idf = inverseDocumentFrequency(lemmasOf);
  const relevance = lemmasOf.map((lemmas, i) => {
    let overlap = 0;
    for (const l of new Set(lemmas)) if (queryLemmas.has(l)) overlap += idf.get(l) ?? 0;
    return overlap + (cosines ? Math.max(0, cosines[i + 1] ?? 0) : 0);
  });
  let picked = relevance
    .map((r, i) => ({ r, i }))
    .filter((x) => x.r > 0)
    .sort((a, b) => b.r - a.r || a.i - b.i)
    .slice(0, settings.reportSentences)
    .map((x) => x.i);
  if (picked.length === 0) picked = rankSentences(lemmasOf).slice(0, settings.reportSentences);
  const report = picked
    .sort((a, b) => a - b)
    .map((i) => sentences[i]!.text)
    .join(' ');
  return { score, report, issues: [] };
}

/**
 * Cosine of `query` with `community` and then each of `sentences` by `embedder`, or null without one.
 * The sentences' vectors are kept (sparse) per embedder for later assessments: communities share
 * chunks, so most of their sentences were embedded before (70 % of the 55,470 sentences DA-RAG's
 * paper preset assesses for 80 questions on a 1M-token corpus).
 */
async function embedCosines(
  embedder: Embedder | undefined,
  query: string,
  community: string,
  sentences: readonly string[],
  signal?: AbortSignal,
): Promise<number[] | null> {
  if (!embedder) return null;
  let memo = sentenceVectors.get(embedder);
  if (memo === undefined) {
    memo = new RecentMemo<string, SparseVector>(SENTENCE_VECTORS);
    sentenceVectors.set(embedder, memo);
  }
  const found = new Map<string, SparseVector>();
  const missing = new Set<string>();
  for (const text of sentences) {
    if (found.has(text) || missing.has(text)) continue;
    const vector = memo.get(text);
    if (vector) found.set(text, vector);
    else missing.add(text);
  }
  const vectors = await embedAll(embedder, [query, community, ...missing], { abortSignal: signal });
  [...missing].forEach((text, i) => {
    found.set(text, memo.set(text, sparseOf(vectors[i + 2]!)));
  });
  const q = vectors[0]!;
  const qq = sumOfSquares(q);
  return [
    cosineSimilarity(q, vectors[1]!),
    ...sentences.map((text) => sparseCosine(q, qq, found.get(text)!)),
  ];
}

/** How many sentence vectors {@link embedCosines} keeps per embedder (a few hundred bytes each). */
const SENTENCE_VECTORS = 20_000;
const sentenceVectors = new WeakMap<Embedder, RecentMemo<string, SparseVector>>();
