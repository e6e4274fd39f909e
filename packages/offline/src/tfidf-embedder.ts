/**
 * `HashedTfidfEmbedder`: TF-IDF over word unigrams, word bigrams and character n-grams, hashed
 * with signed feature hashing (Weinberger et al. 2009) straight into a fixed number of dimensions.
 */
import {
  type EmbedCallOptions,
  type EmbedResult,
  type FittableEmbedder,
  InvalidArgumentError,
  throwIfAborted,
} from '@grag/core';
import { FeatureCounts } from './feature-counts.js';
import { base64ToFloat32, fnv1a, mix32, typedToBase64 } from './hash.js';

/** Options of {@link HashedTfidfEmbedder}. */
export interface HashedTfidfOptions {
  /**
   * Output dimensions. Signed hashing into `dimensions` buckets is itself a random projection; its
   * cosine error shrinks like `1/√dimensions`: about ±0.03 at 1024, well under the usual gap
   * between related and unrelated passages, for 4 KB per float32 vector. @default 1024
   */
  dimensions: number;
  /**
   * Buckets of the IDF table (each feature's IDF is its bucket's). Persisted as one float32 per
   * bucket by `state()`: 2^18 buckets ≈ 1.4 MB of base64. @default 262144 (2^18)
   */
  idfBuckets: number;
  /** Add word bigrams ("university of", "of paris"). @default true */
  wordBigrams: boolean;
  /** Shortest character n-gram, taken inside `<word>` boundaries; 0 disables character n-grams. @default 3 */
  charNgramMin: number;
  /** Longest character n-gram. @default 5 */
  charNgramMax: number;
  /** Weight of the (separately normalized) word-unigram part. @default 1 */
  wordWeight: number;
  /** Weight of the word-bigram part. @default 0.5 */
  bigramWeight: number;
  /** Weight of the character n-gram part. @default 0.7 */
  charWeight: number;
  /** Strip diacritics ("São" = "Sao") before hashing. @default true */
  foldDiacritics: boolean;
}

/** Defaults of {@link HashedTfidfOptions}. */
export const HASHED_TFIDF_DEFAULTS: Readonly<HashedTfidfOptions> = {
  dimensions: 1024,
  idfBuckets: 2 ** 16,
  wordBigrams: true,
  charNgramMin: 3,
  charNgramMax: 5,
  wordWeight: 1,
  bigramWeight: 0.5,
  charWeight: 1,
  foldDiacritics: true,
};

/** JSON state written by {@link HashedTfidfEmbedder.state}. */
export interface HashedTfidfState {
  kind: 'hashed-tfidf';
  version: 1;
  options: HashedTfidfOptions;
  /** Number of texts the IDF was fitted on (0 before `fit`). */
  documents: number;
  /** Base64 of the little-endian float32 IDF per bucket, or null before `fit`. */
  idf: string | null;
}

const SEED_WORD = 0x811c9dc5;
const SEED_BIGRAM = 0x2f1a9c3b;
const SEED_CHAR = 0x6b43a9b5;
const WORD_RE = /[\p{L}\p{N}]+/gu;
const CHAR_CACHE_LIMIT = 200_000;

/** `1 + ln(count)` of the small counts most features have (the same doubles `Math.log` gives). */
const SUBLINEAR_TF = Float64Array.from({ length: 256 }, (_, count) => 1 + Math.log(count));

/** Sublinear term frequency, `1 + ln(count)`. */
function sublinearTf(count: number): number {
  return count < SUBLINEAR_TF.length ? SUBLINEAR_TF[count]! : 1 + Math.log(count);
}

/**
 * Hashed features of one text, with counts, per group, each in first-seen order (the order the
 * vector's sums run in).
 */
interface Features {
  words: FeatureCounts;
  bigrams: FeatureCounts;
  chars: FeatureCounts;
  wordCount: number;
}

