import { InvalidArgumentError, isFittableEmbedder, modelFingerprint } from '@grag/core';
import { cosineSimilarity } from '@grag/core/kit';
import { describe, expect, test } from 'vitest';
import {
  createOfflineEmbedder,
  createOfflineProviders,
  DEFAULT_OFFLINE_EMBEDDER,
  HASHED_TFIDF_DEFAULTS,
  HashedTfidfEmbedder,
  restoreOfflineEmbedder,
  SifGloveEmbedder,
} from '../src/index.js';

const norm = (v: Float32Array): number => Math.hypot(...v);

/** Words only, hashed into a space big enough that a handful of words never collide. */
const wordsOnly = () => new HashedTfidfEmbedder({ dimensions: 1 << 16, bigramWeight: 0, charWeight: 0 });

const corpus = [
  'Elena Varga studied chemistry at the University of Vienna.',
  'The University of Vienna is one of the oldest universities in Europe.',
  'Penicillin was studied at the Pasteur Institute in Paris.',
  'The football club won the cup final on Saturday.',
  'Stock markets fell sharply as interest rates rose.',
];

async function embed(embedder: HashedTfidfEmbedder, values: string[]): Promise<Float32Array[]> {
  return (await embedder.doEmbed({ values })).embeddings;
}

describe('HashedTfidfEmbedder', () => {
  test('has the configured dimensions and identifies itself', async () => {
    const embedder = new HashedTfidfEmbedder({ dimensions: 64 });
    const [v] = await embed(embedder, ['hello world']);
    expect(v).toHaveLength(64);
    expect(embedder.dimensions).toBe(64);
    expect(modelFingerprint(embedder)).toBe('offline:hashed-tfidf-v1:64');
    expect(isFittableEmbedder(embedder)).toBe(true);
    expect(new HashedTfidfEmbedder().dimensions).toBe(HASHED_TFIDF_DEFAULTS.dimensions);
  });

  test('gives unit vectors, and the zero vector for a text without words', async () => {
    const embedder = new HashedTfidfEmbedder();
    embedder.fit(corpus);
    for (const v of await embed(embedder, corpus)) expect(norm(v)).toBeCloseTo(1, 5);
    const [empty] = await embed(embedder, [' ... ']);
    expect(norm(empty!)).toBe(0);
  });

  test('is deterministic across instances and calls', async () => {
    const a = new HashedTfidfEmbedder();
    const b = new HashedTfidfEmbedder();
    a.fit(corpus);
    b.fit(corpus);
    const [x] = await embed(a, [corpus[0]!]);
    const [y] = await embed(b, [corpus[0]!]);
    const [z] = await embed(a, [corpus[0]!]);
    expect(Array.from(x!)).toEqual(Array.from(y!));
    expect(Array.from(x!)).toEqual(Array.from(z!));
  });

  test('gives a text embedded again (memoized) the same vector bit for bit, a new array each time, and refits anew', async () => {
    const bits = (v: Float32Array) => Array.from(new Uint32Array(v.buffer, v.byteOffset, v.length));
    const a = new HashedTfidfEmbedder();
    a.fit(corpus);
    const texts = [...corpus, ' ... ', 'x'.repeat(1500), corpus[0]!];
    const first = await embed(a, texts);
    first[0]!.fill(7); // a caller changing its array changes nothing kept
    const again = await embed(a, texts);
    const fresh = new HashedTfidfEmbedder();
    fresh.fit(corpus);
    const want = await embed(fresh, texts);
    again.forEach((v, i) => {
      expect(bits(v), String(i)).toEqual(bits(want[i]!));
    });
    expect(again[0]).not.toBe(again[texts.length - 1]);
    // A new fit: every text is embedded with the new IDF.
    a.fit(corpus.slice(0, 2));
    const refit = new HashedTfidfEmbedder();
    refit.fit(corpus.slice(0, 2));
    const after = await embed(a, texts);
    const wantAfter = await embed(refit, texts);
    after.forEach((v, i) => {
      expect(bits(v), String(i)).toEqual(bits(wantAfter[i]!));
    });
  });

  test('puts related texts closer than unrelated ones', async () => {
    const embedder = new HashedTfidfEmbedder();
    embedder.fit(corpus);
    const [query, related, unrelated] = await embed(embedder, [
      'Where did Varga study chemistry?',
      corpus[0]!,
      corpus[4]!,
    ]);
    expect(cosineSimilarity(query!, related!)).toBeGreaterThan(cosineSimilarity(query!, unrelated!) + 0.2);
  });

  test('matches word variants through character n-grams', async () => {
    const embedder = new HashedTfidfEmbedder({ wordWeight: 0, bigramWeight: 0 });
    const [a, b, c] = await embed(embedder, ['universities', 'university', 'football']);
    expect(cosineSimilarity(a!, b!)).toBeGreaterThan(0.5);
    expect(cosineSimilarity(a!, c!)).toBeLessThan(0.2);
  });

  test('weights words by sublinear term frequency before fitting', async () => {
    const embedder = wordsOnly();
    const [ab, ac, aab, a] = await embed(embedder, [
      'alpha beta',
      'alpha gamma',
      'alpha alpha beta',
      'alpha',
    ]);
    // Unit weights: cos = 1 / (√2 · √2).
    expect(cosineSimilarity(ab!, ac!)).toBeCloseTo(0.5, 6);
    // tf(alpha) = 2 → weight 1 + ln 2.
    const w = 1 + Math.log(2);
    expect(cosineSimilarity(aab!, a!)).toBeCloseTo(w / Math.hypot(w, 1), 6);
  });

  test('weights words by the smoothed IDF of the fitted corpus', async () => {
    const embedder = wordsOnly();
    expect(embedder.fitted).toBe(false);
    embedder.fit(['alpha beta', 'alpha gamma']);
    expect(embedder.fitted).toBe(true);
    expect(embedder.documents).toBe(2);
    const [ab, ac] = await embed(embedder, ['alpha beta', 'alpha gamma']);
    // idf = ln((1 + n) / (1 + df)) + 1: alpha → 1, beta and gamma → 1 + ln 1.5.
    const rare = 1 + Math.log(1.5);
    expect(cosineSimilarity(ab!, ac!)).toBeCloseTo(1 / (1 + rare * rare), 6);
  });

  test('restores a fitted state that gives identical vectors', async () => {
    const embedder = new HashedTfidfEmbedder({ dimensions: 128 });
    embedder.fit(corpus);
    const state = JSON.parse(JSON.stringify(embedder.state()));
    const restored = HashedTfidfEmbedder.fromState(state);
    expect(restored.fitted).toBe(true);
    expect(restored.dimensions).toBe(128);
    const same = new HashedTfidfEmbedder({ dimensions: 128 });
    same.restore(state);
    const original = await embed(embedder, corpus);
    expect((await embed(restored, corpus)).map((v) => Array.from(v))).toEqual(
      original.map((v) => Array.from(v)),
    );
    expect((await embed(same, corpus)).map((v) => Array.from(v))).toEqual(original.map((v) => Array.from(v)));
  });

  test('keeps the persisted IDF compact', () => {
    const embedder = new HashedTfidfEmbedder();
    embedder.fit(corpus);
    // One float32 (4 bytes) per bucket, base64: 4 characters per 3 bytes.
    expect((embedder.state().idf ?? '').length).toBe(
      4 * Math.ceil((HASHED_TFIDF_DEFAULTS.idfBuckets * 4) / 3),
    );
  });

  test('restores an unfitted state as unfitted', async () => {
    const embedder = new HashedTfidfEmbedder();
    embedder.fit(corpus);
    embedder.restore(new HashedTfidfEmbedder().state());
    expect(embedder.fitted).toBe(false);
  });

  test('refuses a state written with other options or damaged', () => {
    const state = new HashedTfidfEmbedder({ dimensions: 128 }).state();
    expect(() => new HashedTfidfEmbedder({ dimensions: 256 }).restore(state)).toThrow(/dimensions=128/);
    const fitted = new HashedTfidfEmbedder();
    fitted.fit(corpus);
    const damaged = { ...fitted.state(), idf: 'AAAA' };
    expect(() => new HashedTfidfEmbedder().restore(damaged)).toThrow(InvalidArgumentError);
    expect(() => new HashedTfidfEmbedder().restore({ kind: 'other' })).toThrow(/state\(\)/);
  });

  test('rejects bad options and an empty corpus', () => {
    expect(() => new HashedTfidfEmbedder({ dimensions: 0 })).toThrow(InvalidArgumentError);
    expect(() => new HashedTfidfEmbedder({ charNgramMin: 5, charNgramMax: 3 })).toThrow(/charNgramMax/);
    expect(() => new HashedTfidfEmbedder().fit([])).toThrow(/at least one text/);
  });

  test('reports the words it embedded as usage', async () => {
    const { usage } = await new HashedTfidfEmbedder().doEmbed({ values: ['one two', 'three'] });
    expect(usage).toEqual({ tokens: 3 });
  });
});

