import type { Document } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { createOfflineProviders } from '@grag/offline';
import { describe, expect, test } from 'vitest';
import { EntityGraph, e2GraphRag, expandBridges, homeChunks } from '../src/index.js';

/**
 * A two-hop question: the film passage names its director, the director's own passage (titled
 * with his name) holds the answer but shares no word with the question, and distractors share the
 * question's words.
 */
const CORPUS: Document[] = [
  {
    id: 'film',
    title: 'Still Waters',
    text: 'Still Waters is a 1987 drama film directed by Edvin D. MacAlder. It follows a young woman in Skarn.',
  },
  {
    id: 'director',
    title: 'Edvin D. MacAlder',
    text: 'Edvin D. MacAlder is a Merrow Falls filmmaker. He studied at the Orsa College of Art and Design.',
  },
  {
    id: 'lessons',
    title: 'Still Life',
    text: 'Still Life is a short film by Greta Holm about a painter in Dunmore.',
  },
  {
    id: 'traffic',
    title: 'Traffic Warden',
    text: 'Traffic Warden is a comedy about a man who loses his hat.',
  },
  {
    id: 'school',
    title: 'Evening school',
    text: 'The evening school educated adults in Port Halvard for a century.',
  },
  {
    id: 'orchestra',
    title: 'Port Halvard Orchestra',
    text: 'The Port Halvard Orchestra was directed by Tobias Wren for many years.',
  },
];

const QUESTION = 'Where was the man who directed Still Waters educated?';

async function ranked(
  options: Record<string, unknown>,
): Promise<{ ids: string[]; trace: Record<string, unknown> }> {
  const { tasks, embedder, textAnalyzer } = createOfflineProviders();
  const ctx = createBuildContext({ embedder, tasks, textAnalyzer });
  const index = await e2GraphRag.build(CORPUS, ctx, {
    chunking: 'document',
    topK: 3,
    preset: 'offline',
    ...options,
  });
  const r = await e2GraphRag.retrieve(index, QUESTION);
  return { ids: r.items.filter((i) => i.kind === 'chunk').flatMap((i) => i.source.docIds), trace: r.trace };
}

describe('bridges: the second hop through linked title entities', () => {
  test('with linking, the director passage comes right behind the film passage that names him', async () => {
    const { ids, trace } = await ranked({});
    expect(ids.slice(0, 3)).toContain('film');
    expect(ids.indexOf('director')).toBe(ids.indexOf('film') + 1);
    expect(trace.bridges).toContainEqual({
      from: 'film',
      entity: 'Edvin D. MacAlder',
      chunk: 'director',
    });
    // the linked query entity is the film's title entity
    expect(trace.entities).toContain('Still Waters');
  });

  test('without linking, the second-hop passage is not reached', async () => {
    const { ids, trace } = await ranked({ entityLinking: false });
    expect(ids).toContain('film');
    expect(ids).not.toContain('director');
    expect(trace.bridges).toEqual([]);
  });

  test('the entry points alone (the dense-only ablation) miss it too', async () => {
    const { ids } = await ranked({ denseOnly: true });
    expect(ids).not.toContain('director');
  });
});

describe('expandBridges', () => {
  // c0 (home Film) names Director; c1 (home Director) names School; c2 (home Other) names Film.
  const graph = EntityGraph.fromSentences([
    [['Film', 'Director']],
    [['Director', 'School']],
    [['Other', 'Film']],
  ]);
  const homes = ['Film', 'Director', 'Other'];
  const home = homeChunks(graph, homes);
  const input = { graph, home, homes, queryIds: [graph.id('Film')!] };

  test('home chunks are the first chunk of each title entity', () => {
    expect([...home].map(([e, c]) => [graph.entities[e], c])).toEqual([
      ['Film', 0],
      ['Director', 1],
      ['Other', 2],
    ]);
  });

  test('moves the home chunk of an entity a seed names right behind it', () => {
    const { ranking, bridges } = expandBridges({ ...input, ranking: [0, 2, 1], bridges: 1, bridgeSeeds: 1 });
    expect(ranking).toEqual([0, 1, 2]);
    expect(bridges).toEqual([{ from: 0, entity: 'Director', chunk: 1 }]);
  });

  test('leaves the ranking alone when off, and never moves a later seed forward', () => {
    expect(expandBridges({ ...input, ranking: [0, 2, 1], bridges: 0, bridgeSeeds: 3 })).toEqual({
      ranking: [0, 2, 1],
      bridges: [],
    });
    // Director's chunk is the third seed: it stays there; Film's chunk is already placed.
    expect(expandBridges({ ...input, ranking: [0, 2, 1], bridges: 2, bridgeSeeds: 3 })).toEqual({
      ranking: [0, 2, 1],
      bridges: [],
    });
  });
});

