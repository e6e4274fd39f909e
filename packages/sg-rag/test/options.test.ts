import { InvalidArgumentError, type VectorSearchOptions } from '@grag/core';
import { createBuildContext, flatIndexFactory } from '@grag/core/kit';
import { createScriptedEmbedder, interceptedIndexFactory, recordingIndexFactory } from '@grag/core/test';
import { expectRetrieveOptionKeys } from '@grag/core/test/vitest';
import { createOfflineProviders } from '@grag/offline';
import { describe, expect, it } from 'vitest';
import { createSgRag, SG_RAG_DEFAULTS, SG_RAG_RETRIEVE_DEFAULTS, sgRag, type Triple } from '../src/index.js';

const triples: Triple[] = [
  { head: 'heat', relation: 'starring', tail: 'deniro' },
  { head: 'heat', relation: 'directed by', tail: 'mann' },
  { head: 'ronin', relation: 'starring', tail: 'deniro' },
];
const entityText = { heat: 'Heat', ronin: 'Ronin', deniro: 'Robert De Niro', mann: 'Michael Mann' };
const relationText = { starring: 'starring', 'directed by': 'directed by' };
/** "Which film stars Robert De Niro?" as a query graph: an unknown film X starring the node labelled a. */
const queryGraph = {
  nodes: [
    { id: 'X', label: null, isTarget: true },
    { id: 'a', label: 'Robert De Niro', isTarget: false },
  ],
  edges: [{ source: 'X', target: 'a', relation: 'starring' }],
  issues: [],
};
const context = () =>
  createBuildContext({ embedder: createScriptedEmbedder(), tasks: createOfflineProviders().tasks });

describe('option keys', () => {
  it('a misspelled build option is an InvalidArgumentError that suggests the right key', async () => {
    const error = await sgRag.build([], context(), { triples, pathLenght: 2 } as object).catch((e) => e);
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error.message).toContain('sg-rag build: unknown option "pathLenght"; did you mean "pathLength"?');
  });

  it('accepts every documented option, the triple input the CLI passes included', async () => {
    const index = await sgRag.build([], context(), {
      ...SG_RAG_DEFAULTS,
      triples,
      entityText,
      relationText: new Map(Object.entries(relationText)),
    });
    await expectRetrieveOptionKeys(
      sgRag,
      index,
      'Which film stars Robert De Niro?',
      {
        ...SG_RAG_RETRIEVE_DEFAULTS,
        queryGraph: {
          nodes: [
            { id: 'X', label: null, isTarget: true },
            { id: 'a', label: 'Robert De Niro', isTarget: false },
          ],
          edges: [{ source: 'X', target: 'a', relation: 'starring' }],
          issues: [],
        },
        topK: 5,
      },
      ['maxMatchs', 'maxMatches', 3],
    );
  });

  it('resolves options over the defaults, ignoring undefined values, and checks their values', async () => {
    const index = await sgRag.build([], context(), { triples, entityText, pathLength: undefined });
    expect(index.options.pathLength).toBe(1);
    const r = await sgRag.retrieve(index, 'q', { queryGraph, mode: undefined, maxMatches: undefined });
    expect(r.trace.mode).toBe('sg-rag');
    expect(r.trace.answers).toEqual(['Heat', 'Ronin']);
    for (const [bad, message] of [
      [
        { mode: 'three-hop' },
        'sg-rag retrieve: mode must be one of "sg-rag", "entity", "one-hop", "two-hop"',
      ],
      [{ maxMatches: 0 }, 'sg-rag retrieve: maxMatches must be a positive integer (got 0)'],
      [{ topK: 1.5 }, 'sg-rag retrieve: topK must be a positive integer (got 1.5)'],
      [{ queryGraph: {} }, 'sg-rag retrieve: queryGraph must be a query graph'],
    ] as const) {
      const error = await sgRag.retrieve(index, 'q', { queryGraph, ...bad } as object).catch((e) => e);
      expect(InvalidArgumentError.isInstance(error), String(error)).toBe(true);
      expect(error.message).toContain(message);
    }
    const error = await sgRag.build([], context(), { triples, pathLength: 3 as never }).catch((e) => e);
    expect(error.message).toContain('sg-rag build: pathLength must be one of 1, 2 (got 3)');
  });
});

