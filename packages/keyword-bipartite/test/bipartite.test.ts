import { createScriptedEmbedder } from '@grag/core/test';
import { describe, expect, it } from 'vitest';
import {
  buildKeywordBipartite,
  distinctKeywords,
  ENGLISH_STOP_WORDS,
  embedKeywordBipartite,
  keywordDescription,
  keywordTokens,
  keywordVectors,
  keywordVectorsOfSparse,
} from '../src/index.js';

const units = [
  { id: 'u0', text: 'Ada wrote the notes. Babbage built engines.' },
  { id: 'u1', text: 'Ada met Babbage in 1833.' },
];

describe('keywordTokens', () => {
  it('keeps lower-cased word tokens that are not stop words', () => {
    expect(keywordTokens("The Analytical Engine was Babbage's, and it was never built in 1843!")).toEqual([
      'analytical',
      'engine',
      'babbage',
      'built',
      '1843',
    ]);
    expect(distinctKeywords('engine Engine ENGINE gear')).toEqual(['engine', 'gear']);
  });

  it('ships an English stop-word list', () => {
    for (const w of ['the', 'a', 'is', 'and', 'of', 'which', 'were'])
      expect(ENGLISH_STOP_WORDS.has(w)).toBe(true);
    expect(ENGLISH_STOP_WORDS.has('engine')).toBe(false);
  });
});

describe('buildKeywordBipartite', () => {
  const graph = buildKeywordBipartite(units);
  const k = (word: string) => graph.keywords.indexOf(word);

  it('links every keyword to the units that contain it', () => {
    expect(graph.keywords).toEqual(['ada', 'wrote', 'notes', 'babbage', 'built', 'engines', 'met', '1833']);
    expect([...graph.keywordUnits[k('ada')]!]).toEqual([0, 1]);
    expect([...graph.keywordUnits[k('notes')]!]).toEqual([0]);
    expect([...graph.keywordUnits[k('1833')]!]).toEqual([1]);
  });

  it('describes a keyword by every sentence that contains it', () => {
    expect(graph.sentences.map((s) => s.text)).toEqual([
      'Ada wrote the notes.',
      'Babbage built engines.',
      'Ada met Babbage in 1833.',
    ]);
    expect(keywordDescription(graph, k('ada'))).toBe('Ada wrote the notes. Ada met Babbage in 1833.');
    expect(keywordDescription(graph, k('babbage'), '\n')).toBe(
      'Babbage built engines.\nAda met Babbage in 1833.',
    );
  });

  it('embeds a keyword as the mean of its sentences’ embeddings', () => {
    const vectors = keywordVectors(graph, [
      [1, 0],
      [0, 1],
      [1, 1],
    ]);
    expect([...vectors[k('ada')]!]).toEqual([1, 0.5]);
    expect([...vectors[k('babbage')]!]).toEqual([0.5, 1]);
    expect([...vectors[k('met')]!]).toEqual([1, 1]);
    expect([...vectors[k('engines')]!]).toEqual([0, 1]);
  });

  it('embeds keywords from sparse sentence rows exactly as from dense ones, bit for bit', () => {
    // Many keywords over many sentences of float32 values with zeros and -0, as hashed TF-IDF gives.
    let seed = 7;
    const random = () => {
      seed = (seed * 48271) % 2147483647;
      return seed / 2147483647;
    };
    const texts = Array.from({ length: 60 }, (_, i) => `w${i % 7} w${i % 11} w${i % 13}. x${i % 5} y${i}.`);
    const big = buildKeywordBipartite(texts.map((text, i) => ({ id: `u${i}`, text })));
    const d = 24;
    const dense = big.sentences.map(() =>
      Float32Array.from({ length: d }, () => {
        const r = random();
        return r < 0.6 ? 0 : r < 0.65 ? -0 : (random() - 0.5) * 10 ** Math.floor(random() * 8 - 4);
      }),
    );
    const offsets = [0];
    const components: number[] = [];
    const values: number[] = [];
    for (const row of dense) {
      row.forEach((x, j) => {
        if (Object.is(x, 0)) return;
        components.push(j);
        values.push(x);
      });
      offsets.push(components.length);
    }
    const sparse = { rows: dense.length, dimensions: d, offsets, components, values };
    const want = keywordVectors(big, dense);
    const got = keywordVectorsOfSparse(big, sparse);
    expect(got).toHaveLength(want.length);
    got.forEach((v, k) => {
      v.forEach((x, c) => {
        expect(Object.is(x, want[k]![c]), `${k},${c}`).toBe(true);
      });
    });
    expect(() => keywordVectorsOfSparse(big, { ...sparse, rows: 1 })).toThrow(/sentence vectors/);
    expect(() => keywordVectorsOfSparse(big, { ...sparse, components: components.map(() => d) })).toThrow(
      /beyond 24 dimensions/,
    );
  });

  it('embeds the sentences with the embedder, once each', async () => {
    const embedder = createScriptedEmbedder({ embed: (t) => [t.length, 1] });
    const { sentenceVectors, keywordVectors: kv } = await embedKeywordBipartite(graph, embedder);
    expect(embedder.calls.flatMap((c) => c.values)).toEqual(graph.sentences.map((s) => s.text));
    expect(sentenceVectors).toHaveLength(3);
    expect([...kv[k('ada')]!]).toEqual([(20 + 24) / 2, 1]);
  });
});