describe('mention bridges: the second hop through a passage that is not titled with the bridge entity', () => {
  // The rebellion named in the bridge passage has no passage of its own; the passage about its end
  // ("Modern history of Orsa") names it and holds the question's other terms ("treaty", "ended").
  const corpus: Document[] = [
    {
      id: 'bridge',
      title: 'Harbour Bridge of Veska',
      text: 'The Harbour Bridge of Veska was a stone bridge over the Veska river. It was destroyed during the Saltmarsh Rebellion.',
    },
    {
      id: 'history',
      title: 'Modern history of Orsa',
      text: 'The Saltmarsh Rebellion ended in 1871 with the Treaty of Calder, signed in Orsa.',
    },
    {
      id: 'lune',
      title: 'Lune trade dispute',
      text: 'The trade dispute between Lune and Tarn ended with a treaty in 1902.',
    },
    { id: 'river', title: 'Veska river', text: 'The Veska river flows through the harbour town of Veska.' },
    {
      id: 'tarn',
      title: 'Tarn uprising',
      text: 'A rebellion in Tarn destroyed the old harbour and its bridge.',
    },
    {
      id: 'rebuilt',
      title: 'Veska harbour',
      text: 'The Veska harbour bridge was rebuilt after a treaty with Tarn.',
    },
  ];
  const question = 'Which treaty ended the rebellion that destroyed the Harbour Bridge of Veska?';

  async function retrieve(options: Record<string, unknown>) {
    const { tasks, embedder, textAnalyzer } = createOfflineProviders();
    const index = await e2GraphRag.build(corpus, createBuildContext({ embedder, tasks, textAnalyzer }), {
      chunking: 'document',
      topK: 3,
      bridgeSeeds: 1,
      preset: 'offline',
    });
    const r = await e2GraphRag.retrieve(index, question, options);
    return { ids: r.items.filter((i) => i.kind === 'chunk').flatMap((i) => i.source.docIds), trace: r.trace };
  }

  test('by default the passage sharing the rebellion and matching "treaty ended" follows the title bridge', async () => {
    const { ids, trace } = await retrieve({});
    expect(ids).toEqual(['bridge', 'river', 'history']);
    expect(trace.bridges).toEqual([
      { from: 'bridge', entity: 'Veska river', chunk: 'river' },
      { from: 'bridge', entity: 'Saltmarsh Rebellion', chunk: 'history' },
    ]);
  });

  test('with mentionBridges 0 (the earlier configuration) it is not among the first three', async () => {
    const { ids } = await retrieve({ mentionBridges: 0 });
    expect(ids).not.toContain('history');
  });
});