describe('createOfflineEmbedder', () => {
  test('makes the default kind when none is given', () => {
    expect(DEFAULT_OFFLINE_EMBEDDER).toBe('tfidf');
    expect(createOfflineEmbedder()).toBeInstanceOf(HashedTfidfEmbedder);
  });

  test('makes each kind with its options, loading nothing yet', () => {
    expect(createOfflineEmbedder('tfidf', { dimensions: 32 }).dimensions).toBe(32);
    const glove = createOfflineEmbedder('glove');
    expect(glove).toBeInstanceOf(SifGloveEmbedder);
    expect(glove.dimensions).toBe(100);
    expect(glove.fitted).toBe(false);
  });

  test('accepts the model ids of its embedders in place of kinds', () => {
    expect(createOfflineEmbedder('hashed-tfidf-v1')).toBeInstanceOf(HashedTfidfEmbedder);
    expect(createOfflineEmbedder('sif-glove-sg-100d')).toBeInstanceOf(SifGloveEmbedder);
  });

  test('rejects an unknown kind', () => {
    expect(() => createOfflineEmbedder('bert')).toThrow(/unknown kind/);
    expect(() => createOfflineEmbedder('constructor')).toThrow(InvalidArgumentError);
  });
});

describe('restoreOfflineEmbedder', () => {
  test('rebuilds a fitted hashed TF-IDF embedder from its state alone', async () => {
    const embedder = new HashedTfidfEmbedder({ dimensions: 96 });
    embedder.fit(corpus);
    const restored = restoreOfflineEmbedder(JSON.parse(JSON.stringify(embedder.state())));
    expect(restored).toBeInstanceOf(HashedTfidfEmbedder);
    expect(restored.dimensions).toBe(96);
    const [a] = (await restored.doEmbed({ values: [corpus[1]!] })).embeddings;
    const [b] = await embed(embedder, [corpus[1]!]);
    expect(Array.from(a!)).toEqual(Array.from(b!));
  });

  test('rebuilds a SIF embedder with the options of its state, without loading the vectors', () => {
    const glove = new SifGloveEmbedder({ a: 0.01 });
    const restored = restoreOfflineEmbedder(glove.state());
    expect(restored).toBeInstanceOf(SifGloveEmbedder);
    expect(restored.fitted).toBe(false);
    expect((restored as SifGloveEmbedder).options.a).toBe(0.01);
  });

  test('rejects a state of no offline embedder', () => {
    expect(() => restoreOfflineEmbedder({ kind: 'other' })).toThrow(/unknown state kind/);
    expect(() => restoreOfflineEmbedder(null)).toThrow(InvalidArgumentError);
  });
});

describe('createOfflineProviders', () => {
  test('returns the offline tasks and an embedder', () => {
    const { tasks, embedder } = createOfflineProviders({ embedderOptions: { dimensions: 48 } });
    expect(tasks.id).toBe('offline:wink');
    expect(embedder.dimensions).toBe(48);
    const given = new HashedTfidfEmbedder({ dimensions: 16 });
    expect(createOfflineProviders({ embedder: given }).embedder).toBe(given);
  });
});