function validate(options: HashedTfidfOptions): void {
  const int = (name: keyof HashedTfidfOptions, min: number, max = Number.MAX_SAFE_INTEGER): void => {
    const value = options[name];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      throw new InvalidArgumentError(
        name,
        `HashedTfidfEmbedder: ${name} must be an integer in [${min}, ${max}], got ${String(value)}.`,
      );
    }
  };
  int('dimensions', 1, 1 << 20);
  int('idfBuckets', 1, 1 << 26);
  int('charNgramMin', 0, 16);
  int('charNgramMax', 0, 16);
  if (options.charNgramMin > 0 && options.charNgramMax < options.charNgramMin) {
    throw new InvalidArgumentError(
      'charNgramMax',
      'HashedTfidfEmbedder: charNgramMax must be >= charNgramMin.',
    );
  }
  for (const name of ['wordWeight', 'bigramWeight', 'charWeight'] as const) {
    if (!(options[name] >= 0) || !Number.isFinite(options[name])) {
      throw new InvalidArgumentError(name, `HashedTfidfEmbedder: ${name} must be a finite number >= 0.`);
    }
  }
}

/**
 * A fast, deterministic, dependency-free text embedder: sublinear TF (`1 + ln tf`) × IDF over
 * lower-cased word unigrams, word bigrams and character 3-5-grams within word boundaries, each
 * group L2-normalized and weighted, signed-hashed into `dimensions` buckets and L2-normalized.
 *
 * `fit(corpus)` learns the IDF (`ln((1 + n) / (1 + df)) + 1` per hash bucket) and replaces any
 * earlier fit. Before `fit` the embedder still works, with a uniform IDF of 1 (plain sublinear
 * TF), so it can embed a few texts ad hoc; `fitted` tells which. A text with no word gives the
 * zero vector.
 */
/** Texts up to this many characters have their embeddings memoized (see `HashedTfidfEmbedder`). */
const MEMO_MAX_CHARS = 1000;
/** Embeddings memoized at most. */
const MEMO_ENTRIES = 4096;

