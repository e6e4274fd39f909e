import { mulberry32 } from '@grag/core/test';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RStarTree } from '../src/index.js';
import { addAll, randomItems, scanDominating, sorted, treeProblems } from './helpers.js';

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe.each([
  { d: 2, M: 16 },
  { d: 8, M: 16 },
  { d: 32, M: 16 },
  { d: 3, M: 4 },
  { d: 5, M: 9 },
])('tree invariants in $d dimensions with node capacity $M', ({ d, M }) => {
  const items = randomItems(1500, d, 300 + d + M, { boxes: d % 2 === 1, labels: { dims: 2, classes: 4 } });

  it.each(['vamsplit', 'str'] as const)(
    'hold after a %s bulk load (every count from 0 to a few pages)',
    (bulkLoad) => {
      for (const n of [0, 1, M - 1, M, M + 1, 2 * M + 3, M * M + 1, 1500]) {
        const tree = new RStarTree({ dimensions: d, labelDimensions: 2, nodeCapacity: M, bulkLoad });
        addAll(tree, items.slice(0, n), 'add');
        tree.finish();
        expect(treeProblems(tree, range(n)), `n = ${n}`).toEqual([]);
      }
    },
  );

  it('hold after one-by-one inserts, checked along the way', () => {
    const tree = new RStarTree({ dimensions: d, labelDimensions: 2, nodeCapacity: M }).finish();
    items.forEach((it, i) => {
      tree.insert(it.min, it.max, it.label);
      if (i % 250 === 249) expect(treeProblems(tree, range(i + 1))).toEqual([]);
    });
    expect(tree.height).toBeGreaterThan(2);
  });

  it('hold after removes in random order down to an empty tree, and the tree shrinks', () => {
    const tree = new RStarTree({ dimensions: d, labelDimensions: 2, nodeCapacity: M });
    addAll(tree, items, 'add');
    tree.finish();
    const tall = tree.height;
    const rand = mulberry32(d * M);
    const order = range(items.length).sort(() => rand() - 0.5);
    const live = new Set(range(items.length));
    order.forEach((id, i) => {
      expect(tree.remove(id)).toBe(true);
      live.delete(id);
      if (i % 300 === 0 || live.size < 40) expect(treeProblems(tree, live)).toEqual([]);
    });
    expect(tree.size).toBe(0);
    expect(tree.height).toBe(1);
    expect(tall).toBeGreaterThan(1);
    expect(tree.dominating(new Array(d).fill(-10))).toEqual([]);
  });
});

