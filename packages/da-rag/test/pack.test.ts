import type { Tokenizer } from '@grag/core';
import { getTokenizer } from '@grag/core/kit';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { blankLineJoinedTokens, blankLineTrailedTokens, lineJoinedTokens } from '../src/members.js';
import {
  bestCandidate,
  distinctCandidates,
  evidenceScore,
  packCommunities,
  rankCandidates,
} from '../src/pack.js';
import type { DaRagIndex } from '../src/types.js';
import { candidate } from './candidates.js';
import { wholeTextTokenizer } from './tokenizers.js';

describe('evidenceScore', () => {
  test('is 10 × the mean relevance of the chunks a community packs', () => {
    expect(evidenceScore([1, 0], [0.2, 0.6])).toBeCloseTo(4, 12);
    expect(evidenceScore([], [0.2, 0.6])).toBe(0);
  });
});

describe('rankCandidates / bestCandidate', () => {
  test('rank by score, then QRScore, then layer (chunk, kg, sim), then id', () => {
    const ranked = rankCandidates([
      candidate({ id: 'sim-k3', layer: 'sim', score: 5, qrScore: 0.5 }),
      candidate({ id: 'kg-k4', layer: 'kg', score: 5, qrScore: 0.5 }),
      candidate({ id: 'kg-k3', layer: 'kg', score: 5, qrScore: 0.5 }),
      candidate({ id: 'chunk-k3', layer: 'chunk', score: 5, qrScore: 0.4 }),
      candidate({ id: 'chunk-k5', layer: 'chunk', score: 6, qrScore: 0.1 }),
    ]);
    expect(ranked.map((c) => c.id)).toEqual(['chunk-k5', 'kg-k3', 'kg-k4', 'sim-k3', 'chunk-k3']);
    const best = bestCandidate([
      candidate({ id: 'chunk-k3', layer: 'chunk', score: 5, qrScore: 0.2 }),
      candidate({ id: 'chunk-k6', layer: 'chunk', score: 5, qrScore: 0.3 }),
    ]);
    expect(best.id).toBe('chunk-k6');
  });
});

describe('packCommunities', () => {
  const index = {
    chunks: [{ id: 'c0' }, { id: 'c1' }, { id: 'c2' }],
    entities: [{ id: 'e0' }, { id: 'e1' }],
  } as unknown as DaRagIndex;
  const ranked = [
    candidate({ id: 'chunk-k3+4', layer: 'chunk', ks: [3, 4], nodes: [1, 0], edges: [[1, 0]], score: 9 }),
    candidate({ id: 'kg-k3', layer: 'kg', ks: [3], nodes: [0, 1], edges: [[0, 1]], score: 7, report: 'R' }),
    candidate({ id: 'chunk-1hop', layer: 'chunk', nodes: [2], score: 2 }),
  ];

  test('packs the top communities and reports their subgraph, k values and the trace of all', () => {
    const out = packCommunities({
      index,
      ranked,
      budget: 1000,
      topK: 2,
      communityText: 'report+members',
      packing: 'greedy',
      tokenizer: getTokenizer(),
    });
    expect(out.packed.items.map((i) => [i.id, i.text])).toEqual([
      ['chunk-k3+4', 'members'],
      ['kg-k3', 'R\n\nmembers'],
    ]);
    expect(out.ranked).toBe(2);
    expect(new Set(out.subgraph.nodes)).toEqual(new Set(['chunk:c1', 'chunk:c0', 'entity:e0', 'entity:e1']));
    expect(out.subgraph.edges).toEqual([
      ['chunk:c0', 'chunk:c1'],
      ['entity:e0', 'entity:e1'],
    ]);
    expect(out.chosenK).toEqual({ chunk: [3, 4], kg: [3] });
    expect(out.communities.map((c) => [c.id, c.nodes, c.packed])).toEqual([
      ['chunk-k3+4', ['c1', 'c0'], true],
      ['kg-k3', ['e0', 'e1'], true],
      ['chunk-1hop', ['c2'], false],
    ]);
  });

  test('distinctCandidates keeps the first of the candidates with one layer and one node set', () => {
    const twice = [
      ...ranked,
      candidate({ id: 'a2:chunk-k3', layer: 'chunk', ks: [3], nodes: [0, 1], score: 1 }),
      candidate({ id: 'a2:kg-k3', layer: 'kg', ks: [3], nodes: [1], score: 1 }),
    ];
    expect(distinctCandidates(twice).map((c) => c.id)).toEqual([
      'chunk-k3+4',
      'kg-k3',
      'chunk-1hop',
      'a2:kg-k3',
    ]);
  });

  test('packs nothing within a budget of 0', () => {
    const out = packCommunities({
      index,
      ranked,
      budget: 0,
      topK: undefined,
      communityText: 'members',
      packing: 'greedy',
      tokenizer: getTokenizer(),
    });
    expect(out.packed.items).toEqual([]);
    expect(out.subgraph).toEqual({ nodes: [], edges: [] });
    expect(out.chosenK).toEqual({});
    expect(out.communities.every((c) => !c.packed)).toBe(true);
  });
});

