import { describe, expect, it } from 'vitest';
import { adjacencyOf, coverageAnswers, gatherEdges, graphFromTriples, type Triple } from './helpers.js';

const T = (head: string, tail: string): Triple => ({ head, relation: 'r', tail });

describe('fallback facts and the coverage answerer', () => {
  // A path a–b–c–d and a branch b–e.
  const { graph } = graphFromTriples([T('a', 'b'), T('b', 'c'), T('c', 'd'), T('b', 'e')]);
  const adjacency = adjacencyOf(graph);
  const node = (id: string) => graph.ids.indexOf(id);
  const edge = (x: string, y: string) => adjacency.edgeOf[node(x)]!.get(node(y))!;
  const gather = (seeds: string[], hops: number, limit = 100) =>
    gatherEdges({ adjacency, seeds: seeds.map(node), hops, limit });

  it('gathers the edges within a number of hops, breadth first, up to a limit', () => {
    expect(gather(['a'], 1)).toEqual([edge('a', 'b')]);
    expect(gather(['a'], 2)).toEqual([edge('a', 'b'), edge('b', 'c'), edge('b', 'e')]);
    expect(gather(['a', 'a', 'd'], 1)).toEqual([edge('a', 'b'), edge('c', 'd')]);
    expect(gather(['a'], 3, 2)).toEqual([edge('a', 'b'), edge('b', 'c')]);
  });

  it('answers with the entities linked to the most query entities, ties kept', () => {
    const all = [edge('a', 'b'), edge('b', 'c'), edge('c', 'd'), edge('b', 'e')];
    // b is linked to a and c, d only to c.
    expect(coverageAnswers(graph, all, new Set([node('a'), node('c')]))).toEqual(['b']);
    // Around b alone: a, c and e each link to it once.
    expect(coverageAnswers(graph, all, new Set([node('b')]))).toEqual(['a', 'c', 'e']);
    expect(coverageAnswers(graph, [edge('c', 'd')], new Set([node('a')]))).toEqual([]);
  });
});
