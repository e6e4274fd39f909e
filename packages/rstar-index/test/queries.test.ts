import { mulberry32 } from '@grag/core/test';
import { describe, expect, it } from 'vitest';
import { type BoxView, RStarTree } from '../src/index.js';
import {
  addAll,
  boxDistance2,
  type Item,
  randomItems,
  scanDominating,
  scanSearch,
  sorted,
} from './helpers.js';

const LABEL_DIMS = 3;

/** A tree four ways: bulk-loaded by VAMSplit and by STR, built by inserts, and bulk + inserts + removals. */
function builds(d: number, items: Item[], labels: boolean) {
  const options = { dimensions: d, labelDimensions: labels ? LABEL_DIMS : 0 };
  const bulk = new RStarTree(options);
  addAll(bulk, items, 'add');
  bulk.finish();
  const inserted = new RStarTree(options).finish();
  addAll(inserted, items, 'insert');
  const str = new RStarTree({ ...options, bulkLoad: 'str' });
  addAll(str, items, 'add');
  str.finish();
  const mixed = new RStarTree(options);
  const half = Math.floor(items.length / 2);
  addAll(mixed, items.slice(0, half), 'add');
  mixed.finish();
  addAll(mixed, items.slice(half), 'insert');
  const live: (Item | undefined)[] = [...items];
  for (let id = 0; id < items.length; id += 3) {
    expect(mixed.remove(id)).toBe(true);
    live[id] = undefined;
  }
  return [
    { name: 'bulk-loaded (VAMSplit)', tree: bulk, live: items as (Item | undefined)[] },
    { name: 'bulk-loaded (STR)', tree: str, live: items as (Item | undefined)[] },
    { name: 'built by inserts', tree: inserted, live: items as (Item | undefined)[] },
    { name: 'bulk + inserts + removals', tree: mixed, live },
  ];
}

/** A query point near a random live item, so dominance results are rarely empty. */
function nearQuery(rand: () => number, items: Item[], spread: number): number[] {
  const it = items[Math.floor(rand() * items.length)]!;
  return it.max.map((x) => x - rand() * spread);
}

