import { describe, expect, test } from 'vitest';
import { chunkLayerEdges, flatEdges, graphLinks, pairsToEdges } from '../src/layers.js';

describe('chunkLayerEdges (DA-RAG §3)', () => {
  test('links the chunks of the two ends of each relation, and stops hub entities (maxLinkEntityChunks)', () => {
    // Entities 0 (chunks 0, 1), 1 (chunk 2), 2 (chunks 0, 1, 2, 3: a hub at cap 3). Relations 0-1, 1-2.
    const entityChunks = [Uint32Array.of(0, 1), Uint32Array.of(2), Uint32Array.of(0, 1, 2, 3)];
    const relations = [
      { source: 0, target: 1 },
      { source: 1, target: 2 },
    ];
    const capped = chunkLayerEdges({ chunkCount: 4, relations, entityChunks, maxLinkEntityChunks: 3 });
    expect(Array.from(capped.edges)).toEqual([0, 2, 1, 2]);
    expect(capped.hubEntities).toBe(1);
    const literal = chunkLayerEdges({ chunkCount: 4, relations, entityChunks, maxLinkEntityChunks: null });
    expect(Array.from(literal.edges)).toEqual([0, 2, 1, 2, 2, 3]);
    expect(literal.hubEntities).toBe(0);
  });

  test('never links a chunk to itself, and lists each pair once', () => {
    // Both ends of the relation are in chunk 1; entity 0 is also in chunk 0.
    const edges = chunkLayerEdges({
      chunkCount: 2,
      relations: [
        { source: 0, target: 1 },
        { source: 1, target: 0 },
      ],
      entityChunks: [Uint32Array.of(0, 1), Uint32Array.of(1)],
      maxLinkEntityChunks: null,
    });
    expect(Array.from(edges.edges)).toEqual([0, 1]);
  });
});

describe('pairsToEdges / flatEdges', () => {
  test('decodes sorted pair keys a * n + b into a flat edge list', () => {
    expect(Array.from(pairsToEdges([2 * 5 + 4, 0 * 5 + 3, 1 * 5 + 2], 5))).toEqual([0, 3, 1, 2, 2, 4]);
  });

  test('flattens a graph’s edges in edge-id order', () => {
    expect(flatEdges({ m: 2, sources: [3, 0], targets: [4, 1] })).toEqual([3, 4, 0, 1]);
  });
});

describe('graphLinks', () => {
  test('indexes entities and relations and links each chunk to its entities, ascending', () => {
    const links = graphLinks({
      chunkIds: ['a', 'b', 'c'],
      entities: [
        { id: 'x', chunkIds: ['c', 'a'] },
        { id: 'y', chunkIds: ['b'] },
        { id: 'z', chunkIds: ['a', 'b'] },
      ],
      relations: [
        { source: 'z', target: 'x' },
        { source: 'y', target: 'z' },
      ],
    });
    expect([...links.entityIndex]).toEqual([
      ['x', 0],
      ['y', 1],
      ['z', 2],
    ]);
    expect(links.entityChunks.map((l) => Array.from(l))).toEqual([[0, 2], [1], [0, 1]]);
    expect(links.chunkEntities.map((l) => Array.from(l))).toEqual([[0, 2], [1, 2], [0]]);
    expect(links.relationPairs).toEqual([
      { source: 2, target: 0 },
      { source: 1, target: 2 },
    ]);
    expect(Array.from(links.kgEdges)).toEqual([2, 0, 1, 2]);
  });
});
