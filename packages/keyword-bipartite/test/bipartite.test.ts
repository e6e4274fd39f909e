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

  it('embeds the sentences with the embedder, once each', async () => {
    const embedder = createScriptedEmbedder({ embed: (t) => [t.length, 1] });
    const { sentenceVectors, keywordVectors: kv } = await embedKeywordBipartite(graph, embedder);
    expect(embedder.calls.flatMap((c) => c.values)).toEqual(graph.sentences.map((s) => s.text));
    expect(sentenceVectors).toHaveLength(3);
    expect([...kv[k('ada')]!]).toEqual([(20 + 24) / 2, 1]);
  });
});