describe.each([
  { d: 2, n: 1200 },
  { d: 8, n: 1200 },
  { d: 32, n: 800 },
])('in $d dimensions ($n entries)', ({ d, n }) => {
  for (const kind of ['points', 'boxes'] as const) {
    const items = randomItems(n, d, 100 + d, {
      boxes: kind === 'boxes',
      labels: { dims: LABEL_DIMS, classes: 5 },
    });
    const plain = items.map(({ min, max }) => ({ min, max }));
    for (const { name, tree, live } of builds(d, plain, false)) {
      describe(`${kind}, ${name}`, () => {
        it('dominating(q) returns exactly the entries whose upper corner is >= q everywhere', () => {
          const rand = mulberry32(d * 7 + 1);
          let hits = 0;
          for (let t = 0; t < 30; t++) {
            const q =
              t % 3 === 0 ? Array.from({ length: d }, () => rand() * 2 - 1.4) : nearQuery(rand, items, 0.3);
            const want = scanDominating(live, q);
            hits += want.length;
            expect(sorted(tree.dominating(q))).toEqual(want);
          }
          expect(hits).toBeGreaterThan(0);
        });

        it('dominating(q) treats NaN coordinates of q as wildcards', () => {
          const rand = mulberry32(d * 7 + 2);
          for (let t = 0; t < 10; t++) {
            const q = nearQuery(rand, items, 0.5).map((x, i) => (i % 2 === t % 2 ? Number.NaN : x));
            expect(sorted(tree.dominating(q))).toEqual(scanDominating(live, q));
          }
        });

        it('search(min, max) returns exactly the entries whose box intersects the query box', () => {
          const rand = mulberry32(d * 7 + 3);
          let hits = 0;
          for (let t = 0; t < 30; t++) {
            const centre = items[Math.floor(rand() * items.length)]!.min;
            const r = d === 2 ? 0.15 : d === 8 ? 0.6 : 0.9;
            const lo = centre.map((x) => x - rand() * r);
            const hi = centre.map((x) => x + rand() * r);
            const want = scanSearch(live, lo, hi);
            hits += want.length;
            expect(sorted(tree.search(lo, hi))).toEqual(want);
          }
          expect(hits).toBeGreaterThan(0);
        });

        it('search with NaN bounds and null corners leaves those sides open', () => {
          const rand = mulberry32(d * 7 + 4);
          const lo = Array.from({ length: d }, (_, i) => (i === 0 ? rand() - 0.5 : Number.NaN));
          const hi = Array.from({ length: d }, (_, i) => (i === d - 1 ? rand() : Number.NaN));
          expect(sorted(tree.search(lo, hi))).toEqual(scanSearch(live, lo, hi));
          expect(sorted(tree.search(null, hi))).toEqual(scanSearch(live, null, hi));
          expect(tree.search(null, null)).toHaveLength(live.filter(Boolean).length);
        });

        it('the filter keeps only the ids it accepts, also where whole subtrees match', () => {
          const even = (id: number) => id % 2 === 0;
          const all = live.flatMap((it, id) => (it && even(id) ? [id] : []));
          expect(sorted(tree.search(null, null, { filter: even }))).toEqual(all);
          const low = new Array(d).fill(-0.9);
          expect(sorted(tree.dominating(low, { filter: even }))).toEqual(
            scanDominating(live, low).filter(even),
          );
        });

        it('neighbors(p, k) returns the k nearest boxes, nearest first', () => {
          const rand = mulberry32(d * 7 + 5);
          for (let t = 0; t < 12; t++) {
            const p = Array.from({ length: d }, () => rand() * 2 - 1);
            const k = [1, 10, 40][t % 3]!;
            const got = tree.neighbors(p, k);
            const want = live
              .map((it, _id) => (it ? boxDistance2(it, p) : Number.NaN))
              .filter((x) => !Number.isNaN(x))
              .sort((a, b) => a - b)
              .slice(0, k);
            expect(got).toHaveLength(k);
            expect(new Set(got).size).toBe(k);
            expect(got.map((id) => boxDistance2(live[id]!, p))).toEqual(want);
          }
        });

        it('neighbors with maxDistance returns everything within it, nearest first', () => {
          const rand = mulberry32(d * 7 + 6);
          const p = Array.from({ length: d }, () => rand() * 2 - 1);
          const radius = d === 2 ? 0.2 : d === 8 ? 1.2 : 2.6;
          const got = tree.neighbors(p, Number.POSITIVE_INFINITY, { maxDistance: radius });
          const want = live.flatMap((it, id) => (it && boxDistance2(it, p) <= radius * radius ? [id] : []));
          expect(sorted(got)).toEqual(want);
          const dists = got.map((id) => boxDistance2(live[id]!, p));
          expect(dists).toEqual([...dists].sort((a, b) => a - b));
        });

        it('traverse yields exactly the accepted entries in non-decreasing key order', () => {
          const rand = mulberry32(d * 7 + 7);
          const q = nearQuery(rand, items, 0.4);
          const p = Array.from({ length: d }, () => rand() * 2 - 1);
          const dist = (b: BoxView) => boxDistance2({ min: [...b.min], max: [...b.max] }, p);
          const dominates = (b: BoxView) => b.max.every((x, i) => x >= q[i]!);
          const hits = [
            ...tree.traverse({ key: dist, acceptNode: dominates, acceptEntry: (_id, b) => dominates(b) }),
          ];
          expect(sorted(hits.map((h) => h.id))).toEqual(scanDominating(live, q));
          for (const h of hits) expect(h.key).toBe(boxDistance2(live[h.id]!, p));
          const keys = hits.map((h) => h.key);
          expect(keys).toEqual([...keys].sort((a, b) => a - b));
        });
      });
    }
  }

  describe('with a label per entry (second key space)', () => {
    const items = randomItems(n, d, 200 + d, { boxes: true, labels: { dims: LABEL_DIMS, classes: 5 } });
    const classes = [...new Map(items.map((it) => [it.label!.min.join(), it.label!.min])).values()];
    for (const { name, tree, live } of builds(d, items, true)) {
      it(`constrains both MBRs, with wildcard label dimensions (${name})`, () => {
        const rand = mulberry32(d * 11);
        let hits = 0;
        for (let t = 0; t < 20; t++) {
          const cls = classes[t % classes.length]!;
          // Every third query leaves one label dimension unknown.
          const label = t % 3 === 0 ? cls.map((x, i) => (i === t % LABEL_DIMS ? Number.NaN : x)) : cls;
          const q = nearQuery(rand, items, 0.4);
          const want = scanDominating(live, q, label);
          hits += want.length;
          expect(sorted(tree.dominating(q, { label }))).toEqual(want);
          const lo = q.map((x) => x - 0.3);
          const hi = q.map((x) => x + 0.3);
          expect(sorted(tree.search(lo, hi, { label }))).toEqual(scanSearch(live, lo, hi, label));
          const box = { min: cls.map((x) => x - 0.05), max: cls.map((x) => x + 0.05) };
          expect(sorted(tree.search(null, null, { label: box }))).toEqual(scanSearch(live, null, null, box));
          const near = tree.neighbors(q, 5, { label });
          const wantNear = live
            .flatMap((it) => (it && scanSearch([it], null, null, label).length ? [boxDistance2(it, q)] : []))
            .sort((a, b) => a - b)
            .slice(0, 5);
          expect(near.map((id) => boxDistance2(live[id]!, q))).toEqual(wantNear);
        }
        expect(hits).toBeGreaterThan(0);
      });

      it(`a label-only query finds every entry of a class (${name})`, () => {
        const label = [classes[0]![0]!, Number.NaN, Number.NaN];
        expect(sorted(tree.search(null, null, { label }))).toEqual(scanSearch(live, null, null, label));
      });
    }
  });
});

