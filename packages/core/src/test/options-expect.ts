/** The option keys every method's `retrieve` must check. */
import { expect } from 'vitest';
import type { Method, RetrieveOptions } from '../contracts/method.js';

/**
 * Expect `method` to retrieve at least one item for `query` from `index` with `options` (its own
 * retrieve options, written out by hand, and `topK`) plus the options every method takes, a budget
 * of 2000 tokens and an abort signal; and to refuse the retrieve option misspelled as `typo[0]`
 * (given the value `typo[2]`) with an error naming the method and suggesting `typo[1]`.
 */
export async function expectRetrieveOptionKeys<Index>(
  method: Pick<Method<Index>, 'name' | 'retrieve'>,
  index: Index,
  query: string,
  options: Record<string, unknown>,
  typo: readonly [wrong: string, right: string, value: unknown],
): Promise<void> {
  const r = await method.retrieve(index, query, {
    ...options,
    budgetTokens: 2000,
    signal: new AbortController().signal,
  } as RetrieveOptions);
  expect(r.items.length).toBeGreaterThan(0);
  const [wrong, right, value] = typo;
  await expect(method.retrieve(index, 'Who?', { [wrong]: value } as RetrieveOptions)).rejects.toThrow(
    `${method.name} retrieve: unknown option "${wrong}"; did you mean "${right}"?`,
  );
}
