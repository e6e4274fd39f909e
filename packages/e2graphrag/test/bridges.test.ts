import { createBuildContext, type Document } from '@grag/core';
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
    title: 'Life Classes',
    text: 'Life Classes is a 1987 drama film directed by William D. MacGillivray. It follows a young woman in Cape Breton.',
  },
  {
    id: 'director',
    title: 'William D. MacGillivray',
    text: 'William D. MacGillivray is a Newfoundland filmmaker. He studied at the Nova Scotia College of Art and Design.',
  },
  {
    id: 'lessons',
    title: 'Life Lessons',
    text: 'Life Lessons is a short film by Martin Scorsese about a painter in New York.',
  },
  {
    id: 'traffic',
    title: 'Traffic Warden',
    text: 'Traffic Warden is a comedy about a man who loses his hat.',
  },
  {
    id: 'school',
    title: 'Evening school',
    text: 'The evening school educated adults in Halifax for a century.',
  },
  {
    id: 'orchestra',
    title: 'Halifax Orchestra',
    text: 'The Halifax Orchestra was directed by Georg Tintner for many years.',
  },
];

const QUESTION = 'Where was the man who directed Life Classes educated?';

async function ranked(
  options: Record<string, unknown>,
): Promise<{ ids: string[]; trace: Record<string, unknown> }> {
  const { tasks, embedder } = createOfflineProviders();
  const ctx = createBuildContext({ embedder, tasks });
  const index = await e2GraphRag.build(CORPUS, ctx, { chunking: 'document', topK: 3, ...options });
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
      entity: 'William D. MacGillivray',
      chunk: 'director',
    });
    // the linked query entity is the film's title entity
    expect(trace.entities).toContain('Life Classes');
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
