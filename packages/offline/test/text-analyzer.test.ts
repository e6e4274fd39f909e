import { describe, expect, it } from 'vitest';
import { createOfflineProviders, createWinkTextAnalyzer, WINK_TEXT_ANALYZER_ID } from '../src/index.js';

describe('createWinkTextAnalyzer', () => {
  const analyzer = createWinkTextAnalyzer();

  it("implements the TextAnalyzer contract with wink's tokens, tags, lemmas and sentences", async () => {
    expect(analyzer.specificationVersion).toBe('v1');
    expect(analyzer.id).toBe(WINK_TEXT_ANALYZER_ID);
    const { tokens, sentences } = await analyzer.doAnalyze('Ilse Marten sold 3 boats.\tThe ferries left.');
    expect(tokens.map((t) => t.text)).toEqual([
      'Ilse',
      'Marten',
      'sold',
      '3',
      'boats',
      '.',
      '\t',
      'The',
      'ferries',
      'left',
      '.',
    ]);
    expect(tokens.map((t) => t.type)).toEqual([
      'word',
      'word',
      'word',
      'number',
      'word',
      'punctuation',
      'space',
      'word',
      'word',
      'word',
      'punctuation',
    ]);
    const boats = tokens[4]!;
    expect([boats.pos, boats.lemma, boats.space, boats.stop]).toEqual(['NOUN', 'boat', ' ', false]);
    expect(tokens[0]!.pos).toBe('PROPN');
    expect(tokens[7]!.stop).toBe(true);
    // two sentences, each as its first and last token index: the first starts the text, the last ends it
    expect(sentences).toHaveLength(2);
    expect(sentences[0]![0]).toBe(0);
    expect(sentences[1]![1]).toBe(tokens.length - 1);
  });

  it('gives for a text what it gives read first, whatever was read before', async () => {
    const text = 'Kvarnby sails at dawn.';
    const first = await createWinkTextAnalyzer().doAnalyze(text);
    await analyzer.doAnalyze("Kvarnby's boats and Kvarnby sails: a list of Kvarnby words.");
    expect(await analyzer.doAnalyze(text)).toEqual(first);
  });

  it('is part of the offline providers', () => {
    expect(createOfflineProviders().textAnalyzer.id).toBe(WINK_TEXT_ANALYZER_ID);
  });
});
