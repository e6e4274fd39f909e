import type { RetrievedItem } from '@grag/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  adjacencyOf,
  averagePairwiseSimilarity,
  chunkPassageMap,
  coverage,
  covers,
  entityMetrics,
  exactMatch,
  mean,
  multipleChoiceAccuracy,
  normalizeAnswer,
  parseEntityList,
  percentile,
  pickOption,
  qrScore,
  rankedPassages,
  recallAt,
  rougeL,
  subgraphDensity,
  subgraphDiameter,
  tokenF1,
} from '../src/index.js';

/** What normalizeAnswer does: a rule, then answers and their normal forms. */
const NORMAL_FORMS: [rule: string, cases: [answer: string, normal: string][]][] = [
  [
    'lower-cases, deletes punctuation, drops articles and collapses whitespace',
    [
      ['The  Eiffel-Tower!', 'eiffeltower'],
      ['An apple a day', 'apple day'],
      ['  U.S.  ', 'us'],
      ['1,000', '1000'],
    ],
  ],
  [
    'drops articles only as whole words',
    [
      ['Theatre of the Absurd', 'theatre of absurd'],
      ['Anathema', 'anathema'],
    ],
  ],
  [
    'removes punctuation and symbols of every script',
    [
      ['«Bonjour» — dit-il', 'bonjour ditil'],
      ['北京。', '北京'],
      ['$5 + €3', '5 3'],
    ],
  ],
  [
    'folds accents and compatibility forms',
    [
      ['Zürich', 'zurich'],
      ['ﬁnal ＡＢＣ', 'final abc'],
      ['São Paulo', 'sao paulo'],
    ],
  ],
];

describe('normalizeAnswer (SQuAD normalization, Unicode-aware)', () => {
  it.each(NORMAL_FORMS)('%s', (_rule, cases) => {
    for (const [answer, normal] of cases) expect(normalizeAnswer(answer), answer).toBe(normal);
  });

  it('reads punctuation as a word break on request', () => {
    expect(normalizeAnswer("Smith's house", { punctuation: 'space' })).toBe('smith s house');
    expect(normalizeAnswer("Smith's house")).toBe('smiths house');
  });
});

describe('exact match and token F1', () => {
  it('matches after normalization and against any alias', () => {
    expect(exactMatch('the Beatles', ['Beatles'])).toBe(1);
    expect(exactMatch('Beatles!', 'The Rolling Stones')).toBe(0);
    expect(exactMatch('NYC', ['New York City', 'NYC'])).toBe(1);
    expect(exactMatch('anything', [])).toBe(0);
  });

  it('computes token F1 by hand-counted overlap', () => {
    // pred [cat, sat, on, mat], gold [cat, on, mat]: P = 3/4, R = 1 → F1 = 6/7
    expect(tokenF1('the cat sat on the mat', 'a cat on a mat')).toBeCloseTo(6 / 7, 12);
    // repeated tokens are clipped: common = 1, P = 1/3, R = 1/2 → F1 = 0.4
    expect(tokenF1('cat cat cat', 'cat dog')).toBeCloseTo(0.4, 12);
  });

  it('takes the best alias and scores yes/no mismatches 0 as HotpotQA does', () => {
    expect(tokenF1('New York', ['Los Angeles', 'New York City'])).toBeCloseTo(0.8, 12);
    expect(tokenF1('no', 'no way')).toBe(0);
    expect(tokenF1('yes', 'Yes.')).toBe(1);
  });

  it('scores empty answers 1 only against empty gold', () => {
    expect(tokenF1('', 'The')).toBe(1);
    expect(tokenF1('The', 'cat')).toBe(0);
  });
});

describe('Coverage (KET-RAG §6.1)', () => {
  it('finds the gold answer or an alias as whole words in the normalized context', () => {
    expect(covers('The Strait War lasted 1861–1864 in all.', ['1861–1864)'])).toBe(true);
    expect(covers('The Big Apple never sleeps.', ['New York', 'Big Apple'])).toBe(true);
    expect(covers('He started the restart.', ['start'])).toBe(false);
    expect(coverage('Nothing here.', ['Paris'])).toBe(0);
  });

  it('accepts a match with punctuation deleted or read as a break', () => {
    expect(covers("This is Smith's house.", ['Smith'])).toBe(true);
    expect(covers('They paid 1,000 dollars.', ['1000'])).toBe(true);
    expect(covers('Zurich is big.', ['Zürich'])).toBe(true);
  });

  it('never matches an answer that normalizes to nothing', () => {
    expect(covers('the the the', ['The', '!!'])).toBe(false);
  });
});

