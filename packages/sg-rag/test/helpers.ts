import { createBuildContext } from '@grag/core/kit';
import { createScriptedEmbedder } from '@grag/core/test';
import { createOfflineProviders } from '@grag/offline';
import type { Triple } from '../src/index.js';

export * from '../src/index.js';

/** Path index options small tests share (no middle node skipped). */
export const PATH_INDEX_TEST_DEFAULTS = {
  dominanceDimensions: 2,
  seed: 2022,
  maxMiddleDegree: 1000,
  nodeCapacity: 4,
} as const;

/** A triple. */
export const T = (head: string, relation: string, tail: string): Triple => ({ head, relation, tail });

/** Heat (De Niro, Mann, crime), Ronin (De Niro, crime) and Alien (Weaver): the triples of `__fixtures__/index-v1`. */
export const FILM_TRIPLES: readonly Triple[] = [
  T('heat', 'starring', 'deniro'),
  T('heat', 'directed by', 'mann'),
  T('heat', 'genre', 'crime'),
  T('ronin', 'starring', 'deniro'),
  T('ronin', 'genre', 'crime'),
  T('alien', 'starring', 'weaver'),
];

/** A context of the scripted embedder (8 dimensions) and the offline task suite. */
export const offlineContext = () =>
  createBuildContext({
    embedder: createScriptedEmbedder({ dimensions: 8 }),
    tasks: createOfflineProviders().tasks,
  });

/** The query graph of "what (X) has De Niro and is a crime film", its two edges named `relations`. */
export function deniroCrimeQuery(relations: readonly [string, string]) {
  return {
    nodes: [
      { id: 'X', label: null, isTarget: true },
      { id: 'a', label: 'deniro', isTarget: false },
      { id: 'b', label: 'crime', isTarget: false },
    ],
    edges: [
      { source: 'X', target: 'a', relation: relations[0] },
      { source: 'X', target: 'b', relation: relations[1] },
    ],
    issues: [],
  };
}
