import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StateError } from '../src/index.js';
import { Bm25Index, reciprocalRankFusion, tokenizeForBm25 } from '../src/kit.js';

describe('Bm25Index', () => {
  // N = 3, lengths 2, 3, 3 (avg 8/3); df(apple) = 2, idf = ln(1 + 1.5/2.5) = ln 1.6 = 0.4700036.
  // d0: tf 1, K = 1.2·(0.25 + 0.75·2/(8/3)) = 0.975,  score = idf · 2.2/1.975  = 0.5235486
  // d1: tf 2, K = 1.2·(0.25 + 0.75·3/(8/3)) = 1.3125, score = idf · 4.4/3.3125 = 0.6243068
  const index = new Bm25Index(['apple banana', 'apple apple cherry', 'banana cherry date']);

  it('scores documents as computed by hand', () => {
    const hits = index.search('apple', 10);
    expect(hits.map((h) => h.id)).toEqual([1, 0]);
    expect(hits[0]!.score).toBeCloseTo(0.6243068, 6);
    expect(hits[1]!.score).toBeCloseTo(0.5235486, 6);
  });

  it('adds the scores of several query terms and ignores unknown ones', () => {
    const both = index.search('apple date zebra', 10);
    const apple = index.search('apple', 10);
    const date = index.search('date', 10);
    expect(both.find((h) => h.id === 2)!.score).toBeCloseTo(date[0]!.score, 9);
    expect(both.find((h) => h.id === 1)!.score).toBeCloseTo(apple[0]!.score, 9);
    expect(index.search('zebra', 10)).toEqual([]);
  });

  it('limits results to k and breaks ties by lower id', () => {
    const tie = new Bm25Index(['cat', 'cat', 'cat']);
    expect(tie.search('cat', 2).map((h) => h.id)).toEqual([0, 1]);
  });

  it('drops stop words and case when tokenizing', () => {
    expect(tokenizeForBm25('The Capital of FRANCE is Paris.')).toEqual(['capital', 'france', 'paris']);
  });

  it('rejects parameters outside their range', () => {
    expect(() => new Bm25Index(['a'], { b: 2 })).toThrow(/0 <= b <= 1/);
  });
});

/**
 * BM25 by its definition, document by document: each distinct query term (in query order) adds
 * qtf · idf · tf·(k1 + 1) / (tf + k1·(1 − b + b·len/avgLen)) — the brute-force oracle of `search`.
 */
function bm25ByDefinition(
  texts: string[],
  query: string,
  k1 = 1.2,
  b = 0.75,
): { id: number; score: number }[] {
  const docs = texts.map(tokenizeForBm25);
  const avg = docs.reduce((s, d) => s + d.length, 0) / docs.length || 1;
  const qtf = new Map<string, number>();
  for (const t of tokenizeForBm25(query)) qtf.set(t, (qtf.get(t) ?? 0) + 1);
  const hits: { id: number; score: number }[] = [];
  docs.forEach((terms, id) => {
    let score = 0;
    let matched = false;
    for (const [term, q] of qtf) {
      const tf = terms.filter((t) => t === term).length;
      if (tf === 0) continue;
      const df = docs.filter((d) => d.includes(term)).length;
      const idf = Math.log(1 + (docs.length - df + 0.5) / (df + 0.5));
      score += q * idf * ((tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * terms.length) / avg)));
      matched = true;
    }
    if (matched) hits.push({ id, score });
  });
  return hits.sort((x, y) => y.score - x.score || x.id - y.id);
}

