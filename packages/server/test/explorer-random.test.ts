import { mulberry32 } from '@grag/core/kit';
import { describe, expect, it } from 'vitest';
import { seeded } from '../explorer/src/layout.js';

describe("the explorer's seeded generator", () => {
  it.each([0, 1, 42, 2025, 0x9e3779b9, -1])(
    'draws the same stream as @grag/core mulberry32 for seed %s',
    (seed) => {
      const explorer = seeded(seed);
      const core = mulberry32(seed);
      for (let i = 0; i < 1000; i++) expect(explorer()).toBe(core());
    },
  );
});