describe('labelEf', () => {
  it('gives the nearest-label search the breadth asked: 256 by default, none with 0', async () => {
    const calls: VectorSearchOptions[] = [];
    const ctx = createBuildContext({
      embedder: createScriptedEmbedder(),
      tasks: createOfflineProviders().tasks,
      vectorIndex: recordingIndexFactory(calls),
    });
    const index = await sgRag.build([], ctx, { triples, entityText });
    const byDefault = await sgRag.retrieve(index, 'q', { queryGraph });
    expect(calls.map((c) => c.ef)).toEqual([256]);
    calls.length = 0;
    const wide = await sgRag.retrieve(index, 'q', { queryGraph, labelEf: 512 });
    expect(calls.map((c) => c.ef)).toEqual([512]);
    // An exact index ignores it: the same normalization and answers either way.
    expect(wide.trace.normalization).toEqual(byDefault.trace.normalization);
    expect(wide.trace.answers).toEqual(['Heat', 'Ronin']);
    calls.length = 0;
    await sgRag.retrieve(index, 'q', { queryGraph, labelEf: 0 });
    expect(calls).toHaveLength(1);
    expect('ef' in calls[0]!).toBe(false);
    // Set on the method, it is the default of its queries.
    calls.length = 0;
    await createSgRag({ retrieveDefaults: { labelEf: 40 } }).retrieve(index, 'q', { queryGraph });
    expect(calls.map((c) => c.ef)).toEqual([40]);
  });

  it('gives labels of equal similarity to the lowest node id, whichever an approximate search meets first', async () => {
    // Two data nodes with the same label (the same vector). An index that, asked for one hit, returns
    // the last of the best it meets (as an approximate search may), and asked for more returns them
    // ranked as every index does: by score, then lower id.
    const lastOfTies = interceptedIndexFactory(
      (search) => (query, k, options) => {
        const hits = search(query, Math.max(k, 8), options);
        if (k > 1) return hits.slice(0, k);
        const best = hits.filter((h) => h.score === hits[0]!.score);
        return [best.at(-1)!];
      },
      flatIndexFactory,
      'hnsw',
    );
    const ctx = createBuildContext({
      embedder: createScriptedEmbedder(),
      tasks: createOfflineProviders().tasks,
      vectorIndex: lastOfTies,
    });
    const twins: Triple[] = [
      { head: 'heat', relation: 'starring', tail: 'deniro' },
      { head: 'ronin', relation: 'starring', tail: 'deniro2' },
    ];
    const index = await sgRag.build([], ctx, {
      triples: twins,
      entityText: { heat: 'Heat', ronin: 'Ronin', deniro: 'Robert De Niro', deniro2: 'Robert De Niro' },
    });
    const { trace } = await sgRag.retrieve(index, 'q', { queryGraph });
    const lowest =
      index.graph.ids.indexOf('deniro') < index.graph.ids.indexOf('deniro2') ? 'deniro' : 'deniro2';
    const normalization = trace.normalization as { queryNode: string; node: string | null }[];
    expect(normalization.find((n) => n.queryNode === 'a')?.node).toBe(lowest);
  });

  it('refuses a labelEf that is negative or not an integer, naming it', async () => {
    const index = await sgRag.build([], context(), { triples, entityText });
    for (const [bad, message] of [
      [-1, 'sg-rag retrieve: labelEf must be a non-negative integer (got -1)'],
      [2.5, 'sg-rag retrieve: labelEf must be a non-negative integer (got 2.5)'],
    ] as const) {
      const error = await sgRag.retrieve(index, 'q', { queryGraph, labelEf: bad }).catch((e) => e);
      expect(InvalidArgumentError.isInstance(error), String(error)).toBe(true);
      expect(error.message).toContain(message);
    }
  });
});
