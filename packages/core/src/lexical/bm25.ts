import { InvalidArgumentError, StateError } from '../contracts/errors.js';
import { TopK } from '../top-k.js';

/** BM25 parameters. @default k1 1.2, b 0.75 (Robertson & Zaragoza 2009; the usual Lucene/rank_bm25 defaults) */
export const BM25_DEFAULTS = { k1: 1.2, b: 0.75 } as const;

/** Options of a {@link Bm25Index}. */
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

type Postings = Map<string, { docs: number[]; tfs: number[] }>;

/** What an index holds, before its postings become typed arrays (or as them, from arrays). */
interface Bm25Parts {
  lengths: Float64Array;
  lists?: Postings;
  /** Postings as the index keeps them ({@link Bm25Index.fromArrays}), taken as they are. */
  postings?: Map<string, { docs: Uint32Array; tfs: Uint16Array }>;
}

/**
 * A {@link Bm25Index} as arrays ({@link Bm25Index.toArrays}), to store it and read it back with
 * {@link Bm25Index.fromArrays} instead of tokenizing every text again.
 */
export interface Bm25Arrays {
  /** The terms, in the index's order. */
  terms: string[];
  /** Term `t`'s postings are `docs` and `tfs` from `offsets[t]` to `offsets[t + 1] - 1` (`terms.length + 1` offsets). */
  offsets: Uint32Array;
  /** The documents of each posting, ascending within a term. */
  docs: Uint32Array;
  /** Each posting's term frequency (capped at 65,535). */
  tfs: Uint16Array;
  /** Each document's length in terms. */
  lengths: Float64Array;
}

/** Parts handed from {@link Bm25Index.update} to the constructor (module-private). */
let adopted: Bm25Parts | undefined;

/** Append the postings of `text` as document `doc`; returns its length in terms. */
function indexText(lists: Postings, tokenize: (text: string) => string[], text: string, doc: number): number {
  const terms = tokenize(text);
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
  return terms.length;
}

/**
 * Okapi BM25 over a fixed set of documents with an inverted index: a query touches only the
 * postings of its terms, and scoring is exact (no hashing, no approximation). Ids are the positions
 * of the documents passed to the constructor. Rebuilding from the same texts gives the same index,
 * so an index persists its texts and rebuilds this on load; {@link Bm25Index.update} makes the
 * index of a changed corpus tokenizing only the new texts.
 */
export class Bm25Index {
  readonly options: Bm25Options;
  readonly size: number;
  readonly #postings = new Map<string, { docs: Uint32Array; tfs: Uint16Array }>();
  readonly #lengths: Float64Array;
  readonly #avgLength: number;
  // Scratch of a search (searches are synchronous, so one set per index), made on the first one:
  // each document's score so far, the documents touched, and each document's length norm.
  #acc: Float64Array | undefined;
  #touched: Uint32Array | undefined;
  #seen: Uint8Array | undefined;
  #norms: Float64Array | undefined;
  #searching = false;

  constructor(texts: readonly string[], options: Partial<Bm25Options> = {}) {
    const parts = adopted;
    adopted = undefined;
    this.options = { ...BM25_DEFAULTS, tokenize: tokenizeForBm25, ...options };
    if (!(this.options.k1 >= 0) || !(this.options.b >= 0 && this.options.b <= 1)) {
      throw new InvalidArgumentError(
        'options',
        `Bm25Index: need k1 >= 0 and 0 <= b <= 1, got k1=${this.options.k1}, b=${this.options.b}.`,
      );
    }
    let lengths: Float64Array;
    let lists: Postings = new Map();
    if (parts) {
      lengths = parts.lengths;
      lists = parts.lists ?? lists;
      for (const [term, posting] of parts.postings ?? []) this.#postings.set(term, posting);
    } else {
      lengths = new Float64Array(texts.length);
      lists = new Map();
      texts.forEach((text, doc) => {
        lengths[doc] = indexText(lists, this.options.tokenize, text, doc);
      });
    }
    this.size = lengths.length;
    this.#lengths = lengths;
    let total = 0;
    for (const length of lengths) total += length;
    this.#avgLength = lengths.length > 0 ? total / lengths.length : 0;
    for (const [term, list] of lists) {
      this.#postings.set(term, { docs: Uint32Array.from(list.docs), tfs: Uint16Array.from(list.tfs) });
    }
  }

