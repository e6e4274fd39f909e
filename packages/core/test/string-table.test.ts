import { describe, expect, it } from 'vitest';
import { keyedTable, stringTable } from '../src/kit.js';

describe('string and keyed tables', () => {
  it('gives each distinct string a position once, in order of first sight', () => {
    const { strings, ref } = stringTable();
    expect(['b', 'a', 'b', 'c', 'a'].map((s) => ref(s))).toEqual([0, 1, 0, 2, 1]);
    expect(strings).toEqual(['b', 'a', 'c']);
  });

  it('tells values apart by their key and keeps the first value of each key', () => {
    const { values, ref } = keyedTable((p: { x: number; note?: string }) => String(p.x));
    const first = { x: 1, note: 'first' };
    expect([first, { x: 2 }, { x: 1, note: 'second' }].map((p) => ref(p))).toEqual([0, 1, 0]);
    expect(values).toEqual([first, { x: 2 }]);
    expect(values[0]).toBe(first);
  });
});
