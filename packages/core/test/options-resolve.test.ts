import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../src/index.js';
import { checkOption, namedChoice, opt, resolveOptions, validateOptions } from '../src/kit.js';

describe('resolveOptions', () => {
  const DEFAULTS = { k: 3, alpha: 0.5, mode: 'a' as 'a' | 'b', kMax: 10 as number | null };

  it('layers later over earlier, ignoring undefined but not null', () => {
    expect(resolveOptions(DEFAULTS, { k: 5, alpha: undefined }, { k: undefined, kMax: null })).toEqual({
      k: 5,
      alpha: 0.5,
      mode: 'a',
      kMax: null,
    });
  });

  it('skips absent layers and leaves the defaults untouched', () => {
    const out = resolveOptions(DEFAULTS, undefined, null, {});
    expect(out).toEqual(DEFAULTS);
    out.k = 99;
    expect(DEFAULTS.k).toBe(3);
  });
});

describe('opt rules', () => {
  const cases: [keyof typeof opt | string, ReturnType<typeof opt.int>, unknown[], unknown[]][] = [
    ['positiveInt', opt.positiveInt, [1, 7], [0, -1, 1.5, '2', Number.NaN, null]],
    ['nonNegativeInt', opt.nonNegativeInt, [0, 4], [-1, 0.5, '0']],
    ['int 2..5', opt.int({ min: 2, max: 5 }), [2, 5], [1, 6, 3.5]],
    ['positive', opt.positive, [0.1, 3], [0, -2, Number.POSITIVE_INFINITY, '1']],
    ['nonNegative', opt.nonNegative, [0, 2.5], [-0.1, Number.NaN]],
    ['fraction', opt.fraction, [0, 0.25, 1], [-0.01, 1.01, '0.5']],
    ['number above 0 max 2', opt.number({ above: 0, max: 2 }), [0.5, 2], [0, 2.1]],
    ['boolean', opt.boolean, [true, false], [0, 'true', null]],
    ['string', opt.string, ['x'], ['', 3]],
    ['stringList', opt.stringList, [[], ['a', 'b']], ['a', [''], [1]]],
    ['oneOf', opt.oneOf('x', 'y'), ['x', 'y'], ['z', undefined]],
    ['nullable', opt.nullable(opt.positiveInt), [null, 3], [0, undefined]],
    ['optional', opt.optional(opt.positiveInt), [undefined, 3], [null, 0]],
  ];
  for (const [name, rule, good, bad] of cases) {
    it(`${name} accepts ${JSON.stringify(good)} and refuses ${bad.map(String).join(', ')}`, () => {
      for (const value of good) expect(rule.test(value), String(value)).toBe(true);
      for (const value of bad) expect(rule.test(value), String(value)).toBe(false);
    });
  }
});

describe('validateOptions', () => {
  it('throws an InvalidArgumentError naming the caller, the option and the value', () => {
    let error: unknown;
    try {
      validateOptions('demo build', { k: 0, alpha: 0.5 }, { k: opt.positiveInt, alpha: opt.fraction });
    } catch (e) {
      error = e;
    }
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect((error as InvalidArgumentError).argument).toBe('k');
    expect((error as Error).message).toBe('demo build: k must be a positive integer (got 0).');
  });

  it('checks the rules in order and passes valid options', () => {
    expect(() => validateOptions('x', { a: 'q', b: -1 }, { a: opt.oneOf('p'), b: opt.nonNegative })).toThrow(
      'x: a must be one of "p" (got "q").',
    );
    expect(() =>
      validateOptions('x', { a: 'p', b: 1 }, { a: opt.oneOf('p'), b: opt.nonNegative }),
    ).not.toThrow();
    expect(() => checkOption('y', 'list', ['a', 3], opt.stringList)).toThrow(
      'y: list must be a list of non-empty strings (got ["a",3]).',
    );
  });
});

describe('namedChoice', () => {
  const PRESETS = ['paper', 'offline'] as const;
  it('is what the last layer naming one names, else the fallback', () => {
    expect(namedChoice('m build', 'preset', [undefined, {}], PRESETS, 'paper')).toBe('paper');
    expect(
      namedChoice('m build', 'preset', [{ preset: 'offline' }, { chunkSize: 3 }], PRESETS, 'paper'),
    ).toBe('offline');
    expect(
      namedChoice('m load', 'preset', [{ preset: 'offline' }, { preset: 'paper' }], PRESETS, 'offline'),
    ).toBe('paper');
  });
  it('refuses a value not allowed, naming the caller and the choices', () => {
    expect(() => namedChoice('m build', 'preset', [{ preset: 'fast' }], PRESETS, 'paper')).toThrow(
      'm build: preset must be one of paper, offline (got "fast").',
    );
    expect(() => namedChoice('m build', 'preset', [{ preset: 3 }], PRESETS, 'paper')).toThrow(/got 3\)/);
  });
});
