import { IndexFormatError } from '@grag/core';
import { mulberry32 } from '@grag/core/test';
import { UndirectedGraph } from 'graphology';
import { bidirectional } from 'graphology-shortest-path';
import { describe, expect, test } from 'vitest';
import { EntityGraph } from '../src/graph/index.js';

describe('EntityGraph.fromSentences', () => {
  // chunk 0: two sentences; chunk 1: one sentence with a repeated entity.
  const graph = EntityGraph.fromSentences([
    [
      ['ada', 'bob', 'cat'],
      ['ada', 'bob'],
    ],
    [['cat', 'dan', 'cat']],
  ]);
  const id = (e: string) => graph.id(e)!;
  const weight = (a: string, b: string) => {
    const { ids, weights } = graph.neighbors(id(a));
    const at = [...ids].indexOf(id(b));
    return at < 0 ? 0 : weights[at];
  };

  test('weights an edge by the number of sentences the two entities share, with no self-loop', () => {
    expect(graph.entities).toEqual(['ada', 'bob', 'cat', 'dan']);
    expect(weight('ada', 'bob')).toBe(2);
    expect(weight('ada', 'cat')).toBe(1);
    expect(weight('bob', 'cat')).toBe(1);
    expect(weight('cat', 'dan')).toBe(1);
    expect(weight('cat', 'cat')).toBe(0);
    expect(weight('ada', 'dan')).toBe(0);
    expect(graph.edgeCount).toBe(4);
  });

  test('indexes chunks by entity and entities by chunk, with occurrence counts', () => {
    expect([...graph.chunksOf(id('cat')).chunks]).toEqual([0, 1]);
    expect([...graph.chunksOf(id('cat')).counts]).toEqual([1, 2]);
    expect([...graph.chunksOf(id('ada')).counts]).toEqual([2]);
    const c1 = graph.entitiesOf(1);
    expect([...c1.entities].map((e) => graph.entities[e])).toEqual(['cat', 'dan']);
    expect([...c1.counts]).toEqual([2, 1]);
    expect(graph.sharedChunks(id('ada'), id('cat'))).toEqual([0]);
    expect(graph.sharedChunks(id('ada'), id('dan'))).toEqual([]);
  });

  test('round-trips through JSON and converts to graphology', () => {
    const copy = EntityGraph.fromJSON(JSON.parse(JSON.stringify(graph.toJSON())));
    expect(copy.toJSON()).toEqual(graph.toJSON());
    const g = graph.toGraphology();
    expect(g.order).toBe(4);
    expect(g.size).toBe(4);
    expect(g.getEdgeAttribute(g.edge('ada', 'bob')!, 'weight')).toBe(2);
    expect(() =>
      EntityGraph.fromJSON({ formatVersion: 1, entities: ['a'], edges: [0, 5, 1], chunks: [] }),
    ).toThrow(/bad edge/);
    let error: unknown;
    try {
      EntityGraph.fromJSON({ formatVersion: 2 });
    } catch (e) {
      error = e;
    }
    expect(IndexFormatError.isInstance(error)).toBe(true);
  });
});

describe('EntityGraph.distance', () => {
  test('counts hops on a path and stops at the bound', () => {
    // a - b - c - d - e as consecutive sentences.
    const path = EntityGraph.fromSentences([[['a', 'b'], ['b', 'c'], ['c', 'd'], ['d', 'e'], ['x']]]);
    const id = (e: string) => path.id(e)!;
    expect(path.distance(id('a'), id('a'), 3)).toBe(0);
    expect(path.distance(id('a'), id('b'), 3)).toBe(1);
    expect(path.distance(id('a'), id('d'), 3)).toBe(3);
    expect(path.distance(id('a'), id('e'), 3)).toBe(Number.POSITIVE_INFINITY);
    expect(path.distance(id('a'), id('e'), 4)).toBe(4);
    expect(path.distance(id('a'), id('x'), 10)).toBe(Number.POSITIVE_INFINITY);
    expect(path.distance(id('a'), id('c'), 0)).toBe(Number.POSITIVE_INFINITY);
  });

  test('agrees with graphology-shortest-path on random graphs within the bound', () => {
    const random = mulberry32(7);
    for (let trial = 0; trial < 20; trial++) {
      const n = 30 + Math.floor(random() * 40);
      const sentences: string[][] = [];
      const edges = Math.floor(n * (0.6 + random()));
      for (let e = 0; e < edges; e++) {
        sentences.push([`n${Math.floor(random() * n)}`, `n${Math.floor(random() * n)}`]);
      }
      const graph = EntityGraph.fromSentences([sentences]);
      const oracle = new UndirectedGraph();
      for (const e of graph.entities) oracle.addNode(e);
      for (const [a, b] of sentences) if (a !== b && !oracle.hasEdge(a!, b!)) oracle.addEdge(a!, b!);
      for (let q = 0; q < 30; q++) {
        const a = graph.entities[Math.floor(random() * graph.entities.length)]!;
        const b = graph.entities[Math.floor(random() * graph.entities.length)]!;
        const path = bidirectional(oracle, a, b);
        const truth = path ? path.length - 1 : Number.POSITIVE_INFINITY;
        for (const bound of [1, 2, 3, 5]) {
          expect(graph.distance(graph.id(a)!, graph.id(b)!, bound)).toBe(
            truth <= bound ? truth : Number.POSITIVE_INFINITY,
          );
        }
      }
    }
  });
});
