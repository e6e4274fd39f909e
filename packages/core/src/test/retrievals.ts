/** A comparison of retrievals for tests: two indexes that must retrieve the same things. */
import { expect } from 'vitest';
import type { Retrieval } from '../contracts/types.js';

/**
 * Expect `got` to retrieve what `want` retrieves, query by query: as many retrievals, the same
 * items in the same order (ids, kinds and sources), scores within `scoreTolerance`, and the same
 * context. Traces (timings) are not compared.
 */
export function expectSameRetrievals(
  got: readonly Retrieval[],
  want: readonly Retrieval[],
  options: { scoreTolerance?: number } = {},
): void {
  const tolerance = options.scoreTolerance ?? 1e-9;
  expect(got).toHaveLength(want.length);
  got.forEach((r, i) => {
    const w = want[i]!;
    expect(r.items.map((x) => [x.id, x.kind, x.source])).toEqual(
      w.items.map((x) => [x.id, x.kind, x.source]),
    );
    r.items.forEach((item, j) => {
      expect(Math.abs(item.score - w.items[j]!.score)).toBeLessThanOrEqual(tolerance);
    });
    expect(r.context).toBe(w.context);
  });
}

/**
 * Expect `got` to retrieve exactly what `want` retrieves, query by query: every field of every
 * item (scores equal), the context and the token count, and what `also` picks of each retrieval
 * (a trace's answers, say). For an index saved and loaded again, which must not change a bit.
 */
export function expectIdenticalRetrievals(
  got: readonly Retrieval[],
  want: readonly Retrieval[],
  also?: (r: Retrieval) => unknown,
): void {
  const view = (r: Retrieval) => ({
    items: r.items,
    context: r.context,
    tokens: r.tokens,
    ...(also ? { also: also(r) } : {}),
  });
  expect(got.map(view)).toEqual(want.map(view));
}
