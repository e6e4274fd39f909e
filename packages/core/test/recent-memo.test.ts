import { describe, expect, it } from 'vitest';
import { RecentMemo } from '../src/recent-memo.js';

describe('RecentMemo', () => {
  it('keeps the recent half of its capacity, and at most its capacity', () => {
    const memo = new RecentMemo<string, number>(4);
    memo.set('a', 1);
    // The newer generation holds 2 (half of 4): it becomes the older.
    memo.set('b', 2);
    memo.set('c', 3);
    memo.set('d', 4);
    // a and b were dropped with the older generation when c and d filled the newer.
    expect(memo.get('a')).toBeUndefined();
    expect(memo.get('b')).toBeUndefined();
    expect([memo.get('c'), memo.get('d')]).toEqual([3, 4]);
  });

  it('moves a key found in the older generation to the newer, so a used key stays', () => {
    const memo = new RecentMemo<string, number>(4);
    memo.set('a', 1);
    memo.set('b', 2); // older: a, b
    expect(memo.get('a')).toBe(1); // newer: a
    memo.set('c', 3); // newer full (a, c): older a, c; b dropped
    expect(memo.get('b')).toBeUndefined();
    expect(memo.get('a')).toBe(1);
    expect(memo.get('c')).toBe(3);
  });

  it('returns what it sets, and holds falsy values', () => {
    const memo = new RecentMemo<string, number>(10);
    expect(memo.set('zero', 0)).toBe(0);
    expect(memo.get('zero')).toBe(0);
    expect(memo.get('missing')).toBeUndefined();
  });
});
