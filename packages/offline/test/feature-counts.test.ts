import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { FeatureCounts } from '../src/feature-counts.js';
import { base64ToFloat32, fnv1a, mix32 } from '../src/hash.js';
import { HashedTfidfEmbedder } from '../src/index.js';

/** The entries of `counts` in its iteration order. */
const entries = (counts: FeatureCounts): [number, number][] =>
  Array.from({ length: counts.size }, (_, i) => [counts.keys[i]!, counts.counts[i]!]);

describe('FeatureCounts', () => {
  test('counts keys and lists them in first-seen order, as a Map does, across clears and growth (property)', () => {
    const key = fc.oneof(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 0xffffffff }));
    fc.assert(
      fc.property(fc.array(fc.array(key, { maxLength: 400 }), { minLength: 1, maxLength: 4 }), (texts) => {
        const counts = new FeatureCounts(1);
        for (const keys of texts) {
          counts.clear();
          const map = new Map<number, number>();
          for (const k of keys) {
            counts.increment(k);
            map.set(k, (map.get(k) ?? 0) + 1);
          }
          expect(entries(counts)).toEqual([...map]);
          for (const k of keys) expect(counts.get(k)).toBe(map.get(k));
          expect(counts.get(0xfffffffe)).toBe(map.get(0xfffffffe) ?? 0);
        }
      }),
    );
  });

  test('holds keys that fall in one slot of the table', () => {
    const counts = new FeatureCounts();
    // Keys whose mixed hashes share their low bits probe past each other.
    const keys: number[] = [];
    for (let k = 0; keys.length < 40; k++) if ((mix32(k) & 63) === 5) keys.push(k);
    for (const k of keys) counts.increment(k);
    for (const k of keys) counts.increment(k);
    expect(entries(counts)).toEqual(keys.map((k) => [k, 2]));
  });
});

// The embedding as it was computed over Map counts, the reference the typed-array counts must match
// bit for bit (same features, same order of the sums).
const WORD_RE = /[\p{L}\p{N}]+/gu;
function referenceEmbed(text: string, idf: Float32Array | null): Float32Array {
  const dims = 1024;
  const buckets = 2 ** 16;
  const increment = (map: Map<number, number>, key: number) => map.set(key, (map.get(key) ?? 0) + 1);
  const normalized = text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '');
  const words = new Map<number, number>();
  const bigrams = new Map<number, number>();
  const chars = new Map<number, number>();
  let previous = -1;
  for (const word of normalized.match(WORD_RE) ?? []) {
    increment(words, fnv1a(word, 0x811c9dc5));
    if (previous >= 0) increment(bigrams, fnv1a(word, previous));
    previous = fnv1a(' ', fnv1a(word, 0x2f1a9c3b));
    const padded = `<${word}>`;
    for (let i = 0; i + 3 <= padded.length; i++) {
      let h = 0x6b43a9b5;
      for (let j = i; j < padded.length && j - i < 5; j++) {
        h ^= padded.charCodeAt(j);
        h = Math.imul(h, 0x01000193);
        if (j - i + 1 >= 3) increment(chars, h >>> 0);
      }
    }
  }
  const out = new Float32Array(dims);
  for (const [map, groupWeight] of [
    [words, 1],
    [bigrams, 0.5],
    [chars, 1],
  ] as const) {
    if (map.size === 0) continue;
    let norm = 0;
    const weights: number[] = [];
    for (const [h, count] of map) {
      const w = (1 + Math.log(count)) * (idf ? idf[h % buckets]! : 1);
      weights.push(w);
      norm += w * w;
    }
    const scale = groupWeight / Math.sqrt(norm);
    let k = 0;
    for (const h of map.keys()) {
      const m = mix32(h);
      const value = weights[k++]! * scale;
      out[m % dims]! += m & 0x80000000 ? -value : value;
    }
  }
  let norm = 0;
  for (let d = 0; d < dims; d++) norm += out[d]! * out[d]!;
  if (norm > 0) for (let d = 0; d < dims; d++) out[d]! *= 1 / Math.sqrt(norm);
  return out;
}

describe('HashedTfidfEmbedder on typed-array counts', () => {
  test('embeds every text bit for bit as the Map-counted embedding does, fitted or not (property)', () => {
    const word = fc.constantFrom('the', 'river', 'Río', 'São', 'paulo', 'a', '1999', 'école', 'x', 'Mërrow');
    const text = fc.array(word, { maxLength: 300 }).map((ws) => ws.join(' '));
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 5 }), fc.boolean(), (texts, fitted) => {
        const embedder = new HashedTfidfEmbedder();
        if (fitted) embedder.fit(texts);
        const state = embedder.state();
        const idf = state.idf === null ? null : base64ToFloat32(state.idf, 2 ** 16);
        for (const t of texts)
          expect(Array.from(embedder.embed(t))).toEqual(Array.from(referenceEmbed(t, idf)));
      }),
      { numRuns: 60 },
    );
  });
});
