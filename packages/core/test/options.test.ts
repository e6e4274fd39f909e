import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../src/index.js';
import {
  assertKnownOptions,
  assertMethodOptions,
  closestMatch,
  editDistance,
  opt,
  optionKeys,
  queryOptions,
  RETRIEVE_OPTION_KEYS,
} from '../src/kit.js';

function thrown(fn: () => void): InvalidArgumentError {
  try {
    fn();
  } catch (error) {
    if (InvalidArgumentError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected an InvalidArgumentError');
}

describe('editDistance', () => {
  it('counts insertions, deletions, substitutions and adjacent swaps (hand-computed)', () => {
    expect(editDistance('', '')).toBe(0);
    expect(editDistance('abc', 'abc')).toBe(0);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('abc', '')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3); // k→s, e→i, +g
    expect(editDistance('flaw', 'lawn')).toBe(2); // -f, +n
    expect(editDistance('chunkSzie', 'chunkSize')).toBe(1); // swap "zi"
    expect(editDistance('ab', 'ba')).toBe(1); // one swap, not two substitutions
    expect(editDistance('ca', 'abc')).toBe(3); // optimal string alignment: no edit after a swap
    expect(editDistance('overlpa', 'overlap')).toBe(1);
    expect(editDistance('chunksize', 'chunkSize')).toBe(1); // case counts here
  });

  it('is symmetric', () => {
    for (const [a, b] of [
      ['seed', 'sed'],
      ['topK', 'top_k'],
      ['lambda', 'lamdba'],
    ] as const) {
      expect(editDistance(a, b)).toBe(editDistance(b, a));
    }
  });
});

describe('closestMatch', () => {
  const keys = ['chunking', 'chunkSize', 'overlap', 'includeTitle', 'seed'];

  it('suggests the nearest candidate, ignoring case', () => {
    expect(closestMatch('chunkSzie', keys)).toBe('chunkSize');
    expect(closestMatch('chunksize', keys)).toBe('chunkSize');
    expect(closestMatch('CHUNKSIZE', keys)).toBe('chunkSize');
    expect(closestMatch('overlapp', keys)).toBe('overlap');
    expect(closestMatch('includeTitel', keys)).toBe('includeTitle');
    expect(closestMatch('sed', keys)).toBe('seed');
  });

  it('picks the smaller distance, and the earlier candidate on a tie', () => {
    expect(closestMatch('chunkin', ['chunkSize', 'chunking'])).toBe('chunking');
    expect(closestMatch('ab', ['ac', 'ad'])).toBe('ac');
  });

  it('suggests nothing when no candidate is close', () => {
    expect(closestMatch('temperature', keys)).toBeUndefined();
    expect(closestMatch('x', ['y'])).toBeUndefined(); // a whole-word replacement is no typo
    expect(closestMatch('size', keys)).toBeUndefined();
    expect(closestMatch('anything', [])).toBeUndefined();
  });
});

describe('optionKeys', () => {
  it('lists the keys of the record, those without a default included', () => {
    interface Options {
      a: number;
      b?: string;
    }
    const defaults = { a: 1 };
    expect(optionKeys<Options>({ ...defaults, b: undefined })).toEqual(['a', 'b']);
    expect(RETRIEVE_OPTION_KEYS).toEqual(['budgetTokens', 'topK', 'signal']);
  });
});

describe('assertKnownOptions', () => {
  const known = ['chunking', 'chunkSize', 'overlap', 'seed'];

  it('accepts known keys, no options, and an empty object', () => {
    expect(() => assertKnownOptions('m', { chunkSize: 600, seed: undefined }, known)).not.toThrow();
    expect(() => assertKnownOptions('m', undefined, known)).not.toThrow();
    expect(() => assertKnownOptions('m', {}, known)).not.toThrow();
  });

  it('names the caller, the key, the suggestion and the valid keys', () => {
    const error = thrown(() => assertKnownOptions('noderag build', { chunkSzie: 600 }, known));
    expect(error.message).toBe(
      'noderag build: unknown option "chunkSzie"; did you mean "chunkSize"? Valid options: chunking, chunkSize, overlap, seed.',
    );
    expect(error.argument).toBe('chunkSzie');
    expect(error.code).toBe('invalid-argument');
  });

  it('checks keys whose value is undefined', () => {
    const error = thrown(() => assertKnownOptions('m', { overlpa: undefined }, known));
    expect(error.message).toContain('unknown option "overlpa"; did you mean "overlap"?');
  });

  it('gives no suggestion when nothing is close', () => {
    const error = thrown(() => assertKnownOptions('bm25 build', { temperature: 0.2 }, known));
    expect(error.message).toBe(
      'bm25 build: unknown option "temperature". Valid options: chunking, chunkSize, overlap, seed.',
    );
  });

  it('names every unknown key', () => {
    const error = thrown(() => assertKnownOptions('m', { chunkSzie: 1, temperature: 2, seed: 3 }, known));
    expect(error.message).toBe(
      'm: unknown options "chunkSzie" (did you mean "chunkSize"?), "temperature". Valid options: chunking, chunkSize, overlap, seed.',
    );
  });

  it('takes the valid keys from an object (e.g. the defaults) or a set', () => {
    const defaults = { chunkSize: 1200, overlap: 100 };
    expect(() => assertKnownOptions('m', { overlap: 0 }, defaults)).not.toThrow();
    expect(thrown(() => assertKnownOptions('m', { chunkSzie: 1 }, defaults)).message).toContain(
      'did you mean "chunkSize"? Valid options: chunkSize, overlap.',
    );
    expect(() => assertKnownOptions('m', { seed: 1 }, new Set(known))).not.toThrow();
    expect(thrown(() => assertKnownOptions('m', { sed: 1 }, new Set(known))).message).toContain(
      'did you mean "seed"?',
    );
  });
});

describe('assertMethodOptions', () => {
  const method = {
    name: 'noderag',
    optionKeys: { build: ['chunkSize'], retrieve: ['budgetTokens', 'topK', 'signal', 'teleport'] },
  };

  it("throws the message of the method's own stage for a key it does not declare", () => {
    expect(() => assertMethodOptions(method, 'retrieve', { telport: 0.3 })).toThrow(
      'noderag retrieve: unknown option "telport"; did you mean "teleport"? Valid options: budgetTokens, topK, signal, teleport.',
    );
    expect(() => assertMethodOptions(method, 'build', { teleport: 0.3 })).toThrow(
      'noderag build: unknown option "teleport". Valid options: chunkSize.',
    );
  });

  it('passes declared keys, and anything for a method that declares none', () => {
    expect(() => assertMethodOptions(method, 'retrieve', { teleport: 0.3, topK: 5 })).not.toThrow();
    expect(() => assertMethodOptions({ name: 'custom' }, 'retrieve', { anything: 1 })).not.toThrow();
  });
});

describe('queryOptions', () => {
  const QUERY = queryOptions<{ topK: number; hops: number }>({
    defaults: { topK: 5, hops: 1 },
    rules: { topK: opt.positiveInt, hops: opt.nonNegativeInt },
  });

  it("lists core's retrieve keys, then the query keys, each once", () => {
    expect(QUERY.keys).toEqual(['topK', 'hops']);
    expect(QUERY.retrieveKeys).toEqual(['budgetTokens', 'topK', 'signal', 'hops']);
  });

  it("puts a query's options over the index's, leaving the index's where a value is undefined", () => {
    const base = { topK: 8, hops: 2 };
    expect(QUERY.resolve('m retrieve', base, { hops: 0, topK: undefined, budgetTokens: 100 })).toEqual({
      topK: 8,
      hops: 0,
    });
    expect(base).toEqual({ topK: 8, hops: 2 });
  });

  it('refuses an unknown key and a bad value, naming the caller', () => {
    expect(() => QUERY.resolve('m retrieve', { topK: 8, hops: 2 }, { hopz: 1 })).toThrow(
      InvalidArgumentError,
    );
    expect(() => QUERY.resolve('m retrieve', { topK: 8, hops: 2 }, { hopz: 1 })).toThrow(/m retrieve/);
    expect(() => QUERY.resolve('m retrieve', { topK: 8, hops: 2 }, { topK: 0 })).toThrow(/topK/);
  });
});
