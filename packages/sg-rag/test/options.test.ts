import { InvalidArgumentError } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { createScriptedEmbedder } from '@grag/core/test';
import { expectRetrieveOptionKeys } from '@grag/core/test/vitest';
import { createOfflineProviders } from '@grag/offline';
import { describe, expect, it } from 'vitest';
import { SG_RAG_DEFAULTS, SG_RAG_RETRIEVE_DEFAULTS, sgRag, type Triple } from '../src/index.js';

const triples: Triple[] = [
  { head: 'heat', relation: 'starring', tail: 'deniro' },
  { head: 'heat', relation: 'directed by', tail: 'mann' },
  { head: 'ronin', relation: 'starring', tail: 'deniro' },
];
const entityText = { heat: 'Heat', ronin: 'Ronin', deniro: 'Robert De Niro', mann: 'Michael Mann' };
const relationText = { starring: 'starring', 'directed by': 'directed by' };
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
    const queryGraph = {
      nodes: [
        { id: 'X', label: null, isTarget: true },
        { id: 'a', label: 'Robert De Niro', isTarget: false },
      ],
      edges: [{ source: 'X', target: 'a', relation: 'starring' }],
      issues: [],
    };
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
