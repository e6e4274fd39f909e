import { describe, expect, it } from 'vitest';
import { chunkCorpus, getTokenizer, withTitle } from '../src/kit.js';

describe('chunkCorpus', () => {
  const docs = [
    { id: 'a', text: 'word '.repeat(300) },
    { id: 'blank', text: '   ' },
    { id: 'b', text: 'Short passage.' },
  ];

  it('makes one chunk per non-blank document in document mode, with exact offsets and counts', () => {
    const chunks = chunkCorpus(docs, { chunking: 'document' });
    expect(chunks.map((c) => [c.id, c.docId, c.order, c.start, c.end])).toEqual([
      ['a', 'a', 0, 0, 1500],
      ['b', 'b', 0, 0, 14],
    ]);
    expect(chunks[1]!.tokens).toBe(getTokenizer().count('Short passage.'));
  });

  it('makes token windows in fixed mode', () => {
    // 'word' + 299 × ' word' + ' ' = 301 tokens; windows of 100 with 20 overlap start at 0, 80, 160, 240.
    const chunks = chunkCorpus([docs[0]!], { chunking: 'fixed', chunkSize: 100, overlap: 20 });
    expect(chunks.map((c) => c.tokens)).toEqual([100, 100, 100, 61]);
  });
});

describe('withTitle', () => {
  it('writes the title as a first line unless the text already opens with it as a heading', () => {
    expect(withTitle('Paris is a city.', 'Paris')).toBe('Paris\nParis is a city.');
    expect(withTitle('# Paris\n\nParis is a city.', 'Paris')).toBe('# Paris\n\nParis is a city.');
    expect(withTitle('Paris is a city.', 'Paris', false)).toBe('Paris is a city.');
    expect(withTitle('Paris is a city.', undefined)).toBe('Paris is a city.');
  });
});