describe('ROUGE-L', () => {
  it('uses the longest common subsequence of words', () => {
    // LCS(the cat sat on the mat, the cat was on the mat) = 5 of 6 on both sides
    const r = rougeL('the cat sat on the mat', 'the cat was on the mat');
    expect(r.precision).toBeCloseTo(5 / 6, 12);
    expect(r.recall).toBeCloseTo(5 / 6, 12);
    expect(r.f1).toBeCloseTo(5 / 6, 12);
    // LCS(a b c d, b d) = 2: P = 1/2, R = 1, F1 = 2/3
    expect(rougeL('a b c d', 'b d').f1).toBeCloseTo(2 / 3, 12);
  });

  it('keeps the best reference and scores no overlap 0', () => {
    expect(rougeL('b d', ['x y', 'a b c d']).recall).toBeCloseTo(0.5, 12);
    expect(rougeL('one two', 'three').f1).toBe(0);
  });
});

describe('multiple choice', () => {
  const options = ['Paris', 'London', 'Berlin', 'Madrid'];
  it('reads letters in their usual spellings', () => {
    expect(pickOption('B', options)).toBe(1);
    expect(pickOption('(C)', options)).toBe(2);
    expect(pickOption('Answer: D', options)).toBe(3);
    expect(pickOption('The answer is B.', options)).toBe(1);
    expect(pickOption('A. Paris', options)).toBe(0);
  });

  it('falls back to the option text and refuses to guess between two', () => {
    expect(pickOption('A man went to Berlin', options)).toBe(2);
    expect(pickOption('It is London, clearly', options)).toBe(1);
    expect(pickOption('Paris or London', options)).toBe(-1);
    expect(pickOption('I am not sure', options)).toBe(-1);
    expect(pickOption('F', options)).toBe(-1);
  });

  it('scores accuracy against the correct index', () => {
    expect(multipleChoiceAccuracy('C', options, 2)).toBe(1);
    expect(multipleChoiceAccuracy('Madrid', options, 2)).toBe(0);
  });
});

describe('entity answers (SG-RAG §5.2 Hit@1 / P / R / F1)', () => {
  it('scores a ranked prediction list against the gold set', () => {
    expect(entityMetrics(['Kung Fu Panda', 'Shrek'], [['Kung Fu Panda']])).toEqual({
      hit1: 1,
      precision: 0.5,
      recall: 1,
      f1: 2 / 3,
    });
    expect(entityMetrics(['Shrek', 'kung fu panda!'], ['Kung Fu Panda']).hit1).toBe(0);
  });

  it('counts two aliases of one gold entity as one prediction', () => {
    const m = entityMetrics(['new york city', 'NYC', 'Boston'], [['NYC', 'New York City'], ['LA']]);
    expect(m).toEqual({ hit1: 1, precision: 0.5, recall: 0.5, f1: 0.5 });
  });

  it('scores an empty prediction 0', () => {
    expect(entityMetrics([], ['Paris'])).toEqual({ hit1: 0, precision: 0, recall: 0, f1: 0 });
  });

  it('splits an answer into entity names', () => {
    expect(parseEntityList('Answer: Kung Fu Panda, Shrek and Cars.')).toEqual([
      'Kung Fu Panda',
      'Shrek',
      'Cars',
    ]);
    expect(parseEntityList('1. Paris\n2. Rome')).toEqual(['Paris', 'Rome']);
  });
});

function item(id: string, kind: string, docIds: string[], chunkIds = [id]): RetrievedItem {
  return { id, kind, text: id, score: 1, source: { chunkIds, docIds } };
}

describe('Recall@k through provenance', () => {
  it('ranks distinct passages in the order their items appear', () => {
    const items = [
      item('c1', 'chunk', ['p1']),
      item('c2', 'chunk', ['p2', 'p1']),
      item('e1', 'entity', ['p3']),
    ];
    expect(rankedPassages(items)).toEqual(['p1', 'p2', 'p3']);
    expect(rankedPassages(items, { kinds: ['chunk'] })).toEqual(['p1', 'p2']);
  });

  it('counts k over distinct passages and is undefined without gold', () => {
    expect(recallAt(['p1', 'p1', 'p2', 'p3'], ['p2', 'p3'], 2)).toBe(0.5);
    expect(recallAt(['p1', 'p2', 'p3'], ['p3', 'p3'], 3)).toBe(1);
    expect(recallAt(['p1'], [], 2)).toBeNaN();
  });

  it('maps chunks to the passages their character range overlaps', () => {
    // doc "AAAA|BBBB|CCCC": passages at 0-4, 5-9, 10-14
    const spans = [
      { passageId: 'p1', docId: 'd', start: 0, end: 4 },
      { passageId: 'p2', docId: 'd', start: 5, end: 9 },
      { passageId: 'p3', docId: 'd', start: 10, end: 14 },
    ];
    const map = chunkPassageMap(
      [
        { id: 'c0', docId: 'd', start: 0, end: 7 },
        { id: 'c1', docId: 'd', start: 7, end: 14 },
        { id: 'sep', docId: 'd', start: 4, end: 5 },
        { id: 'other', docId: 'e', start: 0, end: 3 },
      ],
      spans,
    );
    expect(Object.fromEntries(map)).toEqual({ c0: ['p1', 'p2'], c1: ['p2', 'p3'], sep: [], other: [] });
    const ranked = rankedPassages([item('x', 'chunk', ['d'], ['c1', 'c0'])], {
      passageOf: (c) => map.get(c),
    });
    expect(ranked).toEqual(['p2', 'p3', 'p1']);
  });
});

