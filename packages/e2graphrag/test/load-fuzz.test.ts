import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBuildContext, createPromptTasks, type Document, IndexFormatError } from '@grag/core';
import {
  createScriptedChatModel,
  createScriptedEmbedder,
  formatIndexFuzzReport,
  fuzzIndexLoad,
} from '@grag/core/test';
import { describe, expect, it } from 'vitest';
import { createE2GraphRag, entityExtractorFromFunction } from '../src/index.js';

const capitalized = entityExtractorFromFunction((s) => s.match(/\b[A-Z][a-z]+\b/g) ?? [], {
  id: 'capitalized',
});
const method = createE2GraphRag({
  extractor: capitalized,
  defaults: { chunking: 'document', includeTitle: false },
});
const context = () =>
  createBuildContext({
    embedder: createScriptedEmbedder({ dimensions: 16 }),
    tasks: createPromptTasks(createScriptedChatModel((_call, i) => `overview ${i + 1} of Paris and Berlin`)),
  });
const docs: Document[] = [
  'Paris is the capital of France. Paris sits on the Seine.',
  'Berlin is the capital of Germany. Berlin sits on the Spree.',
  'The Nile flows through Egypt into the Mediterranean.',
  'Marie Curie worked in Paris with Pierre Curie.',
  'Albert Einstein lived in Berlin before Princeton.',
].map((text, i) => ({ id: `d${i}`, text }));

async function saved(prefix: string): Promise<string> {
  const dir = join(await mkdtemp(join(tmpdir(), prefix)), 'idx');
  await method.save(await method.build(docs, context()), dir);
  return dir;
}

describe('e2graphrag index loading', () => {
  it('refuses a file of the wrong shape with an IndexFormatError naming it', async () => {
    const dir = await saved('grag-e2-shape-');
    for (const [name, content] of [
      ['graph.json', '{"nodes": 5}'],
      ['tree.json', '[]'],
    ] as const) {
      const file = join(dir, name);
      await writeFile(file, content);
      const error = await method.load(dir, context()).catch((e: unknown) => e);
      expect(IndexFormatError.isInstance(error), String(error)).toBe(true);
      expect((error as Error).message).toContain(file);
      expect((error as Error).message).toMatch(/rebuild the index\.$/);
      await method.save(await method.build(docs, context()), dir);
    }
  });

  it('fuzz: a damaged index is refused with a GragError, never a crash', async () => {
    const dir = await saved('grag-e2-fuzz-');
    const report = await fuzzIndexLoad({
      dir,
      cases: 1000,
      seed: 21,
      load: (d) => method.load(d, context()),
      use: (index) => method.retrieve(index, 'Who worked in Paris with Pierre Curie?'),
    });
    console.log(`e2graphrag: ${formatIndexFuzzReport(report)}`);
    expect(report.failures, formatIndexFuzzReport(report)).toEqual([]);
  }, 120_000);
});
