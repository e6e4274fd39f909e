/**
 * The error a call is refused with, for tests that assert on its message or fields.
 */
import { expect } from 'vitest';

/**
 * Run `fn`, expect it to throw an error of the grag error class `kind` (checked with
 * `kind.isInstance`, as across duplicated installs), and return that error; a `fn` that returns
 * fails the test.
 *
 * @example
 * ```ts
 * expect(refusalOf(() => createThing({ size: -1 }), InvalidArgumentError).message).toBe('…');
 * ```
 */
export function refusalOf<E extends Error>(
  fn: () => unknown,
  kind: { isInstance(error: unknown): error is E },
): E {
  try {
    fn();
  } catch (error) {
    expect(kind.isInstance(error)).toBe(true);
    return error as E;
  }
  throw new Error('expected a refusal, but the call returned');
}