describe('Bm25Index.search against the definition', () => {
  // Few words, so that many documents tie and most queries match most documents.
  const word = fc.constantFrom('harbour', 'ferry', 'mill', 'tower', 'river', 'bell');
  const text = fc.array(word, { minLength: 0, maxLength: 6 }).map((w) => w.join(' '));

  it('gives the definition’s hits and scores, best k first, with and without a filter', () => {
    fc.assert(
      fc.property(
        fc.array(text, { minLength: 1, maxLength: 40 }),
        fc.array(fc.tuple(text, fc.integer({ min: 0, max: 45 }), fc.integer({ min: 1, max: 3 })), {
          minLength: 1,
          maxLength: 6,
        }),
        (texts, queries) => {
          const index = new Bm25Index(texts);
          // Several searches on one index: each must start from a clean slate.
          for (const [query, k, modulo] of queries) {
            const expected = bm25ByDefinition(texts, query);
            expect(index.search(query, k)).toEqual(expected.slice(0, k));
            const kept = (id: number) => id % modulo === 0;
            expect(index.search(query, k, { filter: kept })).toEqual(
              expected.filter((h) => kept(h.id)).slice(0, k),
            );
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('selects the best few of many hits as sorting them all would (ties by lower id)', () => {
    // 300 documents in 4 kinds of equal score: a selection of k < a quarter of the hits.
    const texts = Array.from({ length: 300 }, (_, i) => ['mill', 'mill mill', 'mill tower', 'tower'][i % 4]!);
    const index = new Bm25Index(texts);
    const all = bm25ByDefinition(texts, 'mill tower');
    for (const k of [1, 5, 37, 74, 75, 76, 150, 300])
      expect(index.search('mill tower', k)).toEqual(all.slice(0, k));
  });

  it('is clean after a filter that throws, and refuses a filter that searches the same index', () => {
    const texts = ['harbour ferry', 'ferry', 'harbour mill'];
    const index = new Bm25Index(texts);
    const before = index.search('harbour ferry', 10);
    expect(() =>
      index.search('harbour ferry', 10, {
        filter: () => {
          throw new Error('filter failed');
        },
      }),
    ).toThrow('filter failed');
    expect(index.search('harbour ferry', 10)).toEqual(before);
    expect(() => index.search('ferry', 10, { filter: () => index.search('mill', 1).length > 0 })).toThrow(
      StateError,
    );
    expect(index.search('harbour ferry', 10)).toEqual(before);
  });
});

describe('Bm25Index.toArrays / fromArrays', () => {
  const texts = Array.from(
    { length: 40 },
    (_, i) => `doc ${i} apple${i % 3} banana${i % 5} ${'cherry '.repeat(i % 4)} date${i % 7}`,
  );
  const index = new Bm25Index(texts);
  const queries = ['apple1 banana2', 'cherry', 'date3 cherry apple0', 'doc 7', 'zebra'];

  it('read back, the index searches exactly as the one it came from, and updates alike', () => {
    const arrays = index.toArrays();
    const back = Bm25Index.fromArrays(arrays);
    expect(back.size).toBe(index.size);
    for (const q of queries) expect(back.search(q, 50)).toEqual(index.search(q, 50));
    const change = { remove: [3, 9], add: ['apple1 cherry cherry', 'banana4'] };
    for (const q of queries)
      expect(back.update(change).search(q, 50)).toEqual(index.update(change).search(q, 50));
    expect(Bm25Index.fromArrays(back.toArrays()).toArrays()).toEqual(arrays);
  });

  it('refuses arrays that do not fit together', () => {
    const arrays = index.toArrays();
    const bad = [
      { ...arrays, offsets: arrays.offsets.subarray(1) },
      { ...arrays, tfs: arrays.tfs.subarray(1) },
      { ...arrays, docs: arrays.docs.map((d, i) => (i === 0 ? 40 : d)) },
      { ...arrays, terms: arrays.terms.map((t, i) => (i === 1 ? arrays.terms[0]! : t)) },
      { ...arrays, lengths: arrays.lengths.map((x, i) => (i === 0 ? -1 : x)) },
    ];
    for (const b of bad) expect(() => Bm25Index.fromArrays(b)).toThrow(/Bm25Index\.fromArrays: /);
  });
});

describe('reciprocalRankFusion', () => {
  it('adds 1/(k + rank) over lists, computed by hand with k = 60', () => {
    const dense = [
      { id: 7, score: 0.9 },
      { id: 3, score: 0.8 },
    ];
    const lexical = [
      { id: 3, score: 12 },
      { id: 5, score: 4 },
    ];
    const fused = reciprocalRankFusion([dense, lexical]);
    // 3: 1/62 + 1/61; 7: 1/61; 5: 1/62.
    expect(fused.map((h) => h.id)).toEqual([3, 7, 5]);
    expect(fused[0]?.score).toBeCloseTo(1 / 62 + 1 / 61, 15);
    expect(fused[2]?.score).toBeCloseTo(1 / 62, 15);
  });

  it('weights lists and breaks ties by the lower id', () => {
    const fused = reciprocalRankFusion([[{ id: 2, score: 1 }], [{ id: 1, score: 1 }]], {
      k: 0,
      weights: [1, 1],
    });
    expect(fused.map((h) => h.id)).toEqual([1, 2]);
    expect(
      reciprocalRankFusion([[{ id: 2, score: 1 }], [{ id: 1, score: 1 }]], { weights: [1, 2] })[0]?.id,
    ).toBe(1);
  });
});
