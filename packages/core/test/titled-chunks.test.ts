import { describe, expect, it } from 'vitest';
import { chunkCorpus, titledChunks, withTitle } from '../src/kit.js';

const docs = [
  { id: 'a', title: ' Alpha ', text: 'Alpha is first. It comes before beta.' },
  { id: 'b', text: 'Beta has no title.' },
  { id: 'c', title: 'Gamma', text: '# Gamma\nGamma is third.' },
];

describe('titledChunks', () => {
  it('chunks as chunkCorpus does and writes each document title first as withTitle does', () => {
    const { chunks, texts } = titledChunks(docs, { chunking: 'document', includeTitle: true });
    expect(chunks).toEqual(chunkCorpus(docs, { chunking: 'document' }));
    const titles = new Map(docs.map((d) => [d.id, d.title]));
    expect(texts).toEqual(chunks.map((c) => withTitle(c.text, titles.get(c.docId), true)));
    expect(texts[0]).toBe(' Alpha \nAlpha is first. It comes before beta.');
    expect(texts[2]).toBe('# Gamma\nGamma is third.');
  });

  it('reads titles through titleOf and leaves them out without includeTitle', () => {
    const trimmed = titledChunks(docs, {
      chunking: 'document',
      includeTitle: true,
      titleOf: (d) => d.title?.trim(),
    });
    expect(trimmed.texts[0]).toBe('Alpha\nAlpha is first. It comes before beta.');
    const plain = titledChunks(docs, { chunking: 'document', includeTitle: false });
    expect(plain.texts).toEqual(plain.chunks.map((c) => c.text));
  });
});
