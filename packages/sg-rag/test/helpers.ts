export * from '../src/index.js';

/** Path index options small tests share (no middle node skipped). */
export const PATH_INDEX_TEST_DEFAULTS = {
  dominanceDimensions: 2,
  seed: 2022,
  maxMiddleDegree: 1000,
  nodeCapacity: 4,
} as const;
