import { InvalidArgumentError } from './contracts/errors.js';
import type { Method, RetrieveOptions } from './contracts/method.js';

/**
 * Edit distance of two strings: insertions, deletions, substitutions and swaps of two adjacent
 * characters each cost 1 (optimal string alignment, a restricted Damerau-Levenshtein distance).
 */
export function editDistance(a: string, b: string): number {
  // rows[i][j]: distance of a[0, i) and b[0, j); three rows are enough for the swap rule.
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, before[j - 2]! + 1);
      current.push(d);
    }
    before = previous;
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The candidate closest to `word` by {@link editDistance} (ignoring case), when it is close enough
 * to be a likely misspelling: at most a third of the word's length away (at least 1), and not the
 * whole word. Ties go to the earlier candidate. `undefined` when nothing is close.
 */
export function closestMatch(word: string, candidates: Iterable<string>): string | undefined {
  const target = word.toLowerCase();
  const limit = Math.max(1, Math.floor(word.length / 3));
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const d = editDistance(target, candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return bestDistance <= limit && bestDistance < word.length ? best : undefined;
}

/**
 * The keys of an options type, from a record naming every one of them (so the list cannot drift
 * from the type: a missing key is a type error). Spread the defaults and name the keys without one:
 * `optionKeys<MyOptions>({ ...MY_DEFAULTS, concurrency: undefined })`.
 */
export function optionKeys<T>(all: { [K in keyof T]-?: unknown }): (keyof T & string)[] {
  return Object.keys(all) as (keyof T & string)[];
}

/** Keys of core's {@link RetrieveOptions}, which every method's `retrieve` accepts. */
export const RETRIEVE_OPTION_KEYS: readonly (keyof RetrieveOptions & string)[] = optionKeys<RetrieveOptions>({
  budgetTokens: undefined,
  topK: undefined,
  signal: undefined,
});

/**
 * Throw an {@link InvalidArgumentError} when `options` has a key (own, enumerable; with any value,
 * `undefined` included) that is not in `known` — a list of keys, or an object whose keys are valid
 * (e.g. the defaults). The message names `caller`, each unknown key with the closest valid key
 * when one is close, and the valid keys:
 * `noderag build: unknown option "chunkSzie"; did you mean "chunkSize"? Valid options: …`.
 */
export function assertKnownOptions(
  caller: string,
  options: object | null | undefined,
  known: readonly string[] | ReadonlySet<string> | object,
): void {
  if (options === null || options === undefined) return;
  const valid = [
    ...new Set<string>(
      Array.isArray(known)
        ? known
        : known instanceof Set
          ? (known as ReadonlySet<string>)
          : Object.keys(known),
    ),
  ];
  const unknown = Object.keys(options).filter((key) => !valid.includes(key));
  if (unknown.length === 0) return;
  const named = unknown.map((key) => {
    const suggestion = closestMatch(key, valid);
    return { key, suggestion };
  });
  const list = `Valid options: ${valid.length > 0 ? valid.join(', ') : '(none)'}.`;
  let message: string;
  if (named.length === 1) {
    const { key, suggestion } = named[0]!;
    message = `${caller}: unknown option ${JSON.stringify(key)}${
      suggestion !== undefined ? `; did you mean ${JSON.stringify(suggestion)}?` : '.'
    } ${list}`;
  } else {
    const keys = named
      .map(({ key, suggestion }) =>
        suggestion !== undefined
          ? `${JSON.stringify(key)} (did you mean ${JSON.stringify(suggestion)}?)`
          : JSON.stringify(key),
      )
      .join(', ');
    message = `${caller}: unknown options ${keys}. ${list}`;
  }
  throw new InvalidArgumentError(unknown[0]!, message);
}

/**
 * Throw the {@link InvalidArgumentError} that `method`'s own `build` or `retrieve` (`stage`) throws
 * for an option key it does not declare in `optionKeys`, before any work is done: the message names
 * `<method name> <stage>`, the unknown key with the closest valid key and the valid keys, e.g.
 * `noderag retrieve: unknown option "topk"; did you mean "topK"? Valid options: …`. Nothing is
 * checked for a method without `optionKeys`. Values are the method's to check.
 */
export function assertMethodOptions(
  method: Pick<Method<unknown>, 'name' | 'optionKeys'>,
  stage: 'build' | 'retrieve',
  options: object | null | undefined,
): void {
  const keys = method.optionKeys?.[stage];
  if (keys) assertKnownOptions(`${method.name} ${stage}`, options, keys);
}

/**
 * Merge option layers over `defaults`, later layers first: a key whose value is `undefined` (or
 * absent) in a layer leaves the value beneath it, as graphology's defaults helper does. So
 * `resolveOptions(DEFAULTS, settings.defaults, { chunkSize: flags.chunkSize })` keeps the default
 * when the flag was not given, and `null` (an explicit "none") still overrides.
 */
export function resolveOptions<T extends object>(
  defaults: T,
  ...layers: readonly (Partial<T> | Readonly<Record<string, unknown>> | null | undefined)[]
): T {
  const out = { ...defaults } as Record<string, unknown>;
  for (const layer of layers) {
    if (layer === null || layer === undefined) continue;
    for (const [key, value] of Object.entries(layer)) if (value !== undefined) out[key] = value;
  }
  return out as T;
}

/** A check of one option's value: what it expects (for messages) and the test. */
export interface OptionRule {
  /** What a valid value is, e.g. `'a positive integer'`. */
  readonly expected: string;
  test(value: unknown): boolean;
}

const rule = (expected: string, test: (value: unknown) => boolean): OptionRule => ({ expected, test });
const isNumber = (x: unknown): x is number => typeof x === 'number' && !Number.isNaN(x);

function range(min?: number, max?: number): string {
  if (min !== undefined && max !== undefined) return ` in [${min}, ${max}]`;
  if (min !== undefined) return ` ≥ ${min}`;
  if (max !== undefined) return ` ≤ ${max}`;
  return '';
}

/**
 * Checks of option values, for {@link validateOptions} and {@link checkOption}:
 * `validateOptions('noderag build', o, { k: opt.positiveInt, alpha: opt.fraction, mode: opt.oneOf('a', 'b') })`.
 */
export const opt = {
  /** An integer ≥ 1. */
  positiveInt: rule('a positive integer', (x) => Number.isInteger(x) && (x as number) >= 1),
  /** An integer ≥ 0. */
  nonNegativeInt: rule('a non-negative integer', (x) => Number.isInteger(x) && (x as number) >= 0),
  /** An integer within the bounds. */
  int: (bounds: { min?: number; max?: number } = {}): OptionRule =>
    rule(
      `an integer${range(bounds.min, bounds.max)}`,
      (x) =>
        Number.isInteger(x) &&
        (bounds.min === undefined || (x as number) >= bounds.min) &&
        (bounds.max === undefined || (x as number) <= bounds.max),
    ),
  /** A finite number > 0. */
  positive: rule('a positive number', (x) => isNumber(x) && Number.isFinite(x) && x > 0),
  /** A finite number ≥ 0. */
  nonNegative: rule('a non-negative number', (x) => isNumber(x) && Number.isFinite(x) && x >= 0),
  /** A number in [0, 1]. */
  fraction: rule('a number in [0, 1]', (x) => isNumber(x) && x >= 0 && x <= 1),
  /** A finite number within the bounds (`above`: strictly greater). */
  number: (bounds: { min?: number; max?: number; above?: number } = {}): OptionRule =>
    rule(
      `a number${bounds.above !== undefined ? ` > ${bounds.above}` : ''}${range(bounds.min, bounds.max)}`,
      (x) =>
        isNumber(x) &&
        Number.isFinite(x) &&
        (bounds.min === undefined || x >= bounds.min) &&
        (bounds.max === undefined || x <= bounds.max) &&
        (bounds.above === undefined || x > bounds.above),
    ),
  /** `true` or `false`. */
  boolean: rule('true or false', (x) => typeof x === 'boolean'),
  /** A non-empty string. */
  string: rule('a non-empty string', (x) => typeof x === 'string' && x.length > 0),
  /** An array of non-empty strings. */
  stringList: rule(
    'a list of non-empty strings',
    (x) => Array.isArray(x) && x.every((s) => typeof s === 'string' && s.length > 0),
  ),
  /** One of `values`. */
  oneOf: <V extends string | number | boolean>(...values: readonly V[]): OptionRule =>
    rule(`one of ${values.map((x) => JSON.stringify(x)).join(', ')}`, (x) => values.includes(x as V)),
  /** `null` or a value `inner` accepts. */
  nullable: (inner: OptionRule): OptionRule =>
    rule(`${inner.expected} or null`, (x) => x === null || inner.test(x)),
  /** Absent (`undefined`) or a value `inner` accepts. */
  optional: (inner: OptionRule): OptionRule => rule(inner.expected, (x) => x === undefined || inner.test(x)),
} as const;

/** What a valid value of each of core's {@link RetrieveOptions} is (`signal` is checked where used). */
export const RETRIEVE_OPTION_RULES: { readonly budgetTokens: OptionRule; readonly topK: OptionRule } = {
  budgetTokens: opt.optional(opt.positiveInt),
  topK: opt.optional(opt.positiveInt),
};

function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined)
    return String(value);
  try {
    const json = JSON.stringify(value);
    return json.length > 60 ? `${json.slice(0, 57)}...` : json;
  } catch {
    return typeof value;
  }
}

