/**
 * A small kit of composable shape checkers for data read back from disk (index files). Each
 * checker returns the value typed, or throws naming the path of the first bad part
 * (`chunks[3].text is not a string`); {@link validate} turns that into an
 * {@link IndexFormatError} naming the file and ending with "rebuild the index.".
 *
 * @example
 * ```ts
 * const units = v.object({ chunks: v.array(v.object({ id: v.string(), tokens: v.int({ min: 0 }) })) });
 * const { chunks } = validate(units, JSON.parse(text), '/idx/chunks.json');
 * ```
 */
import { IndexFormatError } from './contracts/errors.js';

/** A checker: `parse` returns `value` typed as `T`, or throws a {@link ShapeIssue}. */
export interface Schema<T> {
  /** What the checker expects, for messages (`'a string'`). */
  readonly expected: string;
  /** Check `value` found at `at` (a path such as `chunks[3].text`; `''` for the root). */
  parse(value: unknown, at: string): T;
}

/** The type a {@link Schema} checks for. */
export type Infer<S> = S extends Schema<infer T> ? T : never;

/** What a checker throws: the path of the bad part and what is wrong with it. */
export class ShapeIssue extends Error {
  readonly at: string;
  readonly problem: string;
  constructor(at: string, problem: string) {
    super(`${at === '' ? 'the file' : at} ${problem}`);
    this.name = 'ShapeIssue';
    this.at = at;
    this.problem = problem;
  }
}

/** Throw a {@link ShapeIssue} for the part at `at`. */
export function shapeIssue(at: string, problem: string): never {
  throw new ShapeIssue(at, problem);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return value.length > 24 ? 'a string' : JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return typeof value === 'object' ? 'an object' : typeof value;
}

function not(at: string, expected: string, value: unknown): never {
  throw new ShapeIssue(at, `is not ${expected} (got ${describe(value)})`);
}

/** Whether `name` is written `a.name` in a path (else `a["name"]`). */
const isIdentifier = (name: string): boolean => /^[A-Za-z_$][\w$]*$/.test(name);

const key = (at: string, name: string, identifier = isIdentifier(name)): string =>
  identifier ? (at === '' ? name : `${at}.${name}`) : `${at}[${JSON.stringify(name)}]`;

function make<T>(expected: string, parse: (value: unknown, at: string) => T): Schema<T> {
  return { expected, parse };
}

/** Bounds of {@link v.number} and {@link v.int}. */
export interface NumberBounds {
  min?: number;
  max?: number;
}

function bounded(expected: string, test: (x: number) => boolean, bounds: NumberBounds): Schema<number> {
  const { min, max } = bounds;
  const full =
    min !== undefined && max !== undefined
      ? `${expected} in [${min}, ${max}]`
      : min !== undefined
        ? `${expected} ≥ ${min}`
        : max !== undefined
          ? `${expected} ≤ ${max}`
          : expected;
  return make(full, (value, at) => {
    if (typeof value !== 'number' || !test(value)) not(at, full, value);
    if ((min !== undefined && value < min) || (max !== undefined && value > max)) not(at, full, value);
    return value;
  });
}

