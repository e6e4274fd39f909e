import { readdir, readFile } from 'node:fs/promises';
import { GragError, IndexFormatError } from '@grag/core';
import { HnswIndex, HnswUnavailableError, hnswAvailability, hnswIndexFactory } from '@grag/hnsw';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

describe('without the native addon (GRAG_DISABLE_NATIVE=1)', () => {
  const before = process.env.GRAG_DISABLE_NATIVE;
  beforeEach(() => {
    process.env.GRAG_DISABLE_NATIVE = '1';
  });
  afterEach(() => {
    if (before === undefined) delete process.env.GRAG_DISABLE_NATIVE;
    else process.env.GRAG_DISABLE_NATIVE = before;
  });

  it('reports HNSW as unavailable, with the reason and how to enable it', () => {
    const availability = hnswAvailability();
    expect(availability.available).toBe(false);
    if (availability.available) return;
    expect(availability.error.reason).toMatch(/GRAG_DISABLE_NATIVE/);
    expect(availability.error.message).toMatch(
      /pnpm add <package> --allow-build=hnswlib-node.*pnpm install --force/,
    );
    expect(availability.error.message).not.toContain('\n');
  });

  it('throws HnswUnavailableError (a GragError) on create and load, not a native stack trace', async () => {
    const error = (() => {
      try {
        new HnswIndex({ dimensions: 3 });
      } catch (e) {
        return e;
      }
    })();
    expect(HnswUnavailableError.isInstance(error)).toBe(true);
    expect(GragError.isInstance(error)).toBe(true);
    expect(() => hnswIndexFactory().create({ dimensions: 3 })).toThrow(HnswUnavailableError);
    // Loading says the addon is missing rather than blaming the file.
    const loadError = await hnswIndexFactory()
      .load('/nonexistent/vectors.hnsw')
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(HnswUnavailableError.isInstance(loadError)).toBe(true);
    expect(IndexFormatError.isInstance(loadError)).toBe(false);
  });

  it('is available again once the switch is off', () => {
    delete process.env.GRAG_DISABLE_NATIVE;
    expect(hnswAvailability()).toEqual({ available: true });
  });
});

it('no module of @grag/hnsw imports hnswlib-node at the top level (only types)', async () => {
  const dir = new URL('../src/', import.meta.url);
  for (const file of await readdir(dir)) {
    const text = await readFile(new URL(file, dir), 'utf8');
    for (const line of text.split('\n').filter((l) => /from 'hnswlib-node'/.test(l))) {
      expect(line, file).toMatch(/^import type /);
    }
  }
});
