/**
 * The context items as the reader reads them, kept by text: each item's sentences with their
 * concepts, names, numbers and narrator, and the embeddings of those sentences. What is read from
 * an item depends on its text only (and on the task suite's settings and embedder, fixed per
 * reader), and the same passages reach the reader question after question.
 */
import { type Embedder, embedAll, isFittableEmbedder } from '@grag/core';
import type { EntityAnalysis } from '../entities.js';
import { analyze, spanText } from '../nlp.js';
import { titleLine } from '../readings.js';
import { HashedTfidfEmbedder } from '../tfidf-embedder.js';
import { contentConcepts } from './meaning.js';
import { headerOf, narratorOf } from './narrator.js';
import type { ScoredSentence } from './support.js';

/** The entity reading of a text (see `ReaderDeps.entitiesOf`). */
export type EntitiesOf = (text: string, full: boolean, subject?: string) => Promise<EntityAnalysis>;

/** One sentence of an item as the reader reads it: all but the item's position in a context. */
export type ItemSentence = Omit<ScoredSentence, 'item'>;

/** An item's reading: its sentences, and their embeddings once a question needed them. */
export interface ItemReading {
  sentences: ItemSentence[];
  /** The sentences' embeddings, with the embedder state ({@link embedderState}) they were made in. */
  vectors?: { state: string; vectors: Float32Array[] };
}

/** Item readings by text. */
export interface ItemReadings {
  get(text: string): ItemReading | undefined;
  set(text: string, reading: ItemReading): void;
}

/**
 * Item readings kept per reader: the passages of about eleven 12k-token contexts, some 40 MB with
 * their embeddings.
 */
const ITEMS_KEPT = 1024;

/** {@link ItemReadings} that keep the {@link ITEMS_KEPT} items read last. */
export function createItemReadings(): ItemReadings {
  const kept = new Map<string, ItemReading>();
  return {
    get(text) {
      const hit = kept.get(text);
      if (hit) {
        kept.delete(text);
        kept.set(text, hit);
      }
      return hit;
    },
    set(text, reading) {
      kept.set(text, reading);
      if (kept.size > ITEMS_KEPT) kept.delete(kept.keys().next().value!);
    },
  };
}

/**
 * What a note without a title line is about: the name its first sentence opens with, before "is",
 * "was" or a comma ("The Lindqvist Institute is a music school …"), so that "It has 420 students"
 * is read as about it. undefined when the text has a title line (the reading takes that) or opens
 * otherwise.
 */
async function leadSubject(text: string): Promise<string | undefined> {
  if (titleLine(text) !== undefined) return undefined;
  const { tokens, sentences } = await analyze(text);
  const first = sentences[0];
  if (!first) return undefined;
  let i = first.start;
  if (tokens[i]?.normal === 'the') i++;
  let j = i;
  while (j <= first.end && tokens[j]!.type === 'word' && /^\p{Lu}/u.test(tokens[j]!.value)) j++;
  return j > i && /^(is|was|are|were|,)$/.test(tokens[j]?.normal ?? '')
    ? spanText(tokens, i, j - 1)
    : undefined;
}

/** The sentences of an item's text with their concepts, names, numbers and its note's narrator. */
export async function readItem(text: string, entitiesOf: EntitiesOf): Promise<ItemReading> {
  const ea = await entitiesOf(text, true, await leadSubject(text));
  const narrator = /\b(my|our)\b/i.test(text)
    ? narratorOf(text, await entitiesOf(headerOf(text), false))
    : null;
  const sentences: ItemSentence[] = [];
  for (const s of ea.analysis.sentences) {
    const keys = new Set<string>();
    const types = new Map<string, string>();
    for (const m of ea.bySentence[s.index] ?? []) {
      keys.add(m.key);
      types.set(m.key, ea.byKey.get(m.key)?.type ?? 'other');
    }
    const numbers = ea.analysis.tokens
      .slice(s.start, s.end + 1)
      .filter((t) => t.type === 'number')
      .map((t) => t.normal);
    sentences.push({
      text: s.text,
      lemmas: contentConcepts(ea.analysis, s.start, s.end, true),
      keys,
      types,
      numbers,
      ea,
      index: s.index,
      ...(narrator ? { narrator } : {}),
    });
  }
  return { sentences };
}

/**
 * What an embedder's embedding of a text depends on besides the text: the hashed TF-IDF
 * embedder's fitted state (its revision); nothing for an embedder not fitted on a corpus.
 * undefined for another fitted embedder, whose embeddings are then not kept.
 */
function embedderState(embedder: Embedder): string | undefined {
  if (embedder instanceof HashedTfidfEmbedder) return `revision ${embedder.revision}`;
  return isFittableEmbedder(embedder) ? undefined : 'fixed';
}

/**
 * The embeddings of the sentences of `readings`, in order: kept ones reused, the others made in
 * one call and kept when the embedder's state allows it.
 */
export async function sentenceVectors(
  readings: readonly ItemReading[],
  embedder: Embedder,
  abortSignal: AbortSignal | undefined,
): Promise<Float32Array[]> {
  const state = embedderState(embedder);
  const missing = readings.filter((r) => state === undefined || r.vectors?.state !== state);
  const made = new Map<ItemReading, Float32Array[]>();
  if (missing.length > 0) {
    const vectors = await embedAll(
      embedder,
      missing.flatMap((r) => r.sentences.map((s) => s.text)),
      { abortSignal },
    );
    let at = 0;
    for (const r of missing) {
      const own = vectors.slice(at, at + r.sentences.length);
      at += r.sentences.length;
      made.set(r, own);
      if (state !== undefined) r.vectors = { state, vectors: own };
    }
  }
  return readings.flatMap((r) => made.get(r) ?? r.vectors!.vectors);
}