/** The checkers. Compose them: `v.array(v.object({ id: v.string() }))`. */
export const v = {
  /** Any value, unchecked. */
  unknown: (): Schema<unknown> => make('anything', (value) => value),
  /** A string. */
  string: (): Schema<string> =>
    make('a string', (value, at) => (typeof value === 'string' ? value : not(at, 'a string', value))),
  /** A finite number, optionally within bounds. */
  number: (bounds: NumberBounds = {}): Schema<number> => bounded('a finite number', Number.isFinite, bounds),
  /** A safe integer, optionally within bounds. */
  int: (bounds: NumberBounds = {}): Schema<number> => bounded('an integer', Number.isSafeInteger, bounds),
  /** A boolean. */
  boolean: (): Schema<boolean> =>
    make('a boolean', (value, at) => (typeof value === 'boolean' ? value : not(at, 'a boolean', value))),
  /** One of the given primitive values. */
  literal: <const L extends readonly (string | number | boolean | null)[]>(
    ...values: L
  ): Schema<L[number]> => {
    const expected = values.map((x) => JSON.stringify(x)).join(' or ');
    return make(expected, (value, at) =>
      values.includes(value as L[number]) ? (value as L[number]) : not(at, expected, value),
    );
  },
  /** An array whose every element passes `of`; `length` pins its length. */
  array: <T>(of: Schema<T>, options: { length?: number; minLength?: number } = {}): Schema<T[]> =>
    make(`an array of ${of.expected}`, (value, at) => {
      if (!Array.isArray(value)) not(at, 'an array', value);
      if (options.length !== undefined && value.length !== options.length) {
        shapeIssue(at, `has ${value.length} elements, expected ${options.length}`);
      }
      if (options.minLength !== undefined && value.length < options.minLength) {
        shapeIssue(at, `has ${value.length} elements, expected at least ${options.minLength}`);
      }
      for (let i = 0; i < value.length; i++) of.parse(value[i], `${at}[${i}]`);
      return value as T[];
    }),
  /** A fixed-length array of elements of the given types; trailing `v.optional` elements may be left out. */
  tuple: <const S extends readonly Schema<unknown>[]>(
    ...items: S
  ): Schema<{ -readonly [K in keyof S]: Infer<S[K]> }> => {
    let required = items.length;
    while (required > 0 && (items[required - 1] as OptionalSchema<unknown>).optional) required--;
    const expected = required === items.length ? `${items.length}` : `${required} to ${items.length}`;
    return make(`a tuple of ${expected} elements`, (value, at) => {
      if (!Array.isArray(value)) not(at, 'an array', value);
      if (value.length < required || value.length > items.length)
        shapeIssue(at, `has ${value.length} elements, expected ${expected}`);
      for (let i = 0; i < items.length; i++) items[i]?.parse(value[i], `${at}[${i}]`);
      return value as { -readonly [K in keyof S]: Infer<S[K]> };
    });
  },
  /** A plain object used as a map: every own value passes `of`. */
  record: <T>(of: Schema<T>): Schema<Record<string, T>> =>
    make(`an object of ${of.expected}`, (value, at) => {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) not(at, 'an object', value);
      for (const [name, item] of Object.entries(value)) of.parse(item, key(at, name));
      return value as Record<string, T>;
    }),
  /** An object with (at least) the given fields; fields checked by `v.optional` may be missing. */
  object: <F extends Record<string, Schema<unknown>>>(fields: F): Schema<ObjectOf<F>> => {
    // The fields and how their paths are written, once (not for every object checked).
    const entries = Object.entries(fields).map(([name, field]) => ({
      name,
      field,
      optional: (field as OptionalSchema<unknown>).optional === true,
      identifier: isIdentifier(name),
    }));
    return make('an object', (value, at) => {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) not(at, 'an object', value);
      const record = value as Record<string, unknown>;
      for (const { name, field, optional, identifier } of entries) {
        const item = Object.hasOwn(record, name) ? record[name] : undefined;
        if (item === undefined && !optional) shapeIssue(key(at, name, identifier), 'is missing');
        field.parse(item, key(at, name, identifier));
      }
      return value as ObjectOf<F>;
    });
  },
  /** `of`, or missing / `undefined`. */
  optional: <T>(of: Schema<T>): OptionalSchema<T> => ({
    expected: `${of.expected} or nothing`,
    optional: true,
    parse: (value, at) => (value === undefined ? undefined : of.parse(value, at)),
  }),
  /** `of`, or `null`. */
  nullable: <T>(of: Schema<T>): Schema<T | null> =>
    make(`${of.expected} or null`, (value, at) => (value === null ? null : of.parse(value, at))),
  /** The first of `options` that accepts the value. */
  union: <const S extends readonly Schema<unknown>[]>(...options: S): Schema<Infer<S[number]>> => {
    const expected = options.map((o) => o.expected).join(' or ');
    return make(expected, (value, at) => {
      for (const option of options) {
        try {
          return option.parse(value, at) as Infer<S[number]>;
        } catch (error) {
          if (!(error instanceof ShapeIssue)) throw error;
        }
      }
      return not(at, expected, value);
    });
  },
  /** `of`, then `check`, which returns a problem (`'is not sorted'`) or `undefined` when fine. */
  refine: <T>(of: Schema<T>, check: (value: T, at: string) => string | undefined): Schema<T> =>
    make(of.expected, (value, at) => {
      const parsed = of.parse(value, at);
      const problem = check(parsed, at);
      if (problem !== undefined) shapeIssue(at, problem);
      return parsed;
    }),
} as const;

