import type { TextAnalyzer, TextToken } from '@grag/core';
import { InvalidArgumentError } from '@grag/core';
import { createWinkTextAnalyzer } from '@grag/offline';
import { describe, expect, test } from 'vitest';
import { createEntityExtractor, entityExtractorFromFunction, sentencesOf } from '../src/index.js';

describe('createEntityExtractor on the wink text analyzer', () => {
  const wink = createWinkTextAnalyzer();
  const extractor = createEntityExtractor(wink);

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
    const parts = createEntityExtractor(wink, { nameParts: true, nouns: false });
    expect(await parts.extract('Jakob Kessler built ships.')).toEqual([
      ['Jakob Kessler', 'Jakob', 'Kessler'],
    ]);
    expect(parts.id).not.toBe(extractor.id);
    const folded = createEntityExtractor(wink, { lowercaseNames: true });
    expect(await folded.extract('Jakob Kessler built ships.')).toEqual([['jakob kessler', 'ship']]);
  });
});

/** A token of a hand-made analysis. */
const tok = (text: string, pos: string, extra: Partial<TextToken> = {}): TextToken => ({
  text,
  lemma: text.toLowerCase(),
  pos,
  type: /^\p{L}/u.test(text) ? 'word' : /^\d/.test(text) ? 'number' : 'punctuation',
  space: ' ',
  stop: false,
  ...extra,
});

/** An analyzer that gives one fixed analysis, whatever the text. */
function fixedAnalyzer(id: string, tokens: TextToken[], sentences: [number, number][]): TextAnalyzer {
  return { specificationVersion: 'v1', id, doAnalyze: async () => ({ tokens, sentences }) };
}

describe('createEntityExtractor on any TextAnalyzer', () => {
  // "Lotta Vinter of Kvarn sold boats.\nHarbours" as some analyzer tokenizes and tags it.
  const tokens = [
    tok('Lotta', 'PROPN', { space: '' }),
    tok('Vinter', 'PROPN'),
    tok('of', 'ADP', { stop: true }),
    tok('Kvarn', 'PROPN'),
    tok('sold', 'VERB', { lemma: 'sell' }),
    tok('boats', 'NOUN', { lemma: 'boat' }),
    tok('.', 'PUNCT', { space: '' }),
    tok('\n', 'SPACE', { type: 'space', space: '' }),
    tok('Harbours', 'NOUN', { lemma: 'Harbour', space: '' }),
  ];
  const analyzer = fixedAnalyzer('hand-tagged:v3', tokens, [[0, 8]]);

  test("reads names, nouns and sentences from the analyzer's tokens, and names itself after it", async () => {
    const extractor = createEntityExtractor(analyzer);
    // one analyzer sentence, cut at the line-break token; a capitalized noun alone is no name
    expect(await extractor.extract('ignored')).toEqual([['Lotta Vinter of Kvarn', 'boat'], ['harbour']]);
    expect(extractor.id).toBe('hand-tagged:v3:nouns,names');
    expect(createEntityExtractor(analyzer, { nouns: false, minLength: 3 }).id).toBe(
      'hand-tagged:v3:no-nouns,names,min3',
    );
  });

  test('a line break in the space before a token ends a name there', async () => {
    const broken = tokens.map((t, i) => (i === 1 ? { ...t, space: ' \n ' } : t));
    const extractor = createEntityExtractor(fixedAnalyzer('x', broken, [[0, 6]]));
    expect(await extractor.extract('ignored')).toEqual([['Lotta', 'Vinter of Kvarn', 'boat']]);
  });

  test('refuses something that is not an analyzer', () => {
    const error = (() => {
      try {
        createEntityExtractor({} as TextAnalyzer);
      } catch (e) {
        return e;
      }
    })();
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('createWinkTextAnalyzer()');
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
