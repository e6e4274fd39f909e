import { InvalidArgumentError } from './errors.js';
import type { RetrieveOptions } from './method.js';

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