/**
 * Throw an {@link InvalidArgumentError} unless `rule` accepts `value`, naming the caller, the
 * option and the value: `noderag build: k must be a positive integer (got 0).`
 */
export function checkOption(caller: string, key: string, value: unknown, rule: OptionRule): void {
  if (!rule.test(value)) {
    throw new InvalidArgumentError(key, `${caller}: ${key} must be ${rule.expected} (got ${show(value)}).`);
  }
}

/** Check each option named in `rules` with {@link checkOption} (in the rules' order). */
export function validateOptions<T extends object>(
  caller: string,
  options: T,
  rules: { readonly [K in keyof T]?: OptionRule },
): void {
  for (const [key, r] of Object.entries(rules) as [string, OptionRule | undefined][]) {
    if (r) checkOption(caller, key, (options as Record<string, unknown>)[key], r);
  }
}

/** What {@link resolveCheckedOptions} resolves against. */
export interface OptionsSpec<T extends object> {
  /** The defaults (usually the paper's). */
  defaults: T;
  /** Checks of the resolved values. */
  rules: { readonly [K in keyof T]?: OptionRule };
  /** The keys a layer may hold. @default the keys of `defaults` */
  known?: readonly string[];
}

/**
 * The options of one call, the one way every method resolves them: each layer's keys are checked
 * against the known keys ({@link assertKnownOptions}), the layers are put over the defaults
 * ({@link resolveOptions}: `undefined` never replaces a value) and the result is checked against the
 * rules ({@link validateOptions}). Every failure is an {@link InvalidArgumentError} naming `caller`.
 * Also how `load` checks saved params: `resolveCheckedOptions('x load', SPEC, saved)`.
 */
