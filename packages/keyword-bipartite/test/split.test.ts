import { type Chunk, InvalidArgumentError, type Tokenizer } from '@grag/core';
import { getTokenizer } from '@grag/core/kit';
import { describe, expect, it } from 'vitest';
import { halvingRanges, splitChunk, splitChunks } from '../src/index.js';

const tokenizer = getTokenizer();
const docText = `Preface. ${'word '.repeat(1199)}word`;
// ' word' is one cl100k token, so the chunk below is exactly 1200 tokens.
const chunk: Chunk = {
  id: 'doc#0',
  docId: 'doc',
  order: 0,
  text: docText.slice(9),
  tokens: 1200,
  start: 9,
  end: docText.length,
};

function expectCoverage(pieces: { text: string; start: number; end: number }[]): void {
  expect(pieces.map((p) => p.text).join('')).toBe(chunk.text);
  expect(pieces[0]!.start).toBe(chunk.start);
  expect(pieces.at(-1)!.end).toBe(chunk.end);
  for (let i = 1; i < pieces.length; i++) expect(pieces[i]!.start).toBe(pieces[i - 1]!.end);
  for (const p of pieces) expect(docText.slice(p.start, p.end)).toBe(p.text);
}

describe('splitChunk', () => {
  it('cuts 150-token sub-chunks by default, covering every token exactly once', () => {
    expect(tokenizer.count(chunk.text)).toBe(1200);
    const pieces = splitChunk(chunk, { tokenizer });
    expect(pieces.map((p) => p.tokens)).toEqual(Array(8).fill(150));
    expect(pieces.map((p) => p.id)).toEqual(Array.from({ length: 8 }, (_, i) => `doc#0/${i}`));
    expect(pieces.every((p) => p.chunkId === 'doc#0' && p.docId === 'doc')).toBe(true);
    expectCoverage(pieces);
  });

  it("gives every piece its chunk's location (a page, section or row of the source file)", () => {
    const location = { path: 'report.pdf', page: 3 };
    const pieces = splitChunk({ ...chunk, location }, { size: 500 });
    expect(pieces.map((p) => p.location)).toEqual([location, location, location]);
    expect(splitChunk(chunk, { size: 500 }).every((p) => !('location' in p))).toBe(true);
  });

  it('gives the rest to the last piece', () => {
    const pieces = splitChunk(chunk, { size: 500 });
    expect(pieces.map((p) => p.tokens)).toEqual([500, 500, 200]);
    expectCoverage(pieces);
  });

  it('splits by m halvings into 2^m pieces whose sizes differ by at most one', () => {
    const three = splitChunk(chunk, { halvings: 3 });
    expect(three.map((p) => p.tokens)).toEqual(Array(8).fill(150)); // = size 150 for 1200 tokens
    expectCoverage(three);
    const odd: Chunk = {
      ...chunk,
      text: chunk.text.slice(0, chunk.text.length - 5 * 5),
      end: chunk.end - 25,
    };
    const pieces = splitChunk(odd, { halvings: 2 });
    // 1195 tokens → 299, 299, 299, 298
    expect(pieces.map((p) => p.tokens)).toEqual([299, 299, 299, 298]);
    expect(splitChunk(chunk, { halvings: 0 }).map((p) => p.text)).toEqual([chunk.text]);
  });

  it('never yields an empty piece when a character spans several tokens', () => {
    const emoji: Chunk = {
      id: 'e#0',
      docId: 'e',
      order: 0,
      text: '🦄🦄🦄 unicorn',
      tokens: 0,
      start: 0,
      end: 12,
    };
    const pieces = splitChunk(emoji, { size: 1 });
    expect(pieces.every((p) => p.text.length > 0)).toBe(true);
    expect(pieces.map((p) => p.text).join('')).toBe(emoji.text);
  });

  it('falls back to the core window splitter for tokenizers without offsets', () => {
    const plain: Tokenizer = {
      name: 'no-offsets',
      count: (t) => tokenizer.count(t),
      encode: (t) => tokenizer.encode(t),
      decode: (ids) => tokenizer.decode(ids),
      truncate: (t, n) => tokenizer.truncate(t, n),
    };
    const pieces = splitChunks([{ ...chunk, text: 'a b c d e', start: 0, end: 9 }], {
      size: 2,
      tokenizer: plain,
    });
    expect(pieces.map((p) => p.text)).toEqual(['a b', ' c d', ' e']);
  });

  it('rejects a bad size or number of halvings', () => {
    expect(() => splitChunk(chunk, { size: 0 })).toThrow(InvalidArgumentError);
    expect(() => splitChunk(chunk, { halvings: -1 })).toThrow(InvalidArgumentError);
  });
});

describe('halvingRanges', () => {
  it('partitions [0, T) into min(2^m, T) contiguous ranges', () => {
    expect(halvingRanges(10, 2)).toEqual([
      [0, 3],
      [3, 5],
      [5, 8],
      [8, 10],
    ]);
    expect(halvingRanges(3, 3)).toEqual([
      [0, 1],
      [1, 2],
      [2, 3],
    ]);
    expect(halvingRanges(0, 3)).toEqual([]);
  });
});
