import { describe, expect, it } from 'vitest';
import { getTokenizer, packContext, type RetrievedItem } from '../src/index.js';

const tokenizer = getTokenizer();
const item = (id: string, text: string, doc = 'd'): RetrievedItem => ({
  id,
  kind: 'chunk',
  text,
  score: 1,
  source: { chunkIds: [id], docIds: [doc] },
});

describe('packContext', () => {
  const items = [
    item('a', 'alpha '.repeat(40), 'doc1'),
    item('b', 'beta '.repeat(40), 'doc2'),
    item('c', 'gamma '.repeat(40), 'doc3'),
  ];

  it('keeps items whole and in order while they fit, with their provenance', () => {
    const all = packContext(items, 10_000, { tokenizer });
    expect(all.items.map((i) => i.id)).toEqual(['a', 'b', 'c']);
    expect(all.items[1]!.source.docIds).toEqual(['doc2']);
    expect(all.context.startsWith('[a] alpha')).toBe(true);
    expect(all.tokens).toBe(tokenizer.count(all.context));
    expect(all.dropped).toBe(0);
  });

  it('never exceeds the budget and truncates the first item that does not fit', () => {
    const whole = tokenizer.count(`[a] ${items[0]!.text}`);
    const budget = whole + 40;
    const packed = packContext(items, budget, { tokenizer });
    expect(packed.tokens).toBeLessThanOrEqual(budget);
    expect(packed.items.map((i) => i.id)).toEqual(['a', 'b']);
    expect(packed.truncated).toBe('b');
    expect(packed.dropped).toBe(1);
  });

  it('stops at the first item that does not fit when truncation is off', () => {
    const whole = tokenizer.count(`[a] ${items[0]!.text}`);
    const packed = packContext(items, whole + 40, { tokenizer, truncate: false });
    expect(packed.items.map((i) => i.id)).toEqual(['a']);
    expect(packed.truncated).toBeUndefined();
  });

  it('returns an empty context for a zero budget and rejects a negative one', () => {
    expect(packContext(items, 0, { tokenizer })).toMatchObject({
      context: '',
      tokens: 0,
      items: [],
      dropped: 3,
    });
    expect(() => packContext(items, -1, { tokenizer })).toThrow(/budgetTokens/);
  });
});
