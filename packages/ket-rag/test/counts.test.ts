import type { Tokenizer } from '@grag/core';
import { getTokenizer } from '@grag/core/kit';
import { describe, expect, it } from 'vitest';
import { countSubChunks, renderedSubChunk, retrievalTokenizer } from '../src/counts.js';

const base = getTokenizer('cl100k_base');
const subChunks = [{ id: 'a/0' }, { id: 'a/1' }, { id: 'b/0' }];
const texts = ['Alpha\nThe first line, ending.', 'Alpha\nSecond: 1881 —', 'Beta\nTrailing space.  '];

/** `base`, counting every call (what the retrieval tokenizer leaves to it). */
function spy(): Tokenizer & { calls: string[] } {
  const calls: string[] = [];
  return {
    ...base,
    name: base.name,
    additiveAfterBlankLine: true,
    calls,
    count: (text) => {
      calls.push(text);
      return base.count(text);
    },
    encode: (t) => base.encode(t),
    decode: (t) => base.decode(t),
    truncate: (t, n) => base.truncate(t, n),
  };
}

describe('retrievalTokenizer', () => {
  const counts = countSubChunks(base, subChunks, texts);
  const items = subChunks.map((s, i) => renderedSubChunk(s.id, texts[i]!));

  it('counts the sub-chunks at build time as the tokenizer does', () => {
    expect([...counts.text]).toEqual(texts.map((t) => base.count(t)));
    expect([...counts.item]).toEqual(items.map((t) => base.count(t)));
    expect([...counts.itemWithBlankLine]).toEqual(items.map((t) => base.count(`${t}\n\n`)));
  });

  it('answers a rendered sub-chunk, alone or followed by a blank line, from the stored counts', () => {
    const inner = spy();
    const t = retrievalTokenizer(inner, subChunks, texts, counts);
    for (const item of items) {
      expect(t.count(item)).toBe(base.count(item));
      expect(t.count(`${item}\n\n`)).toBe(base.count(`${item}\n\n`));
    }
    expect(inner.calls).toEqual([]);
    // Near misses are counted by the tokenizer.
    for (const text of [`${items[0]}x`, `${items[0]}\n`, `[a/0] ${texts[1]}`, '[zz] text', '[a/0]']) {
      expect(t.count(text)).toBe(base.count(text));
    }
    expect(inner.calls).toHaveLength(5);
  });

  it('counts any text exactly as the sum of its paragraphs', () => {
    const t = retrievalTokenizer(spy(), subChunks, texts, counts);
    const samples = [
      '',
      'one paragraph only',
      `${items.join('\n\n')}`,
      `(entity) X: a description.\n\n(relation) X -> Y.\n\n${items[1]}`,
      'ends with a blank line\n\n',
      'three newlines\n\n\nthen text',
      'blank then space\n\n indented\n\nnext',
      'punctuation.\n\n!bang\n\n1881\n\n—dash',
      '\n\nleading blank line',
      'emoji 🎉\n\n🎉 after',
    ];
    for (const text of samples) expect(t.count(text)).toBe(base.count(text));
  });

  it('without stored counts, or for a tokenizer whose counts do not add up, still counts exactly', () => {
    const plain = retrievalTokenizer(base, subChunks, texts, undefined);
    const text = `${items[0]}\n\n${items[2]}`;
    expect(plain.count(text)).toBe(base.count(text));
    const inner = spy();
    const notAdditive = retrievalTokenizer(
      { ...inner, additiveAfterBlankLine: false },
      subChunks,
      texts,
      counts,
    );
    expect(notAdditive.count(text)).toBe(base.count(text));
    expect(inner.calls).toEqual([text]);
  });
});