describe('dominance on a hand-computed example', () => {
  const tree = new RStarTree({ dimensions: 2, nodeCapacity: 4 });
  tree.add([0.2, 0.9]); // 0
  tree.add([0.7, 0.6]); // 1
  tree.add([0.5, 0.5]); // 2: equal to q, dominates it (>= is inclusive)
  tree.add([0.9, 0.1]); // 3
  tree.add([0, 0], [0.6, 0.4]); // 4: a box whose upper corner misses y >= 0.5
  tree.add([0, 0], [0.6, 0.6]); // 5: a box holding (0.55, 0.55), which dominates q
  tree.finish();

  it('returns points that dominate q and boxes that hold such a point', () => {
    expect(sorted(tree.dominating([0.5, 0.5]))).toEqual([1, 2, 5]);
  });

  it('drops a NaN dimension from the test', () => {
    expect(sorted(tree.dominating([Number.NaN, 0.55]))).toEqual([0, 1, 5]);
    expect(sorted(tree.dominating([0.8, Number.NaN]))).toEqual([3]);
  });

  it('applies the filter to candidates that pass the geometry', () => {
    expect(sorted(tree.dominating([0.5, 0.5], { filter: (id) => id !== 2 }))).toEqual([1, 5]);
  });

  it('orders neighbours by distance to the box', () => {
    expect(tree.neighbors([0.3, 0.3], 2)).toEqual(expect.arrayContaining([4, 5]));
    expect(tree.neighbors([0.95, 0.05], 1)).toEqual([3]);
  });

  it('runs the Algorithm 7 best-first search: max-heap on the L1 norm of the upper corner, stopping early', () => {
    const q = [0.5, 0.5];
    const norm = (b: BoxView) => b.max.reduce((a, x) => a + x, 0);
    const found: number[] = [];
    for (const { id, key } of tree.traverse({
      key: (b) => -norm(b),
      acceptNode: (b) => b.max.every((x, i) => x >= q[i]!),
      acceptEntry: (_id, b) => b.max.every((x, i) => x >= q[i]!),
    })) {
      if (-key < 1.25) break; // no entry below can reach a norm of 1.25
      found.push(id);
    }
    // Norms of the upper corners: 1 → 1.3, 5 → 1.2, 2 → 1.0.
    expect(found).toEqual([1]);
  });
});

describe('traverse', () => {
  it('can stop after the first k entries, which are the k smallest keys', () => {
    const items = randomItems(500, 4, 9);
    const tree = new RStarTree({ dimensions: 4 });
    addAll(tree, items, 'add');
    tree.finish();
    const p = [0.1, -0.2, 0.3, 0];
    const first: number[] = [];
    for (const { id } of tree.traverse({
      key: (b) => boxDistance2({ min: [...b.min], max: [...b.max] }, p),
    })) {
      first.push(id);
      if (first.length === 7) break;
    }
    const want = items
      .map((it) => boxDistance2(it, p))
      .sort((a, b) => a - b)
      .slice(0, 7);
    expect(first.map((id) => boxDistance2(items[id]!, p))).toEqual(want);
  });

  it('throws when the tree changes during a traversal', () => {
    const tree = new RStarTree({ dimensions: 2 });
    for (const it of randomItems(100, 2, 4)) tree.add(it.min);
    tree.finish();
    const walk = tree.traverse({ key: () => 0 });
    walk.next();
    tree.insert([0, 0]);
    expect(() => walk.next()).toThrow(/changed during the traversal/);
  });
});

describe('Float32Array storage', () => {
  it('answers on the float32-rounded coordinates', () => {
    const items = randomItems(600, 5, 77).map(({ min }) => ({ min, max: min }));
    const rounded = items.map(({ min }) => {
      const r = min.map(Math.fround);
      return { min: r, max: r };
    });
    const tree = new RStarTree({ dimensions: 5, ArrayType: Float32Array });
    addAll(tree, items, 'add');
    tree.finish();
    const rand = mulberry32(78);
    for (let t = 0; t < 20; t++) {
      const q = nearQuery(rand, rounded, 0.5);
      expect(sorted(tree.dominating(q))).toEqual(scanDominating(rounded, q));
    }
  });
});
