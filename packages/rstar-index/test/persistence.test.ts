import { IndexFormatError } from '@grag/core';
import { mulberry32 } from '@grag/core/test';
import { describe, expect, it } from 'vitest';
import { RStarTree } from '../src/index.js';
import { addAll, randomItems, scanDominating, sorted, treeProblems } from './helpers.js';

function sample() {
  const items = randomItems(900, 6, 501, { boxes: true, labels: { dims: 2, classes: 4 } });
  const tree = new RStarTree({ dimensions: 6, labelDimensions: 2, nodeCapacity: 8 });
  addAll(tree, items.slice(0, 600), 'add');
  tree.finish();
  addAll(tree, items.slice(600), 'insert');
  for (let id = 0; id < items.length; id += 4) tree.remove(id);
  const live = items.map((it, id) => (id % 4 === 0 ? undefined : it));
  return { items, tree, live };
}

describe('save and load', () => {
  it('round-trips structure, options and answers through one buffer', () => {
    const { tree, live } = sample();
    const copy = RStarTree.load(tree.save());
    expect(copy.toJSON()).toEqual(tree.toJSON());
    expect([copy.dimensions, copy.labelDimensions, copy.nodeCapacity, copy.minEntries, copy.size]).toEqual([
      6,
      2,
      8,
      tree.minEntries,
      tree.size,
    ]);
    const rand = mulberry32(502);
    for (let t = 0; t < 20; t++) {
      const q = Array.from({ length: 6 }, () => rand() * 2 - 1.2);
      const label = live.find(Boolean)!.label!.min;
      expect(sorted(copy.dominating(q, { label }))).toEqual(scanDominating(live, q, label));
      expect(copy.neighbors(q, 5)).toEqual(tree.neighbors(q, 5));
    }
    expect(copy.has(0)).toBe(false);
    expect(copy.has(1)).toBe(true);
  });

  it('saves a loaded tree to the same bytes', () => {
    const { tree } = sample();
    const bytes = tree.save();
    const again = RStarTree.load(bytes).save();
    expect(again.byteLength).toBe(bytes.byteLength);
    expect(Buffer.from(again).equals(Buffer.from(bytes))).toBe(true);
  });

  it('loads from an unaligned view and from a bare ArrayBuffer', () => {
    const { tree } = sample();
    const bytes = tree.save();
    const shifted = new Uint8Array(bytes.byteLength + 3);
    shifted.set(bytes, 3);
    expect(RStarTree.load(shifted.subarray(3)).toJSON()).toEqual(tree.toJSON());
    expect(RStarTree.load(bytes.slice().buffer).toJSON()).toEqual(tree.toJSON());
  });

  it('keeps working after a load: inserts, removes and new ids continue', () => {
    const { items, tree } = sample();
    const copy = RStarTree.load(tree.save());
    const extra = randomItems(200, 6, 503, { labels: { dims: 2, classes: 2 } });
    const newIds = addAll(copy, extra, 'insert');
    expect(newIds[0]).toBe(items.length);
    for (let id = 1; id < items.length; id += 4) copy.remove(id);
    const live = [...items.keys(), ...newIds].filter(
      (id) => id >= items.length || (id % 4 !== 0 && id % 4 !== 1),
    );
    expect(treeProblems(copy, live)).toEqual([]);
  });

  it('keeps float32 storage and the options', () => {
    const tree = new RStarTree({ dimensions: 3, ArrayType: Float32Array, bulkLoad: 'str', clusterOn: 'box' });
    addAll(tree, randomItems(100, 3, 504), 'add');
    tree.finish();
    const copy = RStarTree.load(tree.save());
    expect(copy.ArrayType).toBe(Float32Array);
    expect([copy.bulkLoad, copy.clusterOn]).toEqual(['str', 'box']);
    expect(copy.toJSON()).toEqual(tree.toJSON());
    expect(tree.save().byteLength).toBeLessThan(
      (() => {
        const wide = new RStarTree({ dimensions: 3 });
        addAll(wide, randomItems(100, 3, 504), 'add');
        return wide.finish().save().byteLength;
      })(),
    );
  });

  it('round-trips an empty finished tree', () => {
    const copy = RStarTree.load(new RStarTree({ dimensions: 2 }).finish().save());
    expect(copy.size).toBe(0);
    expect(copy.dominating([0, 0])).toEqual([]);
    copy.insert([1, 1]);
    expect(copy.dominating([0, 0])).toEqual([0]);
  });

  it('rejects buffers that are not a saved tree with an IndexFormatError', () => {
    const bytes = sample().tree.save();
    const expectFormatError = (data: Uint8Array, message: RegExp, version?: number) => {
      let error: unknown;
      try {
        RStarTree.load(data);
      } catch (e) {
        error = e;
      }
      expect(IndexFormatError.isInstance(error)).toBe(true);
      expect((error as Error).message).toMatch(message);
      if (version !== undefined) expect((error as IndexFormatError).version).toBe(version);
    };
    expectFormatError(new Uint8Array(10), /fewer than a header/);
    const wrongMagic = bytes.slice();
    wrongMagic[0] = 0;
    expectFormatError(wrongMagic, /bad magic/);
    const future = bytes.slice();
    future[4] = 99;
    expectFormatError(future, /version 99 is not supported/, 99);
    expectFormatError(bytes.slice(0, bytes.byteLength - 8), /header announces/);
    const badChild = bytes.slice();
    // Children are the last section (9 int32 slots per node at capacity 8, padded to 8 bytes); the
    // root comes first, so this is its first child.
    const view = new DataView(badChild.buffer);
    const childBytes = view.getUint32(24, true) * 9 * 4;
    const childrenOffset = badChild.byteLength - childBytes - (childBytes % 8 === 0 ? 0 : 4);
    view.setInt32(childrenOffset, 10_000_000, true);
    expectFormatError(badChild, /node 0 points at an invalid child node 10000000/);
  });
});
