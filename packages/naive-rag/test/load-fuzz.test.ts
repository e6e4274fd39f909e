import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBuildContext, type Document, IndexFormatError, type Method, type TaskSuite } from '@grag/core';
import { formatIndexFuzzReport, fuzzIndexLoad } from '@grag/core/test';
import { createOfflineEmbedder } from '@grag/offline';
import { describe, expect, it } from 'vitest';
import { bm25Rag, denseRag } from '../src/index.js';

const docs: Document[] = [
  { id: 'paris', title: 'Paris', text: 'Paris is the capital of France and sits on the Seine.' },
  { id: 'berlin', title: 'Berlin', text: 'Berlin is the capital of Germany and sits on the Spree.' },
  {
    id: 'nile',
    title: 'Nile',
    text: 'The Nile is a long river in Africa that flows into the Mediterranean.',
  },
];
const context = () =>
  createBuildContext({
    embedder: createOfflineEmbedder('tfidf', { dimensions: 32 }),
    tasks: {} as TaskSuite,
  });

function loadSuite<I, O>(method: Method<I, O>): void {
  const build = () => method.build(docs, context(), { chunking: 'document' } as unknown as Partial<O>);
  describe(`${method.name} index loading`, () => {
    it('refuses a file of the wrong shape with an IndexFormatError naming it', async () => {
      const dir = join(await mkdtemp(join(tmpdir(), 'grag-naive-shape-')), 'idx');
      await method.save(await build(), dir);
      const file = join(dir, 'chunks.json');
      await writeFile(file, JSON.stringify({ chunks: 5, texts: [] }));
      const error = await method.load(dir, context()).catch((e: unknown) => e);
      expect(IndexFormatError.isInstance(error)).toBe(true);
      expect((error as Error).message).toContain(file);
      expect((error as Error).message).toMatch(/chunks is not an array.*rebuild the index\.$/);
      await writeFile(file, JSON.stringify({ chunks: [], texts: ['extra'] }));
      const mismatch = await method.load(dir, context()).catch((e: unknown) => e);
      expect(IndexFormatError.isInstance(mismatch)).toBe(true);
      expect((mismatch as Error).message).toContain(file);
      expect((mismatch as Error).message).toMatch(/rebuild the index\.$/);
    });

    it('fuzz: a damaged index is refused with a GragError, never a crash', async () => {
      const dir = join(await mkdtemp(join(tmpdir(), 'grag-naive-fuzz-')), 'idx');
      await method.save(await build(), dir);
      const report = await fuzzIndexLoad({
        dir,
        cases: 1000,
        seed: 11,
        load: (d) => method.load(d, context()),
        use: (index) => method.retrieve(index, 'capital of Germany on the Spree'),
      });
      console.log(`${method.name}: ${formatIndexFuzzReport(report)}`);
      expect(report.failures, formatIndexFuzzReport(report)).toEqual([]);
    }, 120_000);
  });
}

loadSuite(denseRag);
loadSuite(bm25Rag);