describe('expandBridges: bridge orders, the rank threshold and mention bridges', () => {
  // c0 (home A) names the title entities B and C and the untitled entity X; c2 also names the query
  // entity Q; c3 and c4 name X; c5 names nothing of c0's. Spreads: B 2, C 2, X 3.
  const graph = EntityGraph.fromSentences([
    [['A', 'B', 'C', 'X']],
    [['B']],
    [['C', 'Q']],
    [['D', 'X']],
    [['E', 'X']],
    [['F']],
  ]);
  const homes = ['A', 'B', 'C', 'D', 'E', 'F'];
  const home = homeChunks(graph, homes);
  const base = {
    graph,
    home,
    homes,
    queryIds: [graph.id('Q')!],
    ranking: [0, 5, 1, 2, 3, 4],
    bridgeSeeds: 1,
  };
  // c0's residual query: c4 best, then c5, c1, c3, c2.
  const residual = (seed: number) =>
    seed === 0
      ? [
          { id: 4, score: 2 },
          { id: 5, score: 1.8 },
          { id: 1, score: 1.5 },
          { id: 3, score: 1 },
          { id: 2, score: 0.5 },
        ]
      : [];

  test("'coverage' (the default): the home chunk with the query entity first", () => {
    expect(expandBridges({ ...base, bridges: 1 }).ranking).toEqual([0, 2, 5, 1, 3, 4]);
  });

  test("'entry': the home chunk ranked higher among the entry points first", () => {
    const entryRank = new Map([
      [1, 3],
      [2, 7],
    ]);
    expect(expandBridges({ ...base, bridges: 1, bridgeOrder: 'entry', entryRank }).ranking).toEqual([
      0, 1, 5, 2, 3, 4,
    ]);
    // a chunk missing from the entry ranks comes last
    expect(
      expandBridges({ ...base, bridges: 1, bridgeOrder: 'entry', entryRank: new Map([[2, 40]]) }).ranking,
    ).toEqual([0, 2, 5, 1, 3, 4]);
  });

  test("'residual': the home chunk scoring higher for the seed's residual query first", () => {
    // c1 scores 1.5, c2 0.5
    expect(expandBridges({ ...base, bridges: 1, bridgeOrder: 'residual', residual }).ranking).toEqual([
      0, 1, 5, 2, 3, 4,
    ]);
  });

  test('bridgeMaxRank: a home chunk ranked at or beyond it is not placed', () => {
    const entryRank = new Map([
      [1, 3],
      [2, 7],
    ]);
    expect(expandBridges({ ...base, bridges: 2, bridgeMaxRank: 5, entryRank })).toEqual({
      ranking: [0, 1, 5, 2, 3, 4],
      bridges: [{ from: 0, entity: 'B', chunk: 1 }],
    });
  });

  test('mention bridges: the best residual hit that shares a rare entity, after the title bridges', () => {
    // c4 is the best residual hit and shares X (named in 3 chunks) with c0.
    expect(expandBridges({ ...base, bridges: 1, mentionBridges: 1, residual })).toEqual({
      ranking: [0, 2, 4, 5, 1, 3],
      bridges: [
        { from: 0, entity: 'C', chunk: 2 },
        { from: 0, entity: 'X', chunk: 4 },
      ],
    });
    // two of them: c5 shares nothing with c0, c1 shares B (spread 2): c4 then c1
    expect(expandBridges({ ...base, bridges: 0, mentionBridges: 2, residual }).ranking).toEqual([
      0, 4, 1, 5, 2, 3,
    ]);
  });

  test('mention bridges: the spread limit, the residual depth and later seeds', () => {
    // X is named in 3 chunks: over a spread of 2, c4 is not linked; c1 (B, spread 2) is
    expect(
      expandBridges({ ...base, bridges: 0, mentionBridges: 1, mentionSpread: 2, residual }).ranking,
    ).toEqual([0, 1, 5, 2, 3, 4]);
    // only the first two residual hits (c4, c5) are looked at: with spread 2 neither is linked
    expect(
      expandBridges({
        ...base,
        bridges: 0,
        mentionBridges: 1,
        mentionSpread: 2,
        mentionResidualRank: 2,
        residual,
      }),
    ).toEqual({ ranking: [0, 5, 1, 2, 3, 4], bridges: [] });
    // c4 is the second seed: it stays there, the next linked hit (c1) follows c0
    expect(
      expandBridges({
        ...base,
        ranking: [0, 4, 5, 1, 2, 3],
        bridgeSeeds: 2,
        bridges: 0,
        mentionBridges: 1,
        residual,
      }).ranking,
    ).toEqual([0, 1, 4, 5, 2, 3]);
    // without a residual ranking there are no mention bridges
    expect(expandBridges({ ...base, bridges: 0, mentionBridges: 1 }).bridges).toEqual([]);
  });

  test('asks for the residual hits it reads, and places the same with only those', () => {
    const asked: number[] = [];
    // Only the best `depth` hits, as residualSearch returns them.
    const shallow = (seed: number, depth: number) => {
      asked.push(depth);
      return residual(seed).slice(0, depth);
    };
    const configurations = [
      { bridges: 1, mentionBridges: 1 },
      { bridges: 0, mentionBridges: 2, mentionResidualRank: 3 },
      { bridges: 0, mentionBridges: 1, mentionSpread: 2, mentionResidualRank: 2 },
      { bridges: 1, bridgeOrder: 'residual' as const },
      { bridges: 2, bridgeOrder: 'residual' as const, mentionBridges: 1, mentionResidualRank: 1 },
    ];
    for (const c of configurations) {
      asked.length = 0;
      expect(expandBridges({ ...base, ...c, residual: shallow })).toEqual(
        expandBridges({ ...base, ...c, residual }),
      );
      // The mention depth (default 10), or every hit for the residual order, which reads any candidate's score.
      expect(asked).toEqual([
        c.bridgeOrder === 'residual' ? Number.POSITIVE_INFINITY : (c.mentionResidualRank ?? 10),
      ]);
    }
  });
});
