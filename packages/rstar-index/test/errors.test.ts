import { InvalidArgumentError, StateError } from '@grag/core';
import { describe, expect, it } from 'vitest';
import { RStarTree } from '../src/index.js';

function thrown(fn: () => unknown): Error & { argument?: string } {
  try {
    fn();
  } catch (error) {
    return error as Error & { argument?: string };
  }
  throw new Error('expected a throw');
}

describe('misuse errors say what to do', () => {
  it('rejects invalid options, naming the option', () => {
    for (const [options, argument] of [
      [{ dimensions: 0 }, 'dimensions'],
      [{ dimensions: 2.5 }, 'dimensions'],
      [{ dimensions: 2, labelDimensions: -1 }, 'labelDimensions'],
      [{ dimensions: 2, nodeCapacity: 3 }, 'nodeCapacity'],
      [{ dimensions: 2, minFill: 0.7 }, 'minFill'],
      [{ dimensions: 2, reinsertFraction: 1 }, 'reinsertFraction'],
      [{ dimensions: 2, clusterOn: 'label' }, 'clusterOn'],
      [{ dimensions: 2, bulkLoad: 'omt' }, 'bulkLoad'],
      [{ dimensions: 2, ArrayType: Int32Array }, 'ArrayType'],
    ] as const) {
      const error = thrown(() => new RStarTree(options as never));
      expect(InvalidArgumentError.isInstance(error)).toBe(true);
      expect(error.argument).toBe(argument);
    }
  });

  it('asks for finish() before a query, insert, remove or save', () => {
    const tree = new RStarTree({ dimensions: 2 });
    tree.add([0, 0]);
    const cases: [string, () => unknown][] = [
      ['search', () => tree.search([0, 0], [1, 1])],
      ['dominating', () => tree.dominating([0, 0])],
      ['neighbors', () => tree.neighbors([0, 0], 1)],
      ['traverse', () => tree.traverse({ key: () => 0 })],
      ['insert', () => tree.insert([0, 0])],
      ['remove', () => tree.remove(0)],
      ['save', () => tree.save()],
      ['toJSON', () => tree.toJSON()],
    ];
    for (const [method, call] of cases) {
      const error = thrown(call);
      expect(StateError.isInstance(error)).toBe(true);
      expect(error.message).toContain(`Index not finished — call \`index.finish()\` before \`${method}()\``);
    }
    expect(tree.height).toBe(0);
  });

  it('asks for insert() when add() follows finish(), and refuses a second finish()', () => {
    const tree = new RStarTree({ dimensions: 2 }).finish();
    const error = thrown(() => tree.add([0, 0]));
    expect(StateError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/use `insert\(\)`/);
    expect(thrown(() => tree.finish()).message).toMatch(/already finished/);
  });

  it('names the dimension count on a wrong-length entry or query', () => {
    const tree = new RStarTree({ dimensions: 3 });
    const error = thrown(() => tree.add([1, 2]));
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error.argument).toBe('min');
    expect(error.message).toBe('RStarTree.add: min has 2 coordinates, the index has 3 dimensions; pass 3.');
    expect(thrown(() => tree.add([0, 0, 0], [1, 1])).argument).toBe('max');
    tree.finish();
    expect(thrown(() => tree.dominating([0, 0])).message).toMatch(
      /q has 2 coordinates, the index has 3 dimensions/,
    );
    expect(thrown(() => tree.search([0, 0, 0], [1, 1, 1, 1])).argument).toBe('max');
    expect(thrown(() => tree.neighbors([0], 1)).argument).toBe('point');
  });

  it('rejects non-finite entry coordinates and inverted boxes', () => {
    const tree = new RStarTree({ dimensions: 2 });
    expect(thrown(() => tree.add([Number.NaN, 0])).message).toMatch(/NaN wildcards are for queries/);
    expect(thrown(() => tree.add([0, Number.POSITIVE_INFINITY])).message).toMatch(/finite numbers/);
    expect(thrown(() => tree.add([1, 0], [0, 1])).message).toMatch(
      /min\[0\] = 1 is greater than max\[0\] = 0/,
    );
    tree.finish();
    expect(thrown(() => tree.search([1, 0], [0, 1])).message).toMatch(/min <= max/);
    expect(tree.size).toBe(0);
  });

  it('checks labels against labelDimensions', () => {
    const plain = new RStarTree({ dimensions: 2 });
    expect(thrown(() => plain.add([0, 0], [0, 0], [1])).message).toMatch(/no label space/);
    plain.finish();
    expect(thrown(() => plain.dominating([0, 0], { label: [1] })).message).toMatch(/no label space/);
    const labelled = new RStarTree({ dimensions: 2, labelDimensions: 2 });
    expect(thrown(() => labelled.add([0, 0])).message).toMatch(/pass each entry's label/);
    expect(thrown(() => labelled.add([0, 0], [0, 0], [1])).message).toMatch(
      /label has 1 coordinates, the index has 2 labelDimensions/,
    );
    expect(thrown(() => labelled.add([0, 0], [0, 0], { min: [1, 1], max: [0, 2] })).message).toMatch(
      /label min\[0\] = 1 is greater/,
    );
    labelled.add([0, 0], undefined, [1, 2]);
    labelled.finish();
    expect(labelled.dominating([0, 0], { label: [1, Number.NaN] })).toEqual([0]);
  });

  it('rejects a bad k, maxDistance or traverse key', () => {
    const tree = new RStarTree({ dimensions: 2 }).finish();
    expect(thrown(() => tree.neighbors([0, 0], -1)).argument).toBe('k');
    expect(thrown(() => tree.neighbors([0, 0], 1.5)).argument).toBe('k');
    expect(thrown(() => tree.neighbors([0, 0], 1, { maxDistance: -1 })).argument).toBe('maxDistance');
    expect(thrown(() => tree.traverse({} as never)).argument).toBe('key');
  });

  it('answers remove() of an unknown or removed id with false and box() with an error', () => {
    const tree = new RStarTree({ dimensions: 2 });
    tree.add([0, 0]);
    tree.finish();
    expect(tree.remove(5)).toBe(false);
    expect(tree.remove(-1)).toBe(false);
    expect(tree.remove(0)).toBe(true);
    expect(tree.remove(0)).toBe(false);
    const error = thrown(() => tree.box(0));
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/no entry 0/);
  });
});