  /**
   * A new index over this one's documents without the ids in `change.remove`, followed by
   * `change.add`'s texts: the same index as `new Bm25Index([...kept texts, ...add], options)`
   * (equal scores, bit for bit), but only the added texts are tokenized. Kept documents keep their
   * order and are renumbered (a kept id drops by the number of removed ids below it); document
   * frequencies, lengths and the average length follow the change. This index is not changed.
   *
   * @throws InvalidArgumentError when a removed id is not an id of this index.
   */
  update(change: { remove?: Iterable<number>; add?: readonly string[] }): Bm25Index {
    const removed = new Uint8Array(this.size);
    for (const id of change.remove ?? []) {
      if (!Number.isInteger(id) || id < 0 || id >= this.size) {
        throw new InvalidArgumentError(
          'remove',
          `Bm25Index.update: ${String(id)} is not a document id of this index (0 to ${this.size - 1}).`,
        );
      }
      removed[id] = 1;
    }
    const renumbered = new Int32Array(this.size);
    let kept = 0;
    for (let id = 0; id < this.size; id++) renumbered[id] = removed[id] ? -1 : kept++;
    const add = change.add ?? [];
    const lengths = new Float64Array(kept + add.length);
    for (let id = 0; id < this.size; id++) {
      if (!removed[id]) lengths[renumbered[id]!] = this.#lengths[id]!;
    }
    const lists: Postings = new Map();
    for (const [term, posting] of this.#postings) {
      const docs: number[] = [];
      const tfs: number[] = [];
      for (let i = 0; i < posting.docs.length; i++) {
        const id = renumbered[posting.docs[i]!]!;
        if (id < 0) continue;
        docs.push(id);
        tfs.push(posting.tfs[i]!);
      }
      if (docs.length > 0) lists.set(term, { docs, tfs });
    }
    add.forEach((text, i) => {
      lengths[kept + i] = indexText(lists, this.options.tokenize, text, kept + i);
    });
    adopted = { lengths, lists };
    return new Bm25Index([], this.options);
  }

