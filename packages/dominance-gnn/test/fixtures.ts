import { mulberry32 } from '@grag/core/kit';
import { createStarGraph, type StarGraph } from '../src/index.js';

/** A hand-made film knowledge graph: 10 entities of 4 types, 16 relations. */
export function filmGraph(): StarGraph {
  return createStarGraph(
    {
      alice: 'person',
      bob: 'person',
      carol: 'person',
      dune: 'film',
      alien: 'film',
      heat: 'film',
      oscar: 'award',
      bafta: 'award',
      usa: 'country',
      uk: 'country',
    },
    [
      ['alice', 'dune'],
      ['alice', 'alien'],
      ['bob', 'dune'],
      ['bob', 'heat'],
      ['carol', 'alien'],
      ['carol', 'heat'],
      ['carol', 'bafta'],
      ['dune', 'oscar'],
      ['alien', 'oscar'],
      ['heat', 'bafta'],
      ['alice', 'usa'],
      ['bob', 'usa'],
      ['carol', 'uk'],
      ['dune', 'usa'],
      ['alien', 'uk'],
      ['alice', 'oscar'],
    ],
  );
}

/** A seeded random labelled graph: `n` nodes with one of `labels` labels, `m` random edges. */
export function randomGraph(n: number, m: number, labels: number, seed: number): StarGraph {
  const rand = mulberry32(seed);
  const names: Record<string, string> = {};
  for (let i = 0; i < n; i++) names[`n${i}`] = `L${Math.floor(rand() * labels)}`;
  const edges: [string, string][] = [];
  for (let e = 0; e < m; e++) edges.push([`n${Math.floor(rand() * n)}`, `n${Math.floor(rand() * n)}`]);
  return createStarGraph(names, edges);
}