/** A schema made by {@link v.optional}. */
export interface OptionalSchema<T> extends Schema<T | undefined> {
  readonly optional: true;
}

type OptionalKeys<F> = { [K in keyof F]: F[K] extends OptionalSchema<unknown> ? K : never }[keyof F];
type RequiredKeys<F> = Exclude<keyof F, OptionalKeys<F>>;
type Simplify<T> = { [K in keyof T]: T[K] } & {};
/** The object type {@link v.object} checks for. */
export type ObjectOf<F extends Record<string, Schema<unknown>>> = Simplify<
  { [K in RequiredKeys<F>]: Infer<F[K]> } & { [K in OptionalKeys<F>]?: Infer<F[K]> }
>;

/** The message of an index file error: names the file, ends with "rebuild the index.". */
export function indexFileMessage(file: string, problem: string): string {
  return `${file}: ${problem}; rebuild the index.`;
}

/** An {@link IndexFormatError} for `file` saying what is wrong (`nodes[3].id is not a string`). */
export function indexFileError(
  file: string,
  problem: string,
  options?: { cause?: unknown },
): IndexFormatError {
  return new IndexFormatError(file, undefined, indexFileMessage(file, problem), options);
}

/**
 * Check `value` (read from `file`) against `schema` and return it typed.
 * @throws IndexFormatError naming `file` and the bad part, ending with "rebuild the index.".
 */
export function validate<T>(schema: Schema<T>, value: unknown, file: string): T {
  try {
    return schema.parse(value, '');
  } catch (error) {
    if (error instanceof ShapeIssue) throw indexFileError(file, error.message, { cause: error });
    throw error;
  }
}

/**
 * Run `check` (cross-file or cross-field consistency checks that call {@link shapeIssue}) and turn
 * a failure into an {@link IndexFormatError} naming `file`.
 */
export function checkIndexFile<T>(file: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof ShapeIssue) throw indexFileError(file, error.message, { cause: error });
    throw error;
  }
}

/**
 * Split little-endian float32 `bytes` read from `file` into `rows` vectors of `dimensions`,
 * refusing a byte length other than `rows × dimensions × 4` and (unless `allowNonFinite`)
 * non-finite components.
 * @throws IndexFormatError naming `file`.
 */
export function float32Rows(
  bytes: Uint8Array,
  rows: number,
  dimensions: number,
  file: string,
  options: { allowNonFinite?: boolean } = {},
): Float32Array[] {
  if (!Number.isSafeInteger(dimensions) || dimensions <= 0) {
    throw indexFileError(file, `dimensions ${String(dimensions)} is not a positive integer`);
  }
  if (bytes.byteLength % (4 * dimensions) !== 0) {
    throw indexFileError(
      file,
      `holds ${bytes.byteLength} bytes, not a whole number of ${dimensions}-dimensional float32 rows`,
    );
  }
  const found = bytes.byteLength / (4 * dimensions);
  if (found !== rows) throw indexFileError(file, `holds ${found} vectors, expected ${rows}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: Float32Array[] = [];
  for (let r = 0; r < rows; r++) {
    const row = new Float32Array(dimensions);
    for (let j = 0; j < dimensions; j++) {
      const x = view.getFloat32((r * dimensions + j) * 4, true);
      if (!options.allowNonFinite && !Number.isFinite(x)) {
        throw indexFileError(file, `vector ${r} has a non-finite component ${j}`);
      }
      row[j] = x;
    }
    out.push(row);
  }
  return out;
}
