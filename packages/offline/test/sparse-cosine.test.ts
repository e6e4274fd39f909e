/**
 * Cosines with sparse vectors equal core's `cosineSimilarity` on the dense ones, bit for bit: zero
 * components (and `-0`) add nothing to either sum.
 */
import { cosineSimilarity } from '@grag/core/kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sparseCosine, sparseOf, sumOfSquares } from '../src/sparse-cosine.js';

/** Components of embedding-like vectors: many zeros, both signs of zero, small and large values. */
const component = fc.oneof(
  { weight: 5, arbitrary: fc.constant(0) },
  { weight: 1, arbitrary: fc.constant(-0) },
  { weight: 4, arbitrary: fc.double({ min: -1e3, max: 1e3, noNaN: true }) },
  { weight: 1, arbitrary: fc.double({ min: -1e-150, max: 1e-150, noNaN: true }) },
  { weight: 1, arbitrary: fc.float({ noNaN: true, noDefaultInfinity: true }).map((x) => Math.fround(x)) },
);

describe('sparseCosine', () => {
  it('equals cosineSimilarity on the dense vectors', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 40 })
          .chain((d) =>
            fc.tuple(
              fc.array(component, { minLength: d, maxLength: d }),
              fc.array(component, { minLength: d, maxLength: d }),
            ),
          ),
        ([q, v]) => {
          expect(Object.is(sparseCosine(q, sumOfSquares(q), sparseOf(v)), cosineSimilarity(q, v))).toBe(true);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('keeps only the components that are not zero, in order', () => {
    expect(sparseOf([0, 2, -0, -1.5, 0])).toEqual({
      at: Uint32Array.of(1, 3),
      values: Float64Array.of(2, -1.5),
    });
    expect(sparseCosine([1, 0], 1, sparseOf([0, 0]))).toBe(0);
    expect(sparseCosine([3, 4], 25, sparseOf([3, 4]))).toBe(1);
  });
});
