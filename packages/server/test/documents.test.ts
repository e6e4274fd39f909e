import { bm25Rag } from '@grag/naive-rag';
import { describe, expect, it } from 'vitest';
import { documentsOf, storeOf } from '../src/documents.js';
import { DOCS, offlineContext } from './helpers.js';

describe('documentsOf', () => {
  it('puts documents back together from overlapping fixed-size chunks, exactly', async () => {
    // 8-token windows overlapping by 3: every document is cut into several chunks.
    const index = await bm25Rag.build(DOCS, offlineContext(), { chunkSize: 8, overlap: 3 });
    expect(index.chunks.length).toBeGreaterThan(DOCS.length * 2);
    const store = documentsOf(index);
    expect(store.size).toBe(3);
    expect(store.chunks).toBe(index.chunks.length);
    for (const doc of DOCS)
      expect(store.get(doc.id)).toEqual({ id: doc.id, title: doc.title, text: doc.text });
  });

  it('has no title when the index shows chunks without one', async () => {
    const index = await bm25Rag.build(DOCS, offlineContext(), { chunking: 'document', includeTitle: false });
    expect(documentsOf(index).get('orsa')).toEqual({ id: 'orsa', text: DOCS[1]!.text });
  });

  it('writes whitespace that belongs to no chunk as one space or a blank line', () => {
    const chunk = (order: number, start: number, text: string) => ({
      id: `d#${order}`,
      docId: 'd',
      order,
      text,
      tokens: 1,
      start,
      end: start + text.length,
    });
    // "One. Two.\n\nThree." with the whitespace in no chunk.
    const index = { chunks: [chunk(1, 5, 'Two.'), chunk(0, 0, 'One.'), chunk(2, 11, 'Three.')] };
    expect(documentsOf(index).get('d')?.text).toBe('One. Two.\n\nThree.');
  });

  it('joins summary-tree leaves, dropping the characters a leaf repeats', () => {
    const index = {
      tree: {
        nodes: [
          { id: 'a#0', level: 0, text: 'Title\nabcdef', docId: 'a' },
          { id: 'a#1', level: 0, text: 'defghi', docId: 'a', overlapChars: 3 },
          { id: 'b#0', level: 0, text: 'other', docId: 'b' },
          { id: 'summary:1:1', level: 1, text: 'a summary' },
        ],
      },
    };
    const store = documentsOf(index);
    expect(store.get('a')).toEqual({ id: 'a', text: 'Title\nabcdefghi' });
    expect(store.get('b')).toEqual({ id: 'b', text: 'other' });
    expect(store.get('summary:1:1')).toBeUndefined();
    expect(store.chunks).toBeNull();
  });

  it("reads a knowledge graph's facts by document when the index keeps no text", () => {
    const index = {
      graph: {
        ids: ['orsa', 'lindqvist'],
        labels: ['Orsa', 'Lindqvist Institute'],
        descriptions: ['', ''],
        edges: [
          {
            a: 0,
            b: 1,
            facts: [
              { relation: 'hosts', forward: true },
              { relation: 'is located on', forward: false },
            ],
            chunkIds: ['orsa#0'],
            docIds: ['orsa'],
          },
        ],
      },
    };
    expect(documentsOf(index).get('orsa')).toEqual({
      id: 'orsa',
      text: 'Orsa hosts Lindqvist Institute\nLindqvist Institute is located on Orsa',
    });
  });

  it('finds nothing in an index of another shape, and no inherited key is a document', () => {
    const store = documentsOf({ vectors: [1, 2, 3] });
    expect(store.size).toBe(0);
    for (const id of ['__proto__', 'constructor', 'toString', '']) expect(store.get(id)).toBeUndefined();
    expect(documentsOf(null).size).toBe(0);
  });
});

describe('storeOf', () => {
  it('serves the documents given, by id', () => {
    const store = storeOf(DOCS);
    expect(store.get('kessler')).toEqual({ id: 'kessler', title: 'Kessler Shipyard', text: DOCS[0]!.text });
    expect(store.get('__proto__')).toBeUndefined();
    expect(store.size).toBe(3);
  });
});
