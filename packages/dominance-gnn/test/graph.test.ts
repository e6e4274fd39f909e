import { InvalidArgumentError } from '@grag/core';
import { KnowledgeGraphBuilder } from '@grag/core/graph';
import { mulberry32 } from '@grag/core/kit';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  createStarGraph,
  degree,
  isSubMultiset,
  randomSubStar,
  starGraphFromGraph,
  starOf,
  subMultisetCount,
  subMultisets,
  toMultiset,
} from '../src/index.js';

describe('createStarGraph', () => {
  test('merges repeated and reversed edges, drops self-loops and sorts each neighbour row', () => {
    const g = createStarGraph({ a: 'x', b: 'y', c: 'y' }, [
      ['a', 'c'],
      ['b', 'a'],
      ['a', 'b'],
      ['c', 'c'],
    ]);
    expect(g.ids).toEqual(['a', 'b', 'c']);
    expect([...g.offsets]).toEqual([0, 2, 3, 4]);
    expect([...g.neighbours]).toEqual([1, 2, 0, 0]);
    expect(starOf(g, 0)).toEqual({ centre: 'x', neighbours: ['y', 'y'] });
    expect(degree(g, 2)).toBe(1);
  });

  test('rejects an edge to a node without a label, naming it', () => {
    expect(() => createStarGraph(new Map([['a', 'x']]), [['a', 'ghost']])).toThrow(/ghost/);
    let caught: unknown;
    try {
      createStarGraph({ a: 'x' }, [['a', 'ghost']]);
    } catch (e) {
      caught = e;
    }
    expect(InvalidArgumentError.isInstance(caught) && caught.argument).toBe('edges');
  });
});

describe('starGraphFromGraph', () => {
  const kg = new KnowledgeGraphBuilder()
    .addExtraction(
      {
        entities: [
          { name: 'Ada Lovelace', type: 'person', description: '' },
          { name: 'Charles Babbage', type: 'person', description: '' },
          { name: 'Analytical Engine', type: 'machine', description: '' },
        ],
        relations: [
          { source: 'Ada Lovelace', target: 'Analytical Engine', description: 'wrote about', weight: 1 },
          { source: 'Charles Babbage', target: 'Analytical Engine', description: 'designed', weight: 1 },
          { source: 'Ada Lovelace', target: 'Charles Babbage', description: 'worked with', weight: 1 },
        ],
      },
      { chunkId: 'c1', docId: 'd1' },
    )
    .build()
    .toGraph();

  test('reads labels through a function of the node attributes', () => {
    const g = starGraphFromGraph(kg, { label: (_node, attributes) => (attributes.types as string[])[0]! });
    const engine = g.index.get('analytical engine')!;
    expect(starOf(g, engine)).toEqual({ centre: 'machine', neighbours: ['person', 'person'] });
  });

  test('rejects a node without the label attribute', () => {
    expect(() => starGraphFromGraph(kg)).toThrow(/attribute "label"/);
  });
});

describe('sub-star enumeration', () => {
  test('yields exactly the distinct label multisets of all 2^d neighbour subsets', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 9 }), (labels) => {
        const bySubset = new Set<string>();
        for (let mask = 0; mask < 1 << labels.length; mask++) {
          bySubset.add(
            labels
              .filter((_, i) => mask & (1 << i))
              .sort()
              .join(','),
          );
        }
        const set = toMultiset(labels);
        const all = [...subMultisets(set, true)].map((s) => s.join(','));
        expect(new Set(all).size).toBe(all.length);
        expect(new Set(all)).toEqual(bySubset);
        expect(subMultisetCount(set)).toBe(bySubset.size);
        const proper = [...subMultisets(set)].map((s) => s.join(','));
        expect(proper).not.toContain([...labels].sort().join(','));
        expect(proper).toHaveLength(bySubset.size - 1);
      }),
    );
  });

  test('random sub-stars are proper sub-multisets of their star', () => {
    const rand = mulberry32(1);
    const star = ['a', 'a', 'b', 'c', 'c', 'c'];
    const counts = new Map([
      ['a', 2],
      ['b', 1],
      ['c', 3],
    ]);
    for (let t = 0; t < 200; t++) {
      const sub = randomSubStar(star, rand);
      expect(sub.length).toBeLessThan(star.length);
      expect(isSubMultiset(sub, counts)).toBe(true);
      expect(sub).toEqual([...sub].sort());
    }
    expect(isSubMultiset(['a', 'a', 'a'], counts)).toBe(false);
    expect(isSubMultiset(['d'], counts)).toBe(false);
  });
});