  /** The index as arrays, for {@link Bm25Index.fromArrays}. */
  toArrays(): Bm25Arrays {
    const terms = [...this.#postings.keys()];
    const offsets = new Uint32Array(terms.length + 1);
    let n = 0;
    terms.forEach((term, t) => {
      n += this.#postings.get(term)!.docs.length;
      offsets[t + 1] = n;
    });
    const docs = new Uint32Array(n);
    const tfs = new Uint16Array(n);
    terms.forEach((term, t) => {
      const posting = this.#postings.get(term)!;
      docs.set(posting.docs, offsets[t]!);
      tfs.set(posting.tfs, offsets[t]!);
    });
    return { terms, offsets, docs, tfs, lengths: Float64Array.from(this.#lengths) };
  }

  /**
   * The index {@link Bm25Index.toArrays} gave, searching exactly as it did; `options` must be those
   * of that index (the tokenizer above all). Its postings are views of `arrays` (do not change them).
   * @throws InvalidArgumentError when the arrays do not fit together.
   */
  static fromArrays(arrays: Bm25Arrays, options: Partial<Bm25Options> = {}): Bm25Index {
    const { terms, offsets, docs, tfs, lengths } = arrays;
    const fail = (problem: string): never => {
      throw new InvalidArgumentError('arrays', `Bm25Index.fromArrays: ${problem}.`);
    };
    if (offsets.length !== terms.length + 1 || offsets[0] !== 0) {
      fail(`need ${terms.length + 1} offsets starting at 0, got ${offsets.length}`);
    }
    if (offsets[terms.length] !== docs.length || tfs.length !== docs.length) {
      fail(`the last offset, ${docs.length} docs and ${tfs.length} tfs disagree`);
    }
    for (const x of lengths) if (!(x >= 0 && Number.isInteger(x))) fail(`a document length is ${x}`);
    for (const d of docs) if (d >= lengths.length) fail(`a posting names document ${d} of ${lengths.length}`);
    const postings = new Map<string, { docs: Uint32Array; tfs: Uint16Array }>();
    terms.forEach((term, t) => {
      const [a, b] = [offsets[t]!, offsets[t + 1]!];
      if (b < a) fail(`the offsets of term ${t} decrease`);
      if (postings.has(term)) fail(`term ${JSON.stringify(term)} is listed twice`);
      postings.set(term, { docs: docs.subarray(a, b), tfs: tfs.subarray(a, b) });
    });
    adopted = { lengths, postings };
    return new Bm25Index([], options);
  }

  /** Robertson-Sparck Jones IDF with +1 inside the log, so it is never negative. */
  idf(term: string): number {
    const df = this.#postings.get(term)?.docs.length ?? 0;
    return Math.log(1 + (this.size - df + 0.5) / (df + 0.5));
  }

  /**
   * BM25 score of every document with at least one query term, best `k` first (ties: lower id);
   * with `options.filter`, only the documents it keeps (the best `k` of those).
   */
  search(
    query: string,
    k: number,
    options: { filter?: (id: number) => boolean } = {},
  ): { id: number; score: number }[] {
    if (this.#searching) {
      throw new StateError(
        'Bm25Index.search: a filter searched the same index; search it after this search returns.',
      );
    }
    this.#searching = true;
    try {
      return this.#search(query, k, options.filter);
    } finally {
      this.#searching = false;
    }
  }

  #search(
    query: string,
    k: number,
    filter: ((id: number) => boolean) | undefined,
  ): { id: number; score: number }[] {
    const count = this.#accumulate(query);
    const acc = this.#acc!;
    const touched = this.#touched!;
    let kept = 0;
    try {
      // The documents the filter keeps move to the front; the others' scores are cleared at once.
      for (let i = 0; i < count; i++) {
        const id = touched[i]!;
        if (filter === undefined || filter(id)) touched[kept++] = id;
        else acc[id] = 0;
      }
    } catch (error) {
      acc.fill(0);
      throw error;
    }
    const want = Math.min(Math.max(0, k), kept);
    let hits: { id: number; score: number }[];
    if (want < kept / 4) {
      // Few wanted: a bounded heap of the best (the same order as the sort below).
      const best = new TopK(1, want);
      for (let i = 0; i < kept; i++) best.offer(0, touched[i]!, acc[touched[i]!]!);
      const [ids, scores] = best.sorted(0);
      hits = Array.from(ids, (id, r) => ({ id, score: scores[r]! }));
    } else {
      const ids = touched.slice(0, kept).sort((x, y) => acc[y]! - acc[x]! || x - y);
      hits = Array.from(ids.subarray(0, want), (id) => ({ id, score: acc[id]! }));
    }
    for (let i = 0; i < kept; i++) acc[touched[i]!] = 0;
    return hits;
  }

  /**
   * Add the BM25 score of each query term to the accumulator of every document in its postings
   * (terms in query order, as the sum per document always was) and list the documents touched in
   * `#touched`; returns how many. The accumulator is zero again after each search.
   */
  #accumulate(query: string): number {
    const { k1, b } = this.options;
    if (this.#acc === undefined) {
      const avg = this.#avgLength || 1;
      this.#acc = new Float64Array(this.size);
      this.#touched = new Uint32Array(this.size);
      this.#seen = new Uint8Array(this.size);
      this.#norms = Float64Array.from(this.#lengths, (length) => k1 * (1 - b + (b * length) / avg));
    }
    const acc = this.#acc;
    const touched = this.#touched!;
    const norms = this.#norms!;
    const seen = this.#seen!;
    let count = 0;
    const terms = new Map<string, number>();
    for (const term of this.options.tokenize(query)) terms.set(term, (terms.get(term) ?? 0) + 1);
    for (const [term, qtf] of terms) {
      const posting = this.#postings.get(term);
      if (!posting) continue;
      const idf = this.idf(term);
      const { docs, tfs } = posting;
      for (let i = 0; i < docs.length; i++) {
        const doc = docs[i]!;
        const tf = tfs[i]!;
        if (seen[doc] === 0) {
          seen[doc] = 1;
          touched[count++] = doc;
        }
        acc[doc] = acc[doc]! + qtf * idf * ((tf * (k1 + 1)) / (tf + norms[doc]!));
      }
    }
    for (let i = 0; i < count; i++) seen[touched[i]!] = 0;
    return count;
  }
}
