import { InvalidArgumentError } from '../errors.js';

/** BM25 parameters. @default k1 1.2, b 0.75 (Robertson & Zaragoza 2009; the usual Lucene/rank_bm25 defaults) */
export const BM25_DEFAULTS = { k1: 1.2, b: 0.75 } as const;

export interface Bm25Options {
  /** Term-frequency saturation. @default 1.2 */
  k1: number;
  /** Length normalization. @default 0.75 */
  b: number;
  /** Turns text into terms. @default lower-cased letter/digit runs minus English stop words */
  tokenize: (text: string) => string[];
}

/** A compact English stop-word list for lexical retrieval. */
export const BM25_STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below between both but by ' +
    'can could did do does doing down during each few for from further had has have having he her here hers herself him ' +
    'himself his how i if in into is it its itself just me more most my myself no nor not now of off on once only or other ' +
    'our ours ourselves out over own same she should so some such than that the their theirs them themselves then there ' +
    'these they this those through to too under until up very was we were what when where which while who whom why will ' +
    'with would you your yours yourself yourselves'
  ).split(' '),
);

/** Lower-cased runs of letters and digits, minus {@link BM25_STOP_WORDS}. */
export function tokenizeForBm25(text: string): string[] {
  const terms: string[] = [];
  for (const match of text.toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)) {
    if (!BM25_STOP_WORDS.has(match[0])) terms.push(match[0]);
  }
  return terms;
}

/**
 * Okapi BM25 over a fixed set of documents with an inverted index: a query touches only the
 * postings of its terms, and scoring is exact (no hashing, no approximation). Ids are the positions
 * of the documents passed to the constructor. Rebuilding from the same texts gives the same index,
 * so an index persists its texts and rebuilds this on load.
 */
export class Bm25Index {
  readonly options: Bm25Options;
  readonly size: number;
  readonly #postings = new Map<string, { docs: Uint32Array; tfs: Uint16Array }>();
  readonly #lengths: Float64Array;
  readonly #avgLength: number;

  constructor(texts: readonly string[], options: Partial<Bm25Options> = {}) {
    this.options = { ...BM25_DEFAULTS, tokenize: tokenizeForBm25, ...options };
    if (!(this.options.k1 >= 0) || !(this.options.b >= 0 && this.options.b <= 1)) {
      throw new InvalidArgumentError(
        'options',
        `Bm25Index: need k1 >= 0 and 0 <= b <= 1, got k1=${this.options.k1}, b=${this.options.b}.`,
      );
    }
    this.size = texts.length;
    this.#lengths = new Float64Array(texts.length);
    const lists = new Map<string, { docs: number[]; tfs: number[] }>();
    let total = 0;
    texts.forEach((text, doc) => {
      const terms = this.options.tokenize(text);
      this.#lengths[doc] = terms.length;
      total += terms.length;
      const counts = new Map<string, number>();
      for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
      for (const [term, tf] of counts) {
        let list = lists.get(term);
        if (!list) {
          list = { docs: [], tfs: [] };
          lists.set(term, list);
        }
        list.docs.push(doc);
        list.tfs.push(Math.min(tf, 0xffff));
      }
    });
    this.#avgLength = texts.length > 0 ? total / texts.length : 0;
    for (const [term, list] of lists) {
      this.#postings.set(term, { docs: Uint32Array.from(list.docs), tfs: Uint16Array.from(list.tfs) });
    }
  }

  /** Robertson-Sparck Jones IDF with +1 inside the log, so it is never negative. */
  idf(term: string): number {
    const df = this.#postings.get(term)?.docs.length ?? 0;
    return Math.log(1 + (this.size - df + 0.5) / (df + 0.5));
  }

  /** BM25 score of every document with at least one query term, best `k` first (ties: lower id). */
  search(query: string, k: number): { id: number; score: number }[] {
    const { k1, b } = this.options;
    const scores = new Map<number, number>();
    const terms = new Map<string, number>();
    for (const term of this.options.tokenize(query)) terms.set(term, (terms.get(term) ?? 0) + 1);
    for (const [term, qtf] of terms) {
      const posting = this.#postings.get(term);
      if (!posting) continue;
      const idf = this.idf(term);
      for (let i = 0; i < posting.docs.length; i++) {
        const doc = posting.docs[i]!;
        const tf = posting.tfs[i]!;
        const norm = k1 * (1 - b + (b * this.#lengths[doc]!) / (this.#avgLength || 1));
        scores.set(doc, (scores.get(doc) ?? 0) + qtf * idf * ((tf * (k1 + 1)) / (tf + norm)));
      }
    }
    return [...scores]
      .map(([id, score]) => ({ id, score }))
      .sort((x, y) => y.score - x.score || x.id - y.id)
      .slice(0, Math.max(0, k));
  }
}