export class HashedTfidfEmbedder implements FittableEmbedder {
  readonly specificationVersion = 'v1' as const;
  readonly provider = 'offline';
  readonly modelId = 'hashed-tfidf-v1';
  readonly dimensions: number;
  readonly maxBatchSize = 1024;
  readonly options: Readonly<HashedTfidfOptions>;
  #idf: Float32Array | null = null;
  #documents = 0;
  #revision = 0;
  readonly #charCache = new Map<string, Uint32Array>();
  /**
   * The features of the text being embedded, reused from text to text (embedding is synchronous):
   * one text's counts are read before the next text's are made.
   */
  readonly #counts: Features = {
    words: new FeatureCounts(),
    bigrams: new FeatureCounts(),
    chars: new FeatureCounts(),
    wordCount: 0,
  };

  constructor(options: Partial<HashedTfidfOptions> = {}) {
    const merged = { ...HASHED_TFIDF_DEFAULTS, ...options };
    validate(merged);
    this.options = Object.freeze(merged);
    this.dimensions = merged.dimensions;
  }

  /** An embedder restored from a state written by {@link HashedTfidfEmbedder.state}, with its options. */
  static fromState(state: unknown): HashedTfidfEmbedder {
    const options = HashedTfidfEmbedder.#check(state).options;
    const embedder = new HashedTfidfEmbedder(options);
    embedder.restore(state);
    return embedder;
  }

  get fitted(): boolean {
    return this.#idf !== null;
  }

  /**
   * How many times the IDF was fitted or restored. While it stays the same, the same text gets the
   * same embedding, so embeddings kept with it can be reused.
   */
  get revision(): number {
    return this.#revision;
  }

  /** Number of texts the IDF was fitted on. */
  get documents(): number {
    return this.#documents;
  }

  #charGrams(word: string): Uint32Array {
    let grams = this.#charCache.get(word);
    if (grams) return grams;
    const { charNgramMin: min, charNgramMax: max } = this.options;
    const padded = `<${word}>`;
    const out: number[] = [];
    for (let i = 0; i + min <= padded.length; i++) {
      let h = SEED_CHAR;
      for (let j = i; j < padded.length && j - i < max; j++) {
        h ^= padded.charCodeAt(j);
        h = Math.imul(h, 0x01000193);
        if (j - i + 1 >= min) out.push(h >>> 0);
      }
    }
    grams = Uint32Array.from(out);
    if (this.#charCache.size >= CHAR_CACHE_LIMIT) this.#charCache.clear();
    this.#charCache.set(word, grams);
    return grams;
  }

  #features(text: string): Features {
    let normalized = text.toLowerCase();
    if (this.options.foldDiacritics && /[^\u0000-\u007f]/.test(normalized)) {
      normalized = normalized.normalize('NFKD').replace(/\p{M}+/gu, '');
    }
    const words = normalized.match(WORD_RE) ?? [];
    const features = this.#counts;
    features.words.clear();
    features.bigrams.clear();
    features.chars.clear();
    features.wordCount = words.length;
    const useChars = this.options.charNgramMin > 0 && this.options.charWeight > 0;
    let previous = -1;
    for (const word of words) {
      const h = fnv1a(word, SEED_WORD);
      features.words.increment(h);
      if (this.options.wordBigrams && this.options.bigramWeight > 0) {
        if (previous >= 0) features.bigrams.increment(fnv1a(word, previous));
        previous = fnv1a(' ', fnv1a(word, SEED_BIGRAM));
      }
      if (useChars) for (const g of this.#charGrams(word)) features.chars.increment(g);
    }
    return features;
  }

  #groups(features: Features): [FeatureCounts, number][] {
    return [
      [features.words, this.options.wordWeight],
      [features.bigrams, this.options.bigramWeight],
      [features.chars, this.options.charWeight],
    ];
  }

  /** Learn the IDF of every hash bucket from `corpus`; replaces any earlier fit. */
  fit(corpus: string[]): void {
    if (!Array.isArray(corpus) || corpus.length === 0) {
      throw new InvalidArgumentError(
        'corpus',
        'HashedTfidfEmbedder.fit: pass at least one text to fit the IDF on.',
      );
    }
    const buckets = this.options.idfBuckets;
    const df = new Uint32Array(buckets);
    const stamp = new Int32Array(buckets).fill(-1);
    corpus.forEach((text, doc) => {
      for (const [counts] of this.#groups(this.#features(text))) {
        for (let i = 0; i < counts.size; i++) {
          const b = counts.keys[i]! % buckets;
          if (stamp[b] !== doc) {
            stamp[b] = doc;
            df[b]!++;
          }
        }
      }
    });
    const n = corpus.length;
    const idf = new Float32Array(buckets);
    for (let b = 0; b < buckets; b++) idf[b] = Math.log((1 + n) / (1 + df[b]!)) + 1;
    this.#idf = idf;
    this.#documents = n;
    this.#revision++;
  }

  #weightBuffer = new Float64Array(256);

  /** Scratch for the `size` feature weights of one group (doubles, as the sums use them). */
  #weights(size: number): Float64Array {
    if (this.#weightBuffer.length < size) {
      this.#weightBuffer = new Float64Array(Math.max(size, 2 * this.#weightBuffer.length));
    }
    return this.#weightBuffer;
  }

  /**
   * Embeddings of short texts (sentences, entity texts), kept by text while the IDF stays the same:
   * DA-RAG's assessment embeds each sentence of every candidate community, and the same chunk's
   * sentences recur across candidates. Stored sparse (the non-zero components); least recently used
   * first out.
   */
  readonly #memo = new Map<string, { at: Uint32Array; values: Float32Array }>();
  #memoRevision = 0;

  /** The embedding of one text (synchronous; a new array on every call). */
  embed(text: string): Float32Array {
    if (text.length > MEMO_MAX_CHARS) return this.#embed(text);
    if (this.#memoRevision !== this.#revision) {
      this.#memo.clear();
      this.#memoRevision = this.#revision;
    }
    const hit = this.#memo.get(text);
    if (hit !== undefined) {
      this.#memo.delete(text);
      this.#memo.set(text, hit);
      const out = new Float32Array(this.dimensions);
      for (let i = 0; i < hit.at.length; i++) out[hit.at[i]!] = hit.values[i]!;
      return out;
    }
    const out = this.#embed(text);
    const at: number[] = [];
    // Every component that is not +0 (a −0 is kept as it is).
    for (let d = 0; d < out.length; d++) if (out[d] !== 0 || Object.is(out[d], -0)) at.push(d);
    this.#memo.set(text, { at: Uint32Array.from(at), values: Float32Array.from(at, (d) => out[d]!) });
    if (this.#memo.size > MEMO_ENTRIES) this.#memo.delete(this.#memo.keys().next().value as string);
    return out;
  }

  #embed(text: string): Float32Array {
    const out = new Float32Array(this.dimensions);
    const features = this.#features(text);
    const idf = this.#idf;
    const buckets = this.options.idfBuckets;
    const dims = this.dimensions;
    for (const [counts, groupWeight] of this.#groups(features)) {
      const size = counts.size;
      if (groupWeight === 0 || size === 0) continue;
      const { keys } = counts;
      let norm = 0;
      const weights = this.#weights(size);
      for (let i = 0; i < size; i++) {
        const w = sublinearTf(counts.counts[i]!) * (idf ? idf[keys[i]! % buckets]! : 1);
        weights[i] = w;
        norm += w * w;
      }
      const scale = groupWeight / Math.sqrt(norm);
      for (let i = 0; i < size; i++) {
        const m = mix32(keys[i]!);
        const value = weights[i]! * scale;
        out[m % dims]! += m & 0x80000000 ? -value : value;
      }
    }
    let norm = 0;
    for (let d = 0; d < dims; d++) norm += out[d]! * out[d]!;
    if (norm > 0) {
      const inv = 1 / Math.sqrt(norm);
      for (let d = 0; d < dims; d++) out[d]! *= inv;
    }
    return out;
  }

  async doEmbed(options: EmbedCallOptions): Promise<EmbedResult> {
    const embeddings: Float32Array[] = [];
    let tokens = 0;
    for (let i = 0; i < options.values.length; i++) {
      if (i % 256 === 0) throwIfAborted(options.abortSignal);
      const text = options.values[i]!;
      embeddings.push(this.embed(text));
      tokens += (text.match(WORD_RE) ?? []).length;
    }
    return { embeddings, usage: { tokens } };
  }

  /** JSON-serializable state: the options and the fitted IDF (base64 float32). */
  state(): HashedTfidfState {
    return {
      kind: 'hashed-tfidf',
      version: 1,
      options: { ...this.options },
      documents: this.#documents,
      idf: this.#idf ? typedToBase64(this.#idf) : null,
    };
  }

  static #check(state: unknown): HashedTfidfState {
    const s = state as Partial<HashedTfidfState> | null;
    if (!s || typeof s !== 'object' || s.kind !== 'hashed-tfidf' || s.version !== 1 || !s.options) {
      throw new InvalidArgumentError(
        'state',
        'HashedTfidfEmbedder.restore: not a hashed-tfidf state of version 1; pass the value returned by state().',
      );
    }
    return s as HashedTfidfState;
  }

  /** Restore a state written by `state()`. The options it was written with must match this embedder's. */
  restore(state: unknown): void {
    const s = HashedTfidfEmbedder.#check(state);
    this.#revision++;
    for (const key of Object.keys(HASHED_TFIDF_DEFAULTS) as (keyof HashedTfidfOptions)[]) {
      if (s.options[key] !== this.options[key]) {
        throw new InvalidArgumentError(
          'state',
          `HashedTfidfEmbedder.restore: the state was written with ${key}=${String(s.options[key])}, this embedder has ${String(this.options[key])}; create it with HashedTfidfEmbedder.fromState(state) or the same options.`,
        );
      }
    }
    if (s.idf === null) {
      this.#idf = null;
      this.#documents = 0;
      return;
    }
    const idf = typeof s.idf === 'string' ? base64ToFloat32(s.idf, this.options.idfBuckets) : null;
    if (!idf) {
      throw new InvalidArgumentError(
        'state',
        `HashedTfidfEmbedder.restore: the IDF table is not ${this.options.idfBuckets} base64 float32 values; the state is damaged.`,
      );
    }
    this.#idf = idf;
    this.#documents = typeof s.documents === 'number' ? s.documents : 0;
  }
}
