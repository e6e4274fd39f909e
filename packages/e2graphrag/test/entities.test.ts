import { describe, expect, test } from 'vitest';
import { createWinkEntityExtractor, entityExtractorFromFunction, sentencesOf } from '../src/index.js';

describe('createWinkEntityExtractor', () => {
  const extractor = createWinkEntityExtractor();

  test('finds names (case kept) and lemmatized, lower-cased nouns, sentence by sentence', async () => {
    const sentences = await extractor.extract(
      'The Kessler Shipyard was founded in 1881 by Anton and Jakob Kessler in New York City. The ships were built there.',
    );
    expect(sentences).toEqual([['Kessler Shipyard', 'Anton', 'Jakob Kessler', 'New York City'], ['ship']]);
  });

  test('joins names across hyphens and connectors, and cuts sentences at line breaks', async () => {
    expect(await extractor.extract('When was the University of Oxford founded?')).toEqual([
      ['University of Oxford'],
    ]);
    expect(await extractor.extract("Anton Kessler\nKessler's ships met Jean-Paul Sartre.")).toEqual([
      ['Anton Kessler'],
      ['Kessler', 'ship', 'Jean-Paul Sartre'],
    ]);
  });

  test('skips numbers and stop words, and can add the words of a name', async () => {
    expect(await extractor.extract('In 1881, 42 of them left.')).toEqual([[]]);
    const parts = createWinkEntityExtractor({ nameParts: true, nouns: false });
    expect(await parts.extract('Jakob Kessler built ships.')).toEqual([
      ['Jakob Kessler', 'Jakob', 'Kessler'],
    ]);
    expect(parts.id).not.toBe(extractor.id);
    const folded = createWinkEntityExtractor({ lowercaseNames: true });
    expect(await folded.extract('Jakob Kessler built ships.')).toEqual([['jakob kessler', 'ship']]);
  });
});

describe('entityExtractorFromFunction', () => {
  test('applies a sentence function to each sentence and line', async () => {
    const capitalized = entityExtractorFromFunction((s) => s.match(/\b[A-Z][a-z]+\b/g) ?? [], { id: 'caps' });
    expect(capitalized.id).toBe('caps');
    expect(await capitalized.extract('title line\nAda met Bob. 3 days later Cy left.')).toEqual([
      [],
      ['Ada', 'Bob'],
      ['Cy'],
    ]);
    expect(sentencesOf('a b.\n\nC d. E f.')).toEqual(['a b.', 'C d.', 'E f.']);
  });
});