describe('packCommunities token counts', () => {
  const index = { chunks: [], entities: [] } as unknown as DaRagIndex;
  const tokenizer = getTokenizer();
  /** The same tokenizer without the blank-line additivity: every text counted whole. */
  const plain = wholeTextTokenizer(tokenizer);
  const words = [
    'Harbour',
    'ferry',
    '1923.',
    'Nordlys,',
    'the',
    '—',
    'crosses',
    '"Veskan"',
    'strait',
    '\n',
    'of',
  ];

  test('packs exactly what counting every item text whole packs, heads and members counted apart (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            report: fc.array(fc.constantFrom(...words), { maxLength: 12 }),
            members: fc.array(fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 30 }), {
              minLength: 1,
              maxLength: 4,
            }),
            lead: fc.constantFrom('', ' ', '\n'),
            // Chunk members are joined by blank lines, entity and relation descriptions by line breaks.
            join: fc.constantFrom('\n\n', '\n'),
          }),
          { minLength: 1, maxLength: 8 },
        ),
        fc.integer({ min: 5, max: 400 }),
        fc.constantFrom('greedy', 'truncate'),
        (specs, budget, packing) => {
          const ranked = specs.map((spec, i) => {
            const lines = spec.members.map((line) => line.join(' '));
            const withBlankLine =
              spec.lead !== ''
                ? undefined
                : spec.join === '\n\n'
                  ? blankLineTrailedTokens(tokenizer, lines)
                  : lineJoinedTokens(tokenizer, lines)?.trailed;
            return candidate({
              id: `chunk-k${i + 3}`,
              layer: 'chunk',
              report: spec.report.join(' ').trim(),
              members: spec.lead + lines.join(spec.join),
              ...(withBlankLine === undefined ? {} : { memberTokensWithBlankLine: withBlankLine }),
              score: 10 - i,
            });
          });
          const pack = (t: Tokenizer) =>
            packCommunities({
              index,
              ranked,
              budget,
              topK: undefined,
              communityText: 'report+members',
              packing,
              tokenizer: t,
            }).packed;
          expect(pack(tokenizer)).toEqual(pack(plain));
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('blankLineJoinedTokens', () => {
  const tokenizer = getTokenizer();
  test('counts lines joined by blank lines as the joined text is counted', () => {
    const lines = [
      'Meridian\nThe Meridian is a vessel.',
      'Kessler Shipyard\nIt built the ferry.  ',
      '"Nordlys" 1923.\n\n',
    ];
    expect(blankLineJoinedTokens(tokenizer, lines)).toBe(tokenizer.count(lines.join('\n\n')));
    expect(blankLineJoinedTokens(tokenizer, [])).toBe(0);
  });

  test('counts lines joined and followed by blank lines as that text is counted', () => {
    const lines = [
      'Meridian\nThe Meridian is a vessel.',
      'Kessler Shipyard\nIt built the ferry.  ',
      '"Nordlys" 1923.',
    ];
    expect(blankLineTrailedTokens(tokenizer, lines)).toBe(tokenizer.count(`${lines.join('\n\n')}\n\n`));
    expect(blankLineTrailedTokens(tokenizer, ['It ends.'])).toBe(tokenizer.count('It ends.\n\n'));
    expect(blankLineTrailedTokens(tokenizer, [])).toBeUndefined();
    expect(blankLineTrailedTokens(tokenizer, ['a', '\nb'])).toBeUndefined();
  });

  test('gives up on a line that starts with whitespace, or a tokenizer whose counts need not add up', () => {
    expect(blankLineJoinedTokens(tokenizer, ['a', ' b'])).toBeUndefined();
    expect(
      blankLineJoinedTokens(
        { ...tokenizer, count: (t) => tokenizer.count(t), additiveAfterBlankLine: false },
        ['a', 'b'],
      ),
    ).toBeUndefined();
  });
});

describe('lineJoinedTokens', () => {
  test('counts lines joined by line breaks, and followed by a blank line, as those texts are counted (seeded entity-like lines)', () => {
    for (const name of ['cl100k_base', 'o200k_base'] as const) {
      const tokenizer = getTokenizer(name);
      const words = [
        'Meridian',
        'vessel',
        '1923',
        'Kessler:',
        'built',
        '—',
        'the',
        '"ferry".',
        '/',
        '(x)',
        'é',
        '  ',
      ];
      let seed = 3;
      const pick = (n: number) => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return seed % n;
      };
      for (let trial = 0; trial < 300; trial++) {
        const lines = Array.from({ length: 1 + pick(6) }, (_, i) => {
          const line = Array.from({ length: 1 + pick(6) }, () => words[pick(words.length)]).join(' ');
          return i === 0 || pick(5) > 0 ? line.replace(/^[^\p{L}\p{N}]+/u, 'A') : line;
        });
        const counted = lineJoinedTokens(tokenizer, lines);
        if (lines.slice(1).some((l) => !/^[\p{L}\p{N}]/u.test(l))) {
          expect(counted).toBeUndefined();
          continue;
        }
        expect(counted).toEqual({
          joined: tokenizer.count(lines.join('\n')),
          trailed: tokenizer.count(`${lines.join('\n')}\n\n`),
        });
      }
    }
  });

  test('gives up without lines, or with a tokenizer whose counts need not add up across a line break', () => {
    const tokenizer = getTokenizer();
    expect(lineJoinedTokens(tokenizer, [])).toBeUndefined();
    expect(
      lineJoinedTokens({ ...tokenizer, count: (t) => tokenizer.count(t), additiveAfterLineBreak: false }, [
        'a',
        'b',
      ]),
    ).toBeUndefined();
  });
});
