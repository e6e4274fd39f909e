import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBuildContext, type Document, IndexFormatError } from '@grag/core';
import { createScriptedEmbedder, formatIndexFuzzReport, fuzzIndexLoad } from '@grag/core/test';
import { createOfflineTasks } from '@grag/offline';
import { describe, expect, it } from 'vitest';
import { createKetRag, type KetRagVariant } from '../src/index.js';

const DOCS: Document[] = [
  {
    id: 'institute',
    title: 'Orsa Marine Institute',
    text: 'Helga Brandt founded the Orsa Marine Institute in 1921. The institute studies the Veskan Strait and its seals.',
  },
  {
    id: 'harbour',
    title: 'Orsa Harbour',
    text: 'Orsa Harbour lies on the Veskan Strait. Ferries from the Kessler Shipyard dock at Orsa Harbour every morning.',
  },
  {
    id: 'shipyard',
    title: 'Kessler Shipyard',
    text: 'Anton Kessler founded the Kessler Shipyard in 1881. The shipyard built ferries for Orsa and for Helga Brandt.',
  },
];
// Offline tasks; a small scripted embedder keeps each load fast (naive-dense fuzzes a fitted
// embedder's state file).
const context = () =>
  createBuildContext({ embedder: createScriptedEmbedder({ dimensions: 16 }), tasks: createOfflineTasks() });

async function saved(variant: KetRagVariant, prefix: string): Promise<string> {
  const dir = join(await mkdtemp(join(tmpdir(), prefix)), 'idx');
  const method = createKetRag({ variant });
  await method.save(await method.build(DOCS, context(), { chunking: 'document', subChunkSize: 16 }), dir);
  return dir;
}

// 'ket-rag-u' writes every file (skeleton, keyword channel, sub-chunk vectors); 'knng-rag' the KNN
// graph and chunk vectors.
describe.each(['ket-rag-u', 'knng-rag'] as const)('ket-rag (%s) index loading', (variant) => {
  const method = createKetRag({ variant });

  it('refuses a file of the wrong shape with an IndexFormatError naming it', async () => {
    const dir = await saved(variant, 'grag-ket-shape-');
    const file = join(dir, 'units.json');
    await writeFile(file, JSON.stringify({ chunks: {}, core: 5 }));
    const error = await method.load(dir, context()).catch((e: unknown) => e);
    expect(IndexFormatError.isInstance(error), String(error)).toBe(true);
    expect((error as Error).message).toContain(file);
    expect((error as Error).message).toMatch(/rebuild the index\.$/);
  });

  it('fuzz: a damaged index is refused with a GragError, never a crash', async () => {
    const dir = await saved(variant, 'grag-ket-fuzz-');
    const report = await fuzzIndexLoad({
      dir,
      cases: 1000,
      seed: variant === 'ket-rag-u' ? 51 : 52,
      load: (d) => method.load(d, context()),
      use: (index) => method.retrieve(index, 'Who founded the Orsa Marine Institute?'),
    });
    console.log(`ket-rag (${variant}): ${formatIndexFuzzReport(report)}`);
    expect(report.failures, formatIndexFuzzReport(report)).toEqual([]);
    if (variant === 'ket-rag-u') {
      expect(report.files).toEqual(
        expect.arrayContaining([
          'entities.vec',
          'keywords.json',
          'keywords.vec',
          'skeleton.json',
          'subchunks.f32',
        ]),
      );
    } else {
      expect(report.files).toContain('chunks.vec');
    }
  }, 120_000);
});