export function resolveCheckedOptions<T extends object>(
  caller: string,
  spec: OptionsSpec<T>,
  ...layers: readonly (Partial<T> | Readonly<Record<string, unknown>> | null | undefined)[]
): T {
  const known = spec.known ?? Object.keys(spec.defaults);
  for (const layer of layers) assertKnownOptions(caller, layer, known);
  const options = resolveOptions(spec.defaults, ...layers);
  validateOptions(caller, options, spec.rules);
  return options;
}

/**
 * The value of `key` that the last layer naming one names, else `fallback`: how a method reads its
 * settings preset before resolving the rest over it (the preset picks the defaults the other
 * options take). A named value not in `allowed` is an {@link InvalidArgumentError} naming `caller`.
 */
export function namedChoice<V extends string>(
  caller: string,
  key: string,
  layers: readonly (Readonly<Record<string, unknown>> | object | null | undefined)[],
  allowed: readonly V[],
  fallback: V,
): V {
  let choice = fallback;
  for (const layer of layers) {
    const named: unknown = (layer as Record<string, unknown> | null | undefined)?.[key];
    if (named === undefined) continue;
    if (typeof named !== 'string' || !(allowed as readonly string[]).includes(named)) {
      throw new InvalidArgumentError(
        key,
        `${caller}: ${key} must be one of ${allowed.join(', ')} (got ${JSON.stringify(named)}).`,
      );
    }
    choice = named as V;
  }
  return choice;
}

