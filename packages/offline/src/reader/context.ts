/**
 * The context as the reader reads it: every sentence of every item with its concepts, names and
 * numbers, and how well each matches a question (shared concepts weighted by rarity, the question's
 * names in the sentence or its item, an answer of the type asked for, the embedder's cosine).
 */
import { type ContextItem, type Embedder, embedAll, throwIfAborted } from '@grag/core';
import { dot } from '@grag/core/kit';
import type { EntityAnalysis } from '../entities.js';
import { questionTarget } from '../query.js';
import { inverseDocumentFrequency } from '../rank.js';
import { wordsOf } from '../words.js';
import {
  createItemReadings,
  type EntitiesOf,
  type ItemReading,
  type ItemReadings,
  readItem,
  sentenceVectors,
} from './items.js';
import { contentConcepts, predicateConcepts } from './meaning.js';
import { askedNames, otherNameConcepts } from './other-names.js';
import { containsPhrase, type ScoredSentence } from './support.js';
import type { AnswerSentence } from './types.js';

/** A question read against the context: its analysis, concepts, names and each sentence's score. */
export interface QuestionMatch {
  qea: EntityAnalysis;
  qTokens: EntityAnalysis['analysis']['tokens'];
  queryLemmas: Set<string>;
  queryKeys: string[];
  scores: number[];
  predicate: Set<string>;
}

/** The context read once, for every reading of the question. */
export interface ReaderContext {
  candidates: ScoredSentence[];
  /** The question read, and how well each context sentence matches it. */
  read(q: string): Promise<QuestionMatch>;
  /** The sentences with `scores` as the answer extractor takes them. */
  asAnswerSentences(scores: readonly number[]): AnswerSentence[];
}