describe('tree invariants and query results (property, fast-check)', () => {
  // Small integer grids make many equal coordinates and zero-volume boxes: the degenerate cases.
  const op = fc.oneof(
    fc.record({
      kind: fc.constant('insert' as const),
      at: fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 3, maxLength: 3 }),
    }),
    fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }),
  );

  it('hold for any sequence of bulk load, inserts and removes (capacity 4 to 7)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 3, maxLength: 3 }), { maxLength: 40 }),
        fc.array(op, { maxLength: 120 }),
        fc.integer({ min: 4, max: 7 }),
        fc.array(fc.integer({ min: 0, max: 7 }), { minLength: 3, maxLength: 3 }),
        fc.constantFrom('vamsplit' as const, 'str' as const),
        (initial, ops, M, q, bulkLoad) => {
          const tree = new RStarTree({ dimensions: 3, nodeCapacity: M, bulkLoad });
          const points: (number[] | undefined)[] = [];
          for (const p of initial) points[tree.add(p)] = p;
          tree.finish();
          for (const o of ops) {
            if (o.kind === 'insert') points[tree.insert(o.at)] = o.at;
            else {
              const live = points.flatMap((p, id) => (p ? [id] : []));
              if (live.length === 0) continue;
              const id = live[o.pick % live.length]!;
              expect(tree.remove(id)).toBe(true);
              points[id] = undefined;
            }
          }
          const live = points.flatMap((p, id) => (p ? [id] : []));
          expect(treeProblems(tree, live)).toEqual([]);
          const items = points.map((p) => (p ? { min: p, max: p } : undefined));
          expect(sorted(tree.dominating(q))).toEqual(scanDominating(items, q));
        },
      ),
      { numRuns: 150, seed: 20240601 },
    );
  });

  it('never loses an entry that dominates the query (no false negatives) on random boxes', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 4, maxLength: 4 }),
            fc.array(fc.double({ min: 0, max: 0.5, noNaN: true }), { minLength: 4, maxLength: 4 }),
          ),
          { minLength: 1, maxLength: 200 },
        ),
        fc.array(fc.oneof(fc.double({ min: -1.5, max: 1.5, noNaN: true }), fc.constant(Number.NaN)), {
          minLength: 4,
          maxLength: 4,
        }),
        fc.boolean(),
        (boxes, q, bulk) => {
          const items = boxes.map(([lo, side]) => ({ min: lo, max: lo.map((x, i) => x + side[i]!) }));
          const tree = new RStarTree({ dimensions: 4, nodeCapacity: 5 });
          if (bulk) {
            addAll(tree, items, 'add');
            tree.finish();
          } else addAll(tree.finish(), items, 'insert');
          expect(sorted(tree.dominating(q))).toEqual(scanDominating(items, q));
        },
      ),
      { numRuns: 150, seed: 7 },
    );
  });
});

describe('identical entries', () => {
  it('a thousand copies of one point and its neighbours split, query and remove correctly', () => {
    const tree = new RStarTree({ dimensions: 2, nodeCapacity: 6 }).finish();
    for (let i = 0; i < 1000; i++) tree.insert(i % 10 === 0 ? [1, 1] : [0.5, 0.5]);
    expect(treeProblems(tree, range(1000))).toEqual([]);
    expect(tree.dominating([0.5, 0.5])).toHaveLength(1000);
    expect(tree.dominating([0.6, 0.6])).toHaveLength(100);
    for (let i = 0; i < 1000; i += 2) tree.remove(i);
    expect(
      treeProblems(
        tree,
        range(1000).filter((i) => i % 2 === 1),
      ),
    ).toEqual([]);
    expect(tree.dominating([0.6, 0.6])).toHaveLength(0);
  });
});

describe('options', () => {
  it('derives m = 40% of M and p = 30% of M (Beckmann et al. 1990)', () => {
    const tree = new RStarTree({ dimensions: 2 });
    expect([tree.nodeCapacity, tree.minEntries, tree.reinsertCount]).toEqual([16, 7, 5]);
    const small = new RStarTree({ dimensions: 2, nodeCapacity: 4 });
    expect([small.minEntries, small.reinsertCount]).toEqual([2, 1]);
  });

  it("clusterOn 'box' and 'label' build sound trees that answer the same queries", () => {
    const items = randomItems(800, 4, 55, { labels: { dims: 2, classes: 3 } });
    const answers = (['both', 'box', 'label'] as const).map((clusterOn) => {
      const tree = new RStarTree({ dimensions: 4, labelDimensions: 2, clusterOn }).finish();
      addAll(tree, items, 'insert');
      expect(treeProblems(tree, range(items.length))).toEqual([]);
      return sorted(tree.dominating([0, 0, 0, 0], { label: items[0]!.label!.min }));
    });
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
    expect(answers[0]!.length).toBeGreaterThan(0);
  });

  it('reinsertFraction 0 disables forced reinsertion and still builds a sound tree', () => {
    const items = randomItems(700, 3, 56);
    const tree = new RStarTree({ dimensions: 3, reinsertFraction: 0 }).finish();
    addAll(tree, items, 'insert');
    expect(tree.reinsertCount).toBe(0);
    expect(treeProblems(tree, range(items.length))).toEqual([]);
  });
});