/**
 * What {@link resolvePresetOptions} resolves a method's options by: an {@link OptionsSpec} whose
 * defaults name a settings preset, the preset names, and what each preset sets.
 */
export interface PresetOptionsSpec<T extends { preset: P }, P extends string> extends OptionsSpec<T> {
  /** The preset names, in the order error messages list them. */
  presets: readonly P[];
  /** What `preset` sets over the defaults. */
  presetOptions: (preset: P) => Partial<T>;
}

/**
 * The options of one call of a method with settings presets: the preset named by the last layer
 * that names one ({@link namedChoice}; else the defaults'), then {@link resolveCheckedOptions} over
 * the defaults with that preset's options, and its name, put over them.
 */
export function resolvePresetOptions<T extends { preset: P }, P extends string>(
  caller: string,
  spec: PresetOptionsSpec<T, P>,
  ...layers: readonly (Partial<T> | Readonly<Record<string, unknown>> | null | undefined)[]
): T {
  const preset = namedChoice(caller, 'preset', layers, spec.presets, spec.defaults.preset);
  const defaults: T = { ...spec.defaults, ...spec.presetOptions(preset), preset };
  return resolveCheckedOptions(
    caller,
    { defaults, rules: spec.rules, ...(spec.known ? { known: spec.known } : {}) },
    ...layers,
  );
}

/** The entries of `options` under `keys` whose value is not `undefined` (e.g. a method's query options). */
export function pickOptions<T extends object, K extends keyof T & string>(
  options: T,
  keys: readonly K[],
): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const key of keys) if (options[key] !== undefined) out[key] = options[key];
  return out;
}

/**
 * The query options of a method whose build sets their defaults and whose `retrieve` overrides them
 * (see {@link queryOptions}).
 */
export interface QueryOptions<Q extends object> {
  /** The query option keys. */
  readonly keys: readonly (keyof Q & string)[];
  /** The keys `retrieve` accepts: core's {@link RETRIEVE_OPTION_KEYS}, then the query keys (each once). */
  readonly retrieveKeys: readonly string[];
  /**
   * The query options in effect for one query: the index's `base`, overridden by those given to
   * `retrieve` (`undefined` leaves the index's), checked against the rules.
   * @throws InvalidArgumentError naming `caller`, on an unknown option key or a bad value.
   */
  resolve(caller: string, base: Q, overrides: object): Q;
}

/**
 * The query options kit of a method, from their defaults and rules: the keys, the keys `retrieve`
 * accepts, and the resolution of one query's options over the index's.
 *
 * @example
 * const QUERY = queryOptions({ defaults: MY_QUERY_DEFAULTS, rules: MY_QUERY_RULES });
 * export const MY_RETRIEVE_OPTION_KEYS = QUERY.retrieveKeys;
 * const q = QUERY.resolve('my-rag retrieve', index.options, options);
 */
export function queryOptions<Q extends object>(spec: {
  defaults: Q;
  rules: { readonly [K in keyof Q]-?: OptionRule };
}): QueryOptions<Q> {
  const keys = Object.keys(spec.defaults) as (keyof Q & string)[];
  const retrieveKeys = [...new Set<string>([...RETRIEVE_OPTION_KEYS, ...keys])];
  return {
    keys,
    retrieveKeys,
    resolve(caller, base, overrides) {
      assertKnownOptions(caller, overrides, retrieveKeys);
      return resolveCheckedOptions<Q>(
        caller,
        { defaults: spec.defaults, rules: spec.rules },
        pickOptions(base, keys),
        pickOptions(overrides as Q, keys),
      );
    },
  };
}
