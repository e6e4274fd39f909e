import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBuildContext, IndexFormatError } from '@grag/core';
import { createScriptedEmbedder, formatIndexFuzzReport, fuzzIndexLoad } from '@grag/core/test';
import { createOfflineTasks } from '@grag/offline';
import { describe, expect, it } from 'vitest';
import { createDaRag } from '../src/index.js';
import { CORPUS } from './corpus.js';

const method = createDaRag();
const context = () =>
  createBuildContext({ embedder: createScriptedEmbedder({ dimensions: 16 }), tasks: createOfflineTasks() });
const DOCS = CORPUS.slice(0, 4);

async function saved(prefix: string): Promise<string> {
  const dir = join(await mkdtemp(join(tmpdir(), prefix)), 'idx');
  await method.save(await method.build(DOCS, context(), { chunking: 'fixed' }), dir);
  return dir;
}

describe('da-rag index loading', () => {
  it('refuses a file of the wrong shape with an IndexFormatError naming it', async () => {
    for (const [name, content, problem] of [
      ['graph.json', '{"nodes": 5}', /entities is missing/],
      [
        'chunks.json',
        '{"chunks": [], "texts": ["x"], "titles": [], "descriptions": []}',
        /texts has 1 entries/,
      ],
    ] as const) {
      const dir = await saved('grag-da-shape-');
      const file = join(dir, name);
      await writeFile(file, content);
      const error = await method.load(dir, context()).catch((e: unknown) => e);
      expect(IndexFormatError.isInstance(error), String(error)).toBe(true);
      expect((error as Error).message).toContain(file);
      expect((error as Error).message).toMatch(problem);
      expect((error as Error).message).toMatch(/rebuild the index\.$/);
    }
  });

  it('fuzz: a damaged index is refused with a GragError, never a crash', async () => {
    const dir = await saved('grag-da-fuzz-');
    const report = await fuzzIndexLoad({
      dir,
      cases: 1000,
      seed: 61,
      load: (d) => method.load(d, context()),
      use: (index) => method.retrieve(index, 'Who founded the shipyard?'),
    });
    console.log(`da-rag: ${formatIndexFuzzReport(report)}`);
    expect(report.failures, formatIndexFuzzReport(report)).toEqual([]);
  }, 120_000);
});
