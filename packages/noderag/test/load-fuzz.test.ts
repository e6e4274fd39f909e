import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IndexFormatError } from '@grag/core';
import { formatIndexFuzzReport, fuzzIndexLoad } from '@grag/core/test';
import { describe, expect, it } from 'vitest';
import { nodeRag } from '../src/index.js';
import { DOCS, scriptedContext } from './fixtures.js';

async function saved(prefix: string): Promise<string> {
  const dir = join(await mkdtemp(join(tmpdir(), prefix)), 'idx');
  await nodeRag.save(await nodeRag.build(DOCS, scriptedContext().ctx, { chunking: 'document' }), dir);
  return dir;
}

describe('noderag index loading', () => {
  it('refuses a file of the wrong shape with an IndexFormatError naming it', async () => {
    for (const [name, content] of [
      ['graph.json', '{"nodes": 5}'],
      ['chunks.json', '[]'],
      ['build-stats.json', 'null'],
    ] as const) {
      const dir = await saved('grag-noderag-shape-');
      const file = join(dir, name);
      await writeFile(file, content);
      const error = await nodeRag.load(dir, scriptedContext().ctx).catch((e: unknown) => e);
      expect(IndexFormatError.isInstance(error), String(error)).toBe(true);
      expect((error as Error).message).toContain(file);
      expect((error as Error).message).toMatch(/rebuild the index\.$/);
    }
  });

  it('fuzz: a damaged index is refused with a GragError, never a crash', async () => {
    const dir = await saved('grag-noderag-fuzz-');
    const report = await fuzzIndexLoad({
      dir,
      cases: 1000,
      seed: 41,
      load: (d) => nodeRag.load(d, scriptedContext().ctx),
      use: (index) => nodeRag.retrieve(index, 'Who founded the Kessler Shipyard?'),
    });
    console.log(`noderag: ${formatIndexFuzzReport(report)}`);
    expect(report.failures, formatIndexFuzzReport(report)).toEqual([]);
  }, 120_000);
});
