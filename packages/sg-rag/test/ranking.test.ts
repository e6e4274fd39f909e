import { createBuildContext } from '@grag/core/kit';
import { createScriptedEmbedder } from '@grag/core/test';
import { createOfflineProviders } from '@grag/offline';
import { describe, expect, it } from 'vitest';
import { createSgRag } from '../src/index.js';
import { T } from './helpers.js';

const sg = createSgRag();
const context = (embed?: (text: string) => number[]) =>
  createBuildContext({
    embedder: createScriptedEmbedder({ dimensions: 64, ...(embed ? { embed } : {}) }),
    tasks: createOfflineProviders().tasks,
  });
const star = (constraints: [string, string][]) => ({
  nodes: [
    { id: 'X', label: null, isTarget: true },
    ...constraints.map(([label], i) => ({ id: `c${i}`, label, isTarget: false })),
  ],
  edges: constraints.map(([, relation], i) => ({ source: 'X', target: `c${i}`, relation })),
  issues: [],
});

describe('match ranking (rankMatches)', () => {
  // Both films are linked to De Niro and to Crime film, so both match the structure; only "second"
  // is linked to Crime film by "genre". "first" comes first in node order.
  const triples = [
    T('first', 'starring', 'deniro'),
    T('first', 'set in', 'crime'),
    T('second', 'starring', 'deniro'),
    T('second', 'genre', 'crime'),
  ];
  const entityText = { first: 'First', second: 'Second', deniro: 'Robert De Niro', crime: 'Crime film' };
  const build = () => sg.build([], context(), { triples, entityText });
  /** "What stars Robert De Niro and is a crime film", its two edges named `relations`. */
  const deNiroCrime = (relations: [string, string]) =>
    star([
      ['Robert De Niro', relations[0]],
      ['Crime film', relations[1]],
    ]);

  it('puts the match whose relations read like the query edges first; "none" keeps node order', async () => {
    const index = await build();
    const queryGraph = deNiroCrime(['starring', 'genre']);
    const ranked = await sg.retrieve(index, 'q', { queryGraph });
    expect(ranked.trace.answers).toEqual(['Second', 'First']);
    // Mean over the two query edges: starring ↔ starring 1 and genre ↔ genre 1, against
    // starring 1 and genre ↔ "set in" (< 1: no shared word).
    const [best, worst] = ranked.trace.matchScores as number[];
    expect(best).toBeCloseTo(1, 6);
    expect(worst).toBeLessThan(0.9);
    expect(ranked.items[0]!.id).toBe('match:second|deniro|crime');
    const unranked = await sg.retrieve(index, 'q', { queryGraph, rankMatches: 'none' });
    expect(unranked.trace.answers).toEqual(['First', 'Second']);
  });

  it('compares edges without relation text with the question', async () => {
    const index = await build();
    const queryGraph = deNiroCrime(['', '']);
    const r = await sg.retrieve(index, 'which genre', { queryGraph });
    expect(r.trace.answers).toEqual(['Second', 'First']);
    const other = await sg.retrieve(index, 'set in', { queryGraph });
    expect(other.trace.answers).toEqual(['First', 'Second']);
  });
});

describe('entity normalization (exactLabelMatch)', () => {
  // "paris" embeds next to "Paris Hilton", not to "Paris": nearest neighbour and exact label disagree.
  const vectors: Record<string, number[]> = { paris: [0, 1], 'Paris Hilton': [0, 1], Paris: [1, 0] };
  const embed = (text: string) => vectors[text] ?? [0.5, 0.5];
  const triples = [T('amelie', 'set in', 'paris_city'), T('house', 'starring', 'hilton')];
  const entityText = { amelie: 'Amelie', house: 'House of Wax', paris_city: 'Paris', hilton: 'Paris Hilton' };
  const queryGraph = star([['paris', '']]);

  it('uses the nearest label embedding by default (SG-RAG Algorithm 3)', async () => {
    const index = await sg.build(
      [],
      context((t) => [...embed(t), ...new Array(62).fill(0)]),
      {
        triples,
        entityText,
      },
    );
    const r = await sg.retrieve(index, 'q', { queryGraph });
    expect(r.trace.answers).toEqual(['House of Wax']);
    expect((r.trace.normalization as { exact: boolean }[])[1]!.exact).toBe(false);
  });

  it('takes the same label first with exactLabelMatch', async () => {
    const index = await sg.build(
      [],
      context((t) => [...embed(t), ...new Array(62).fill(0)]),
      {
        triples,
        entityText,
      },
    );
    const r = await sg.retrieve(index, 'q', { queryGraph, exactLabelMatch: true });
    expect(r.trace.answers).toEqual(['Amelie']);
    expect((r.trace.normalization as { exact: boolean }[])[1]!.exact).toBe(true);
  });
});
