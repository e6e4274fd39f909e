import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, type Retrieval, type RetrievedItem } from '../src/index.js';
import {
  chunkItem,
  countingWith,
  firstItems,
  getTokenizer,
  packContext,
  prefixedCount,
  rankDepthFor,
  suffixedCount,
} from '../src/kit.js';

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

  it('with skip, leaves out an item that does not fit whole and takes later ones that do', () => {
    const big = item('big', 'delta '.repeat(200), 'doc4');
    const small = item('s', 'tiny', 'doc5');
    const whole = tokenizer.count(`[a] ${items[0]!.text}`);
    const budget = whole + 40;
    const packed = packContext([items[0]!, big, small], budget, { tokenizer, truncate: false, skip: true });
    expect(packed.items.map((i) => i.id)).toEqual(['a', 's']);
    expect(packed.truncated).toBeUndefined();
    expect(packed.dropped).toBe(1);
    expect(packed.tokens).toBeLessThanOrEqual(budget);
    // Without skip the small item after the big one is lost.
    expect(packContext([items[0]!, big, small], budget, { tokenizer, truncate: false }).items).toHaveLength(
      1,
    );
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

describe('packContext token counts', () => {
  // Texts shaped to stress the joins: punctuation, spaces and newlines at both ends, unicode.
  const piece = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.constantFrom('.', '!)', '\n', '  ', '"', '—', '日本', 'é', '\t', ' . ', '``', '123', '\r\n'),
  );
  const text = fc.array(piece, { minLength: 1, maxLength: 8 }).map((p) => p.join(''));

  for (const name of ['cl100k_base', 'o200k_base'] as const) {
    it(`counts the context exactly from its parts (${name})`, () => {
      const tok = getTokenizer(name);
      fc.assert(
        fc.property(
          fc.array(text, { minLength: 1, maxLength: 6 }),
          fc.integer({ min: 0, max: 120 }),
          (texts, budget) => {
            const packed = packContext(
              texts.map((t, i) => item(`i${i}`, t)),
              budget,
              { tokenizer: tok, minTruncatedTokens: 1 },
            );
            expect(packed.tokens).toBe(tok.count(packed.context));
            expect(packed.tokens).toBeLessThanOrEqual(budget);
          },
        ),
        { numRuns: 400 },
      );
    });
  }

  for (const name of ['cl100k_base', 'o200k_base'] as const) {
    it(`prefixedCount and suffixedCount give the counts of the text with a prefix or suffix from its count, counting its first or last word (${name})`, () => {
      const tok = getTokenizer(name);
      const counted: string[] = [];
      const recording = countingWith(tok, (t) => {
        counted.push(t);
        return tok.count(t);
      });
      const affix = fc.oneof(text, fc.constantFrom('[c12] ', '[kg-k3+8] ', 'Title: ', '', '\n\n', '\n', 'x'));
      fc.assert(
        fc.property(affix, text, (a, t) => {
          counted.length = 0;
          expect(prefixedCount(recording, a, t, tok.count(t))).toBe(tok.count(a + t));
          expect(suffixedCount(recording, t, tok.count(t), a)).toBe(tok.count(t + a));
          // With a space after a word in the text (past its first character), only shorter texts are counted.
          if (/[\p{L}\p{N}\p{P}] /u.test(t.slice(1))) {
            expect(counted).not.toContain(a + t);
            expect(counted).not.toContain(t + a);
          }
        }),
        { numRuns: 1500 },
      );
      // Without the flag, the whole text is counted.
      const plain = { ...countingWith(tok, (t) => tok.count(t)), additiveBeforeSpace: false };
      expect(prefixedCount(plain, '[a] ', 'one two', 99)).toBe(tok.count('[a] one two'));
      expect(suffixedCount(plain, 'one two', 99, '\n')).toBe(tok.count('one two\n'));
    });
  }

  it('packs the same with and without counting an item and its separator from its last word', () => {
    const tok = getTokenizer('cl100k_base');
    const counted: string[] = [];
    const recording = (additiveBeforeSpace: boolean) =>
      ({
        name: tok.name,
        additiveAfterBlankLine: true,
        additiveBeforeSpace,
        count: (t: string) => {
          counted.push(t);
          return tok.count(t);
        },
        encode: (t: string) => tok.encode(t),
        decode: (ids: ArrayLike<number>) => tok.decode(ids),
        truncate: (t: string, n: number) => tok.truncate(t, n),
      }) as never;
    fc.assert(
      fc.property(
        fc.array(text, { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 0, max: 120 }),
        fc.constantFrom('\n\n', '\n\n---\n\n', ' \n\n '),
        (texts, budget, separator) => {
          const items = texts.map((t, i) => item(`i${i}`, t));
          const options = { minTruncatedTokens: 1, separator };
          counted.length = 0;
          const slow = packContext(items, budget, { ...options, tokenizer: recording(false) });
          counted.length = 0;
          const fast = packContext(items, budget, { ...options, tokenizer: recording(true) });
          expect(fast).toEqual(slow);
          // No item with a space after a word is counted again whole with its separator.
          for (const it of items) {
            const rendered = `[${it.id}] ${it.text}`.trim();
            if (/[\p{L}\p{N}\p{P}] /u.test(rendered)) expect(counted).not.toContain(rendered + separator);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps the budget with a tokenizer whose counts do not add up over joins', () => {
    // One token per 4 characters, rounded up: parts counted alone over-count and under-count joins.
    const quarter = {
      name: 'quarter',
      count: (t: string) => Math.ceil(t.length / 4),
      truncate: (t: string, n: number) => t.slice(0, n * 4),
    } as never;
    for (let budget = 0; budget <= 20; budget++) {
      const packed = packContext(
        [item('a', 'x'.repeat(9)), item('b', 'y'.repeat(23)), item('c', 'z')],
        budget,
        {
          tokenizer: quarter,
          minTruncatedTokens: 1,
        },
      );
      expect(packed.tokens).toBe(Math.ceil(packed.context.length / 4));
      expect(packed.tokens).toBeLessThanOrEqual(budget);
    }
  });
});

describe('chunkItem and rankDepthFor', () => {
  it('makes a chunk item with its provenance', () => {
    expect(chunkItem({ id: 'd1#0', docId: 'd1' }, 'Title\ntext', 0.5)).toEqual({
      id: 'd1#0',
      kind: 'chunk',
      text: 'Title\ntext',
      score: 0.5,
      source: { chunkIds: ['d1#0'], docIds: ['d1'] },
    });
  });

  it('ranks enough units to fill the budget 1.5 times plus 5, at most all of them', () => {
    // 1000 / 100 = 10 units fill it; 15 + 5 = 20.
    expect(rankDepthFor(50, 1000, 100)).toBe(20);
    // ceil(1000 / 300 * 1.5) = 5, + 5.
    expect(rankDepthFor(50, 1000, 300)).toBe(10);
    expect(rankDepthFor(7, 1000, 100)).toBe(7);
    // A mean below one token counts as one.
    expect(rankDepthFor(10_000, 10, 0)).toBe(20);
  });
});

describe('firstItems', () => {
  // A method's own layout: headings between groups, which the cut context does not keep.
  const items = ['N:orsa', 'R:1', 'R:2', 'T:kessler'].map((id) => item(id, `text of ${id}`));
  const retrieval: Retrieval = {
    context: `## Entities\n[N:orsa] text of N:orsa\n\n## Relationships\n[R:1] text of R:1\n\n[R:2] text of R:2\n\n## Text\n[T:kessler] text of T:kessler`,
    items,
    tokens: 40,
    subgraph: { nodes: ['N:orsa', 'T:kessler'], edges: [['N:orsa', 'T:kessler']] },
    trace: { mode: 'graph' },
  };

  it('keeps the first k items in context order, with a context of theirs alone, counted', () => {
    const two = firstItems(retrieval, 2, { tokenizer });
    expect(two.items.map((i) => i.id)).toEqual(['N:orsa', 'R:1']);
    expect(two.context).toBe('[N:orsa] text of N:orsa\n\n[R:1] text of R:1');
    expect(two.tokens).toBe(tokenizer.count(two.context));
    expect(two.subgraph).toBe(retrieval.subgraph);
    expect(two.trace).toEqual({ mode: 'graph', firstItems: { k: 2, retrieved: 4 } });
    expect(retrieval.items).toHaveLength(4);
  });

  it('returns a retrieval of at most k items as it is', () => {
    expect(firstItems(retrieval, 4, { tokenizer })).toBe(retrieval);
    expect(firstItems(retrieval, 9, { tokenizer })).toBe(retrieval);
  });

  it('keeps k items within the budget, the last one cut', () => {
    const long = {
      ...retrieval,
      items: [item('a', 'alpha '.repeat(60)), item('b', 'beta '.repeat(60)), item('c', 'c')],
    };
    const budget = tokenizer.count(`[a] ${'alpha '.repeat(60)}`.trim()) + 10;
    const two = firstItems(long, 2, { tokenizer, budgetTokens: budget });
    expect(two.items.map((i) => i.id)).toEqual(['a', 'b']);
    expect(two.tokens).toBeLessThanOrEqual(budget);
    expect(two.context).toMatch(/\[b\] beta/);
  });

  it('refuses a k that is not a positive integer', () => {
    for (const k of [0, -1, 1.5, Number.NaN]) {
      expect(() => firstItems(retrieval, k, { tokenizer })).toThrow(InvalidArgumentError);
    }
  });
});