describe('subgraph metrics (DA-RAG B.3)', () => {
  it('computes density over distinct internal edges', () => {
    const edges: [string, string][] = [
      ['a', 'b'],
      ['b', 'c'],
      ['c', 'a'],
      ['b', 'a'],
      ['a', 'a'],
      ['a', 'x'],
    ];
    expect(subgraphDensity(['a', 'b', 'c', 'd'], edges)).toBe(3 / 6);
    expect(subgraphDensity(['a'], edges)).toBeNaN();
  });

  it('measures the diameter in the global graph, ignoring unreachable pairs', () => {
    const path = adjacencyOf([
      ['a', 'b'],
      ['b', 'c'],
      ['c', 'd'],
      ['d', 'e'],
    ]);
    expect(subgraphDiameter(['a', 'd'], path)).toBe(3);
    expect(subgraphDiameter(['a', 'c', 'z'], path)).toBe(2);
    expect(subgraphDiameter(['a', 'z'], path)).toBe(0);
    const shortcut = adjacencyOf([
      ['a', 'b'],
      ['b', 'c'],
      ['c', 'd'],
      ['a', 'd'],
    ]);
    expect(subgraphDiameter(['a', 'd'], shortcut)).toBe(1);
  });

  it('agrees with all-pairs shortest paths on random graphs', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 7 }), fc.integer({ min: 0, max: 7 })), { maxLength: 16 }),
        fc.uniqueArray(fc.integer({ min: 0, max: 7 }), { maxLength: 8 }),
        (pairs, subset) => {
          const n = 8;
          const d = Array.from({ length: n }, (_, i) =>
            Array.from({ length: n }, (_, j) => (i === j ? 0 : Infinity)),
          );
          for (const [a, b] of pairs)
            if (a !== b) {
              (d[a] as number[])[b] = 1;
              (d[b] as number[])[a] = 1;
            }
          for (let k = 0; k < n; k++)
            for (let i = 0; i < n; i++)
              for (let j = 0; j < n; j++) {
                const via = (d[i]?.[k] as number) + (d[k]?.[j] as number);
                if (via < (d[i]?.[j] as number)) (d[i] as number[])[j] = via;
              }
          let expected = 0;
          for (const i of subset)
            for (const j of subset) {
              const v = d[i]?.[j] as number;
              if (Number.isFinite(v)) expected = Math.max(expected, v);
            }
          const edges = pairs.map(([a, b]) => [String(a), String(b)] as [string, string]);
          expect(subgraphDiameter(subset.map(String), adjacencyOf(edges))).toBe(expected);
        },
      ),
    );
  });

  it('averages cosine similarities for QRScore and pairwise similarity', () => {
    expect(
      qrScore(
        [1, 0],
        [
          [1, 0],
          [0, 1],
        ],
      ),
    ).toBeCloseTo(0.5, 12);
    expect(
      averagePairwiseSimilarity([
        [1, 0],
        [0, 1],
        [1, 1],
      ]),
    ).toBeCloseTo(2 / Math.SQRT2 / 3, 6);
    expect(qrScore([1, 0], [])).toBeNaN();
    expect(averagePairwiseSimilarity([[1, 0]])).toBeNaN();
  });
});

describe('statistics', () => {
  it('takes nearest-rank percentiles and means', () => {
    const values = [10, 1, 9, 2, 8, 3, 7, 4, 6, 5];
    expect(percentile(values, 50)).toBe(5);
    expect(percentile(values, 95)).toBe(10);
    expect(percentile(values, 0)).toBe(1);
    expect(mean(values)).toBe(5.5);
    expect(percentile([], 50)).toBeNaN();
  });
});
