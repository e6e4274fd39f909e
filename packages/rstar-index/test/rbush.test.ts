import { mulberry32 } from '@grag/core/test';
import RBush from 'rbush';
import { describe, expect, it } from 'vitest';
import { RStarTree } from '../src/index.js';
import { addAll, randomItems, sorted, treeProblems } from './helpers.js';

interface Rect {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
  id: number;
}

const ids = (rects: Rect[]) => sorted(rects.map((r) => r.id));

describe.each(['points', 'boxes'] as const)('in 2-D against rbush (%s)', (kind) => {
  const items = randomItems(3000, 2, kind === 'points' ? 31 : 32, { boxes: kind === 'boxes', maxSide: 0.05 });
  const rects: Rect[] = items.map((it, id) => ({
    minX: it.min[0]!,
    minY: it.min[1]!,
    maxX: it.max[0]!,
    maxY: it.max[1]!,
    id,
  }));

  for (const how of ['bulk-loaded', 'built by inserts'] as const) {
    const tree = new RStarTree({ dimensions: 2 });
    const rbush = new RBush<Rect>();
    if (how === 'bulk-loaded') {
      addAll(tree, items, 'add');
      tree.finish();
      rbush.load(rects);
    } else {
      tree.finish();
      addAll(tree, items, 'insert');
      for (const r of rects) rbush.insert(r);
    }

    it(`box search returns what rbush returns (${how})`, () => {
      const rand = mulberry32(41);
      for (let t = 0; t < 100; t++) {
        const x = rand() * 2 - 1;
        const y = rand() * 2 - 1;
        const w = rand() * 0.3;
        const h = rand() * 0.3;
        const got = sorted(tree.search([x, y], [x + w, y + h]));
        expect(got).toEqual(ids(rbush.search({ minX: x, minY: y, maxX: x + w, maxY: y + h })));
      }
    });

    it(`dominating(q) equals rbush's search of the box [q, +∞) (${how})`, () => {
      const rand = mulberry32(42);
      for (let t = 0; t < 100; t++) {
        const q = [rand() * 2 - 1, rand() * 2 - 1];
        const want = ids(rbush.search({ minX: q[0]!, minY: q[1]!, maxX: Infinity, maxY: Infinity }));
        expect(sorted(tree.dominating(q))).toEqual(want);
      }
    });
  }

  it('stays equal to rbush while both remove half the entries', () => {
    const tree = new RStarTree({ dimensions: 2 });
    addAll(tree, items, 'add');
    tree.finish();
    const rbush = new RBush<Rect>().load(rects);
    const rand = mulberry32(43);
    const live = new Set(items.map((_, id) => id));
    for (let id = 0; id < items.length; id += 2) {
      tree.remove(id);
      rbush.remove(rects[id]!);
      live.delete(id);
      if (id % 200 === 0) {
        const q = [rand() * 2 - 1, rand() * 2 - 1];
        expect(sorted(tree.dominating(q))).toEqual(
          ids(rbush.search({ minX: q[0]!, minY: q[1]!, maxX: Infinity, maxY: Infinity })),
        );
      }
    }
    expect(tree.size).toBe(rbush.all().length);
    expect(treeProblems(tree, live)).toEqual([]);
  });
});