/** Read `context` for the reader: its sentences, and a scorer of questions against them. */
export async function readContext(
  context: readonly (ContextItem & { item?: number })[],
  deps: { entitiesOf: EntitiesOf; embedder?: Embedder | undefined; items?: ItemReadings | undefined },
  abortSignal?: AbortSignal,
): Promise<ReaderContext> {
  const { entitiesOf, embedder } = deps;
  const items = deps.items ?? createItemReadings();
  const readings: ItemReading[] = [];
  const candidates: ScoredSentence[] = [];
  for (let item = 0; item < context.length; item++) {
    throwIfAborted(abortSignal);
    const text = context[item]!.text;
    let reading = items.get(text);
    if (!reading) {
      reading = await readItem(text, entitiesOf);
      items.set(text, reading);
    }
    readings.push(reading);
    for (const s of reading.sentences) candidates.push({ ...s, item });
  }
  // Each sentence's concepts as a set, for every reading of the question.
  const conceptSets = candidates.map((c) => new Set(c.lemmas));
  // The names each item mentions anywhere: a note or passage about X speaks of X in every sentence
  // ("The club was founded in 1961 by …" in the history of the Gig Club).
  const itemKeys = new Map<number, Set<string>>();
  for (const c of candidates) {
    const keys = itemKeys.get(c.item) ?? new Set<string>();
    itemKeys.set(c.item, keys);
    for (const k of c.keys) keys.add(k);
  }
  // …or as a phrase inside a longer name ("Gig Club" in "the Merrow Falls Gig Club").
  const itemLower = context.map((c) => c.text.toLowerCase());
  const sentenceLower = candidates.map((c) => c.text.toLowerCase());
  const idf = inverseDocumentFrequency(candidates.map((c) => c.lemmas));
  const maxIdf = Math.log(1 + candidates.length);
  // The context's embeddings are made once, for every reading of the question (and kept per item),
  // with their squared norms: a question's cosines are then one dot product per sentence.
  let textVectors: { vectors: Float32Array[]; squares: number[] } | undefined;
  const cosinesFor = async (q: string): Promise<number[] | null> => {
    if (!embedder || candidates.length === 0) return null;
    if (!textVectors) {
      const vectors = await sentenceVectors(readings, embedder, abortSignal);
      textVectors = { vectors, squares: vectors.map((v) => dot(v, v)) };
    }
    const { vectors, squares } = textVectors;
    const [qv] = await embedAll(embedder, [q], { abortSignal });
    const qq = dot(qv!, qv!);
    // As cosineSimilarity computes it, term for term.
    return vectors.map((v, i) =>
      qq === 0 || squares[i] === 0 ? 0 : dot(qv!, v) / Math.sqrt(qq * squares[i]!),
    );
  };

  /** The question read, and how well each context sentence matches it. */
  const read = async (q: string): Promise<QuestionMatch> => {
    const qea = await entitiesOf(q, false);
    const qTokens = qea.analysis.tokens;
    const queryLemmas = new Set(contentConcepts(qea.analysis, 0, qTokens.length - 1, true));
    const queryKeys = qea.entities.filter((e) => e.type !== 'concept').map((e) => e.key);
    const target = questionTarget(qTokens, { skipRelative: true });
    const queryNumbers = new Set(qTokens.filter((t) => t.type === 'number').map((t) => t.normal));
    const predicate = predicateConcepts(qea, target.start, target.end);
    // The relation words (not the names) say what is asked: they weigh a quarter more.
    const weightOf = (l: string): number => (predicate.has(l) ? 1.25 : 1);
    let queryWeight = 0;
    for (const l of queryLemmas) queryWeight += weightOf(l) * (idf.get(l) ?? maxIdf);
    const cosines = queryLemmas.size ? await cosinesFor(q) : null;
    const keyParts = queryKeys.map((k) => [k, k.split(' ')] as const);
    // Whether an item names a query entity as a phrase: asked once per item and entity.
    const named = new Map<string, boolean>();
    const itemNames = (item: number, k: string): boolean => {
      const key = `${item}\u0000${k}`;
      let has = named.get(key);
      if (has === undefined) {
        has = containsPhrase(itemLower[item]!, k);
        named.set(key, has);
      }
      return has;
    };
    // Words of an asked name that a sentence writes inside another name say nothing of it.
    const asked = askedNames(queryKeys, wordsOf(q));
    const scores = candidates.map((c, i) => {
      const other = otherNameConcepts(c.ea, c.index, asked);
      let overlap = 0;
      for (const l of conceptSets[i]!) {
        if (queryLemmas.has(l) && !other.has(l)) overlap += weightOf(l) * (idf.get(l) ?? 0);
      }
      const lexical = queryWeight > 0 ? overlap / queryWeight : 0;
      if (lexical === 0 && !(cosines && (cosines[i] ?? 0) > 0.2)) return 0;
      const lower = sentenceLower[i]!;
      // A query entity counts when the sentence names it, or names its first or last word
      // ("Varga" for "Elena Varga").
      const inItem = itemKeys.get(c.item)!;
      let entityHits = 0;
      for (const [k, parts] of keyParts) {
        if (c.keys.has(k) || containsPhrase(lower, k)) entityHits += 1;
        else if (parts.length > 1 && (c.keys.has(parts[0]!) || c.keys.has(parts[parts.length - 1]!)))
          entityHits += 1;
        // Named elsewhere in the same item, or taken up by its head noun ("the club").
        else if (
          inItem.has(k) ||
          itemNames(c.item, k) ||
          (parts.length > 1 && containsPhrase(lower, `the ${parts[parts.length - 1]}`))
        )
          entityHits += 0.6;
      }
      const entityScore = queryKeys.length ? entityHits / queryKeys.length : 0;
      let typeScore = 0;
      if (target.expectedType === 'number') {
        typeScore = c.numbers.some((n) => !queryNumbers.has(n)) ? 1 : 0;
      } else if (target.expectedType) {
        for (const [key, type] of c.types) {
          if (type === target.expectedType && !queryKeys.includes(key)) typeScore = 1;
        }
      }
      return (
        lexical + 0.5 * entityScore + 0.3 * typeScore + (cosines ? 0.5 * Math.max(0, cosines[i] ?? 0) : 0)
      );
    });
    return { qea, qTokens, queryLemmas, queryKeys, scores, predicate };
  };
  const asAnswerSentences = (scores: readonly number[]): AnswerSentence[] =>
    candidates.map((c, i) => ({
      ea: c.ea,
      index: c.index,
      item: c.item,
      text: c.text,
      lemmas: c.lemmas,
      types: c.types,
      ...(c.narrator ? { narrator: c.narrator } : {}),
      // Items come best first: a mild prior for earlier ones (a passage's is its item's).
      score: scores[i]! / (1 + 0.02 * (context[c.item]!.item ?? c.item)),
    }));

  return { candidates, read, asAnswerSentences };
}
